//! Windows: Airlock's dialog about one web page as a TaskDialog
//! (comctl32 v6, which the app's manifest from tauri-build selects).
//!
//! - The registrable domain is the **main instruction**: the largest text
//!   a TaskDialog shows, in the system's emphasis style (bigger, coloured;
//!   TaskDialog offers no bold: its elements have no per-text font).
//! - Who asks, the host, the full URL, the server's reason, what history
//!   says and every warning are the content, as plain text (hyperlinks are
//!   off: nothing the server sent is parsed as markup); why it was blocked
//!   or what "Open in browser" does is the footer.
//! - Buttons: Decline (the default: Return picks it), Open in browser,
//!   Cancel; Escape and closing the window give Cancel. A blocked page's
//!   notice has Close only.
//! - It runs on a thread of its own, not modal to the window, above other
//!   windows; its title is the request's, so [`withdraw`] finds it and
//!   presses Cancel for it when the request is answered elsewhere.

use std::os::windows::ffi::OsStrExt;

use tauri::AppHandle;
use tokio::sync::oneshot;
use windows_sys::Win32::Foundation::{HWND, LPARAM, S_OK, WPARAM};
use windows_sys::Win32::UI::Controls::{
    TaskDialogIndirect, TASKDIALOGCONFIG, TASKDIALOG_BUTTON, TDCBF_CANCEL_BUTTON,
    TDF_ALLOW_DIALOG_CANCELLATION, TDM_CLICK_BUTTON, TDN_CREATED, TD_ERROR_ICON,
    TD_INFORMATION_ICON, TD_WARNING_ICON,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    FindWindowW, PostMessageW, SetForegroundWindow, SetWindowPos, HWND_TOPMOST, IDCANCEL,
    SWP_NOMOVE, SWP_NOSIZE,
};

use super::{Choice, Kind};
use crate::presenter::{PageDialog, CANCEL_LABEL, CLOSE_LABEL, DECLINE_LABEL, OPEN_LABEL};

const DECLINE_ID: i32 = 100;
const OPEN_ID: i32 = 101;
const CLOSE_ID: i32 = 102;
/// The window class of every dialog box, TaskDialogs included.
const DIALOG_CLASS: &str = "#32770";

fn wide(s: &str) -> Vec<u16> {
    std::ffi::OsStr::new(s)
        .encode_wide()
        .chain(std::iter::once(0))
        .collect()
}

/// The content under the domain: plain lines, the same facts as the GTK
/// dialog's.
fn content(page: &PageDialog) -> String {
    let mut lines = vec![page.heading.clone(), String::new()];
    if let Some(host) = &page.host {
        lines.push(format!("Host:  {}", host.text()));
    }
    if let Some(url) = &page.url {
        lines.push(format!("Full URL:  {}", url.text()));
    }
    lines.extend(page.app_line.clone());
    lines.push(format!("Why:  {}", page.reason));
    if let Some(seen) = &page.seen {
        lines.push(format!("Seen:  {seen}"));
    }
    if page.blocked.is_some() || !page.warnings.is_empty() {
        lines.push(String::new());
        lines.extend(page.blocked.iter().map(|b| format!("⛔ {b}")));
        lines.extend(page.warnings.iter().map(|w| format!("⚠ {w}")));
    }
    lines.join("\n")
}

/// Raise the dialog above other windows once it exists.
unsafe extern "system" fn on_event(
    hwnd: HWND,
    msg: u32,
    _wparam: WPARAM,
    _lparam: LPARAM,
    _data: isize,
) -> i32 {
    if msg == TDN_CREATED as u32 {
        // SAFETY: `hwnd` is the dialog's own window, alive during its
        // notifications.
        unsafe {
            SetWindowPos(hwnd, HWND_TOPMOST, 0, 0, 0, 0, SWP_NOMOVE | SWP_NOSIZE);
            SetForegroundWindow(hwnd);
        }
    }
    S_OK
}

fn run(page: &PageDialog, kind: Kind) -> Choice {
    let title = wide(&page.title);
    let domain = wide(&page.domain);
    let body = wide(&content(page));
    let footer = wide(&page.closing_line);
    let (decline, open, close) = (wide(DECLINE_LABEL), wide(OPEN_LABEL), wide(CLOSE_LABEL));
    // The system's own Cancel button: it says CANCEL_LABEL in the user's
    // language, and Escape picks it.
    let _ = CANCEL_LABEL;
    let close_only = [TASKDIALOG_BUTTON {
        nButtonID: CLOSE_ID,
        pszButtonText: close.as_ptr(),
    }];
    let buttons = [
        TASKDIALOG_BUTTON {
            nButtonID: DECLINE_ID,
            pszButtonText: decline.as_ptr(),
        },
        TASKDIALOG_BUTTON {
            nButtonID: OPEN_ID,
            pszButtonText: open.as_ptr(),
        },
    ];
    let mut config = TASKDIALOGCONFIG {
        cbSize: std::mem::size_of::<TASKDIALOGCONFIG>() as u32,
        dwFlags: TDF_ALLOW_DIALOG_CANCELLATION,
        pszWindowTitle: title.as_ptr(),
        pszMainInstruction: domain.as_ptr(),
        pszContent: body.as_ptr(),
        pszFooter: footer.as_ptr(),
        pfCallback: Some(on_event),
        ..Default::default()
    };
    config.Anonymous1.pszMainIcon = match kind {
        Kind::Blocked => TD_ERROR_ICON,
        Kind::Consent if page.warnings.is_empty() => TD_INFORMATION_ICON,
        Kind::Consent => TD_WARNING_ICON,
    };
    match kind {
        Kind::Consent => {
            config.dwCommonButtons = TDCBF_CANCEL_BUTTON;
            config.cButtons = buttons.len() as u32;
            config.pButtons = buttons.as_ptr();
            config.nDefaultButton = DECLINE_ID;
        }
        Kind::Blocked => {
            config.cButtons = close_only.len() as u32;
            config.pButtons = close_only.as_ptr();
            config.nDefaultButton = CLOSE_ID;
        }
    }
    let mut pressed = 0i32;
    // SAFETY: every string and the button array outlive the call, which
    // returns only once the dialog is closed; the out pointers are ours.
    let result = unsafe {
        TaskDialogIndirect(
            &config,
            &mut pressed,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    match (kind, result == S_OK, pressed) {
        (Kind::Consent, true, DECLINE_ID) => Choice::Decline,
        (Kind::Consent, true, OPEN_ID) => Choice::Open,
        _ => Choice::Cancel,
    }
}

pub(super) fn show(_app: &AppHandle, dialog: PageDialog, kind: Kind, tx: oneshot::Sender<Choice>) {
    // The dialog runs its own message loop: a thread of its own.
    std::thread::spawn(move || {
        let _ = tx.send(run(&dialog, kind));
    });
}

/// Press Cancel in the dialog titled `title`, if one is up (the request
/// was answered elsewhere or ended).
pub(super) fn withdraw(_app: &AppHandle, title: String) {
    let (class, title) = (wide(DIALOG_CLASS), wide(&title));
    // SAFETY: NUL-terminated strings; a window found is only posted to.
    unsafe {
        let hwnd = FindWindowW(class.as_ptr(), title.as_ptr());
        if !hwnd.is_null() {
            PostMessageW(hwnd, TDM_CLICK_BUTTON as u32, IDCANCEL as WPARAM, 0);
        }
    }
}
