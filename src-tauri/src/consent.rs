//! The desktop's `Consent` port: an OS-native dialog for every URL
//! elicitation, a desktop notification when the window is not focused, and
//! the window's inbox. Whichever answers first decides. Notifications go
//! through `desktop_notices` (buttons on Linux only), the dialog through
//! `native_dialog` (GTK, TaskDialog, NSAlert). Forms are answered in
//! the window only (its inbox); their notification just brings it forward.
//! What each surface says is the core's view and notices
//! (`airlock_core::elicitation::view`), fitted by `presenter.rs`; this
//! module shows them (the dialog itself is `native_dialog.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use airlock_core::elicitation::view::notice::{
    flood_notice, form_notice, late_notice, url_notice, Notice, NoticeDo, NoticeHost,
};
use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ConsentView, ContinueDecision, FormAnswer,
    FormConsentRequest, UrlConsentRequest,
};
use airlock_core::url_safety::notice::escape_markup;
use airlock_core::url_safety::Inspection;
use tauri::{AppHandle, Manager};

use crate::api::{EmitDeclared, INBOX_EVENT};
use crate::desktop_notices;
use crate::inbox::{Inbox, PendingKind};
use crate::main_window;
use crate::native_dialog::{self, Choice};
use crate::presenter;
use crate::settings::Settings;

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

fn close_notification(id: u32) {
    desktop_notices::close(id);
}

/// Close the native dialog with this exact title (crate::native_dialog):
/// it answers "cancel", which nobody waits for any more.
fn close_dialog(app: &AppHandle, title: String) {
    native_dialog::withdraw(app, title);
}

/// Tell the window and the tray that the inbox changed.
pub fn inbox_changed(app: &AppHandle, inbox: &Inbox) {
    let _ = app.emit(INBOX_EVENT, &inbox.len());
    crate::tray::set_pending(app, inbox.len());
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

/// Show a notification; each action gives its inbox answer, or brings the
/// window forward. The notice carries no server text but the server's
/// defanged name (see the core's `view::notice`); its body is escaped
/// where the daemon renders markup (there is no standard hint to turn body
/// markup off). The summary is plain text by the specification.
fn notify(
    app: &AppHandle,
    surfaces: &Arc<Surfaces>,
    inbox: &Arc<Inbox>,
    record_id: i64,
    kind: PendingKind,
    notice: Notice,
) {
    let app = app.clone();
    let inbox = inbox.clone();
    let surfaces = surfaces.clone();
    std::thread::spawn(move || {
        // The daemon renders markup in the body (its `body-markup`
        // capability; unknown counts as yes): escaped then.
        let body = if desktop_notices::renders_markup() {
            escape_markup(&notice.body)
        } else {
            notice.body.clone()
        };
        let actions: Vec<(&str, &str)> = notice
            .actions
            .iter()
            .map(|a| (a.id, a.label.as_str()))
            .collect();
        let shown = |id| surfaces.note_shown(record_id, kind, id);
        let on_action = |action: &str| match notice.action(action).map(|a| a.does) {
            Some(NoticeDo::Answer(answer)) => {
                inbox.answer(record_id, kind, answer.as_str());
            }
            // Review, or a click on the notification itself.
            _ if action != "__closed" => main_window::bring_forward(&app),
            _ => {}
        };
        desktop_notices::show(&notice.summary, &body, &actions, shown, on_action);
    });
}

impl DesktopConsent {
    fn notifications_on(&self) -> bool {
        self.settings
            .read()
            .map(|s| s.notifications)
            .unwrap_or(true)
    }

    fn show_dialog(&self, record_id: i64, view: ConsentView) {
        let inbox = self.inbox.clone();
        self.surfaces
            .dialogs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(record_id, view.title.clone());
        let choice = native_dialog::show(&self.app, presenter::for_dialog(view));
        tauri::async_runtime::spawn(async move {
            let answer = match choice.await {
                Ok(Choice::Open) => "accept",
                Ok(Choice::Decline) => "decline",
                Ok(Choice::Cancel | Choice::Always) | Err(_) => "cancel",
            };
            inbox.answer(record_id, PendingKind::Consent, answer);
        });
    }
}

impl Consent for DesktopConsent {
    /// A confined server's connection to a host its room does not list:
    /// the native dialog (Deny is the default button; closing it denies).
    fn ask_host<'a>(
        &'a self,
        request: &'a airlock_core::elicitation::HostConsentRequest,
    ) -> BoxFuture<'a, airlock_core::elicitation::HostDecision> {
        use airlock_core::elicitation::HostDecision;
        Box::pin(async move {
            let view = presenter::for_dialog(ConsentView::host(request));
            match native_dialog::show(&self.app, view).await {
                Ok(Choice::Open) => HostDecision::AllowOnce,
                Ok(Choice::Always) => HostDecision::Always,
                _ => HostDecision::Deny,
            }
        })
    }

    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            let entry = presenter::inbox_entry(request, PendingKind::Consent, now_ms());
            let Some(rx) = self.inbox.add(entry) else {
                return ConsentDecision::Decline;
            };
            inbox_changed(&self.app, &self.inbox);
            let (notice, _) = url_notice(request, NoticeHost::Window);
            // Withdrawn when answered anywhere, or when the request goes away
            // (the server disconnected): this future is then dropped.
            let _guard = RemoveOnDrop {
                consent: self,
                record_id: request.record_id,
                kind: PendingKind::Consent,
            };
            // Focus as it was before the dialog (which may take it); then the
            // dialog, which is what the user answers, before the notification's
            // D-Bus round trips.
            let focused = main_window::focused(&self.app);
            self.show_dialog(request.record_id, ConsentView::url(request));
            if self.notifications_on() && !focused {
                notify(
                    &self.app,
                    &self.surfaces,
                    &self.inbox,
                    request.record_id,
                    PendingKind::Consent,
                    notice,
                );
            }
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
            let entry = presenter::inbox_entry(request, PendingKind::Late, now_ms());
            let Some(rx) = self.inbox.add(entry) else {
                return ContinueDecision::Cancel;
            };
            inbox_changed(&self.app, &self.inbox);
            if self.notifications_on() {
                notify(
                    &self.app,
                    &self.surfaces,
                    &self.inbox,
                    request.record_id,
                    PendingKind::Late,
                    late_notice(request),
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
            let Some(rx) = self
                .inbox
                .add_form(presenter::form_inbox_entry(request, now_ms()))
            else {
                return FormAnswer::Decline;
            };
            let _guard = RemoveOnDrop {
                consent: self,
                record_id: request.record_id,
                kind: PendingKind::Form,
            };
            inbox_changed(&self.app, &self.inbox);
            if self.notifications_on() && !main_window::focused(&self.app) {
                notify(
                    &self.app,
                    &self.surfaces,
                    &self.inbox,
                    request.record_id,
                    PendingKind::Form,
                    form_notice(request, NoticeHost::Window),
                );
            }
            rx.await.unwrap_or(FormAnswer::Cancel)
        })
    }
}

fn now_ms() -> i64 {
    airlock_core::store::now_ms()
}

/// A blocked URL never reaches consent; the user still learns why (a
/// dialog with Close only).
/// When each server's flood notification was last shown: at most one a minute.
static FLOOD_SHOWN: std::sync::LazyLock<Mutex<HashMap<String, std::time::Instant>>> =
    std::sync::LazyLock::new(Default::default);

/// A server hit its rate limits: tell the user once a minute, with a way
/// to pause it. Nothing is answered from here; the refused requests are in
/// history.
pub fn notify_flood(app: &AppHandle, server: &str) {
    {
        let mut shown = FLOOD_SHOWN.lock().unwrap_or_else(|e| e.into_inner());
        if shown
            .get(server)
            .is_some_and(|t| t.elapsed() < std::time::Duration::from_secs(60))
        {
            return;
        }
        shown.insert(server.to_owned(), std::time::Instant::now());
    }
    let notice = flood_notice(server);
    let (app, server) = (app.clone(), server.to_owned());
    std::thread::spawn(move || {
        let actions: Vec<(&str, &str)> = notice
            .actions
            .iter()
            .map(|a| (a.id, a.label.as_str()))
            .collect();
        let on_action = |action: &str| match notice.action(action).map(|a| a.does) {
            Some(NoticeDo::Pause) => {
                if let Some(state) = app.try_state::<crate::ctx::AppState>() {
                    let _ = state.core.set_paused(&server, true);
                }
            }
            _ if action != "__closed" => main_window::bring_forward(&app),
            _ => {}
        };
        desktop_notices::show(&notice.summary, &notice.body, &actions, |_| {}, on_action);
    });
}

/// Servers whose blocked-URL notice is on screen: at most one per server at
/// a time; the rest are only recorded (history, audit), so a server cannot
/// bury the screen in notices.
static BLOCKED_SHOWN: std::sync::LazyLock<Mutex<std::collections::HashSet<String>>> =
    std::sync::LazyLock::new(Default::default);

pub fn show_blocked(app: &AppHandle, server: &str, message: &str, inspection: &Inspection) {
    if !BLOCKED_SHOWN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(server.to_owned())
    {
        return;
    }
    let view = presenter::for_dialog(ConsentView::blocked(server, message, inspection));
    let closed = native_dialog::show(app, view);
    let server = server.to_owned();
    tauri::async_runtime::spawn(async move {
        let _ = closed.await;
        BLOCKED_SHOWN
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&server);
    });
}
