//! macOS: Airlock's dialog about one web page as an NSAlert whose
//! accessory view carries what the GTK dialog shows: who asks, the
//! registrable domain large and bold (twice the system font size), the host
//! and the full URL in a fixed-width font with the domain in bold inside
//! them, the server's reason, what history says, every warning, and why it
//! was blocked or what "Open in browser" does. All of it plain text (labels
//! and attributed strings, never markup or HTML).
//!
//! Buttons in order: Decline (the first: Return picks it), Open in browser,
//! Cancel (Escape picks a button titled Cancel). A blocked page's notice
//! has Close only. The alert runs app-modal on the main thread
//! (`runModal`); [`withdraw`] stops that modal session when the request is
//! answered elsewhere, which gives Cancel.
//!
//! Compile-checked only (`scripts/check-macos.sh`): no macOS machine runs it
//! here.

use objc2::rc::Retained;
use objc2::runtime::AnyObject;
use objc2::MainThreadMarker;
use objc2_app_kit::{
    NSAlert, NSAlertFirstButtonReturn, NSAlertSecondButtonReturn, NSAlertStyle, NSApplication,
    NSFont, NSFontAttributeName, NSLayoutAttribute, NSModalResponseAbort, NSStackView, NSTextField,
    NSUserInterfaceLayoutOrientation, NSView,
};
use objc2_foundation::{NSMutableAttributedString, NSRange, NSString};
use tauri::AppHandle;
use tokio::sync::oneshot;

use super::{Choice, Kind};
use crate::presenter::{
    Emphasis, PageDialog, CANCEL_LABEL, CLOSE_LABEL, DECLINE_LABEL, OPEN_LABEL,
};

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
fn emphasised(e: &Emphasis, mtm: MainThreadMarker) -> Retained<NSTextField> {
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

fn accessory(page: &PageDialog, mtm: MainThreadMarker) -> Retained<NSStackView> {
    let stack = NSStackView::new(mtm);
    stack.setOrientation(NSUserInterfaceLayoutOrientation::Vertical);
    stack.setAlignment(NSLayoutAttribute::Leading);
    stack.setSpacing(SPACING);
    let add = |view: &NSView| stack.addArrangedSubview(view);
    add(&label(&page.heading, mtm));
    let domain = NSTextField::labelWithString(&NSString::from_str(&page.domain), mtm);
    domain.setSelectable(true);
    domain.setFont(Some(&NSFont::boldSystemFontOfSize(
        NSFont::systemFontSize() * DOMAIN_SCALE,
    )));
    add(&domain);
    if let Some(host) = &page.host {
        add(&label("Host", mtm));
        add(&emphasised(host, mtm));
    }
    if let Some(url) = &page.url {
        add(&label("Full URL", mtm));
        add(&emphasised(url, mtm));
    }
    if let Some(app) = &page.app_line {
        add(&label(app, mtm));
    }
    add(&label(&format!("Why:  {}", page.reason), mtm));
    if let Some(seen) = &page.seen {
        add(&label(&format!("Seen:  {seen}"), mtm));
    }
    if let Some(blocked) = &page.blocked {
        add(&label(&format!("⛔ {blocked}"), mtm));
    }
    for warning in &page.warnings {
        add(&label(&format!("⚠ {warning}"), mtm));
    }
    if page.blocked.is_none() {
        add(&label(&page.closing_line, mtm));
    }
    stack.setFrameSize(stack.fittingSize());
    stack
}

fn run(page: &PageDialog, kind: Kind, mtm: MainThreadMarker) -> Choice {
    let alert = NSAlert::new(mtm);
    alert.setMessageText(&NSString::from_str(&page.title));
    alert.setInformativeText(&NSString::from_str(""));
    alert.setAlertStyle(match kind {
        Kind::Blocked => NSAlertStyle::Critical,
        Kind::Consent if page.warnings.is_empty() => NSAlertStyle::Informational,
        Kind::Consent => NSAlertStyle::Warning,
    });
    alert.setAccessoryView(Some(&accessory(page, mtm)));
    match kind {
        Kind::Consent => {
            alert.addButtonWithTitle(&NSString::from_str(DECLINE_LABEL));
            alert.addButtonWithTitle(&NSString::from_str(OPEN_LABEL));
            alert.addButtonWithTitle(&NSString::from_str(CANCEL_LABEL));
        }
        Kind::Blocked => {
            alert.addButtonWithTitle(&NSString::from_str(CLOSE_LABEL));
        }
    }
    alert.window().setTitle(&NSString::from_str(&page.title));
    let response = alert.runModal();
    match kind {
        Kind::Consent if response == NSAlertFirstButtonReturn => Choice::Decline,
        Kind::Consent if response == NSAlertSecondButtonReturn => Choice::Open,
        _ => Choice::Cancel,
    }
}

pub(super) fn show(app: &AppHandle, dialog: PageDialog, kind: Kind, tx: oneshot::Sender<Choice>) {
    let _ = app.run_on_main_thread(move || {
        let choice = match MainThreadMarker::new() {
            Some(mtm) => run(&dialog, kind, mtm),
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
