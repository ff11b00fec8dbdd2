//! URL elicitations on every path, top to bottom:
//!
//! 1. [`Broker::ask`]: inspect the URL (no network), record it `requested`,
//!    refuse blocked URLs and floods, ask the consent port;
//! 2. [`Broker::open_page`]: on accept, hand the page to the opener
//!    (`opened` / `open_failed`);
//! 3. the wait, the same for every path ([`Broker::await_completion`]): the
//!    completion notification (2025-11-25), or after the late deadline the
//!    user's Continue / Cancel, or expiry at the give-up deadline. The
//!    2026-07-28 path has no completion signal: the user says when
//!    ([`Broker::await_user`]).
//!
//! The paths: [`Broker::request_url`] (`elicitation/create`, answered at
//! once, the wait runs in the background and a Cancel stops the tool call),
//! [`Broker::fulfil_required`] (-32042, the caller retries after the wait)
//! and [`Broker::fulfil_input_url`] (`InputRequiredResult`).

use std::collections::HashSet;
use std::sync::Arc;

use airlock_url_safety::{inspect, inspect_with_text, neutralize_for_display};
use tokio::sync::oneshot;

use super::broker::{bounded_id, bounded_message, Broker, Ending, Withdrawal};
use super::outcome::{Refusal, UrlOutcome};
use super::ports::{ConsentDecision, ContinueDecision, Familiarity, LookAlike, UrlConsentRequest};
use crate::lifecycle::{ElicitationState as S, Mode, Origin};
use crate::store::NewElicitation;

/// One URL elicitation listed in a -32042 error's `data.elicitations`.
#[derive(Debug, Clone)]
pub struct RequiredElicitation {
    pub url: String,
    pub message: String,
    pub elicitation_id: String,
}

/// The answer to one 2026-07-28 input request, for the retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputAction {
    Accept,
    Decline,
    Cancel,
}

impl InputAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// A consent question in flight: frees its rate-limit slot however it ends,
/// and records `dropped` when it is dropped unanswered (the server withdrew
/// its request, the connection went away).
struct Asking<'a> {
    broker: &'a Broker,
    server: &'a str,
    record_id: i64,
    answered: bool,
    dropped: Dropped<'a>,
}

/// What a URL question dropped unanswered records.
#[derive(Clone, Copy)]
pub(super) enum Dropped<'a> {
    /// Always this state (a sign-in: cancelled).
    As(S),
    /// Withdrawn if the server withdrew it, else connection lost.
    Unless(&'a Withdrawal),
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.broker.release(self.server);
        if self.answered {
            return;
        }
        match self.dropped {
            Dropped::As(state) => {
                self.broker.advance(
                    self.record_id,
                    state,
                    None,
                    serde_json::json!({"while": "asking for consent"}),
                );
            }
            Dropped::Unless(withdrawal) => self.broker.unanswered(self.record_id, withdrawal),
        }
    }
}

/// An accepted URL: what the user saw, and (with an elicitation id) the
/// end of the wait for its completion notification.
struct Accepted {
    request: UrlConsentRequest,
    done: Option<oneshot::Receiver<Ending>>,
}

/// One URL to ask about, as the server (or the sign-in flow) gave it.
pub(super) struct UrlQuestion<'a> {
    pub server: &'a str,
    pub message: &'a str,
    pub url: &'a str,
    pub elicitation_id: Option<&'a str>,
    pub origin: Origin,
    /// What the record says if the question is dropped unanswered.
    pub dropped: Dropped<'a>,
    /// For a sign-in: where the authorization code will be exchanged.
    pub token_endpoint: Option<&'a str>,
    /// The app the question is for (`None`: Airlock itself).
    pub app: Option<&'a str>,
}

impl Broker {
    /// Inspection, record, block, rate limit and consent of one URL; nothing
    /// is opened here.
    pub(super) async fn ask(
        &self,
        q: UrlQuestion<'_>,
    ) -> (Option<i64>, Result<UrlConsentRequest, Refusal>) {
        let UrlQuestion {
            server,
            message,
            url,
            elicitation_id,
            origin,
            dropped,
            token_endpoint,
            app,
        } = q;
        let message = bounded_message(message);
        let elicitation_id = elicitation_id.map(bounded_id);
        let settings = self.settings();
        // The message too: a page on one site whose message names another.
        let inspection = inspect_with_text(url, &message, &settings.policy);
        let stored_url = inspection
            .url
            .clone()
            .unwrap_or_else(|| neutralize_for_display(url, airlock_url_safety::MAX_URL_LEN));
        let warnings: Vec<String> = inspection
            .warnings
            .iter()
            .map(|w| w.code().to_owned())
            .collect();
        let new = NewElicitation {
            server,
            elicitation_id: elicitation_id.as_deref(),
            mode: Mode::Url,
            origin,
            message: &message,
            url: Some(&stored_url),
            registrable_domain: inspection.registrable_domain.as_deref(),
            verdict: Some(inspection.verdict),
            warnings: warnings.clone(),
            app,
        };
        let extra = serde_json::json!({
            "url": stored_url, "domain": inspection.registrable_domain, "warnings": warnings,
            "client": app,
        });
        let record_id = match self.create(&new, Some(inspection.clone()), extra) {
            Ok(id) => id,
            Err(error) => return (None, Err(Refusal::NotRecorded { error })),
        };
        // Every request counts against the server's limits, blocked ones
        // too: a flood of bad URLs is cut off like any other.
        if let Err(refusal) = self.admit_or_refuse(server, record_id) {
            return (Some(record_id), Err(refusal));
        }
        if let Some(reason) = inspection.block_reason {
            self.release(server);
            let refusal = Refusal::Blocked {
                reason,
                scheme: inspection.scheme.clone(),
            };
            self.advance(
                record_id,
                S::Blocked,
                Some(refusal.to_string()),
                serde_json::json!({"reason": reason.code()}),
            );
            return (Some(record_id), Err(refusal));
        }
        // A domain the team's policy refuses: never asked, never opened.
        let policy_says = match inspection.registrable_domain.as_deref() {
            Some(d) => self.domain_refused(d),
            None => self.domain_refused(inspection.display_host.as_deref().unwrap_or_default()),
        };
        if let Some(why) = policy_says {
            self.release(server);
            let extra = serde_json::json!({"reason": "policy", "why": why});
            let refusal = Refusal::PolicyDenied { why };
            self.advance(record_id, S::Blocked, Some(refusal.to_string()), extra);
            return (Some(record_id), Err(refusal));
        }
        let familiarity = self.familiarity(server, &inspection);
        if let Some(l) = &familiarity.looks_like {
            let _ = self.store.audit(
                Some(server),
                "elicitation_lookalike",
                &serde_json::json!({"record_id": record_id, "domain": inspection.registrable_domain, "looks_like": l.domain, "resemblance": l.resemblance}),
            );
        }
        let code_goes_to = token_endpoint.and_then(|t| {
            let token = inspect(t, &settings.policy).registrable_domain?;
            (Some(&token) != inspection.registrable_domain.as_ref()).then_some(token)
        });
        if let Some(d) = &code_goes_to {
            let _ = self.store.audit(
                Some(server),
                "sign_in_code_elsewhere",
                &serde_json::json!({"record_id": record_id, "page": inspection.registrable_domain, "code_goes_to": d}),
            );
        }
        let request = UrlConsentRequest {
            record_id,
            server: server.to_owned(),
            message,
            elicitation_id,
            origin,
            inspection,
            familiarity,
            code_goes_to,
            app: app.map(str::to_owned),
        };
        let mut asking = Asking {
            broker: self,
            server,
            record_id,
            answered: false,
            dropped,
        };
        let decision = self.consent.ask_url(&request).await;
        asking.answered = true;
        drop(asking);
        let (state, result) = match decision {
            ConsentDecision::Accept => (S::Accepted, Ok(request)),
            ConsentDecision::Decline => (S::Declined, Err(Refusal::Declined)),
            ConsentDecision::Cancel => (S::Cancelled, Err(Refusal::Cancelled)),
        };
        self.advance(record_id, state, None, serde_json::json!({}));
        (Some(record_id), result)
    }

    /// Has `server` sent the user to this domain before; if not, does it
    /// look like a domain the user opened before (any server)?
    fn familiarity(
        &self,
        server: &str,
        inspection: &airlock_url_safety::Inspection,
    ) -> Familiarity {
        let Some(domain) = inspection.registrable_domain.as_deref() else {
            return Familiarity::default();
        };
        if let Ok(Some((times, first))) = self.store.opened_before(server, domain) {
            return Familiarity {
                times_before: times,
                first_seen_ms: Some(first),
                looks_like: None,
            };
        }
        let known = self.store.known_domains().unwrap_or_default();
        let host = inspection.ascii_host.as_deref().unwrap_or(domain);
        let looks_like =
            airlock_url_safety::closest_resemblance(host, known.iter().map(String::as_str)).map(
                |(d, r)| LookAlike {
                    domain: d.to_owned(),
                    resemblance: r,
                },
            );
        Familiarity {
            times_before: 0,
            first_seen_ms: None,
            looks_like,
        }
    }

    /// The user is sent to this page: remember the domain for next time.
    pub(super) fn note_opened(&self, request: &UrlConsentRequest) {
        if let Some(domain) = request.inspection.registrable_domain.as_deref() {
            let _ = self.store.note_opened(&request.server, domain);
        }
    }

    /// Hand an accepted page to the opener.
    fn open_page(&self, request: &UrlConsentRequest) {
        let url = request.inspection.url.as_deref().unwrap_or_default();
        self.note_opened(request);
        match self.opener.open(url) {
            Ok(()) => self.advance(request.record_id, S::Opened, None, serde_json::json!({})),
            Err(e) => self.advance(
                request.record_id,
                S::OpenFailed,
                Some(e.clone()),
                serde_json::json!({"error": e}),
            ),
        };
    }

    /// Ask, open on accept, and track the completion of a 2025-11-25 id.
    /// `dropped`: what the record says if the question is dropped unanswered.
    #[allow(clippy::too_many_arguments)]
    async fn consent_and_open(
        &self,
        server: &str,
        connection: u64,
        app: Option<&str>,
        message: &str,
        url: &str,
        elicitation_id: Option<&str>,
        origin: Origin,
        dropped: Dropped<'_>,
    ) -> (Option<i64>, Result<Accepted, Refusal>) {
        let (record_id, result) = self
            .ask(UrlQuestion {
                server,
                message,
                url,
                elicitation_id,
                origin,
                dropped,
                token_endpoint: None,
                app,
            })
            .await;
        let accepted = result.map(|request| {
            self.open_page(&request);
            let done = request
                .elicitation_id
                .clone()
                .map(|id| self.track(request.record_id, connection, id));
            Accepted { request, done }
        });
        (record_id, accepted)
    }

    /// Consent and opening of one URL (and, with an id, tracking of its
    /// completion), without the wait. The paths below add the wait.
    pub async fn handle_url(
        &self,
        server: &str,
        connection: u64,
        message: &str,
        url: &str,
        elicitation_id: Option<&str>,
        origin: Origin,
    ) -> UrlOutcome {
        let (record_id, result) = self
            .consent_and_open(
                server,
                connection,
                None,
                message,
                url,
                elicitation_id,
                origin,
                Dropped::As(S::ConnectionLost),
            )
            .await;
        UrlOutcome {
            record_id,
            result: result.map(|a| a.request),
        }
    }

    /// 2025-11-25 request path (`elicitation/create`): the answer goes back
    /// at once; the wait for completion runs in the background, and a Cancel
    /// on the late prompt stops the tool calls of this connection.
    /// `withdrawal`: whether the server withdrew its request, if the
    /// question is dropped unanswered.
    pub async fn request_url(
        self: &Arc<Self>,
        server: &str,
        connection: u64,
        message: &str,
        url: &str,
        elicitation_id: Option<&str>,
        withdrawal: &Withdrawal,
    ) -> UrlOutcome {
        // Not tied to one call: the apps whose calls are in flight here.
        let app = self.apps_in_flight(connection);
        let (record_id, result) = self
            .consent_and_open(
                server,
                connection,
                app.as_deref(),
                message,
                url,
                elicitation_id,
                Origin::Request,
                Dropped::Unless(withdrawal),
            )
            .await;
        let result = result.map(|accepted| {
            if let Some(done) = accepted.done {
                let me = self.clone();
                let request = accepted.request.clone();
                tokio::spawn(async move {
                    let id = request.elicitation_id.clone().unwrap_or_default();
                    let waited = me.await_completion(&request, connection, &id, done).await;
                    if waited == Err(Refusal::Cancelled) {
                        me.cancel_calls(connection);
                    }
                });
            }
            accepted.request
        });
        UrlOutcome { record_id, result }
    }

    /// 2025-11-25 error path (-32042): consent to each listed elicitation in
    /// order, then wait for every completion (or the user's Continue). `Ok`:
    /// retry the request. `offered` holds the URLs of earlier rounds: the
    /// same URL again is a loop.
    pub async fn fulfil_required(
        &self,
        server: &str,
        connection: u64,
        app: Option<&str>,
        items: Vec<RequiredElicitation>,
        offered: &mut HashSet<String>,
    ) -> Result<(), Refusal> {
        let mut waiting = Vec::new();
        for item in items {
            if !offered.insert(item.url.clone()) {
                return Err(Refusal::LoopDetected {
                    url: neutralize_for_display(&item.url, 300),
                });
            }
            let (_, result) = self
                .consent_and_open(
                    server,
                    connection,
                    app,
                    &item.message,
                    &item.url,
                    Some(&item.elicitation_id),
                    Origin::RequiredError,
                    Dropped::As(S::ConnectionLost),
                )
                .await;
            waiting.push(result?);
        }
        for accepted in waiting {
            let id = accepted.request.elicitation_id.clone().unwrap_or_default();
            match accepted.done {
                Some(done) => {
                    self.await_completion(&accepted.request, connection, &id, done)
                        .await?
                }
                None => self.await_user(&accepted.request).await?,
            }
        }
        Ok(())
    }

    /// 2026-07-28 `InputRequiredResult` URL request: consent, open, and the
    /// user's Continue (no completion signal exists) before the retry. A
    /// refusal before opening is answered to the server (decline / cancel);
    /// a Cancel or expiry after opening stops the request.
    pub async fn fulfil_input_url(
        &self,
        server: &str,
        connection: u64,
        app: Option<&str>,
        message: &str,
        url: &str,
    ) -> Result<InputAction, Refusal> {
        let (_, result) = self
            .consent_and_open(
                server,
                connection,
                app,
                message,
                url,
                None,
                Origin::InputRequired,
                Dropped::As(S::ConnectionLost),
            )
            .await;
        match result {
            Ok(accepted) => {
                self.await_user(&accepted.request).await?;
                Ok(InputAction::Accept)
            }
            Err(r) if r.decision() == ConsentDecision::Cancel => Ok(InputAction::Cancel),
            Err(_) => Ok(InputAction::Decline),
        }
    }

    /// Wait for the completion notification of an accepted elicitation; after
    /// the late deadline, offer Continue / Cancel; give up at the give-up
    /// deadline. Never forever.
    async fn await_completion(
        &self,
        request: &UrlConsentRequest,
        connection: u64,
        elicitation_id: &str,
        mut done: oneshot::Receiver<Ending>,
    ) -> Result<(), Refusal> {
        let settings = self.settings();
        let ended = |e: Result<Ending, _>| match e {
            Ok(Ending::Completed) => Ok(()),
            Ok(Ending::Evicted) => Err(Refusal::Expired {
                after_secs: settings.give_up_after.as_secs(),
            }),
            _ => Err(Refusal::ConnectionLost),
        };
        if let Ok(e) = tokio::time::timeout(settings.late_after, &mut done).await {
            return ended(e);
        }
        self.advance(request.record_id, S::Late, None, serde_json::json!({}));
        let rest = settings.give_up_after.saturating_sub(settings.late_after);
        tokio::select! {
            e = &mut done => ended(e),
            decision = self.consent.continue_or_cancel(request) => {
                self.untrack(connection, elicitation_id);
                self.user_answered(request, decision)
            }
            _ = tokio::time::sleep(rest) => {
                self.untrack(connection, elicitation_id);
                self.expire(request, settings.give_up_after.as_secs())
            }
        }
    }

    /// No completion signal (2026-07-28): the user says when to go on.
    async fn await_user(&self, request: &UrlConsentRequest) -> Result<(), Refusal> {
        let give_up = self.settings().give_up_after;
        tokio::select! {
            decision = self.consent.continue_or_cancel(request) => self.user_answered(request, decision),
            _ = tokio::time::sleep(give_up) => self.expire(request, give_up.as_secs()),
        }
    }

    fn user_answered(
        &self,
        request: &UrlConsentRequest,
        decision: ContinueDecision,
    ) -> Result<(), Refusal> {
        match decision {
            ContinueDecision::Continue => {
                self.advance(request.record_id, S::Continued, None, serde_json::json!({}));
                Ok(())
            }
            ContinueDecision::Cancel => {
                self.advance(
                    request.record_id,
                    S::Cancelled,
                    Some("cancelled while waiting for the browser step".into()),
                    serde_json::json!({"while": "waiting for completion"}),
                );
                Err(Refusal::Cancelled)
            }
        }
    }

    fn expire(&self, request: &UrlConsentRequest, after_secs: u64) -> Result<(), Refusal> {
        let refusal = Refusal::Expired { after_secs };
        self.advance(
            request.record_id,
            S::Expired,
            Some(refusal.to_string()),
            serde_json::json!({}),
        );
        Err(refusal)
    }
}
