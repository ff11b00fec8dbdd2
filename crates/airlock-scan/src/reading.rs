//! The text as the model reads it, for phrase checks, and the findings about
//! hidden characters met on the way.
//!
//! The reading is lower case; hidden characters are dropped (so "ig\u{200B}nore"
//! reads "ignore"); tag characters are decoded to the ASCII they stand for
//! (hidden text is read, and checked, like any other); terminal escape
//! sequences are dropped; full-width letters, mathematical alphanumerics and
//! the Cyrillic and Greek letters that look like Latin ones are folded to
//! ASCII, so a look-alike spelling reads like the word it imitates.

use crate::chars::{
    char_name, classify, decode_selectors, escape_len, is_plain, tag_ascii, Hidden,
};
use crate::excerpt::visible_line;
use crate::hits::Hits;
use crate::{FindingKind, Severity, INVISIBLE_RUN_SERIOUS};

/// The text as read, with a way back to the original's byte offsets. One is
/// reused from text to text.
#[derive(Default)]
pub(crate) struct Reading {
    /// Lower case, hidden characters out, tags decoded.
    pub(crate) text: String,
    /// For each byte of `text`, the offset of the original character it came
    /// from (when `mapped`).
    map: Vec<u32>,
    /// False when `text` is the original lower-cased byte for byte.
    mapped: bool,
}

impl Reading {
    /// Bytes held by the buffers.
    pub(crate) fn capacity(&self) -> usize {
        self.text.capacity() + self.map.capacity() * 4
    }

    /// The byte range in the original text that reading bytes `a..b` came from.
    pub(crate) fn original(&self, original: &str, a: usize, b: usize) -> (usize, usize) {
        if !self.mapped {
            return (a, b);
        }
        let at = |i: usize| self.map.get(i).map_or(original.len(), |&o| o as usize);
        let start = at(a);
        if b <= a {
            return (start, start);
        }
        let last = at(b - 1);
        let end = last + original[last..].chars().next().map_or(0, char::len_utf8);
        (start, end.max(start))
    }

    /// Reads `text` (at most [`crate::MAX_SCANNED_BYTES`] long, cut by the
    /// caller), and adds a hit for each run of hidden characters to `hits`.
    pub(crate) fn read(&mut self, text: &str, hits: &mut Hits) {
        self.text.clear();
        self.map.clear();
        let plain = is_plain(text);
        self.mapped = !plain;
        if plain {
            self.text.push_str(text);
            self.text.make_ascii_lowercase();
            return;
        }
        let out = &mut self.text;
        let map = &mut self.map;
        let mut runs = Runs::default();
        let mut i = 0;
        let mut prev: Option<char> = None;
        let b = text.as_bytes();
        let ordinary = |c: u8| (0x20..0x7f).contains(&c) || c == b'\n' || c == b'\t';
        while let Some(c) = text[i..].chars().next() {
            // A run of plain ASCII is copied whole.
            if ordinary(b[i]) {
                let mut j = i + 1;
                while j < b.len() && ordinary(b[j]) {
                    j += 1;
                }
                runs.step(text, i, None, prev, hits);
                let from = out.len();
                out.push_str(&text[i..j]);
                if let Some(tail) = out.get_mut(from..) {
                    tail.make_ascii_lowercase();
                }
                map.extend((i..j).map(|o| u32::try_from(o).unwrap_or(u32::MAX)));
                prev = Some(char::from(b[j - 1]));
                i = j;
                continue;
            }
            let len = c.len_utf8();
            let offset = u32::try_from(i).unwrap_or(u32::MAX);
            let class = classify(c);
            runs.step(text, i, class, prev, hits);
            match class {
                None => push_folded(out, map, c, offset),
                Some(Hidden::Tag) => {
                    if let Some(a) = tag_ascii(c) {
                        push_byte(out, map, a.to_ascii_lowercase(), offset);
                    }
                }
                Some(Hidden::Escape) => {
                    let n = escape_len(text, i).max(len);
                    escape_hit(hits, text, i, n);
                    i += n;
                    prev = Some(c);
                    continue;
                }
                Some(Hidden::CarriageReturn | Hidden::LineSeparator) => {
                    push_byte(out, map, '\n', offset);
                }
                Some(Hidden::Control) => push_byte(out, map, ' ', offset),
                Some(Hidden::Invisible | Hidden::Bidi | Hidden::VariationSelector) => {}
            }
            prev = Some(c);
            i += len;
        }
        runs.step(text, text.len(), None, prev, hits);
    }
}

fn push_byte(out: &mut String, map: &mut Vec<u32>, c: char, offset: u32) {
    out.push(c);
    map.push(offset);
}

fn push_folded(out: &mut String, map: &mut Vec<u32>, c: char, offset: u32) {
    if c.is_ascii() {
        return push_byte(out, map, c.to_ascii_lowercase(), offset);
    }
    if let Some(a) = fold_lookalike(c) {
        return push_byte(out, map, a, offset);
    }
    // U+2019 and U+02BC read as an apostrophe ("don’t").
    if matches!(c, '\u{2019}' | '\u{02BC}' | '\u{2018}') {
        return push_byte(out, map, '\'', offset);
    }
    for l in c.to_lowercase() {
        let before = out.len();
        out.push(l);
        map.extend(std::iter::repeat_n(offset, out.len() - before));
    }
}

/// The ASCII letter or digit a look-alike character imitates.
fn fold_lookalike(c: char) -> Option<char> {
    let u = c as u32;
    let ascii = |b: u32| char::from_u32(b).map(|a| a.to_ascii_lowercase());
    match u {
        // Full-width ASCII.
        0xFF01..=0xFF5E => ascii(u - 0xFF01 + 0x21),
        // Mathematical alphanumeric letters: 13 alphabets of A-Z a-z.
        0x1D400..=0x1D6A3 => {
            let k = (u - 0x1D400) % 52;
            ascii(if k < 26 { 0x61 + k } else { 0x61 + k - 26 })
        }
        // Mathematical digits: 5 sets of 0-9.
        0x1D7CE..=0x1D7FF => ascii(0x30 + (u - 0x1D7CE) % 10),
        // Parenthesized, circled (capital and small) letters.
        0x249C..=0x24B5 => ascii(0x61 + u - 0x249C),
        0x24B6..=0x24CF => ascii(0x61 + u - 0x24B6),
        0x24D0..=0x24E9 => ascii(0x61 + u - 0x24D0),
        // Squared, negative circled, negative squared letters; regional
        // indicators (flag letters).
        0x1F130..=0x1F149 => ascii(0x61 + u - 0x1F130),
        0x1F150..=0x1F169 => ascii(0x61 + u - 0x1F150),
        0x1F170..=0x1F189 => ascii(0x61 + u - 0x1F170),
        0x1F1E6..=0x1F1FF => ascii(0x61 + u - 0x1F1E6),
        _ => Some(match c {
            'а' | 'А' | 'α' | 'Α' => 'a',
            'е' | 'Е' | 'ε' | 'Ε' => 'e',
            'о' | 'О' | 'ο' | 'Ο' => 'o',
            'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
            'с' | 'С' | 'ϲ' => 'c',
            'у' | 'У' | 'υ' => 'y',
            'х' | 'Х' | 'χ' | 'Χ' => 'x',
            'і' | 'І' | 'ι' | 'Ι' | 'ı' => 'i',
            'ј' | 'Ј' => 'j',
            'ѕ' | 'Ѕ' => 's',
            'ԁ' => 'd',
            'һ' | 'Һ' => 'h',
            'ӏ' | 'Ӏ' => 'l',
            'ԛ' => 'q',
            'ԝ' | 'Ԝ' => 'w',
            'κ' | 'Κ' | 'К' | 'к' => 'k',
            'ν' | 'Ν' => 'v',
            'τ' | 'Τ' | 'Т' | 'т' => 't',
            'М' | 'м' | 'Μ' => 'm',
            'Н' | 'н' | 'Η' => 'h',
            'В' | 'в' | 'Β' => 'b',
            'ɡ' => 'g',
            // Small capitals ("ᴅᴏ ɴᴏᴛ ᴛᴇʟʟ ᴛʜᴇ ᴜꜱᴇʀ") and the letters used
            // in their place where Unicode has none (ǫ for q).
            'ᴀ' => 'a',
            'ʙ' => 'b',
            'ᴄ' => 'c',
            'ᴅ' => 'd',
            'ᴇ' => 'e',
            'ꜰ' => 'f',
            'ɢ' => 'g',
            'ʜ' => 'h',
            'ɪ' => 'i',
            'ᴊ' => 'j',
            'ᴋ' => 'k',
            'ʟ' => 'l',
            'ᴍ' => 'm',
            'ɴ' => 'n',
            'ᴏ' => 'o',
            'ᴘ' => 'p',
            'ǫ' => 'q',
            'ʀ' => 'r',
            'ꜱ' => 's',
            'ᴛ' => 't',
            'ᴜ' => 'u',
            'ᴠ' => 'v',
            'ᴡ' => 'w',
            'ʏ' => 'y',
            'ᴢ' => 'z',
            // Superscript and subscript letters (NFKC folds them too).
            'ᵃ' | 'ₐ' => 'a',
            'ᵇ' => 'b',
            'ᶜ' => 'c',
            'ᵈ' => 'd',
            'ᵉ' | 'ₑ' => 'e',
            'ᶠ' => 'f',
            'ᵍ' => 'g',
            'ʰ' | 'ₕ' => 'h',
            'ⁱ' | 'ᵢ' => 'i',
            'ʲ' | 'ⱼ' => 'j',
            'ᵏ' | 'ₖ' => 'k',
            'ˡ' | 'ₗ' => 'l',
            'ᵐ' | 'ₘ' => 'm',
            'ⁿ' | 'ₙ' => 'n',
            'ᵒ' | 'ₒ' => 'o',
            'ᵖ' | 'ₚ' => 'p',
            'ʳ' | 'ᵣ' => 'r',
            'ˢ' | 'ₛ' => 's',
            'ᵗ' | 'ₜ' => 't',
            'ᵘ' | 'ᵤ' => 'u',
            'ᵛ' | 'ᵥ' => 'v',
            'ʷ' => 'w',
            'ˣ' | 'ₓ' => 'x',
            'ʸ' => 'y',
            'ᶻ' => 'z',
            _ => return None,
        }),
    }
}

/// Runs of one class of hidden character, turned into hits when they end.
#[derive(Default)]
struct Runs {
    current: Option<(Hidden, usize, usize)>, // class, start byte, count
    before: Option<char>,                    // the character before the run
}

impl Runs {
    fn step(
        &mut self,
        text: &str,
        at: usize,
        class: Option<Hidden>,
        prev: Option<char>,
        hits: &mut Hits,
    ) {
        // Escapes are reported by the reader, one per sequence.
        let class = class.filter(|c| *c != Hidden::Escape);
        if let Some((c, start, count)) = self.current {
            if Some(c) == class {
                self.current = Some((c, start, count + 1));
                return;
            }
            run_hit(hits, text, c, start, at, count, self.before);
            self.current = None;
        }
        if let Some(c) = class {
            self.current = Some((c, at, 1));
            self.before = prev;
        }
    }
}

/// The kind and severity of a run of hidden characters (none for "\r\n").
fn run_kind(
    text: &str,
    class: Hidden,
    start: usize,
    end: usize,
    count: usize,
    before: Option<char>,
) -> Option<(FindingKind, Severity)> {
    Some(match class {
        Hidden::Invisible if count >= INVISIBLE_RUN_SERIOUS => {
            (FindingKind::InvisibleCharacter, Severity::Serious)
        }
        Hidden::Invisible | Hidden::LineSeparator => {
            (FindingKind::InvisibleCharacter, Severity::Warning)
        }
        Hidden::Bidi => (FindingKind::BidiControl, Severity::Serious),
        Hidden::Tag if emoji_flag(&text[start..end], before) => {
            (FindingKind::TagCharacter, Severity::Warning)
        }
        Hidden::Tag => (FindingKind::TagCharacter, Severity::Serious),
        Hidden::VariationSelector if count >= 2 => {
            (FindingKind::VariationSelector, Severity::Serious)
        }
        Hidden::VariationSelector => (FindingKind::VariationSelector, Severity::Warning),
        Hidden::CarriageReturn => {
            // "\r\n" is an ordinary line end.
            if text.as_bytes().get(end) == Some(&b'\n') && count == 1 {
                return None;
            }
            (FindingKind::ControlCharacter, Severity::Warning)
        }
        Hidden::Control => (FindingKind::ControlCharacter, Severity::Serious),
        Hidden::Escape => return None,
    })
}

/// An emoji subdivision flag: black flag, two to seven tag letters or
/// digits, cancel tag.
fn emoji_flag(run: &str, before: Option<char>) -> bool {
    let letters = run.chars().filter(|&c| c != '\u{E007F}').count();
    before == Some('\u{1F3F4}')
        && run.ends_with('\u{E007F}')
        && (2..=7).contains(&letters)
        && run
            .chars()
            .filter_map(tag_ascii)
            .all(|a| a.is_ascii_lowercase() || a.is_ascii_digit())
}

/// Adds the hit of a run of hidden characters.
fn run_hit(
    hits: &mut Hits,
    text: &str,
    class: Hidden,
    start: usize,
    end: usize,
    count: usize,
    before: Option<char>,
) {
    let Some((kind, severity)) = run_kind(text, class, start, end, count, before) else {
        return;
    };
    hits.add(kind, severity, start, end, || {
        run_detail(&text[start..end], class, count, before)
    });
}

/// The sentence about a run of hidden characters.
fn run_detail(run: &str, class: Hidden, count: usize, before: Option<char>) -> String {
    let Some(first) = run.chars().next() else {
        return String::new();
    };
    let name = format!("U+{:04X} {}", first as u32, char_name(first));
    match class {
        Hidden::Invisible if count >= INVISIBLE_RUN_SERIOUS => format!(
            "A run of {count} invisible characters ({name} first): a person sees nothing \
                 there, yet a run this long can carry a hidden message."
        ),
        Hidden::Invisible => format!(
            "Invisible character {name}{}: a person does not see it but the model reads it; \
                 it can split words to slip past checks. Removed before apps see it.",
            times(count)
        ),
        Hidden::LineSeparator => format!(
            "{name}: a line break in some apps and nothing in others, so people may read \
                 different text. Replaced by a line break."
        ),
        Hidden::Bidi => format!(
            "Bidirectional control {name}{}: it reorders how text is displayed, so what a \
                 person sees can differ from what the model reads.",
            times(count)
        ),
        Hidden::Tag => {
            let decoded: String = run.chars().filter_map(tag_ascii).collect();
            if emoji_flag(run, before) {
                format!(
                    "An emoji subdivision flag spelled with tag characters ('{decoded}'): \
                         harmless, but tag characters are removed before apps see them."
                )
            } else if decoded.is_empty() {
                format!("{count} Unicode tag characters: invisible to a person, read by the model.")
            } else {
                format!(
                    "Unicode tag characters spell hidden text '{}': invisible to a person, \
                         read by the model.",
                    bounded(&decoded, 120)
                )
            }
        }
        Hidden::VariationSelector if count >= 2 => {
            let chars: Vec<char> = run.chars().collect();
            let spelled = decode_selectors(&chars)
                .map(|t| format!(" that spell '{}'", bounded(&visible_line(&t), 120)))
                .unwrap_or_default();
            format!(
                "{count} variation selectors in a row{spelled}: no emoji needs more than one, \
                     and a run can carry hidden bytes."
            )
        }
        Hidden::VariationSelector => format!(
            "Variation selector {name}: normal after an emoji or ideograph, invisible on its \
                 own. Removed before apps see it."
        ),
        Hidden::CarriageReturn => {
            "A carriage return not followed by a line feed: in a terminal, the text after \
                 it is written over the text before it."
                .to_owned()
        }
        Hidden::Control => format!(
            "Control character {name}{}: it has no use in a description, and terminals act \
                 on control characters instead of showing them.",
            times(count)
        ),
        Hidden::Escape => String::new(),
    }
}

fn escape_hit(hits: &mut Hits, text: &str, at: usize, len: usize) {
    hits.add(
        FindingKind::TerminalEscape,
        Severity::Serious,
        at,
        at + len,
        || {
            format!(
                "Terminal escape sequence {}: in a terminal it can hide, recolour or overwrite \
                 the text a person reads.",
                bounded(&visible_line(&text[at..at + len]), 60)
            )
        },
    );
}

fn times(count: usize) -> String {
    if count > 1 {
        format!(" ({count} in a row)")
    } else {
        String::new()
    }
}

/// At most `max` characters of `s`, with "…" when cut.
pub(crate) fn bounded(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
