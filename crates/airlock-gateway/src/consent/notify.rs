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
//! Text: only the server's and the app's names (defanged: no link, no
//! markup, no dotted host, see `notification_name`) and the registrable
//! domain Airlock computed; never the server's message or a URL. The body
//! is escaped where the daemon renders markup.

use std::sync::Arc;
use std::time::Duration;

use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, FormAnswer, FormConsentRequest,
    UrlConsentRequest,
};
use airlock_core::url_safety::notice::{escape_markup, notification_domain, notification_name};
use tokio::sync::oneshot;

use crate::consent::notification_bus;

/// A notification's action id and label.
type Action = (&'static str, String);

/// What one notification says and offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub summary: String,
    pub body: String,
    pub actions: Vec<Action>,
}

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

    /// Show `notice` and wait for an action (`None`: closed, expired, or no
    /// notification could be shown). `timeout`: `None` waits until the
    /// caller stops waiting (the notification is closed when the returned
    /// future is dropped).
    async fn ask(&self, notice: Notice, timeout: Option<Duration>) -> Option<String> {
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
            summary: notice.summary,
            body,
            actions: notice.actions,
            timeout,
        };
        std::thread::spawn(move || notification_bus::show_and_wait(shown, id_tx, tx));
        let shown =
            tokio::task::spawn_blocking(move || id_rx.recv_timeout(Duration::from_secs(5)).ok())
                .await
                .ok()
                .flatten();
        let _close = shown.map(CloseOnDrop);
        let answer = async { rx.await.ok().flatten() };
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
        notification_bus::close(self.0);
    }
}

/// The notification for a URL waiting for consent, and whether it offers
/// Open.
pub fn url_notice(request: &UrlConsentRequest) -> (Notice, bool) {
    let domain = notification_domain(request.inspection.registrable_domain.as_deref());
    let one_click = request.one_click_ok() && domain.is_some();
    let app = airlock_apps::notice_prefix(request.client.as_deref());
    let server = notification_name(&request.server);
    let what = if request.origin == airlock_core::elicitation::Origin::SignIn {
        "sign in at"
    } else {
        "open"
    };
    let place = domain.clone().unwrap_or_else(|| "a web page".into());
    let summary = format!("{app}{server} asks you to {what} {place}");
    if one_click {
        let seen = match request.familiarity.times_before {
            0 => format!("First time {server} sends you to this domain."),
            1 => format!("{server} sent you here once before."),
            n => format!("{server} sent you here {n} times before."),
        };
        let body = format!(
            "{seen} Open shows it in your browser; Airlock does not see what you do there. No answer declines."
        );
        let open = format!("Open {}", domain.unwrap_or_default());
        let actions = vec![("open", open), ("decline", "Decline".to_owned())];
        return (
            Notice {
                summary,
                body,
                actions,
            },
            true,
        );
    }
    let mut why: Vec<String> = request
        .inspection
        .warnings
        .iter()
        .map(|w| w.describe().trim_end_matches('.').to_owned())
        .collect();
    if request.familiarity.looks_like.is_some() {
        why.push("the domain looks like one you opened before".into());
    }
    if request.code_goes_to.is_some() {
        why.push("the sign-in code goes to another domain".into());
    }
    if domain.is_none() {
        why.push("its domain cannot be shown here".into());
    }
    let body = format!(
        "Review in Airlock: {}. The Airlock daemon has no window to show the whole address, so this was declined; open the Airlock app to review such a page.",
        why.join("; ")
    );
    (
        Notice {
            summary,
            body,
            actions: Vec::new(),
        },
        false,
    )
}

/// The notification for an accepted page whose completion is late.
pub fn late_notice(request: &UrlConsentRequest) -> Notice {
    let domain = notification_domain(request.inspection.registrable_domain.as_deref())
        .unwrap_or_else(|| "the web page".into());
    Notice {
        summary: format!("Still waiting for {domain}"),
        body: format!(
            "{}{} has not heard back yet. Continue if you finished in the browser; Cancel stops the tool call.",
            airlock_apps::notice_prefix(request.client.as_deref()),
            notification_name(&request.server)
        ),
        actions: vec![
            ("continue", "Continue".to_owned()),
            ("cancel", "Cancel".to_owned()),
        ],
    }
}

/// The notification for a form: declined, fill it in in Airlock.
pub fn form_notice(request: &FormConsentRequest) -> Notice {
    Notice {
        summary: format!(
            "{}{} asks you to fill in a form",
            airlock_apps::notice_prefix(request.client.as_deref()),
            notification_name(&request.server)
        ),
        body: "Declined: a form cannot be filled in from a notification. Open Airlock to fill in forms.".into(),
        actions: Vec::new(),
    }
}

impl Consent for NotifyConsent {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            let (notice, one_click) = url_notice(request);
            if !one_click {
                crate::catalog::log(&format!(
                    "{}: URL request #{} declined: it needs a review in the Airlock window",
                    request.server, request.record_id
                ));
                self.show_only(notice);
                return ConsentDecision::Decline;
            }
            match self.ask(notice, Some(self.wait)).await.as_deref() {
                Some("open") => ConsentDecision::Accept,
                _ => ConsentDecision::Decline,
            }
        })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        Box::pin(async move {
            match self.ask(late_notice(request), None).await.as_deref() {
                Some("continue") => ContinueDecision::Continue,
                Some("cancel") => ContinueDecision::Cancel,
                // Dismissed: no answer; the broker's give-up deadline ends the wait.
                _ => std::future::pending().await,
            }
        })
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        self.show_only(form_notice(request));
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
