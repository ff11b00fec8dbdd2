//! The main window as the rest of the shell reaches it: whether the user
//! has it in front of them, and bringing it forward (the tray's Show, a
//! notification's action, a second launch).

use tauri::{AppHandle, Manager};

pub fn focused(app: &AppHandle) -> bool {
    app.get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(false)
}

pub fn bring_forward(app: &AppHandle) {
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.show();
        let _ = w.unminimize();
        let _ = w.set_focus();
    }
}
