//! One text, every check: the hidden characters met while reading it, then
//! the phrase, secret, markup and shadowing checks on the reading, then its
//! length; hits gathered into one finding per kind.

use crate::excerpt::excerpt;
use crate::hits::{Hit, Hits};
use crate::reading::{bounded, Reading};
use crate::words::{tokenize, NameFilter, Tokens};
use crate::{
    markup, phrases, secrets, shadow, Context, Finding, FindingKind, Severity,
    MAX_DESCRIPTION_CHARS, MAX_INSTRUCTIONS_CHARS, MAX_NAME_CHARS, MAX_SCANNED_BYTES,
    MAX_SCHEMA_TEXT_CHARS, MAX_URI_CHARS,
};

/// What a text is, which decides the checks and the length bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A description or title of a tool, prompt or resource.
    Description,
    /// A server's instructions.
    Instructions,
    /// Prose inside a schema: a description, title or comment.
    SchemaText,
    /// Any other string inside a schema: an enum or const value, a default,
    /// an example, a pattern. Not checked for shadowing (an enum value may
    /// well equal another server's tool name).
    SchemaValue,
    /// A name: of a tool, prompt, argument, property, or any object key.
    /// Not checked for shadowing (a name is not prose about other tools).
    Name,
    /// A URI, URI template or MIME type: hidden characters and length only.
    Uri,
    /// Anything else an app may pass on (`_meta`, icons): every check but
    /// shadowing and length.
    Other,
}

impl Role {
    fn bound(self) -> Option<(usize, &'static str)> {
        match self {
            Role::Description => Some((MAX_DESCRIPTION_CHARS, "MAX_DESCRIPTION_CHARS")),
            Role::Instructions => Some((MAX_INSTRUCTIONS_CHARS, "MAX_INSTRUCTIONS_CHARS")),
            Role::SchemaText | Role::SchemaValue => {
                Some((MAX_SCHEMA_TEXT_CHARS, "MAX_SCHEMA_TEXT_CHARS"))
            }
            Role::Name => Some((MAX_NAME_CHARS, "MAX_NAME_CHARS")),
            Role::Uri => Some((MAX_URI_CHARS, "MAX_URI_CHARS")),
            Role::Other => None,
        }
    }
}

/// A finding without its field (the walker names the field only when there
/// is something to report).
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) kind: FindingKind,
    pub(crate) severity: Severity,
    pub(crate) excerpt: String,
    pub(crate) detail: String,
}

impl Pending {
    pub(crate) fn with_field(self, field: String) -> Finding {
        Finding {
            kind: self.kind,
            severity: self.severity,
            field,
            excerpt: self.excerpt,
            detail: self.detail,
        }
    }
}

/// Buffers reused from text to text, so a walk allocates nothing per text
/// that has nothing to report.
#[derive(Default)]
pub(crate) struct Scratch {
    reading: Reading,
    tokens: Tokens,
    hits: Hits,
    on_reading: Hits,
}

/// Largest buffers kept for the next scan on this thread, in bytes: one
/// huge text must not pin its memory for good.
const MAX_KEPT_SCRATCH: usize = 256 * 1024;

thread_local! {
    static SCRATCH: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's reused buffers.
pub(crate) fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    let mut scratch = SCRATCH.with(|s| s.borrow_mut().take()).unwrap_or_default();
    let out = f(&mut scratch);
    let held = scratch.reading.capacity()
        + scratch.tokens.capacity()
        + (scratch.hits.list.capacity() + scratch.on_reading.list.capacity())
            * std::mem::size_of::<Hit>();
    if held <= MAX_KEPT_SCRATCH {
        SCRATCH.with(|s| *s.borrow_mut() = Some(scratch));
    }
    out
}

/// Every check on one text, as `role`.
pub(crate) fn scan(text: &str, role: Role, ctx: &Context<'_>) -> Vec<Pending> {
    let mut out = Vec::new();
    with_scratch(|scratch| scan_into(text, role, ctx, scratch, &mut out));
    out
}

/// [`scan`] with reused buffers; findings are added to `out`.
pub(crate) fn scan_into(
    text: &str,
    role: Role,
    ctx: &Context<'_>,
    scratch: &mut Scratch,
    out: &mut Vec<Pending>,
) {
    let first = out.len();
    let mut cut = text.len().min(MAX_SCANNED_BYTES);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let scanned = &text[..cut];
    if cut < text.len() {
        out.push(Pending {
            kind: FindingKind::ExtremeLength,
            severity: Severity::Serious,
            excerpt: excerpt(text, 0, 0),
            detail: format!(
                "The text is {} bytes long; only the first {MAX_SCANNED_BYTES} were inspected \
                 (MAX_SCANNED_BYTES), so the rest could hide anything.",
                text.len()
            ),
        });
    }

    let Scratch {
        reading,
        tokens,
        hits,
        on_reading,
    } = scratch;
    hits.clear();
    on_reading.clear();
    reading.read(scanned, hits);
    if role != Role::Uri {
        let shadows = matches!(
            role,
            Role::Description | Role::Instructions | Role::SchemaText
        );
        let filter = ctx
            .tools()
            .filter(|t| shadows && !t.is_empty())
            .map(|t| t as &dyn NameFilter);
        tokenize(&reading.text, filter, tokens);
        phrases::directives(&reading.text, &tokens.words, on_reading);
        secrets::secret_words(&tokens.words, on_reading);
        secrets::secret_places(&reading.text, &tokens.paths, &tokens.words, on_reading);
        markup::markup(&reading.text, &tokens.marks, on_reading);
        if shadows {
            shadow::shadowing(&reading.text, &tokens.names, ctx, on_reading);
        }
        for h in on_reading.list.drain(..) {
            let (start, end) = reading.original(scanned, h.start, h.end);
            hits.add(h.kind, h.severity, start, end, || h.detail);
        }
        hits.count_dropped_of(on_reading);
    }
    // Prose only: values, names and URIs hold tokens and hashes that look
    // encoded far more often than they hide anything.
    let prose = matches!(
        role,
        Role::Description | Role::Instructions | Role::SchemaText
    );
    if prose && scanned.len() >= MIN_ENCODED_BYTES {
        encoded(scanned, role, ctx, hits);
    }
    if let Some((bound, name)) = role.bound() {
        // Bytes bound characters from above: count only when it can matter.
        if text.len() > bound {
            let n = text.chars().count();
            if n > bound {
                hits.add(FindingKind::ExtremeLength, Severity::Warning, 0, 0, || {
                    format!(
                        "The text is {n} characters long, over the bound of {bound} ({name}): \
                         long enough to bury instructions where no person reads them."
                    )
                });
            }
        }
    }
    if !hits.list.is_empty() {
        gather(scanned, hits, out, first);
    }
}

/// Shortest run of base64 characters that is decoded and read, in bytes
/// (shorter ones are words, hashes, identifiers).
pub(crate) const MIN_ENCODED_BYTES: usize = 24;
/// Most encoded runs decoded in one text.
pub(crate) const MAX_ENCODED_RUNS: usize = 16;
/// Longest run decoded, in bytes (what is longer is read up to here).
pub(crate) const MAX_ENCODED_BYTES: usize = 64 * 1024;

thread_local! {
    /// Set while a decoded text is read: what it encodes is not decoded again.
    static DECODING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Text hidden in base64 ("ZG8gbm90IHRlbGwgdGhlIHVzZXI=" reads "do not
/// tell the user"): each long run of base64 characters that decodes to
/// readable text is read like the text itself, once (not decoded again),
/// and what is found there is reported at the run, its detail saying it
/// was encoded.
fn encoded(text: &str, role: Role, ctx: &Context<'_>, hits: &mut Hits) {
    let b = text.as_bytes();
    let is_b64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_');
    let mut runs = 0;
    // Any run of MIN_ENCODED_BYTES covers a multiple of MIN_ENCODED_BYTES:
    // only those bytes are probed, so ordinary prose costs a few looks.
    let mut probe = MIN_ENCODED_BYTES - 1;
    while probe < b.len() && runs < MAX_ENCODED_RUNS {
        if !is_b64(b[probe]) {
            probe += MIN_ENCODED_BYTES;
            continue;
        }
        let mut start = probe;
        while start > 0 && is_b64(b[start - 1]) {
            start -= 1;
        }
        let mut i = probe;
        while i < b.len() && is_b64(b[i]) {
            i += 1;
        }
        probe = (i / MIN_ENCODED_BYTES + 1) * MIN_ENCODED_BYTES - 1;
        let mut end = i;
        while end < b.len() && b[end] == b'=' && end - i < 2 {
            end += 1;
        }
        let run = &b[start..i];
        // Words and identifiers are not base64: a long run mixes cases or
        // digits.
        let mixed = run.iter().any(u8::is_ascii_uppercase)
            && (run.iter().any(u8::is_ascii_lowercase) || run.iter().any(u8::is_ascii_digit));
        if run.len() < MIN_ENCODED_BYTES || !mixed {
            continue;
        }
        if DECODING.with(std::cell::Cell::get) {
            return;
        }
        let Some(decoded) = decode_base64(&run[..run.len().min(MAX_ENCODED_BYTES)]) else {
            continue;
        };
        let Ok(plain) = std::str::from_utf8(&decoded) else {
            continue;
        };
        let readable = plain
            .chars()
            .filter(|c| !c.is_control() || c.is_whitespace())
            .count();
        if readable * 10 < plain.chars().count() * 9 || !plain.contains(' ') {
            continue;
        }
        runs += 1;
        DECODING.with(|d| d.set(true));
        let inner = scan(plain, role, ctx);
        DECODING.with(|d| d.set(false));
        for p in inner {
            if p.kind == FindingKind::ExtremeLength {
                continue;
            }
            hits.add(p.kind, p.severity, start, end, || {
                format!("Hidden in base64 (decoded: {}): {}", p.excerpt, p.detail)
            });
        }
    }
}

/// Base64 (standard or URL-safe alphabet, padding optional) decoded; `None`
/// when it is not.
fn decode_base64(run: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        })
    };
    if run.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(run.len() / 4 * 3 + 2);
    for chunk in run.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * k);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// One finding per kind: the worst severity, its first place, and how many
/// places in all.
fn gather(text: &str, hits: &Hits, out: &mut Vec<Pending>, first: usize) {
    for kind in FindingKind::ALL {
        let count = hits.count(kind);
        let mut best: Option<&Hit> = None;
        for h in hits.list.iter().filter(|h| h.kind == kind) {
            if best.is_none_or(|b| h.severity > b.severity) {
                best = Some(h);
            }
        }
        let Some(best) = best else { continue };
        let mut detail = best.detail.clone();
        if count > 1 {
            detail.push_str(&format!(" ({count} places in this text.)"));
        }
        let excerpt = if kind == FindingKind::ExtremeLength {
            bounded(&excerpt(text, 0, 0), crate::MAX_EXCERPT_CHARS)
        } else {
            excerpt(text, best.start, best.end)
        };
        if let Some(existing) = out[first..].iter_mut().find(|p| p.kind == kind) {
            // The scan cut: keep the serious one, note the other.
            existing.detail.push(' ');
            existing.detail.push_str(&detail);
            continue;
        }
        out.push(Pending {
            kind,
            severity: best.severity,
            excerpt,
            detail,
        });
    }
    out[first..].sort_by(|a, b| b.severity.cmp(&a.severity).then(a.kind.cmp(&b.kind)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_buffers_are_not_kept() {
        let ctx = Context::alone("s");
        let small = "x".repeat(1000);
        let _ = scan(&small, Role::Other, &ctx);
        assert!(SCRATCH.with(|s| s.borrow().is_some()));
        let big = "x ".repeat(MAX_KEPT_SCRATCH);
        let _ = scan(&big, Role::Other, &ctx);
        assert!(SCRATCH.with(|s| s.borrow().is_none()));
    }
}
