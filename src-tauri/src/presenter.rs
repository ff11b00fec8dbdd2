//! The core's consent view (`airlock_core::elicitation::view`), fitted to
//! the desktop's surfaces: the native dialog gets it with its long parts
//! bounded (the full URL elided in the middle around its registrable
//! domain, the server's message cut), or as plain lines for a plain
//! message box; the window's inbox gets it whole. Every word is the
//! view's; notifications are the core's notices (`view::notice`, for a
//! host with a window). `consent.rs` and `native_dialog.rs` only show what
//! this returns.

use airlock_core::elicitation::view::{ConsentView, LineKey, Split};
use airlock_core::elicitation::{FormConsentRequest, UrlConsentRequest};
use airlock_core::url_safety::{elide_middle, neutralize_for_display};

use crate::inbox::{PendingKind, PendingView};

/// Longest URL shown in a dialog; the middle is elided (the window's inbox
/// shows all of it).
pub const DIALOG_URL_CHARS: usize = 400;
/// Longest server message shown in a dialog.
pub const DIALOG_MESSAGE_CHARS: usize = 600;
/// Longest line of a plain message box: GTK does not wrap a long unbroken
/// URL, which would push the buttons off the screen.
pub const DIALOG_LINE_CHARS: usize = 80;
/// Longest part of a URL before its registrable domain (scheme, user
/// information, the rest of the host) shown in a dialog; the middle is
/// elided.
pub const URL_BEFORE_CHARS: usize = 300;
/// Fewest characters of a URL after its registrable domain (port, path,
/// query) shown in a dialog, however long the host is.
pub const URL_AFTER_MIN_CHARS: usize = 120;

/// Break text into lines of at most `width` characters (at spaces where a
/// line has one, else anywhere).
pub fn hard_wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width.max(1));
    let mut line = 0usize;
    for word in text.split(' ') {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        for c in word.chars() {
            if line == width {
                out.push('\n');
                line = 0;
            }
            out.push(c);
            line += 1;
        }
    }
    out
}

/// A URL's parts bounded for a dialog: the part before the domain to
/// `URL_BEFORE_CHARS`, the part after it to what is left of
/// `DIALOG_URL_CHARS` (at least `URL_AFTER_MIN_CHARS`), both elided in the
/// middle. The domain itself is never cut. Without a domain to keep, the
/// whole URL is elided to `DIALOG_URL_CHARS`.
pub fn bound_url(split: &Split) -> Split {
    if split.domain.is_empty() {
        return Split::plain(elide_middle(&split.text(), DIALOG_URL_CHARS));
    }
    let before = elide_middle(&split.before, URL_BEFORE_CHARS);
    let used = before.chars().count() + split.domain.chars().count();
    let after = elide_middle(
        &split.after,
        DIALOG_URL_CHARS
            .saturating_sub(used)
            .max(URL_AFTER_MIN_CHARS),
    );
    Split {
        before,
        domain: split.domain.clone(),
        after,
    }
}

/// The view as a dialog shows it: the full URL bounded around its domain,
/// the server's message cut to `DIALOG_MESSAGE_CHARS`.
pub fn for_dialog(mut view: ConsentView) -> ConsentView {
    for line in &mut view.lines {
        match line.key {
            LineKey::Url => {
                let split = line
                    .split
                    .as_ref()
                    .map_or_else(|| Split::plain(line.text.clone()), bound_url);
                line.text = split.text();
                line.split = Some(split);
            }
            LineKey::Why => line.text = neutralize_for_display(&line.text, DIALOG_MESSAGE_CHARS),
            _ => {}
        }
    }
    view
}

/// The dialog's text for a plain message box (kept for a platform without
/// Airlock's own dialog; each has one today): the domain first, then the
/// host and the full URL, the other lines, every warning and the note,
/// each line at most `DIALOG_LINE_CHARS` long. `%` is doubled because the
/// plugin's GTK message box treats the text as a format string.
#[cfg_attr(not(test), allow(dead_code))]
pub fn plain_body(view: &ConsentView) -> String {
    let row = |label: &str, text: &str| hard_wrap(&format!("{label}:  {text}"), DIALOG_LINE_CHARS);
    // An address is cut anywhere, so it starts on its label's line.
    let address = |label: &str, text: &str| {
        let chars: Vec<char> = format!("{label}:  {text}").chars().collect();
        chars
            .chunks(DIALOG_LINE_CHARS)
            .map(|c| c.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut lines = Vec::new();
    lines.extend(view.domain.as_ref().map(|d| address(&d.label, &d.text)));
    let first = [LineKey::Host, LineKey::Url];
    for key in first {
        lines.extend(view.line(key).map(|l| address(&l.label, &l.text)));
    }
    lines.push(String::new());
    for l in view.lines.iter().filter(|l| !first.contains(&l.key)) {
        let text = match &l.note {
            Some(note) => format!("{} ({note})", l.text),
            None => l.text.clone(),
        };
        lines.push(row(&l.label, &text));
    }
    let warnings: Vec<String> = view
        .blocked
        .iter()
        .map(|b| format!("⛔ {b}"))
        .chain(view.warnings.iter().map(|w| format!("⚠ {}", w.sentence)))
        .map(|w| hard_wrap(&w, DIALOG_LINE_CHARS))
        .collect();
    if !warnings.is_empty() {
        lines.push(String::new());
        lines.extend(warnings);
    }
    if !view.note.is_empty() {
        lines.push(String::new());
        lines.push(hard_wrap(&view.note_text(), DIALOG_LINE_CHARS));
    }
    lines.join("\n").replace('%', "%%")
}

/// The inbox entry for a URL waiting for consent (`Consent`) or for
/// Continue / Cancel (`Late`).
pub fn inbox_entry(request: &UrlConsentRequest, kind: PendingKind, since_ms: i64) -> PendingView {
    PendingView {
        record_id: request.record_id,
        kind,
        since_ms,
        server: request.server.clone(),
        view: match kind {
            PendingKind::Late => ConsentView::late(request),
            _ => ConsentView::url(request),
        },
        form: None,
        secret_fields: Vec::new(),
    }
}

/// The inbox entry for a form, naming the fields that look secret.
pub fn form_inbox_entry(request: &FormConsentRequest, since_ms: i64) -> PendingView {
    PendingView {
        record_id: request.record_id,
        kind: PendingKind::Form,
        since_ms,
        server: request.server.clone(),
        view: ConsentView::form(request),
        form: Some(request.schema.clone()),
        secret_fields: request
            .schema
            .secret_looking()
            .map(|f| f.name.clone())
            .collect(),
    }
}

#[cfg(test)]
#[path = "presenter_tests.rs"]
mod tests;
