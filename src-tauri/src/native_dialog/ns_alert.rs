//! macOS: Airlock's dialog about one web page as an NSAlert whose
//! accessory view carries what the GTK dialog shows: who asks, the
//! registrable domain large and bold (twice the system font size), the host
//! and the full URL in a fixed-width font with the domain in bold inside
//! them, the server's reason, what history says, every warning, and why it
//! was blocked or what "Open in browser" does. All of it plain text (labels
//! and attributed strings, never markup or HTML).
//!
//! Buttons: the view's, in its order and words: Decline (the first: Return
//! picks it), Open in browser, Cancel (Escape picks a button titled
//! Cancel). A blocked page's notice has Close only. The alert runs app-modal on the main thread
//! (`runModal`); [`withdraw`] stops that modal session when the request is
//! answered elsewhere, which gives Cancel.
//!
//! Compile-checked only (`scripts/check-macos.sh`): no macOS machine runs it
//! here.

use objc2::rc::Retained;
use objc2::runtime::AnyObject;
use objc2::MainThreadMarker;
use objc2_app_kit::{
    NSAlert, NSAlertFirstButtonReturn, NSAlertStyle, NSApplication, NSFont, NSFontAttributeName,
    NSLayoutAttribute, NSModalResponseAbort, NSStackView, NSTextField,
    NSUserInterfaceLayoutOrientation, NSView,
};
use objc2_foundation::{NSMutableAttributedString, NSRange, NSString};
use tauri::AppHandle;
use tokio::sync::oneshot;

use airlock_core::elicitation::view::{ConsentView, LineKey, Split};

use super::{choice, is_blocked, Choice};

/// Widest the accessory's text gets, in points; longer lines wrap.
const TEXT_WIDTH: f64 = 460.0;
/// The domain's size, in multiples of the system font size.
const DOMAIN_SCALE: f64 = 2.0;
const SPACING: f64 = 8.0;

fn label(text: &str, mtm: MainThreadMarker) -> Retained<NSTextField> {
    let l = NSTextField::wrappingLabelWithString(&NSString::from_str(text), mtm);
    l.setSelectable(true);
    l.setPreferredMaxLayoutWidth(TEXT_WIDTH);
    l
}

/// UTF-16 length, the unit of NSString ranges.
fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Fixed-width text with its registrable domain in bold.
fn emphasised(e: &Split, mtm: MainThreadMarker) -> Retained<NSTextField> {
    let size = NSFont::systemFontSize();
    let text = NSMutableAttributedString::from_nsstring(&NSString::from_str(&e.text()));
    let start = utf16_len(&e.before);
    let len = utf16_len(&e.domain);
    if len > 0 {
        let bold = NSFont::boldSystemFontOfSize(size);
        let value: &AnyObject = &bold;
        // SAFETY: the range lies inside the string (its UTF-16 offsets were
        // computed from the same text) and the font is a valid value of
        // the font attribute; the static is AppKit's constant.
        unsafe {
            text.addAttribute_value_range(NSFontAttributeName, value, NSRange::new(start, len))
        };
    }
    let l = NSTextField::labelWithAttributedString(&text, mtm);
    l.setSelectable(true);
    l.setPreferredMaxLayoutWidth(TEXT_WIDTH);
    l
}

fn accessory(view: &ConsentView, mtm: MainThreadMarker) -> Retained<NSStackView> {
    let stack = NSStackView::new(mtm);
    stack.setOrientation(NSUserInterfaceLayoutOrientation::Vertical);
    stack.setAlignment(NSLayoutAttribute::Leading);
    stack.setSpacing(SPACING);
    let add = |v: &NSView| stack.addArrangedSubview(v);
    add(&label(&view.heading_text(), mtm));
    let domain_text = view.domain.as_ref().map_or("", |d| d.text.as_str());
    let domain = NSTextField::labelWithString(&NSString::from_str(domain_text), mtm);
    domain.setSelectable(true);
    domain.setFont(Some(&NSFont::boldSystemFontOfSize(
        NSFont::systemFontSize() * DOMAIN_SCALE,
    )));
    add(&domain);
    for line in &view.lines {
        match (line.key, &line.split) {
            (LineKey::Url | LineKey::Host, Some(split)) => {
                add(&label(&line.label, mtm));
                add(&emphasised(split, mtm));
            }
            _ => {
                let text = match &line.note {
                    Some(note) => format!("{}:  {} ({note})", line.label, line.text),
                    None => format!("{}:  {}", line.label, line.text),
                };
                add(&label(&text, mtm));
            }
        }
    }
    if let Some(blocked) = &view.blocked {
        add(&label(&format!("⛔ {blocked}"), mtm));
    }
    for warning in &view.warnings {
        add(&label(&format!("⚠ {}", warning.sentence), mtm));
    }
    if !view.note.is_empty() {
        add(&label(&view.note_text(), mtm));
    }
    stack.setFrameSize(stack.fittingSize());
    stack
}

fn run(view: &ConsentView, mtm: MainThreadMarker) -> Choice {
    let alert = NSAlert::new(mtm);
    alert.setMessageText(&NSString::from_str(&view.title));
    alert.setInformativeText(&NSString::from_str(""));
    alert.setAlertStyle(if is_blocked(view) {
        NSAlertStyle::Critical
    } else if view.warned() {
        NSAlertStyle::Warning
    } else {
        NSAlertStyle::Informational
    });
    alert.setAccessoryView(Some(&accessory(view, mtm)));
    // The view's buttons in its order: the first (Decline; a blocked
    // page's Close) is the one Return picks.
    for b in &view.buttons {
        alert.addButtonWithTitle(&NSString::from_str(&b.label));
    }
    alert.window().setTitle(&NSString::from_str(&view.title));
    let response = alert.runModal();
    usize::try_from(response - NSAlertFirstButtonReturn)
        .ok()
        .and_then(|i| view.buttons.get(i))
        .map_or(Choice::Cancel, |b| choice(b.action))
}

pub(super) fn show(app: &AppHandle, view: ConsentView, tx: oneshot::Sender<Choice>) {
    let _ = app.run_on_main_thread(move || {
        let choice = match MainThreadMarker::new() {
            Some(mtm) => run(&view, mtm),
            None => Choice::Cancel,
        };
        let _ = tx.send(choice);
    });
}

/// Stop the modal alert titled `title`, if it is the one up: it answers
/// Cancel.
pub(super) fn withdraw(app: &AppHandle, title: String) {
    let _ = app.run_on_main_thread(move || {
        let Some(mtm) = MainThreadMarker::new() else {
            return;
        };
        let ns_app = NSApplication::sharedApplication(mtm);
        let up = ns_app
            .modalWindow()
            .is_some_and(|w| w.title().to_string() == title);
        if up {
            ns_app.stopModalWithCode(NSModalResponseAbort);
        }
    });
}
