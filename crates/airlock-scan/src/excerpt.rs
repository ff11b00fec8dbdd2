//! Excerpts: the offending part of a text with a little of what surrounds
//! it, hidden characters made visible, on one line, bounded.

use crate::chars::{classify, visible, Hidden};

/// Longest excerpt, in characters.
pub const MAX_EXCERPT_CHARS: usize = 200;

/// Characters of context shown on each side of the offending part.
const CONTEXT_CHARS: usize = 40;

/// The excerpt of `text[start..end]` (byte offsets on character boundaries).
pub(crate) fn excerpt(text: &str, start: usize, end: usize) -> String {
    let start = floor(text, start.min(text.len()));
    let end = floor(text, end.clamp(start, text.len()));
    let (start, end) = whole_runs(text, start, end);
    // Only a few characters of the context are made visible: the rest of
    // the text may be megabytes.
    let before_from = text[..start]
        .char_indices()
        .rev()
        .nth(CONTEXT_CHARS - 1)
        .map_or(0, |(i, _)| i);
    let after_to = text[end..]
        .char_indices()
        .nth(CONTEXT_CHARS)
        .map_or(text.len(), |(i, _)| end + i);
    let before = one_line(&visible(&text[before_from..start]));
    let after = one_line(&visible(&text[end..after_to]));
    // The offending part gets most of the room; the context what is left.
    let middle_budget = MAX_EXCERPT_CHARS - CONTEXT_CHARS;
    let middle = one_line(&visible(head(text, start, end, middle_budget)));
    let middle = cut_end(&middle, middle_budget);

    let room = MAX_EXCERPT_CHARS.saturating_sub(middle.chars().count());
    let before = cut_start(&before, room / 2);
    let after = cut_end(&after, room - before.chars().count());
    format!("{before}{middle}{after}")
}

/// Most characters a range is widened by to take in a whole run.
const MAX_RUN_WIDENING: usize = 1024;

/// The range widened to whole runs of tag characters and variation
/// selectors at its ends, so the excerpt decodes a hidden text in one piece
/// rather than in two.
fn whole_runs(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    let run = |c: char| matches!(classify(c), Some(Hidden::Tag | Hidden::VariationSelector));
    for _ in 0..MAX_RUN_WIDENING {
        match text[..start].chars().next_back() {
            Some(c) if run(c) => start -= c.len_utf8(),
            _ => break,
        }
    }
    for _ in 0..MAX_RUN_WIDENING {
        match text[end..].chars().next() {
            Some(c) if run(c) => end += c.len_utf8(),
            _ => break,
        }
    }
    (start, end)
}

/// At most `max` characters of the start of `text[start..end]` (enough to
/// make visible without reading megabytes).
fn head(text: &str, start: usize, end: usize, max: usize) -> &str {
    let part = &text[start..end];
    match part.char_indices().nth(max * 4) {
        Some((i, _)) => &part[..i],
        None => part,
    }
}

fn floor(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn one_line(s: &str) -> String {
    s.replace("\r\n", "⏎")
        .replace(['\n', '\r'], "⏎")
        .replace('\t', " ")
}

/// [`visible`] on one line (a line break shown as "⏎", a tab as a space):
/// for fields and sentences, which are single lines.
pub(crate) fn visible_line(text: &str) -> String {
    one_line(&visible(text))
}

/// The last `max` characters of `s`, with "…" in front when cut.
fn cut_start(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let skip = n - (max - 1);
    format!("…{}", s.chars().skip(skip).collect::<String>())
}

/// The first `max` characters of `s`, with "…" at the end when cut.
fn cut_end(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    format!("{}…", s.chars().take(max - 1).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_visible() {
        let text = format!("{}\u{200B}{}", "a".repeat(5000), "b".repeat(5000));
        let e = excerpt(&text, 5000, 5003);
        assert!(e.chars().count() <= MAX_EXCERPT_CHARS, "{e}");
        assert!(e.contains("⟦U+200B ZERO WIDTH SPACE⟧"), "{e}");
        let long = "x\u{E0041}".repeat(10_000);
        let e = excerpt(&long, 0, long.len());
        assert!(e.chars().count() <= MAX_EXCERPT_CHARS, "{e}");
    }

    #[test]
    fn runs_are_widened_up_to_the_bound() {
        let tag = '\u{E0041}';
        let at: String = std::iter::repeat_n(tag, MAX_RUN_WIDENING + 1).collect();
        // A range on the first character takes in the whole run after it.
        let (s, e) = whole_runs(&at, 0, tag.len_utf8());
        assert_eq!((s, e), (0, at.len()));
        let over: String = std::iter::repeat_n(tag, MAX_RUN_WIDENING + 2).collect();
        let (_, e) = whole_runs(&over, 0, tag.len_utf8());
        assert_eq!(e, over.len() - tag.len_utf8());
    }

    #[test]
    fn one_line_only() {
        let e = excerpt("line one\nbad\u{1b}[8m\nline three", 12, 16);
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains("⟦ESC⟧"), "{e}");
    }
}
