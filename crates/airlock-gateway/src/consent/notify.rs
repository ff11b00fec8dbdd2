//! Consent through desktop notifications, for the daemon (`airlock daemon
//! --consent ask`, issue 12), which has no window: when a notification
//! server with actions runs on the session bus, a URL elicitation raises a
//! notification naming the app whose call asked, the server and the
//! registrable domain, with Open / Decline.
//!
//! - One-click Open only under the desktop's rule
//!   ([`UrlConsentRequest::one_click_ok`]: no warning, no look-alike of a
//!   domain opened before, no sign-in code sent elsewhere) and when a domain
//!   can be named. Anything else needs the whole address and its warnings,
//!   which only the Airlock window shows: it is declined at once, and the
//!   notification says so and why.
//! - A late completion asks Continue / Cancel; dismissing that notice
//!   leaves the broker's own give-up deadline to end the wait.
//! - A form cannot be filled in from a notification: it is declined, and the
//!   notification says to open Airlock.
//! - A consent notification closed or expired without an answer declines;
//!   the wait is bounded by `wait` (the notification's own timeout, and
//!   Airlock closes it then if the notification server did not).
//! - No notification server, or one without actions: [`NotifyConsent::detect`]
//!   fails and the daemon keeps [`crate::consent::NoOneToAsk`]. The server is
//!   reached through [`crate::consent::notification_bus`]: D-Bus on Linux,
//!   none on Windows and macOS (the daemon declines there).
//!
//! Text: the core's notices (`airlock_core::elicitation::view::notice`,
//! for [`NoticeHost::Daemon`]): only the server's and the app's names
//! (defanged) and the registrable domain Airlock computed, never the
//! server's message or a URL, in the words of the core's sentence table.
//! The body is escaped here where the daemon renders markup.

use std::sync::Arc;
use std::time::Duration;

use airlock_core::elicitation::view::notice::{form_notice, late_notice, url_notice, NoticeHost};
use airlock_core::elicitation::view::ViewAction;
use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, FormAnswer, FormConsentRequest,
    UrlConsentRequest,
};
use airlock_core::url_safety::notice::escape_markup;
use tokio::sync::oneshot;

use crate::consent::notification_bus;

/// What one notification says and offers (the core's).
pub use airlock_core::elicitation::view::notice::Notice;

/// Consent by desktop notification (see the module docs).
pub struct NotifyConsent {
    /// The daemon renders body markup (`body-markup`): escape bodies.
    markup: bool,
    /// Longest wait for an answer to a consent notification.
    wait: Duration,
}

impl NotifyConsent {
    /// A notification server with the "actions" capability on the session
    /// bus, or why there is none.
    pub fn detect(wait: Duration) -> Result<Self, String> {
        let caps = notification_bus::capabilities()?;
        if !caps.actions {
            return Err(
                "the notification server shows no buttons (no \"actions\" capability)".into(),
            );
        }
        Ok(Self {
            markup: caps.markup,
            wait,
        })
    }

    /// Show `notice` and wait for the answer of one of its actions (`None`:
    /// closed, expired, or no notification could be shown). `timeout`: `None` waits until the
    /// caller stops waiting (the notification is closed when the returned
    /// future is dropped).
    async fn ask(&self, notice: Notice, timeout: Option<Duration>) -> Option<ViewAction> {
        let body = if self.markup {
            escape_markup(&notice.body)
        } else {
            notice.body.clone()
        };
        let (id_tx, id_rx) = std::sync::mpsc::channel::<u32>();
        let (tx, rx) = oneshot::channel();
        // The D-Bus wait blocks: a thread of its own per question (the
        // broker bounds the questions in flight).
        let shown = notification_bus::Shown {
            summary: notice.summary.clone(),
            body,
            actions: notice
                .actions
                .iter()
                .map(|a| (a.id, a.label.clone()))
                .collect(),
            timeout,
            critical: true,
        };
        std::thread::spawn(move || notification_bus::show_and_wait(shown, id_tx, tx));
        let shown =
            tokio::task::spawn_blocking(move || id_rx.recv_timeout(Duration::from_secs(5)).ok())
                .await
                .ok()
                .flatten();
        let _close = shown.map(CloseOnDrop);
        let answer = async {
            let id = rx.await.ok().flatten()?;
            notice.action(&id).and_then(|a| a.answer())
        };
        match timeout {
            Some(t) => tokio::time::timeout(t, answer).await.ok().flatten(),
            None => answer.await,
        }
    }

    fn show_only(&self, notice: Notice) {
        let body = if self.markup {
            escape_markup(&notice.body)
        } else {
            notice.body
        };
        std::thread::spawn(move || notification_bus::show(&notice.summary, &body));
    }
}

/// Closes a notification nobody waits for any more (answered, timed out,
/// or the request went away).
struct CloseOnDrop(u32);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        close_notification(self.0);
    }
}

/// Withdraw a notification (it answers nothing any more). Shared with the
/// desktop app, which withdraws its own the same way.
pub fn close_notification(id: u32) {
    notification_bus::close(id);
}

impl Consent for NotifyConsent {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            let (notice, one_click) = url_notice(request, NoticeHost::Daemon);
            if !one_click {
                crate::catalog::log(&format!(
                    "{}: URL request #{} declined: it needs a review in the Airlock window",
                    request.server, request.record_id
                ));
                self.show_only(notice);
                return ConsentDecision::Decline;
            }
            match self.ask(notice, Some(self.wait)).await {
                Some(ViewAction::Accept) => ConsentDecision::Accept,
                _ => ConsentDecision::Decline,
            }
        })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        Box::pin(async move {
            match self.ask(late_notice(request), None).await {
                Some(ViewAction::Continue) => ContinueDecision::Continue,
                Some(ViewAction::Cancel) => ContinueDecision::Cancel,
                // Dismissed: no answer; the broker's give-up deadline ends the wait.
                _ => std::future::pending().await,
            }
        })
    }

    fn ask_host<'a>(
        &'a self,
        request: &'a airlock_core::elicitation::HostConsentRequest,
    ) -> BoxFuture<'a, airlock_core::elicitation::HostDecision> {
        use airlock_core::elicitation::HostDecision;
        Box::pin(async move {
            let (notice, one_click) = airlock_core::elicitation::view::notice::host_notice(request);
            if !one_click {
                crate::catalog::log(&format!(
                    "{}: its room's connection to {}:{} denied: it needs a review",
                    request.server, request.host, request.port
                ));
                self.show_only(notice);
                return HostDecision::Deny;
            }
            match self.ask(notice, Some(self.wait)).await {
                Some(ViewAction::Accept) => HostDecision::AllowOnce,
                Some(ViewAction::Always) => HostDecision::Always,
                _ => HostDecision::Deny,
            }
        })
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        self.show_only(form_notice(request, NoticeHost::Daemon));
        crate::catalog::log(&format!(
            "{}: form #{} declined: {}",
            request.server,
            request.record_id,
            crate::consent::OPEN_AIRLOCK_TO_APPROVE
        ));
        Box::pin(async { FormAnswer::Decline })
    }
}

/// The daemon's consent for `--consent ask`: notifications when a
/// notification server with actions runs, else the refusal that says to
/// open Airlock.
pub fn daemon_consent(wait: Duration) -> Arc<dyn Consent> {
    match NotifyConsent::detect(wait) {
        Ok(c) => {
            crate::catalog::log("asking for consent in desktop notifications");
            Arc::new(c)
        }
        Err(why) => {
            crate::catalog::log(&format!(
                "{why}: every URL, sign-in and form is declined (open Airlock to approve)"
            ));
            Arc::new(crate::consent::NoOneToAsk)
        }
    }
}

#[cfg(test)]
#[path = "notify_tests.rs"]
mod tests;

// ---- Tool and prompt changes held for review (issue 25) -------------------

/// The daemon's notification about changes held for review
/// (`airlock_core::pins::notice` says what changed): how to review them,
/// and a Review action only when `window` (the Airlock app can be opened on
/// them). Never Approve: approving needs the diff.
pub fn pin_change_notice(notice: &airlock_core::pins::notice::PinNotice, window: bool) -> Notice {
    let it = if notice.count == 1 { "it" } else { "them" };
    let review = format!(
        "airlock tools review {}",
        airlock_core::url_safety::notice::notification_name(&notice.server)
    );
    let mut lines = notice.lines.clone();
    lines.push(if window {
        format!("Your apps do not see {it} until you review {it}: Review opens Airlock on {it}, or run `{review}`.")
    } else {
        format!("Your apps do not see {it} until you review {it}: run `{review}`, or open Airlock.")
    });
    Notice {
        summary: notice.summary.clone(),
        body: lines.join("\n"),
        actions: if window {
            vec![airlock_core::elicitation::view::notice::NoticeAction::review()]
        } else {
            Vec::new()
        },
    }
}

/// Each server's notification about changes held for review, on screen.
static PIN_NOTICES: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<String, u32>>> =
    std::sync::LazyLock::new(Default::default);

/// Show (or withdraw) the daemon's notification about a server's changes
/// held for review; it replaces that server's earlier one. `open_review`
/// opens the Airlock app on a change (its Review action); `None`: no action.
/// Returns at once: a thread waits for the action.
pub fn show_pin_change_notice(
    event: airlock_core::pins::notice::PinNoticeEvent,
    open_review: Option<Arc<dyn Fn(i64) + Send + Sync>>,
) {
    use airlock_core::pins::notice::PinNoticeEvent;
    let taken = |server: &str| {
        PIN_NOTICES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(server)
    };
    let notice = match event {
        PinNoticeEvent::Settled { server } => {
            if let Some(id) = taken(&server) {
                close_notification(id);
            }
            return;
        }
        PinNoticeEvent::Show(n) => n,
    };
    crate::catalog::log(&format!(
        "{}: {} (`airlock tools review {}`)",
        notice.server, notice.summary, notice.server
    ));
    std::thread::spawn(move || {
        let Ok(caps) = notification_bus::capabilities() else {
            return;
        };
        let text = pin_change_notice(&notice, caps.actions && open_review.is_some());
        let body = if caps.markup {
            escape_markup(&text.body)
        } else {
            text.body
        };
        if let Some(old) = taken(&notice.server) {
            close_notification(old);
        }
        let shown = notification_bus::Shown {
            summary: text.summary,
            body,
            actions: text
                .actions
                .iter()
                .map(|a| (a.id, a.label.clone()))
                .collect(),
            timeout: None,
            critical: false,
        };
        let (id_tx, id_rx) = std::sync::mpsc::channel();
        let (tx, rx) = oneshot::channel();
        std::thread::spawn(move || notification_bus::show_and_wait(shown, id_tx, tx));
        // No id: it could not be shown (or there is no notification server).
        let Ok(id) = id_rx.recv() else { return };
        PIN_NOTICES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(notice.server.clone(), id);
        let change = notice.change_id;
        if rx.blocking_recv().ok().flatten().as_deref() == Some("review") {
            if let Some(open) = &open_review {
                open(change);
            }
        }
    });
}

#[cfg(test)]
#[path = "pin_notice_tests.rs"]
mod pin_notice_tests;
