//! Desktop notifications with buttons, for the daemon's consent
//! (crate::consent::notify), and what each platform offers.
//!
//! - **Linux**: the freedesktop notification server on the session bus
//!   (notify-rust's D-Bus backend): its capabilities, a notification with
//!   actions waited on, and `CloseNotification` to withdraw one nobody
//!   waits for any more.
//! - **Windows and macOS**: none here. Their notifications (toasts, the
//!   notification center) only answer a click to an app that registered
//!   for it, which a console daemon is not: [`capabilities`] says so, and
//!   the daemon declines every question with "open Airlock to approve"
//!   (crate::consent::NoOneToAsk); the desktop app asks in its own dialogs.

use std::time::Duration;

use tokio::sync::oneshot;

/// What the notification server can do.
pub struct Capabilities {
    /// Buttons ("actions").
    pub actions: bool,
    /// It renders markup in the body ("body-markup"): bodies are escaped.
    pub markup: bool,
}

/// The notification server's capabilities, or why there is none.
pub fn capabilities() -> Result<Capabilities, String> {
    imp::capabilities()
}

/// One notification to show.
pub struct Shown {
    pub summary: String,
    pub body: String,
    pub actions: Vec<(&'static str, String)>,
    /// `None`: until the user acts or the notification is closed.
    pub timeout: Option<Duration>,
    /// A question waiting for its answer (critical urgency, `timeout`
    /// applies); else an ordinary notice with the server's own urgency
    /// and expiry.
    pub critical: bool,
}

/// Show `n` and wait for an action (blocking: call on a thread of its
/// own). `shown` gets its id once it is up; `answer` the action id (`None`:
/// closed, expired, or it could not be shown).
pub fn show_and_wait(
    n: Shown,
    shown: std::sync::mpsc::Sender<u32>,
    answer: oneshot::Sender<Option<String>>,
) {
    imp::show_and_wait(n, shown, answer)
}

/// Show a notification without buttons (blocking).
pub fn show(summary: &str, body: &str) {
    imp::show(summary, body)
}

/// Withdraw the notification `id` (in the background).
pub fn close(id: u32) {
    imp::close(id)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::{Capabilities, Shown};

    pub(super) fn capabilities() -> Result<Capabilities, String> {
        let caps = notify_rust::get_capabilities()
            .map_err(|e| format!("no notification server on the session bus ({e})"))?;
        Ok(Capabilities {
            actions: caps.iter().any(|c| c == "actions"),
            markup: caps.iter().any(|c| c == "body-markup"),
        })
    }

    pub(super) fn show_and_wait(
        shown: Shown,
        id_tx: std::sync::mpsc::Sender<u32>,
        tx: oneshot::Sender<Option<String>>,
    ) {
        let mut n = notify_rust::Notification::new();
        n.appname("Airlock")
            .summary(&shown.summary)
            .body(&shown.body);
        if shown.critical {
            n.urgency(notify_rust::Urgency::Critical);
            n.timeout(match shown.timeout {
                Some(t) => notify_rust::Timeout::Milliseconds(
                    u32::try_from(t.as_millis()).unwrap_or(u32::MAX),
                ),
                None => notify_rust::Timeout::Never,
            });
        }
        for (id, label) in &shown.actions {
            n.action(id, label);
        }
        let Ok(handle) = n.show() else {
            let _ = tx.send(None);
            return;
        };
        let _ = id_tx.send(handle.id());
        handle.wait_for_action(|action| {
            let chosen = (action != "__closed").then(|| action.to_owned());
            let _ = tx.send(chosen);
        });
    }

    pub(super) fn show(summary: &str, body: &str) {
        let _ = notify_rust::Notification::new()
            .appname("Airlock")
            .summary(summary)
            .body(body)
            .show();
    }

    pub(super) fn close(id: u32) {
        std::thread::spawn(move || {
            let Ok(conn) = dbus::blocking::Connection::new_session() else {
                return;
            };
            let proxy = conn.with_proxy(
                "org.freedesktop.Notifications",
                "/org/freedesktop/Notifications",
                Duration::from_secs(2),
            );
            let _: Result<(), _> =
                proxy.method_call("org.freedesktop.Notifications", "CloseNotification", (id,));
        });
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use tokio::sync::oneshot;

    use super::{Capabilities, Shown};

    pub(super) fn capabilities() -> Result<Capabilities, String> {
        Err("a daemon cannot ask in this system's notifications (they answer clicks only to a registered app)".into())
    }

    pub(super) fn show_and_wait(
        _shown: Shown,
        _id_tx: std::sync::mpsc::Sender<u32>,
        tx: oneshot::Sender<Option<String>>,
    ) {
        let _ = tx.send(None);
    }

    pub(super) fn show(_summary: &str, _body: &str) {}

    pub(super) fn close(_id: u32) {}
}
