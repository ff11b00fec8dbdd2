//! Character classes and display helpers for text that came from an
//! untrusted server.

/// Bidirectional formatting controls (embeddings, overrides, isolates and
/// marks). Any of these can reorder what a person sees on screen.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' // ARABIC LETTER MARK
        | '\u{200E}' // LEFT-TO-RIGHT MARK
        | '\u{200F}' // RIGHT-TO-LEFT MARK
        | '\u{202A}'..='\u{202E}' // LRE, RLE, PDF, LRO, RLO
        | '\u{2066}'..='\u{2069}' // LRI, RLI, FSI, PDI
    )
}

/// Zero-width characters.
pub(crate) fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'
            ..='\u{200D}' // ZWSP, ZWNJ, ZWJ
        | '\u{2060}' // WORD JOINER
        | '\u{FEFF}' // ZERO WIDTH NO-BREAK SPACE / BOM
    )
}

/// Other characters that render as nothing (or as blank space that looks
/// like nothing) in most fonts and can therefore hide content. Variation
/// selectors are deliberately not in this set: they are an ordinary part of
/// emoji in server-provided text. See [`is_variation_selector`].
pub(crate) fn is_other_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' // SOFT HYPHEN
        | '\u{034F}' // COMBINING GRAPHEME JOINER
        | '\u{115F}' | '\u{1160}' // HANGUL CHOSEONG/JUNGSEONG FILLER
        | '\u{17B4}' | '\u{17B5}' // KHMER VOWEL INHERENT AQ/AA
        | '\u{180E}' // MONGOLIAN VOWEL SEPARATOR
        | '\u{2028}' | '\u{2029}' // LINE / PARAGRAPH SEPARATOR
        | '\u{2061}'..='\u{2064}' // invisible math operators
        | '\u{206A}'..='\u{206F}' // deprecated format characters
        | '\u{3164}' // HANGUL FILLER
        | '\u{FFA0}' // HALFWIDTH HANGUL FILLER
        | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation controls
        | '\u{1D173}'..='\u{1D17A}' // musical symbol format controls
        | '\u{E0000}'..='\u{E007F}' // TAG characters
    )
}

/// Variation selectors (invisible on their own).
pub(crate) fn is_variation_selector(c: char) -> bool {
    matches!(
        c,
        '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}'
    )
}

/// Characters that [`crate::neutralize_for_display`] replaces with a
/// visible escape: control characters (C0, DEL, C1, which covers ESC and
/// therefore ANSI escape sequences), bidi controls, zero-width characters
/// and other invisible formatting characters.
pub(crate) fn needs_display_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_zero_width(c) || is_other_invisible(c)
}

/// Characters that earn a `hidden_characters` warning when they occur
/// anywhere in a URL as sent by the server.
pub(crate) fn is_hidden_in_url(c: char) -> bool {
    needs_display_escape(c) || is_variation_selector(c)
}

/// True when the raw text, or the text obtained by percent-decoding it,
/// contains a hidden character.
///
/// In the percent-decoded form only non-ASCII hidden characters count:
/// an encoded `%0A` in a query string is ordinary data that no user
/// interface renders invisibly, but `%E2%80%AE` (U+202E) is exactly what a
/// "pretty" URL display would decode into a reordering control.
pub(crate) fn has_hidden_characters(raw: &str) -> bool {
    if raw.chars().any(is_hidden_in_url) {
        return true;
    }
    if !raw.contains('%') {
        return false;
    }
    let decoded = percent_decode_lossy(raw);
    decoded
        .chars()
        .any(|c| !c.is_ascii() && is_hidden_in_url(c))
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `%HH` sequences; malformed sequences are kept verbatim and
/// invalid UTF-8 becomes U+FFFD.
fn percent_decode_lossy(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex_value(bytes[i + 1]), hex_value(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Makes untrusted text safe to show as plain text in a terminal or a GUI.
///
/// Every control character (C0 including ESC, so ANSI escape sequences are
/// defanged, DEL, C1), bidi control (U+202A–U+202E, U+2066–U+2069, U+200E,
/// U+200F, U+061C), zero-width character (U+200B–U+200D, U+2060, U+FEFF) and
/// other invisible formatting character (soft hyphen, TAG characters, line
/// and paragraph separators, Hangul fillers, ...) is replaced by a visible
/// escape such as `\u{202E}`. Newlines and tabs are escaped too (`\u{A}`,
/// `\u{9}`).
///
/// If the result would have more than `max_chars` characters it is cut so
/// that, including a trailing `…`, it has at most `max_chars` characters.
/// An escape is never cut in half. `max_chars == 0` gives an empty string.
pub fn neutralize_for_display(s: &str, max_chars: usize) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut count = 0usize;
    // Byte length of `out` at the last piece boundary where the text plus
    // a trailing '…' still fits in `max_chars`.
    let mut fits_with_ellipsis = 0usize;
    for c in s.chars() {
        if needs_display_escape(c) {
            let before = out.len();
            let _ = write!(out, "\\u{{{:X}}}", c as u32);
            // Escapes are pure ASCII, so bytes == chars.
            count += out.len() - before;
        } else {
            out.push(c);
            count += 1;
        }
        if count < max_chars {
            fits_with_ellipsis = out.len();
        }
        if count > max_chars {
            if max_chars == 0 {
                return String::new();
            }
            out.truncate(fits_with_ellipsis);
            out.push('…');
            return out;
        }
    }
    out
}

/// Shortens `s` to at most `max_chars` characters by replacing the middle
/// with `…`, keeping the start (scheme and host) and the end visible.
/// Text that already fits is returned unchanged. This does not neutralize
/// anything: call [`neutralize_for_display`] first for untrusted text
/// (with a generous limit), then this.
pub fn elide_middle(s: &str, max_chars: usize) -> String {
    let total = s.chars().count();
    if total <= max_chars {
        return s.to_owned();
    }
    if max_chars == 0 {
        return String::new();
    }
    let keep = max_chars - 1;
    // Slightly favour the head: it carries the scheme and host.
    let tail = keep / 2;
    let head = keep - tail;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(total - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode_lossy("a%41b"), "aAb");
        assert_eq!(percent_decode_lossy("%E2%80%AE"), "\u{202E}");
        assert_eq!(percent_decode_lossy("%"), "%");
        assert_eq!(percent_decode_lossy("%4"), "%4");
        assert_eq!(percent_decode_lossy("%zz%4"), "%zz%4");
        assert_eq!(percent_decode_lossy("%FF"), "\u{FFFD}");
        assert_eq!(percent_decode_lossy("é%C3%A9"), "éé");
    }

    #[test]
    fn classes() {
        assert!(is_bidi_control('\u{202E}') && is_bidi_control('\u{061C}'));
        assert!(!is_bidi_control('\u{2065}') && !is_bidi_control('\u{202F}'));
        assert!(is_zero_width('\u{200B}') && is_zero_width('\u{FEFF}'));
        assert!(!is_zero_width('\u{200E}'));
        assert!(needs_display_escape('\u{1B}') && needs_display_escape('\u{9F}'));
        assert!(!needs_display_escape('\u{FE0F}') && is_hidden_in_url('\u{FE0F}'));
        assert!(!needs_display_escape(' ') && !needs_display_escape('ü'));
    }
}
