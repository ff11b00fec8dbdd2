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
//! - Buttons: the view's, in its order and words (Decline, the default:
//!   Return picks it; Open in browser; Cancel); Escape and closing the
//!   window give Cancel. A blocked page's notice has Close only.
//! - It runs on a thread of its own, not modal to the window, above other
//!   windows; its title is the request's, so [`withdraw`] finds it and
//!   presses Cancel for it when the request is answered elsewhere.

use std::os::windows::ffi::OsStrExt;

use tauri::AppHandle;
use tokio::sync::oneshot;
use windows_sys::Win32::Foundation::{HWND, LPARAM, S_OK, WPARAM};
use windows_sys::Win32::UI::Controls::{
    TaskDialogIndirect, TASKDIALOGCONFIG, TASKDIALOG_BUTTON, TDF_ALLOW_DIALOG_CANCELLATION,
    TDM_CLICK_BUTTON, TDN_CREATED, TD_ERROR_ICON, TD_INFORMATION_ICON, TD_WARNING_ICON,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    FindWindowW, PostMessageW, SetForegroundWindow, SetWindowPos, HWND_TOPMOST, IDCANCEL,
    SWP_NOMOVE, SWP_NOSIZE,
};

use airlock_core::elicitation::view::{ButtonRole, ConsentView};

use super::{choice, is_blocked, Choice};

/// The id of the view's button at index `i`.
const FIRST_BUTTON_ID: i32 = 100;
/// The window class of every dialog box, TaskDialogs included.
const DIALOG_CLASS: &str = "#32770";

fn wide(s: &str) -> Vec<u16> {
    std::ffi::OsStr::new(s)
        .encode_wide()
        .chain(std::iter::once(0))
        .collect()
}

/// The content under the domain: plain lines, the same facts as the GTK
/// dialog's (who asks, then each of the view's lines by its caption, then
/// why it was blocked and every warning).
fn content(view: &ConsentView) -> String {
    let mut lines = vec![view.heading_text(), String::new()];
    for line in &view.lines {
        match &line.note {
            Some(note) => lines.push(format!("{}:  {} ({note})", line.label, line.text)),
            None => lines.push(format!("{}:  {}", line.label, line.text)),
        }
    }
    if view.warned() {
        lines.push(String::new());
        lines.extend(view.blocked.iter().map(|b| format!("⛔ {b}")));
        lines.extend(view.warnings.iter().map(|w| format!("⚠ {}", w.sentence)));
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

fn run(view: &ConsentView) -> Choice {
    let title = wide(&view.title);
    let domain = wide(view.domain.as_ref().map_or("", |d| d.text.as_str()));
    let body = wide(&content(view));
    let footer = wide(&view.note_text());
    // The view's buttons in its order (Decline, Open in browser, Cancel; a
    // blocked page: Close), each with its own label.
    let labels: Vec<Vec<u16>> = view.buttons.iter().map(|b| wide(&b.label)).collect();
    let buttons: Vec<TASKDIALOG_BUTTON> = labels
        .iter()
        .zip(FIRST_BUTTON_ID..)
        .map(|(label, id)| TASKDIALOG_BUTTON {
            nButtonID: id,
            pszButtonText: label.as_ptr(),
        })
        .collect();
    let default = view
        .buttons
        .iter()
        .position(|b| b.role == ButtonRole::Default)
        .and_then(|i| i32::try_from(i).ok())
        .map_or(0, |i| FIRST_BUTTON_ID + i);
    let mut config = TASKDIALOGCONFIG {
        cbSize: std::mem::size_of::<TASKDIALOGCONFIG>() as u32,
        // Escape and the close box give IDCANCEL: Cancel.
        dwFlags: TDF_ALLOW_DIALOG_CANCELLATION,
        pszWindowTitle: title.as_ptr(),
        pszMainInstruction: domain.as_ptr(),
        pszContent: body.as_ptr(),
        pszFooter: footer.as_ptr(),
        pfCallback: Some(on_event),
        cButtons: u32::try_from(buttons.len()).unwrap_or(0),
        pButtons: buttons.as_ptr(),
        nDefaultButton: default,
        ..Default::default()
    };
    config.Anonymous1.pszMainIcon = if is_blocked(view) {
        TD_ERROR_ICON
    } else if view.warned() {
        TD_WARNING_ICON
    } else {
        TD_INFORMATION_ICON
    };
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
    if result != S_OK {
        return Choice::Cancel;
    }
    usize::try_from(pressed - FIRST_BUTTON_ID)
        .ok()
        .and_then(|i| view.buttons.get(i))
        .map_or(Choice::Cancel, |b| choice(b.action))
}

pub(super) fn show(_app: &AppHandle, view: ConsentView, tx: oneshot::Sender<Choice>) {
    // The dialog runs its own message loop: a thread of its own.
    std::thread::spawn(move || {
        let _ = tx.send(run(&view));
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
