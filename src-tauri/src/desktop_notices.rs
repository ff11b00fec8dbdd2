//! Desktop notifications from the window's app, per platform:
//!
//! - **Linux**: freedesktop notifications over D-Bus (notify-rust): buttons
//!   (actions) whose answer comes back here, withdrawn by id when the
//!   request is answered elsewhere, the body escaped where the server
//!   renders markup.
//! - **Windows**: a toast (notify-rust's WinRT backend) with the same
//!   summary and body, without buttons: the consent dialog and the window's
//!   inbox carry the answer; a toast cannot be withdrawn from here.
//! - **macOS**: none; the consent dialog and the window's inbox carry the
//!   answer. (notify-rust's macOS backend compiles Objective-C against
//!   Apple's SDK, which the machines that check the macOS build lack.)

/// What the notification server renders: markup in the body is escaped
/// where it does. Unknown counts as yes (escaping is then at worst seen).
pub fn renders_markup() -> bool {
    imp::renders_markup()
}

/// Show a notification and wait for one of its buttons (blocking: call it
/// on a thread of its own). `on_shown` gets its id once it is up (Linux);
/// `on_action` the chosen button's id, or `"__closed"` when it was
/// dismissed (never called where notifications have no buttons).
pub fn show(
    summary: &str,
    body: &str,
    actions: &[(&str, &str)],
    on_shown: impl FnOnce(u32),
    on_action: impl FnOnce(&str),
) {
    imp::show(summary, body, actions, on_shown, on_action)
}

/// Withdraw the notification `id` (in the background).
pub fn close(id: u32) {
    imp::close(id)
}

#[cfg(target_os = "linux")]
mod imp {
    pub(super) fn renders_markup() -> bool {
        notify_rust::get_capabilities()
            .map(|caps| caps.iter().any(|c| c == "body-markup"))
            .unwrap_or(true)
    }

    pub(super) fn show(
        summary: &str,
        body: &str,
        actions: &[(&str, &str)],
        on_shown: impl FnOnce(u32),
        on_action: impl FnOnce(&str),
    ) {
        let mut n = notify_rust::Notification::new();
        n.appname("Airlock").summary(summary).body(body);
        for (id, label) in actions {
            n.action(id, label);
        }
        let Ok(handle) = n.show() else { return };
        on_shown(handle.id());
        handle.wait_for_action(on_action);
    }

    pub(super) fn close(id: u32) {
        std::thread::spawn(move || {
            let Ok(conn) = dbus::blocking::Connection::new_session() else {
                return;
            };
            let proxy = conn.with_proxy(
                "org.freedesktop.Notifications",
                "/org/freedesktop/Notifications",
                std::time::Duration::from_secs(2),
            );
            let _: Result<(), _> =
                proxy.method_call("org.freedesktop.Notifications", "CloseNotification", (id,));
        });
    }
}

#[cfg(windows)]
mod imp {
    /// The app's identifier (tauri.conf.json), which the installer gives
    /// its Start menu shortcut: toasts are shown under Airlock's name.
    const APP_ID: &str = "dev.airlock.desktop";

    pub(super) fn renders_markup() -> bool {
        false
    }

    pub(super) fn show(
        summary: &str,
        body: &str,
        _actions: &[(&str, &str)],
        _on_shown: impl FnOnce(u32),
        _on_action: impl FnOnce(&str),
    ) {
        let _ = notify_rust::Notification::new()
            .app_id(APP_ID)
            .summary(summary)
            .body(body)
            .show();
    }

    pub(super) fn close(_id: u32) {}
}

#[cfg(target_os = "macos")]
mod imp {
    pub(super) fn renders_markup() -> bool {
        false
    }

    pub(super) fn show(
        _summary: &str,
        _body: &str,
        _actions: &[(&str, &str)],
        _on_shown: impl FnOnce(u32),
        _on_action: impl FnOnce(&str),
    ) {
    }

    pub(super) fn close(_id: u32) {}
}
