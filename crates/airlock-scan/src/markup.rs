//! Markup that hides or frames text: HTML comments (and the Markdown comment
//! idiom), tags that speak to the model (`<important>`, `<system>`),
//! chat-template tokens (`<|im_start|>`, `[INST]`), tags styled invisible,
//! ordinary HTML, and terminal escapes written out as text (`\x1b[`).

use crate::hits::Hits;
use crate::{FindingKind, Severity};

/// Tag names that frame text for the model or hide it when rendered.
const FRAMING: &[&str] = &[
    "important",
    "system",
    "system_prompt",
    "system-prompt",
    "system-reminder",
    "system_message",
    "instructions",
    "instruction",
    "secret",
    "hidden",
    "script",
    "style",
    "iframe",
    "critical",
    "override",
    "start_of_turn",
    "end_of_turn",
    "im_start",
    "im_end",
];

/// Ordinary formatting tags: shown as a notice only.
const ORDINARY: &[&str] = &[
    "a",
    "b",
    "i",
    "u",
    "s",
    "em",
    "strong",
    "code",
    "pre",
    "br",
    "hr",
    "p",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "tr",
    "td",
    "th",
    "thead",
    "tbody",
    "blockquote",
    "sup",
    "sub",
    "kbd",
    "mark",
    "span",
    "div",
    "img",
    "details",
    "summary",
    "small",
    "del",
    "ins",
    "dl",
    "dt",
    "dd",
    "font",
];

/// Styles that make a tag's text invisible when rendered (looked for with
/// spaces and quotes taken out of the attributes).
const INVISIBLE_STYLES: &[&str] = &[
    "display:none",
    "visibility:hidden",
    "font-size:0",
    "opacity:0",
    "color:white",
    "color=white",
    "color:#fff",
    "color=#fff",
    "height:0",
    "width:0",
];

/// Whether a tag's attributes hide its text.
fn hides(attributes: &str) -> bool {
    let squeezed: String = attributes
        .chars()
        .filter(|c| !matches!(c, ' ' | '"' | '\'' | '\t' | '\n'))
        .collect();
    INVISIBLE_STYLES.iter().any(|s| squeezed.contains(s))
        || attributes
            .split(|c: char| c.is_whitespace() || c == '/')
            .any(|a| a == "hidden" || a.starts_with("hidden=") || a.starts_with("aria-hidden"))
}

/// Longest stretch of a tag's attributes that is looked at, in bytes.
const MAX_ATTRIBUTES: usize = 512;

/// Adds a hit for each piece of markup in `reading` (offsets in the
/// reading), looking only where the tokenizer saw a `<`, `[` or `\\`.
pub(crate) fn markup(reading: &str, marks: &[u32], hits: &mut Hits) {
    let b = reading.as_bytes();
    // Where the last construct ended: marks inside it are part of it.
    let mut resume = 0;
    for &m in marks {
        let i = m as usize;
        if i < resume || i >= b.len() {
            continue;
        }
        resume = match b[i] {
            b'<' => angle(reading, i, hits),
            b'[' => bracket(reading, i, hits),
            b'\\' => literal_escape(reading, i, hits),
            _ => i + 1,
        };
    }
}

/// Looks at the `<` at `at`; returns where to go on.
fn angle(reading: &str, at: usize, hits: &mut Hits) -> usize {
    let b = reading.as_bytes();
    let rest = &reading[at..];
    if rest.starts_with("<!--") {
        return match reading[at + 4..].find("-->") {
            Some(e) => {
                let end = at + 4 + e + 3;
                hits.add(FindingKind::HtmlComment, Severity::Serious, at, end, || {
                    "An HTML comment: hidden when the text is rendered, read by the model.".into()
                });
                end
            }
            None => {
                hits.add(
                    FindingKind::HtmlComment,
                    Severity::Serious,
                    at,
                    reading.len(),
                    || {
                        "An HTML comment that never ends: everything after it is hidden when the \
                     text is rendered, and read by the model."
                            .into()
                    },
                );
                reading.len()
            }
        };
    }
    if let Some(inner) = rest.strip_prefix("<|") {
        let name_end = inner
            .bytes()
            .take(32)
            .position(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'));
        if let Some(n) = name_end {
            if n > 0 && inner[n..].starts_with("|>") {
                let end = at + 2 + n + 2;
                chat_token(hits, &reading[at..end], at, end);
                return end;
            }
        }
        return at + 1;
    }
    for token in ["<<sys>>", "<</sys>>"] {
        if rest.starts_with(token) {
            chat_token(hits, token, at, at + token.len());
            return at + token.len();
        }
    }
    // A tag: "<", an optional "/", at most two spaces, a name, then ">",
    // "/" or a space.
    let mut i = at + 1;
    if b.get(i) == Some(&b'/') {
        i += 1;
    }
    let mut spaces = 0;
    while b.get(i) == Some(&b' ') && spaces < 2 {
        i += 1;
        spaces += 1;
    }
    let name_start = i;
    if !b.get(i).is_some_and(u8::is_ascii_lowercase) {
        return at + 1;
    }
    while i < b.len()
        && i - name_start < 32
        && (b[i].is_ascii_lowercase()
            || b[i].is_ascii_digit()
            || matches!(b[i], b'_' | b'-' | b':'))
    {
        i += 1;
    }
    let name = &reading[name_start..i];
    let closes = match b.get(i) {
        Some(b'>') => true,
        Some(b'/' | b' ' | b'\t' | b'\n') => false,
        _ => return at + 1,
    };
    // The attributes, up to ">" (not past another "<").
    let mut end = i;
    if !closes {
        let limit = (i + MAX_ATTRIBUTES).min(b.len());
        match b[i..limit].iter().position(|&c| c == b'>' || c == b'<') {
            Some(p) if b[i + p] == b'>' => end = i + p,
            _ => return at + 1,
        }
    }
    let tag_end = end + 1;
    if FRAMING.contains(&name) {
        hits.add(FindingKind::HtmlTag, Severity::Serious, at, tag_end, || {
            format!(
                "A <{name}> tag: it frames text as instructions for the model, or hides it \
                 when rendered."
            )
        });
    } else if ORDINARY.contains(&name) && spaces == 0 {
        if hides(&reading[i..end]) {
            hits.add(FindingKind::HtmlTag, Severity::Serious, at, tag_end, || {
                format!(
                    "A <{name}> tag styled to be invisible: its text is hidden when rendered, \
                     and read by the model."
                )
            });
        } else {
            hits.add(FindingKind::HtmlTag, Severity::Notice, at, tag_end, || {
                format!("HTML markup (<{name}>): shown as text by most apps.")
            });
        }
    }
    tag_end
}

fn chat_token(hits: &mut Hits, token: &str, start: usize, end: usize) {
    hits.add(FindingKind::HtmlTag, Severity::Serious, start, end, || {
        format!(
            "A chat-template token ({token}): it imitates the boundary between system, user \
             and assistant turns."
        )
    });
}

/// Looks at the `[` at `at`: `[INST]`, `[/INST]`, and the Markdown comment
/// idiom `[//]: # (...)`.
fn bracket(reading: &str, at: usize, hits: &mut Hits) -> usize {
    let rest = &reading[at..];
    for token in ["[inst]", "[/inst]", "[system]", "[/system]"] {
        if rest.starts_with(token) {
            chat_token(hits, token, at, at + token.len());
            return at + token.len();
        }
    }
    for idiom in [
        "[//]: #",
        "[//]: <>",
        "[comment]: #",
        "[comment]: <>",
        "[_]: #",
    ] {
        if rest.starts_with(idiom) {
            let end = rest.find('\n').map_or(reading.len(), |e| at + e);
            hits.add(FindingKind::HtmlComment, Severity::Serious, at, end, || {
                "A Markdown comment: hidden when the text is rendered, read by the model.".into()
            });
            return end;
        }
    }
    at + 1
}

/// Looks at the `\` at `at`: a terminal escape written out as text
/// (`\x1b[`, `\u001b[`, `\033[`, `\e[`), which a program that prints it
/// with escapes interpreted turns into a real one.
fn literal_escape(reading: &str, at: usize, hits: &mut Hits) -> usize {
    let rest = &reading[at + 1..];
    for code in ["x1b", "u001b", "033", "u{1b}", "e"] {
        if let Some(after) = rest.strip_prefix(code) {
            let opens = after.starts_with('[') || (code != "e" && after.starts_with(']'));
            if opens {
                let end = at + 1 + code.len() + 1;
                hits.add(FindingKind::TerminalEscape, Severity::Warning, at, end, || format!(
                        "A terminal escape written out as text (\\{code}{}): harmless as text, \
                         but a terminal that interprets it can hide or rewrite what a person reads.",
                        &after[..1]
                    ));
                return end;
            }
        }
    }
    at + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(reading: &str) -> Vec<Severity> {
        let marks: Vec<u32> = reading
            .bytes()
            .enumerate()
            .filter(|(_, b)| matches!(b, b'<' | b'[' | b'\\'))
            .map(|(i, _)| i as u32)
            .collect();
        let mut hits = Hits::default();
        markup(reading, &marks, &mut hits);
        hits.list.iter().map(|h| h.severity).collect()
    }

    #[test]
    fn attributes_are_read_up_to_the_bound() {
        // "<b" + attributes + ">": the ">" must come within MAX_ATTRIBUTES.
        let at = format!("<b {}>", "x".repeat(MAX_ATTRIBUTES - 2));
        let over = format!("<b {}>", "x".repeat(MAX_ATTRIBUTES - 1));
        assert_eq!(tags(&at), vec![Severity::Notice]);
        assert!(tags(&over).is_empty());
    }
}
