//! Character classes that hide text from a person (invisible and format
//! characters, bidi controls, Unicode tags, variation selectors, control
//! characters, terminal escape sequences), and the two ways out of them:
//! [`clean`] removes them, [`visible`] names them for a reviewer.

use std::fmt::Write as _;

/// Longest output of [`visible`], in characters (the rest is counted, not shown).
pub const MAX_VISIBLE_CHARS: usize = 16 * 1024;

/// What a hidden character is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// Zero-width and other format (Cf) or blank-rendering characters.
    Invisible,
    /// U+2028 / U+2029: a line break to some renderers, nothing to others.
    LineSeparator,
    /// Bidirectional formatting controls.
    Bidi,
    /// U+E0000..U+E007F: invisible copies of ASCII.
    Tag,
    /// Variation selectors.
    VariationSelector,
    /// A carriage return (alone it lets a terminal overwrite the line).
    CarriageReturn,
    /// ESC or a C1 introducer of a terminal control sequence.
    Escape,
    /// Any other C0 / C1 control character, and DEL.
    Control,
}

/// The class of `c`, or `None` for an ordinary character (`\n` and `\t`
/// included).
#[inline]
pub(crate) fn classify(c: char) -> Option<Hidden> {
    let u = c as u32;
    if u < 0x80 {
        return match c {
            '\n' | '\t' => None,
            '\r' => Some(Hidden::CarriageReturn),
            '\u{1b}' => Some(Hidden::Escape),
            '\0'..='\u{1f}' | '\u{7f}' => Some(Hidden::Control),
            _ => None,
        };
    }
    classify_non_ascii(c)
}

fn classify_non_ascii(c: char) -> Option<Hidden> {
    Some(match c {
        // C1 introducers of control sequences (CSI, OSC, DCS, SOS, PM, APC).
        '\u{9b}' | '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => Hidden::Escape,
        '\u{80}'..='\u{9f}' => Hidden::Control,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            Hidden::Bidi
        }
        '\u{E0000}'..='\u{E007F}' => Hidden::Tag,
        '\u{FE00}'..='\u{FE0F}'
        | '\u{E0100}'..='\u{E01EF}'
        | '\u{180B}'..='\u{180D}'
        | '\u{180F}' => Hidden::VariationSelector,
        '\u{2028}' | '\u{2029}' => Hidden::LineSeparator,
        // Format characters (general category Cf) not named above.
        '\u{00AD}'
        | '\u{0600}'..='\u{0605}'
        | '\u{06DD}'
        | '\u{070F}'
        | '\u{0890}'..='\u{0891}'
        | '\u{08E2}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2064}'
        | '\u{206A}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{110BD}'
        | '\u{110CD}'
        | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        // Not Cf, but rendered as nothing or as blank in most fonts: the
        // usual stand-ins for an invisible character.
        | '\u{034F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{2800}'
        | '\u{3164}'
        | '\u{FFA0}' => Hidden::Invisible,
        _ => return None,
    })
}

/// The ASCII character a tag character stands for (U+E0020..U+E007E), if any.
#[inline]
pub(crate) fn tag_ascii(c: char) -> Option<char> {
    match c as u32 {
        u @ 0xE0020..=0xE007E => char::from_u32(u - 0xE0000),
        _ => None,
    }
}

/// The byte value a variation selector carries when variation selectors are
/// used to smuggle bytes (VS1..VS16 = 0..15, VS17..VS256 = 16..255).
pub(crate) fn variation_selector_byte(c: char) -> Option<u8> {
    match c as u32 {
        u @ 0xFE00..=0xFE0F => u8::try_from(u - 0xFE00).ok(),
        u @ 0xE0100..=0xE01EF => u8::try_from(u - 0xE0100 + 16).ok(),
        _ => None,
    }
}

/// Length in bytes of the terminal control sequence that starts at byte `at`
/// of `s` (an ESC or a C1 introducer), at least the introducer itself.
///
/// CSI: parameters, intermediates and one final byte. OSC, DCS, SOS, PM and
/// APC: their string up to BEL or ST; one with no terminator before the next
/// ESC (or the end) is taken as its introducer only, so the text after it
/// stays (and each byte is looked at a bounded number of times). Other ESC
/// sequences: intermediates and one final byte.
pub(crate) fn escape_len(s: &str, at: usize) -> usize {
    let b = s.as_bytes();
    let Some(first) = s[at..].chars().next() else {
        return 0;
    };
    let intro = first.len_utf8();
    // What kind of sequence, and where its body starts.
    let (kind, body) = match first {
        '\u{1b}' => match b.get(at + 1) {
            Some(b'[') => (b'[', at + 2),
            Some(b']' | b'P' | b'X' | b'^' | b'_') => (b']', at + 2),
            Some(0x20..=0x7e) => (b' ', at + 1),
            _ => return intro,
        },
        '\u{9b}' => (b'[', at + intro),
        _ => (b']', at + intro),
    };
    let mut i = body;
    match kind {
        b'[' => {
            while i < b.len() && (0x30..=0x3f).contains(&b[i]) {
                i += 1;
            }
            while i < b.len() && (0x20..=0x2f).contains(&b[i]) {
                i += 1;
            }
            if i < b.len() && (0x40..=0x7e).contains(&b[i]) {
                i += 1;
            }
            i - at
        }
        b']' => {
            while i < b.len() {
                match b[i] {
                    0x07 => return i + 1 - at,
                    0x1b if b.get(i + 1) == Some(&b'\\') => return i + 2 - at,
                    // ST as C1 (U+009C is C2 9C in UTF-8).
                    0xc2 if b.get(i + 1) == Some(&0x9c) => return i + 2 - at,
                    // Another sequence starts: this one had no terminator.
                    0x1b => break,
                    0xc2 if matches!(b.get(i + 1), Some(0x90 | 0x98 | 0x9b | 0x9d..=0x9f)) => break,
                    _ => i += 1,
                }
            }
            body - at
        }
        _ => {
            while i < b.len() && (0x20..=0x2f).contains(&b[i]) {
                i += 1;
            }
            if i < b.len() && (0x30..=0x7e).contains(&b[i]) {
                i += 1;
            }
            i - at
        }
    }
}

/// The text with every invisible, format, bidi, tag, variation-selector and
/// control character removed, and terminal escape sequences removed whole.
/// `\n` and `\t` stay; `\r\n` becomes `\n`; a lone `\r`, U+2028 and U+2029
/// become `\n` (a line break either way, and no text can hide behind it).
/// Idempotent: `clean(&clean(x)) == clean(x)`.
pub fn clean(text: &str) -> String {
    clean_counted(text).0
}

/// [`clean`] in place: `text` is left untouched (not copied) when it has
/// nothing to clean. Returns how many characters were removed or replaced.
pub fn clean_in_place(text: &mut String) -> usize {
    if !needs_cleaning(text) {
        return 0;
    }
    let (cleaned, n) = clean_counted(text);
    *text = cleaned;
    n
}

/// [`clean`], and how many characters of `text` were removed or replaced.
pub(crate) fn clean_counted(text: &str) -> (String, usize) {
    if !needs_cleaning(text) {
        return (text.to_owned(), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = 0usize;
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let len = c.len_utf8();
        match classify(c) {
            None => {
                out.push(c);
                i += len;
            }
            Some(Hidden::Escape) => {
                let n = escape_len(text, i).max(len);
                changed += text[i..i + n].chars().count();
                i += n;
            }
            Some(Hidden::CarriageReturn) => {
                // "\r\n" loses the "\r"; a lone "\r" becomes "\n".
                if text.as_bytes().get(i + 1) != Some(&b'\n') {
                    out.push('\n');
                }
                changed += 1;
                i += len;
            }
            Some(Hidden::LineSeparator) => {
                out.push('\n');
                changed += 1;
                i += len;
            }
            Some(_) => {
                changed += 1;
                i += len;
            }
        }
    }
    (out, changed)
}

/// Whether [`clean`] would change anything; fast for plain ASCII.
pub(crate) fn needs_cleaning(text: &str) -> bool {
    if is_plain(text) {
        return false;
    }
    text.chars().any(|c| classify(c).is_some())
}

/// Whether `text` is printable ASCII, `\n` and `\t` only: nothing hidden.
/// Checked 32 bytes at a time without branches, which the compiler turns
/// into vector instructions.
pub(crate) fn is_plain(text: &str) -> bool {
    #[inline]
    fn odd(b: u8) -> bool {
        !((0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t')
    }
    let mut chunks = text.as_bytes().chunks_exact(32);
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |acc, &b| acc | odd(b)) {
            return false;
        }
    }
    !chunks.remainder().iter().any(|&b| odd(b))
}

/// The name a reviewer sees for a hidden character.
pub(crate) fn char_name(c: char) -> &'static str {
    match c {
        '\0' => "NULL",
        '\u{7}' => "BELL",
        '\u{8}' => "BACKSPACE",
        '\u{b}' => "LINE TABULATION",
        '\u{c}' => "FORM FEED",
        '\r' => "CARRIAGE RETURN",
        '\u{1b}' => "ESCAPE",
        '\u{7f}' => "DELETE",
        '\u{85}' => "NEXT LINE",
        '\u{90}' => "DEVICE CONTROL STRING",
        '\u{9b}' => "CONTROL SEQUENCE INTRODUCER",
        '\u{9c}' => "STRING TERMINATOR",
        '\u{9d}' => "OPERATING SYSTEM COMMAND",
        '\u{00AD}' => "SOFT HYPHEN",
        '\u{034F}' => "COMBINING GRAPHEME JOINER",
        '\u{061C}' => "ARABIC LETTER MARK",
        '\u{115F}' => "HANGUL CHOSEONG FILLER",
        '\u{1160}' => "HANGUL JUNGSEONG FILLER",
        '\u{180E}' => "MONGOLIAN VOWEL SEPARATOR",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2060}' => "WORD JOINER",
        '\u{2061}' => "FUNCTION APPLICATION",
        '\u{2062}' => "INVISIBLE TIMES",
        '\u{2063}' => "INVISIBLE SEPARATOR",
        '\u{2064}' => "INVISIBLE PLUS",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{2800}' => "BRAILLE PATTERN BLANK",
        '\u{3164}' => "HANGUL FILLER",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{FFA0}' => "HALFWIDTH HANGUL FILLER",
        '\u{E0001}' => "LANGUAGE TAG",
        '\u{E007F}' => "CANCEL TAG",
        '\u{27E6}' => "MATHEMATICAL LEFT WHITE SQUARE BRACKET",
        _ => match classify(c) {
            Some(Hidden::VariationSelector) => "VARIATION SELECTOR",
            Some(Hidden::Tag) => "TAG",
            Some(Hidden::Control | Hidden::Escape | Hidden::CarriageReturn) => "CONTROL CHARACTER",
            _ => "FORMAT CHARACTER",
        },
    }
}

/// `text` with every hidden character made visible, for a person reviewing
/// it: `⟦U+200B ZERO WIDTH SPACE⟧` (a run of one character counted:
/// `⟦U+200B ZERO WIDTH SPACE ×3⟧`), tag characters decoded as
/// `⟦hidden text: 'read ~/.ssh'⟧`, variation selectors that carry bytes
/// decoded the same way, ESC as `⟦ESC⟧` (the rest of its sequence shown as
/// text). `\n` and `\t` stay. A `⟦` already in the text is shown as a named
/// character, so every marker in the output comes from here. At most
/// [`MAX_VISIBLE_CHARS`] characters; what is cut is counted at the end.
pub fn visible(text: &str) -> String {
    let mut out = Bounded::new(MAX_VISIBLE_CHARS);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if out.full() {
            let rest = text[i..].chars().count();
            let _ = write!(out.buf, "⟦… {rest} more characters⟧");
            break;
        }
        let class = classify(c);
        match class {
            None if c != '\u{27E6}' => out.push(c),
            Some(Hidden::Tag) => {
                let mut decoded = String::new();
                let mut others = 0usize;
                let mut take = |c: char| match tag_ascii(c) {
                    Some(a) => decoded.push(a),
                    None => others += 1,
                };
                take(c);
                while let Some(&(_, n)) = chars.peek() {
                    if classify(n) != Some(Hidden::Tag) {
                        break;
                    }
                    take(n);
                    chars.next();
                }
                if decoded.is_empty() {
                    out.push_str(&format!("⟦{others} tag characters⟧"));
                } else {
                    out.push_str(&format!("⟦hidden text: '{decoded}'⟧"));
                }
            }
            Some(Hidden::VariationSelector) => {
                let mut run = vec![c];
                while let Some(&(_, n)) = chars.peek() {
                    if classify(n) != Some(Hidden::VariationSelector) {
                        break;
                    }
                    run.push(n);
                    chars.next();
                }
                out.push_str(&describe_selectors(&run));
            }
            Some(Hidden::Escape) if c == '\u{1b}' => out.push_str("⟦ESC⟧"),
            _ => {
                let mut n = 1usize;
                while chars.peek().map(|&(_, n)| n) == Some(c) {
                    n += 1;
                    chars.next();
                }
                let times = if n > 1 {
                    format!(" ×{n}")
                } else {
                    String::new()
                };
                out.push_str(&format!("⟦U+{:04X} {}{times}⟧", c as u32, char_name(c)));
            }
        }
    }
    out.buf
}

/// A run of variation selectors as a reviewer sees it: one is named; a run
/// is decoded as bytes (the "emoji smuggling" encoding) when that gives
/// printable text.
fn describe_selectors(run: &[char]) -> String {
    if let [c] = run {
        let n = match *c as u32 {
            u @ 0xFE00..=0xFE0F => u - 0xFE00 + 1,
            u @ 0xE0100..=0xE01EF => u - 0xE0100 + 17,
            _ => 0,
        };
        return if n > 0 {
            format!("⟦U+{:04X} VARIATION SELECTOR-{n}⟧", *c as u32)
        } else {
            format!("⟦U+{:04X} MONGOLIAN FREE VARIATION SELECTOR⟧", *c as u32)
        };
    }
    if let Some(text) = decode_selectors(run) {
        return format!("⟦hidden text: '{text}'⟧");
    }
    format!("⟦{} variation selectors⟧", run.len())
}

/// The text a run of variation selectors spells as bytes, when every byte
/// decodes to printable text.
pub(crate) fn decode_selectors(run: &[char]) -> Option<String> {
    let bytes: Option<Vec<u8>> = run.iter().map(|&c| variation_selector_byte(c)).collect();
    let text = String::from_utf8(bytes?).ok()?;
    let printable = !text.is_empty()
        && text
            .chars()
            .all(|c| c == '\n' || c == '\t' || (!c.is_control() && classify(c).is_none()));
    printable.then_some(text)
}

/// A string that stops growing at a number of characters.
struct Bounded {
    buf: String,
    chars: usize,
    max: usize,
}

impl Bounded {
    fn new(max: usize) -> Self {
        Bounded {
            buf: String::new(),
            chars: 0,
            max,
        }
    }

    fn full(&self) -> bool {
        self.chars >= self.max
    }

    fn push(&mut self, c: char) {
        if !self.full() {
            self.buf.push(c);
            self.chars += 1;
        }
    }

    fn push_str(&mut self, s: &str) {
        for c in s.chars() {
            if self.full() {
                self.buf.push('…');
                return;
            }
            self.push(c);
        }
    }
}
