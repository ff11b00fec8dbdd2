//! The desktop's `Consent` port: an OS-native dialog for every URL
//! elicitation, a desktop notification when the window is not focused, and
//! the window's inbox. Whichever answers first decides. Forms are answered in
//! the window only (its inbox); their notification just brings it forward.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, FormAnswer, FormConsentRequest, Origin,
    UrlConsentRequest,
};
use airlock_core::url_safety::{elide_middle, neutralize_for_display, Inspection};
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::{
    DialogExt, MessageDialogButtons, MessageDialogKind, MessageDialogResult,
};

use crate::api::{EmitDeclared, INBOX_EVENT};
use crate::inbox::{Answer, Inbox, PendingKind, PendingView};
use crate::settings::Settings;

/// Button labels. Return activates the first button (Decline) and Escape or
/// closing the dialog gives Cancel: only a deliberate click opens.
pub const DECLINE_LABEL: &str = "Decline";
pub const OPEN_LABEL: &str = "Open in browser";
pub const CANCEL_LABEL: &str = "Cancel";
/// Longest URL shown in a dialog or notification; the middle is elided
/// (the window's inbox shows all of it).
pub const DIALOG_URL_CHARS: usize = 400;
/// Longest server message shown in a dialog or notification.
pub const DIALOG_MESSAGE_CHARS: usize = 600;
/// Longest line in a dialog: GTK does not wrap a long unbroken URL, which
/// would push the buttons off the screen.
pub const DIALOG_LINE_CHARS: usize = 80;

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

pub fn dialog_title(server: &str, record_id: i64, sign_in: bool) -> String {
    // Unique per request, so the dialog can be found and closed when the
    // request is answered elsewhere or ends.
    let what = if sign_in {
        "asks you to sign in"
    } else {
        "asks to open a web page"
    };
    format!(
        "Airlock: {} {what} (request {record_id})",
        neutralize_for_display(server, 64)
    )
}

/// The dialog body: domain first, then the full URL, the reason and every warning.
/// `%` is doubled because the GTK dialog treats the text as a format string.
pub fn dialog_body(message: &str, inspection: &Inspection) -> String {
    let mut lines = Vec::new();
    let domain = inspection
        .registrable_domain
        .as_deref()
        .unwrap_or("(no domain)");
    lines.push(format!("Domain:  {}", neutralize_for_display(domain, 253)));
    if let Some(host) = &inspection.display_host {
        if Some(host.as_str()) != inspection.registrable_domain.as_deref() {
            lines.push(format!("Host:  {}", neutralize_for_display(host, 253)));
        }
    }
    if let Some(url) = &inspection.url {
        lines.push("Full URL:".into());
        lines.push(hard_wrap(
            &elide_middle(&neutralize_for_display(url, usize::MAX), DIALOG_URL_CHARS),
            DIALOG_LINE_CHARS,
        ));
    }
    lines.push(String::new());
    lines.push(format!(
        "Why:  {}",
        hard_wrap(
            &neutralize_for_display(message, DIALOG_MESSAGE_CHARS),
            DIALOG_LINE_CHARS
        )
    ));
    if !inspection.warnings.is_empty() {
        lines.push(String::new());
        for w in &inspection.warnings {
            lines.push(format!("⚠ {}", w.describe()));
        }
    }
    if let Some(reason) = &inspection.block_reason {
        lines.push(String::new());
        lines.push(format!("Blocked: {}", reason.describe()));
    } else {
        lines.push(String::new());
        lines.push(
            "Open in browser opens this page in your system browser; Airlock does not see what you do there."
                .into(),
        );
    }
    lines.join("\n").replace('%', "%%")
}

/// Text for a notification body: markup characters escaped (daemons render markup).
pub fn notification_text(s: &str) -> String {
    neutralize_for_display(s, DIALOG_MESSAGE_CHARS)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub struct DesktopConsent {
    pub app: AppHandle,
    pub inbox: Arc<Inbox>,
    pub settings: Arc<RwLock<Settings>>,
    pub surfaces: Arc<Surfaces>,
}

/// The notifications and native dialogs showing each waiting request, so
/// they can be withdrawn once it is answered somewhere else or ends.
#[derive(Default)]
pub struct Surfaces {
    notifications: Mutex<HashMap<(i64, PendingKind), u32>>,
    dialogs: Mutex<HashMap<i64, String>>,
}

impl Surfaces {
    fn note_shown(&self, record_id: i64, kind: PendingKind, id: u32) {
        self.notifications
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((record_id, kind), id);
    }

    /// Withdraw what still shows this request.
    fn close(&self, app: &AppHandle, record_id: i64, kind: PendingKind) {
        let note = self
            .notifications
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(record_id, kind));
        if let Some(id) = note {
            close_notification(id);
        }
        if kind == PendingKind::Consent {
            let title = self
                .dialogs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&record_id);
            if let Some(title) = title {
                close_dialog(app, title);
            }
        }
    }
}

#[cfg(target_os = "linux")]
fn close_notification(id: u32) {
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

#[cfg(not(target_os = "linux"))]
fn close_notification(_id: u32) {}

/// Close the native dialog with this exact title: it answers "cancel", which
/// nobody waits for any more.
#[cfg(target_os = "linux")]
fn close_dialog(app: &AppHandle, title: String) {
    let _ = app.run_on_main_thread(move || {
        use gtk::prelude::*;
        for window in gtk::Window::list_toplevels() {
            let Ok(window) = window.downcast::<gtk::Window>() else {
                continue;
            };
            if window.title().is_some_and(|t| t.as_str() == title) {
                if let Ok(dialog) = window.downcast::<gtk::Dialog>() {
                    dialog.response(gtk::ResponseType::DeleteEvent);
                }
            }
        }
    });
}

#[cfg(not(target_os = "linux"))]
fn close_dialog(_app: &AppHandle, _title: String) {}

pub fn window_focused(app: &AppHandle) -> bool {
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

/// Tell the window and the tray that the inbox changed.
pub fn inbox_changed(app: &AppHandle, inbox: &Inbox) {
    let _ = app.emit(INBOX_EVENT, &inbox.len());
    crate::tray::set_pending(app, inbox.len());
}

fn view(request: &UrlConsentRequest, kind: PendingKind) -> PendingView {
    PendingView {
        record_id: request.record_id,
        kind,
        server: request.server.clone(),
        message: request.message.clone(),
        inspection: Some(request.inspection.clone()),
        form: None,
        secret_fields: Vec::new(),
        sign_in: request.origin == Origin::SignIn,
        since_ms: airlock_core::store::now_ms(),
    }
}

fn form_view(request: &FormConsentRequest) -> PendingView {
    PendingView {
        record_id: request.record_id,
        kind: PendingKind::Form,
        server: request.server.clone(),
        message: request.message.clone(),
        inspection: None,
        form: Some(request.schema.clone()),
        secret_fields: request
            .schema
            .secret_looking()
            .map(|f| f.name.clone())
            .collect(),
        sign_in: false,
        since_ms: airlock_core::store::now_ms(),
    }
}

/// Takes an entry out of the inbox when dropped: the broker may drop a
/// question before it is answered (completion won the race, the server
/// cancelled its request, the connection went away).
struct RemoveOnDrop<'a> {
    consent: &'a DesktopConsent,
    record_id: i64,
    kind: PendingKind,
}

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        self.consent.inbox.remove(self.record_id, self.kind);
        self.consent
            .surfaces
            .close(&self.consent.app, self.record_id, self.kind);
        inbox_changed(&self.consent.app, &self.consent.inbox);
    }
}

/// Show a notification with actions; each action maps to an inbox answer,
/// `None` meaning "bring the window forward".
#[allow(clippy::too_many_arguments)]
fn notify(
    app: &AppHandle,
    surfaces: &Arc<Surfaces>,
    inbox: &Arc<Inbox>,
    record_id: i64,
    kind: PendingKind,
    summary: String,
    body: String,
    actions: Vec<(&'static str, String, Option<Answer>)>,
) {
    let app = app.clone();
    let inbox = inbox.clone();
    let surfaces = surfaces.clone();
    std::thread::spawn(move || {
        let mut n = notify_rust::Notification::new();
        n.appname("Airlock").summary(&summary).body(&body);
        for (id, label, _) in &actions {
            n.action(id, label);
        }
        let Ok(handle) = n.show() else { return };
        surfaces.note_shown(record_id, kind, handle.id());
        handle.wait_for_action(
            |action| match actions.iter().find(|(id, _, _)| *id == action) {
                Some((_, _, Some(answer))) => {
                    inbox.answer(record_id, kind, answer);
                }
                Some((_, _, None)) | None if action != "__closed" => bring_forward(&app),
                _ => {}
            },
        );
    });
}

impl DesktopConsent {
    fn notifications_on(&self) -> bool {
        self.settings
            .read()
            .map(|s| s.notifications)
            .unwrap_or(true)
    }

    fn show_dialog(&self, request: &UrlConsentRequest) {
        let app = self.app.clone();
        let inbox = self.inbox.clone();
        let record_id = request.record_id;
        let title = dialog_title(&request.server, record_id, request.origin == Origin::SignIn);
        self.surfaces
            .dialogs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(record_id, title.clone());
        let body = dialog_body(&request.message, &request.inspection);
        // The blocking dialog must not run on the main (GTK) thread.
        std::thread::spawn(move || {
            let result = app
                .dialog()
                .message(body)
                .title(title)
                .kind(MessageDialogKind::Warning)
                .buttons(MessageDialogButtons::YesNoCancelCustom(
                    DECLINE_LABEL.into(),
                    OPEN_LABEL.into(),
                    CANCEL_LABEL.into(),
                ))
                .blocking_show_with_result();
            let answer = match result {
                MessageDialogResult::Custom(label) if label == OPEN_LABEL => "accept",
                MessageDialogResult::Custom(label) if label == DECLINE_LABEL => "decline",
                _ => "cancel",
            };
            inbox.answer(record_id, PendingKind::Consent, answer);
        });
    }
}

impl Consent for DesktopConsent {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            let Some(rx) = self.inbox.add(view(request, PendingKind::Consent)) else {
                return ConsentDecision::Decline;
            };
            inbox_changed(&self.app, &self.inbox);
            if self.notifications_on() && !window_focused(&self.app) {
                let domain = request
                    .inspection
                    .registrable_domain
                    .clone()
                    .unwrap_or_else(|| "a web page".into());
                let url = request.inspection.url.clone().unwrap_or_default();
                // One-click approval only when nothing about the URL needs a closer look.
                let actions = if request.inspection.warnings.is_empty() {
                    vec![
                        (
                            "open",
                            format!("Open {}", notification_text(&domain)),
                            Some("accept"),
                        ),
                        ("decline", DECLINE_LABEL.to_owned(), Some("decline")),
                    ]
                } else {
                    vec![("review", "Review".to_owned(), None)]
                };
                notify(
                    &self.app,
                    &self.surfaces,
                    &self.inbox,
                    request.record_id,
                    PendingKind::Consent,
                    format!(
                        "{} asks you to {} {}",
                        notification_text(&request.server),
                        if request.origin == Origin::SignIn {
                            "sign in at"
                        } else {
                            "open"
                        },
                        notification_text(&domain)
                    ),
                    format!(
                        "{}\n{}",
                        notification_text(&request.message),
                        notification_text(&elide_middle(&url, DIALOG_URL_CHARS))
                    ),
                    actions,
                );
            }
            // Withdrawn when answered anywhere, or when the request goes away
            // (the server disconnected): this future is then dropped.
            let _guard = RemoveOnDrop {
                consent: self,
                record_id: request.record_id,
                kind: PendingKind::Consent,
            };
            self.show_dialog(request);
            let answer = rx.await.unwrap_or("cancel");
            match answer {
                "accept" => ConsentDecision::Accept,
                "decline" => ConsentDecision::Decline,
                _ => ConsentDecision::Cancel,
            }
        })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        Box::pin(async move {
            let Some(rx) = self.inbox.add(view(request, PendingKind::Late)) else {
                return ContinueDecision::Cancel;
            };
            inbox_changed(&self.app, &self.inbox);
            if self.notifications_on() {
                let domain = request
                    .inspection
                    .registrable_domain
                    .clone()
                    .unwrap_or_else(|| "the page".into());
                notify(
                    &self.app,
                    &self.surfaces,
                    &self.inbox,
                    request.record_id,
                    PendingKind::Late,
                    format!("Still waiting for {}", notification_text(&domain)),
                    format!(
                        "{} has not heard back yet. Continue if you finished in the browser.",
                        notification_text(&request.server)
                    ),
                    vec![
                        ("continue", "Continue".to_owned(), Some("continue")),
                        ("cancel", CANCEL_LABEL.to_owned(), Some("cancel")),
                    ],
                );
            }
            // Removed on drop too: completion may win the race and drop this future.
            let _guard = RemoveOnDrop {
                consent: self,
                record_id: request.record_id,
                kind: PendingKind::Late,
            };
            match rx.await.unwrap_or("cancel") {
                "continue" => ContinueDecision::Continue,
                _ => ContinueDecision::Cancel,
            }
        })
    }

    /// A form is filled in in the window: an inbox entry, and a notification
    /// (only "Review", which brings the window forward) when the window is
    /// not focused. `answer_form` validates an Accept before it gets here.
    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(async move {
            let Some(rx) = self.inbox.add_form(form_view(request)) else {
                return FormAnswer::Decline;
            };
            let _guard = RemoveOnDrop {
                consent: self,
                record_id: request.record_id,
                kind: PendingKind::Form,
            };
            inbox_changed(&self.app, &self.inbox);
            if self.notifications_on() && !window_focused(&self.app) {
                notify(
                    &self.app,
                    &self.surfaces,
                    &self.inbox,
                    request.record_id,
                    PendingKind::Form,
                    form_notification_summary(&request.server),
                    format!(
                        "{}\nAnswer in the Airlock window.",
                        notification_text(&request.message)
                    ),
                    vec![("review", "Review".to_owned(), None)],
                );
            }
            rx.await.unwrap_or(FormAnswer::Cancel)
        })
    }
}

pub fn form_notification_summary(server: &str) -> String {
    format!("{} asks you to fill in a form", notification_text(server))
}

/// A blocked URL never reaches consent; the user still learns why.
pub fn show_blocked(app: &AppHandle, server: &str, message: &str, inspection: &Inspection) {
    let app = app.clone();
    let title = format!(
        "Airlock blocked a web page from {}",
        neutralize_for_display(server, 64)
    );
    let body = dialog_body(message, inspection);
    std::thread::spawn(move || {
        app.dialog()
            .message(body)
            .title(title)
            .kind(MessageDialogKind::Error)
            .buttons(MessageDialogButtons::OkCustom("Close".into()))
            .blocking_show();
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_core::url_safety::{inspect, Policy};

    #[test]
    fn body_puts_the_domain_first_and_escapes_format_characters() {
        let i = inspect(
            "https://accounts.google.com.evil.example/%s%n",
            &Policy::default(),
        );
        let body = dialog_body("Sign in \u{202e}now %s", &i);
        assert!(body.starts_with("Domain:  evil.example"), "{body}");
        assert!(!body.contains('\u{202e}'));
        assert!(!body.replace("%%", "").contains('%'), "{body}");
    }

    #[test]
    fn a_huge_url_is_elided_in_the_middle() {
        let url = format!("https://ok.example/{}", "a".repeat(7000));
        let i = inspect(&url, &Policy::default());
        let body = dialog_body("m", &i);
        assert!(body.len() < 2000);
        assert!(body.contains("https://ok.example/"));
    }

    #[test]
    fn a_form_entry_carries_the_form_and_names_its_secret_looking_fields() {
        use airlock_core::elicitation::{form::parse_schema, Origin};
        let schema = parse_schema(&serde_json::json!({"properties": {
            "user": {"type": "string"},
            "pw": {"type": "string", "title": "Password"},
            "api_key": {"type": "string"}
        }}))
        .unwrap();
        let v = form_view(&FormConsentRequest {
            record_id: 5,
            server: "srv".into(),
            message: "Sign up".into(),
            origin: Origin::Request,
            schema,
        });
        assert_eq!(v.kind, PendingKind::Form);
        assert!(v.inspection.is_none());
        assert_eq!(v.form.as_ref().unwrap().fields.len(), 3);
        let mut secret = v.secret_fields.clone();
        secret.sort();
        assert_eq!(secret, ["api_key", "pw"]);
        assert_eq!(
            form_notification_summary("<b>x</b>"),
            "&lt;b&gt;x&lt;/b&gt; asks you to fill in a form"
        );
    }

    #[test]
    fn dialog_lines_stay_short() {
        let url = format!("https://ok.example/?token={}", "x".repeat(2000));
        let i = inspect(&url, &Policy::default());
        let body = dialog_body(&format!("why {}", "y".repeat(900)), &i);
        assert!(body.lines().all(|l| l.chars().count() <= 120), "{body}");
        assert_eq!(hard_wrap("ab cd ef", 5), "ab cd\nef");
        assert_eq!(hard_wrap("abcdefgh", 3), "abc\ndef\ngh");
    }

    #[test]
    fn notification_text_is_not_markup() {
        assert_eq!(
            notification_text("<b>x</b> & y"),
            "&lt;b&gt;x&lt;/b&gt; &amp; y"
        );
    }
}
