//! The elicitation broker: one persisted state machine per URL elicitation.
//!
//! requested -> blocked | rate_limited | declined | cancelled | accepted
//! accepted -> opened -> completed | late -> continued | cancelled; any open
//! state -> connection_lost. Every transition lands in history and the audit
//! log. The broker asks a `Consent` port and an `Opener` port; the shells
//! (terminal, desktop, scripted tests) implement them.
//!
//! Form elicitations (see [`form`]) have their own, shorter machine:
//! requested -> invalid_schema | accepted | declined | cancelled. What the
//! person typed is sent to the server but never stored or audited; only the
//! names of the fields sent are.

pub mod form;

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_url_safety::{inspect, neutralize_for_display, Inspection, Policy, Verdict};
use serde::Serialize;
use tokio::sync::broadcast;

use crate::events::CoreEvent;
use crate::store::Store;
use form::{parse_schema, FormSchema, SchemaError};

/// Longest server message kept, in characters (the rest is cut, marked).
pub const MAX_MESSAGE_CHARS: usize = 4096;
/// Longest elicitation id accepted from a server, in bytes.
pub const MAX_ELICITATION_ID_BYTES: usize = 256;
/// URL elicitations of one server waiting for consent at once.
pub const DEFAULT_MAX_PENDING_PER_SERVER: usize = 3;
/// URL elicitations one server may start per minute.
pub const DEFAULT_MAX_PER_MINUTE: usize = 10;
/// How long the system opener may take to report a failure.
pub const OPENER_CHECK: Duration = Duration::from_secs(3);
/// Accepted elicitations still tracked for completion, per broker.
pub const MAX_TRACKED: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsentDecision {
    Accept,
    Decline,
    Cancel,
}

/// How the elicitation reached us.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `elicitation/create` (2025-11-25 request path).
    Request,
    /// A -32042 error listing URL elicitations (2025-11-25 error path).
    RequiredError,
    /// An `InputRequiredResult` (2026-07-28).
    InputRequired,
    /// Not an elicitation: Airlock's own MCP authorization (OAuth) sign-in
    /// page, shown and consented to the same way.
    SignIn,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::RequiredError => "required_error",
            Self::InputRequired => "input_required",
            Self::SignIn => "sign_in",
        }
    }
}

/// What a consent prompt shows. All server text is already bounded and
/// neutralised (no control, bidi or escape characters).
#[derive(Debug, Clone, Serialize)]
pub struct UrlConsentRequest {
    pub record_id: i64,
    pub server: String,
    pub message: String,
    pub elicitation_id: Option<String>,
    pub origin: Origin,
    pub inspection: Inspection,
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the user says when an accepted elicitation is still not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContinueDecision {
    /// "I am done in the browser": retry the original request now.
    Continue,
    /// Give up on the original request.
    Cancel,
}

/// Asks a human (or a script) whether to open a URL, and whether to go on
/// when completion is late.
pub trait Consent: Send + Sync {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision>;

    /// Called for an accepted elicitation whose completion is late (2025-11-25),
    /// or right after acceptance when no completion signal exists (2026-07-28).
    /// May wait as long as the user needs; the caller races it with completion.
    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision>;

    /// Show a form and return what the person entered. The broker validates
    /// an `Accept` again before anything is sent. The default declines, for
    /// shells that have no form yet.
    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        let _ = request;
        Box::pin(async { FormAnswer::Decline })
    }
}

/// What a form prompt shows. The message, titles and descriptions are
/// already bounded and neutralised; field names and option values are the
/// server's own bytes (render them as plain text).
#[derive(Debug, Clone, Serialize)]
pub struct FormConsentRequest {
    pub record_id: i64,
    pub server: String,
    pub message: String,
    pub origin: Origin,
    pub schema: FormSchema,
}

/// A person's answer to a form: `{"action": "accept", "content": {..}}`,
/// `{"action": "decline"}` or `{"action": "cancel"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", content = "content", rename_all = "snake_case")]
pub enum FormAnswer {
    Accept(serde_json::Map<String, serde_json::Value>),
    Decline,
    Cancel,
}

/// The outcome of one form elicitation, ready to send.
#[derive(Debug, Clone)]
pub struct FormOutcome {
    pub record_id: Option<i64>,
    /// An `Accept` here has been validated against the schema.
    pub answer: FormAnswer,
}

impl FormOutcome {
    /// The JSON of an elicitation result: `{"action": .., "content"?: ..}`.
    pub fn result_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.answer)
            .unwrap_or_else(|_| serde_json::json!({"action": "decline"}))
    }
}

/// Opens a URL outside Airlock, where Airlock cannot see the page.
pub trait Opener: Send + Sync {
    fn open(&self, url: &str) -> Result<(), String>;
}

/// A consent port that gives the same answer every time (scripts, tests).
pub struct FixedConsent(pub ConsentDecision);

impl Consent for FixedConsent {
    fn ask_url<'a>(&'a self, _request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        let d = self.0;
        Box::pin(async move { d })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        _request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        let d = if self.0 == ConsentDecision::Accept {
            ContinueDecision::Continue
        } else {
            ContinueDecision::Cancel
        };
        Box::pin(async move { d })
    }

    /// Accept answers with the server's defaults, if they fill the form
    /// validly (a required field without a default makes it a decline).
    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        let answer = match self.0 {
            ConsentDecision::Accept => match request.schema.validate(&request.schema.defaults()) {
                Ok(content) => FormAnswer::Accept(content),
                Err(_) => FormAnswer::Decline,
            },
            ConsentDecision::Decline => FormAnswer::Decline,
            ConsentDecision::Cancel => FormAnswer::Cancel,
        };
        Box::pin(async move { answer })
    }
}

/// The system browser via the platform's standard mechanism. The URL is one
/// argument of a process, never part of a shell command line.
pub struct SystemBrowser;

impl Opener for SystemBrowser {
    fn open(&self, url: &str) -> Result<(), String> {
        #[cfg(target_os = "macos")]
        let mut cmd = std::process::Command::new("open");
        #[cfg(target_os = "windows")]
        let mut cmd = {
            let mut c = std::process::Command::new("rundll32");
            c.arg("url.dll,FileProtocolHandler");
            c
        };
        #[cfg(not(any(target_os = "macos", target_os = "windows")))]
        let mut cmd = std::process::Command::new("xdg-open");
        cmd.arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the system browser opener: {e}"))?;
        // xdg-open exits at once when it handed the URL over, and with an
        // error when no browser could take it; a browser it runs in the
        // foreground keeps it alive, which counts as opened.
        let deadline = std::time::Instant::now() + OPENER_CHECK;
        loop {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    return Err(format!(
                        "the system browser could not open the page (the opener exited with {status}); copy the URL into your browser instead"
                    ))
                }
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => break,
            }
        }
        // Reap it in the background so no zombie is left.
        std::thread::spawn(move || {
            let _ = child.wait();
        });
        Ok(())
    }
}

/// An opener that only prints the URL (for `--open print`) or does nothing.
pub struct PrintOpener {
    pub print: bool,
}

impl Opener for PrintOpener {
    fn open(&self, url: &str) -> Result<(), String> {
        if self.print {
            println!("{url}");
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct BrokerSettings {
    pub policy: Policy,
    pub max_pending_per_server: usize,
    pub max_per_minute: usize,
    pub late_after: Duration,
    pub give_up_after: Duration,
}

impl Default for BrokerSettings {
    fn default() -> Self {
        Self {
            policy: Policy::default(),
            max_pending_per_server: DEFAULT_MAX_PENDING_PER_SERVER,
            max_per_minute: DEFAULT_MAX_PER_MINUTE,
            late_after: Duration::from_secs(120),
            give_up_after: Duration::from_secs(600),
        }
    }
}

#[derive(Default)]
struct ServerCounters {
    pending: usize,
    recent: VecDeque<Instant>,
}

/// An accepted elicitation waiting for its completion notification.
#[derive(Debug, Clone)]
struct Tracked {
    record_id: i64,
    connection: u64,
    elicitation_id: String,
}

pub struct Broker {
    store: Arc<Store>,
    consent: Arc<dyn Consent>,
    opener: Arc<dyn Opener>,
    events: broadcast::Sender<CoreEvent>,
    settings: BrokerSettings,
    counters: Mutex<HashMap<String, ServerCounters>>,
    tracked: Mutex<VecDeque<Tracked>>,
    completions: tokio::sync::Notify,
}

/// A consent question in flight: frees its rate-limit slot however it ends.
struct Asking<'a> {
    broker: &'a Broker,
    server: &'a str,
    record_id: i64,
    answered: bool,
    /// The record's state when the question is dropped unanswered.
    dropped_state: &'static str,
}

impl Asking<'_> {
    fn answered(mut self) {
        self.answered = true;
    }
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.broker.release(self.server);
        if !self.answered {
            self.broker.transition(
                self.server,
                self.record_id,
                self.dropped_state,
                serde_json::json!({"while": "asking for consent"}),
            );
        }
    }
}

/// The answer to one URL elicitation.
#[derive(Debug, Clone)]
pub struct UrlOutcome {
    pub record_id: Option<i64>,
    pub decision: ConsentDecision,
    /// What the user was shown (absent when refused before asking).
    pub request: Option<UrlConsentRequest>,
    /// Why the user was not asked (blocked URL, rate limit, no record), in words.
    pub refused: Option<String>,
}

/// A consented sign-in in progress: its record ends `completed`, `failed`
/// or, when dropped unfinished (the user cancelled it), `cancelled`.
pub struct SignInRecord {
    broker: Arc<Broker>,
    server: String,
    record_id: i64,
    url: String,
    domain: String,
    finished: bool,
}

impl SignInRecord {
    pub fn record_id(&self) -> i64 {
        self.record_id
    }
    /// The authorization URL as inspected (normalised).
    pub fn url(&self) -> &str {
        &self.url
    }
    /// The registrable domain (or host) of the authorization page.
    pub fn domain(&self) -> &str {
        &self.domain
    }
    /// The page is being shown to the user.
    pub fn opened(&self) {
        self.broker.transition(
            &self.server,
            self.record_id,
            "opened",
            serde_json::json!({}),
        );
    }
    /// The flow ended: tokens stored, or the step that failed.
    pub fn finish(mut self, result: Result<(), &crate::auth::AuthFlowError>) {
        self.finished = true;
        match result {
            Ok(()) => self.broker.transition(
                &self.server,
                self.record_id,
                "completed",
                serde_json::json!({}),
            ),
            Err(e) => self.broker.transition(
                &self.server,
                self.record_id,
                "failed",
                serde_json::json!({"step": e.step.name(), "error": neutralize_for_display(&e.detail, MAX_MESSAGE_CHARS)}),
            ),
        }
    }
}

impl Drop for SignInRecord {
    fn drop(&mut self) {
        if !self.finished {
            self.broker.transition(
                &self.server,
                self.record_id,
                "cancelled",
                serde_json::json!({"while": "waiting for the browser"}),
            );
        }
    }
}

fn bounded_id(id: &str) -> String {
    neutralize_for_display(id, MAX_ELICITATION_ID_BYTES)
}

impl Broker {
    pub fn new(
        store: Arc<Store>,
        consent: Arc<dyn Consent>,
        opener: Arc<dyn Opener>,
        events: broadcast::Sender<CoreEvent>,
        settings: BrokerSettings,
    ) -> Self {
        Self {
            store,
            consent,
            opener,
            events,
            settings,
            counters: Mutex::new(HashMap::new()),
            tracked: Mutex::new(VecDeque::new()),
            completions: tokio::sync::Notify::new(),
        }
    }

    pub fn settings(&self) -> &BrokerSettings {
        &self.settings
    }

    pub fn consent(&self) -> &Arc<dyn Consent> {
        &self.consent
    }

    fn transition(&self, server: &str, record_id: i64, state: &str, detail: serde_json::Value) {
        // History and audit are best effort: a full disk must not wedge the protocol.
        let _ = self.store.set_elicitation_state(record_id, state);
        let mut d = detail;
        if let serde_json::Value::Object(m) = &mut d {
            m.insert("record_id".into(), record_id.into());
            m.insert("state".into(), state.into());
        }
        let _ = self.store.audit(Some(server), "elicitation", &d);
        let _ = self.events.send(CoreEvent::Elicitation {
            server: server.to_owned(),
            record_id,
            state: state.to_owned(),
        });
    }

    /// Rate limit: `Ok(())` reserves a pending slot; release it with `release`.
    fn admit(&self, server: &str) -> Result<(), &'static str> {
        let mut counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        let c = counters.entry(server.to_owned()).or_default();
        let now = Instant::now();
        while c
            .recent
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(60))
        {
            c.recent.pop_front();
        }
        if c.pending >= self.settings.max_pending_per_server {
            return Err("too many URL elicitations are already waiting for consent");
        }
        if c.recent.len() >= self.settings.max_per_minute {
            return Err("too many URL elicitations in the last minute");
        }
        c.pending += 1;
        c.recent.push_back(now);
        Ok(())
    }

    fn release(&self, server: &str) {
        let mut counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = counters.get_mut(server) {
            c.pending = c.pending.saturating_sub(1);
        }
    }

    /// Take one URL elicitation through inspection, rate limit, consent and opening.
    /// Returns as soon as the user decided: accept means consent, not completion.
    pub async fn handle_url(
        &self,
        server: &str,
        connection: u64,
        message: &str,
        url: &str,
        elicitation_id: Option<&str>,
        origin: Origin,
    ) -> UrlOutcome {
        let outcome = self
            .ask_url(
                server,
                message,
                url,
                elicitation_id,
                origin,
                "connection_lost",
            )
            .await;
        if let (Some(record_id), Some(request), ConsentDecision::Accept) =
            (outcome.record_id, &outcome.request, outcome.decision)
        {
            let url = request.inspection.url.as_deref().unwrap_or_default();
            match self.opener.open(url) {
                Ok(()) => self.transition(server, record_id, "opened", serde_json::json!({})),
                Err(e) => self.transition(
                    server,
                    record_id,
                    "open_failed",
                    serde_json::json!({"error": e}),
                ),
            }
            if let Some(id) = request.elicitation_id.clone() {
                let mut tracked = self.tracked.lock().unwrap_or_else(|e| e.into_inner());
                if tracked.len() >= MAX_TRACKED {
                    tracked.pop_front();
                }
                tracked.push_back(Tracked {
                    record_id,
                    connection,
                    elicitation_id: id,
                });
            }
        }
        outcome
    }

    /// Ask to open an MCP authorization (OAuth) page of `server`: the same
    /// record, inspection, rate limit and consent as a URL elicitation, but
    /// nothing is opened here (the sign-in flow opens it and waits for the
    /// redirect). `Ok` carries the record to finish once the flow ends.
    pub async fn approve_sign_in(
        self: &Arc<Self>,
        server: &str,
        authorization_url: &str,
    ) -> Result<SignInRecord, crate::auth::AuthFlowError> {
        use crate::auth::{AuthFlowError, AuthStep};
        let message = format!(
            "Sign in to {server}: the server requires you to sign in (MCP authorization, OAuth) at its authorization server. Check that you expect to sign in at this domain. Airlock never sees your password; the tokens it gets back are kept in the OS keychain."
        );
        let outcome = self
            .ask_url(
                server,
                &message,
                authorization_url,
                None,
                Origin::SignIn,
                "cancelled",
            )
            .await;
        let refusal = |detail: String| AuthFlowError::new(AuthStep::UserAuthorization, detail);
        let Some(request) = outcome.request else {
            return Err(refusal(outcome.refused.unwrap_or_default()));
        };
        match outcome.decision {
            ConsentDecision::Accept => Ok(SignInRecord {
                broker: self.clone(),
                server: server.to_owned(),
                record_id: request.record_id,
                url: request.inspection.url.clone().unwrap_or_default(),
                domain: request
                    .inspection
                    .registrable_domain
                    .or(request.inspection.display_host)
                    .unwrap_or_default(),
                finished: false,
            }),
            ConsentDecision::Decline => {
                Err(refusal("you declined to open the sign-in page".into()))
            }
            ConsentDecision::Cancel => Err(refusal("you cancelled the sign-in".into())),
        }
    }

    /// Inspection, record, rate limit and consent of one URL (no opening).
    async fn ask_url(
        &self,
        server: &str,
        message: &str,
        url: &str,
        elicitation_id: Option<&str>,
        origin: Origin,
        dropped_state: &'static str,
    ) -> UrlOutcome {
        let message = neutralize_for_display(message, MAX_MESSAGE_CHARS);
        let elicitation_id = elicitation_id.map(bounded_id);
        let inspection = inspect(url, &self.settings.policy);
        let stored_url = inspection
            .url
            .clone()
            .unwrap_or_else(|| neutralize_for_display(url, airlock_url_safety::MAX_URL_LEN));
        let warnings: Vec<String> = inspection
            .warnings
            .iter()
            .map(|w| w.code().to_owned())
            .collect();
        let verdict = match inspection.verdict {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
            Verdict::Block => "block",
        };
        let record_id = match self.store.insert_elicitation(
            server,
            elicitation_id.as_deref(),
            "url",
            origin.as_str(),
            &message,
            Some(&stored_url),
            inspection.registrable_domain.as_deref(),
            Some(verdict),
            &warnings,
            "requested",
        ) {
            Ok(id) => id,
            Err(e) => {
                return UrlOutcome {
                    record_id: None,
                    decision: ConsentDecision::Decline,
                    request: None,
                    refused: Some(format!("the request could not be recorded ({e})")),
                }
            }
        };
        self.transition(
            server,
            record_id,
            "requested",
            serde_json::json!({"url": stored_url, "domain": inspection.registrable_domain, "warnings": warnings, "origin": origin.as_str()}),
        );

        if let Some(reason) = inspection.block_reason {
            self.transition(
                server,
                record_id,
                "blocked",
                serde_json::json!({"reason": reason.code()}),
            );
            return UrlOutcome {
                record_id: Some(record_id),
                decision: ConsentDecision::Decline,
                request: None,
                refused: Some(format!("Airlock blocked the page: {}", reason.describe())),
            };
        }
        if let Err(why) = self.admit(server) {
            self.transition(
                server,
                record_id,
                "rate_limited",
                serde_json::json!({"reason": why}),
            );
            return UrlOutcome {
                record_id: Some(record_id),
                decision: ConsentDecision::Decline,
                request: None,
                refused: Some(format!("{why}; answer or cancel the open ones")),
            };
        }
        let request = UrlConsentRequest {
            record_id,
            server: server.to_owned(),
            message,
            elicitation_id: elicitation_id.clone(),
            origin,
            inspection,
        };
        // If this future is dropped while the user is asked (the server went
        // away or cancelled its request), the slot is freed and the record says so.
        let asking = Asking {
            broker: self,
            server,
            record_id,
            answered: false,
            dropped_state,
        };
        let decision = self.consent.ask_url(&request).await;
        asking.answered();
        let state = match decision {
            ConsentDecision::Decline => "declined",
            ConsentDecision::Cancel => "cancelled",
            ConsentDecision::Accept => "accepted",
        };
        self.transition(server, record_id, state, serde_json::json!({}));
        UrlOutcome {
            record_id: Some(record_id),
            decision,
            request: Some(request),
            refused: None,
        }
    }

    /// Take one form elicitation through schema checking, the consent port
    /// and validation. `Err` means the schema is outside the form subset (the
    /// caller answers -32602); the record then ends in `invalid_schema`.
    /// `field_order` is the server's property order, when the JSON value
    /// lost it.
    pub async fn handle_form(
        &self,
        server: &str,
        connection: u64,
        message: &str,
        schema_json: &serde_json::Value,
        field_order: Option<&[String]>,
        origin: Origin,
    ) -> Result<FormOutcome, SchemaError> {
        let _ = connection;
        let message = neutralize_for_display(message, MAX_MESSAGE_CHARS);
        let parsed = parse_schema(schema_json).map(|s| match field_order {
            Some(order) => s.in_order(order),
            None => s,
        });
        let record_id = self
            .store
            .insert_elicitation(
                server,
                None,
                "form",
                origin.as_str(),
                &message,
                None,
                None,
                None,
                &[],
                "requested",
            )
            .ok();
        let fields: Vec<&str> = parsed
            .as_ref()
            .map(|s| s.fields.iter().map(|f| f.name.as_str()).collect())
            .unwrap_or_default();
        let secret_looking: Vec<&str> = parsed
            .as_ref()
            .map(|s| s.secret_looking().map(|f| f.name.as_str()).collect())
            .unwrap_or_default();
        if let Some(id) = record_id {
            self.transition(
                server,
                id,
                "requested",
                serde_json::json!({"mode": "form", "origin": origin.as_str(), "fields": fields, "secret_looking_fields": secret_looking}),
            );
        }
        let schema = match parsed {
            Ok(s) => s,
            Err(e) => {
                if let Some(id) = record_id {
                    self.transition(
                        server,
                        id,
                        "invalid_schema",
                        serde_json::json!({"reason": e.to_string()}),
                    );
                }
                return Err(e);
            }
        };
        let Some(record_id) = record_id else {
            // Without a record there is no history of the answer: do not ask.
            return Ok(FormOutcome {
                record_id: None,
                answer: FormAnswer::Decline,
            });
        };
        let request = FormConsentRequest {
            record_id,
            server: server.to_owned(),
            message,
            origin,
            schema,
        };
        let answer = match self.consent.ask_form(&request).await {
            FormAnswer::Accept(content) => match request.schema.validate(&content) {
                Ok(clean) => {
                    let sent: Vec<&String> = clean.keys().collect();
                    self.transition(
                        server,
                        record_id,
                        "accepted",
                        serde_json::json!({"fields_sent": sent}),
                    );
                    FormAnswer::Accept(clean)
                }
                Err(errors) => {
                    // Never send what does not fit the form. The audit names
                    // the fields, not what was typed into them.
                    let fields: Vec<&String> = errors.iter().map(|e| &e.field).collect();
                    self.transition(
                        server,
                        record_id,
                        "declined",
                        serde_json::json!({"reason": "the answer did not fit the form", "invalid_fields": fields}),
                    );
                    FormAnswer::Decline
                }
            },
            FormAnswer::Decline => {
                self.transition(server, record_id, "declined", serde_json::json!({}));
                FormAnswer::Decline
            }
            FormAnswer::Cancel => {
                self.transition(server, record_id, "cancelled", serde_json::json!({}));
                FormAnswer::Cancel
            }
        };
        Ok(FormOutcome {
            record_id: Some(record_id),
            answer,
        })
    }

    /// `notifications/elicitation/complete` from `connection`. Unknown,
    /// already completed or other-connection ids are ignored and audited.
    pub fn complete(&self, server: &str, connection: u64, elicitation_id: &str) -> bool {
        let id = bounded_id(elicitation_id);
        let found = {
            let mut tracked = self.tracked.lock().unwrap_or_else(|e| e.into_inner());
            let pos = tracked
                .iter()
                .position(|t| t.connection == connection && t.elicitation_id == id);
            pos.and_then(|p| tracked.remove(p))
        };
        match found {
            Some(t) => {
                self.transition(
                    server,
                    t.record_id,
                    "completed",
                    serde_json::json!({"by": "notification"}),
                );
                self.completions.notify_waiters();
                true
            }
            None => {
                let _ = self.store.audit(
                    Some(server),
                    "elicitation_complete_ignored",
                    &serde_json::json!({"elicitation_id": id, "reason": "unknown, already completed, or from another connection"}),
                );
                false
            }
        }
    }

    /// Is this elicitation still waiting for its completion notification?
    pub fn is_waiting(&self, connection: u64, elicitation_id: &str) -> bool {
        let id = bounded_id(elicitation_id);
        self.tracked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|t| t.connection == connection && t.elicitation_id == id)
    }

    /// Wait until none of `ids` on `connection` is waiting, or `deadline` passes.
    /// Returns the ids still waiting.
    pub async fn wait_completed(
        &self,
        connection: u64,
        ids: &[String],
        deadline: Duration,
    ) -> Vec<String> {
        let until = tokio::time::Instant::now() + deadline;
        loop {
            let notified = self.completions.notified();
            let waiting: Vec<String> = ids
                .iter()
                .filter(|id| self.is_waiting(connection, id))
                .cloned()
                .collect();
            if waiting.is_empty() {
                return waiting;
            }
            if tokio::time::timeout_at(until, notified).await.is_err() {
                return waiting;
            }
        }
    }

    /// Mark tracked elicitations of a connection as lost.
    pub fn connection_lost(&self, server: &str, connection: u64) {
        let lost: Vec<Tracked> = {
            let mut tracked = self.tracked.lock().unwrap_or_else(|e| e.into_inner());
            let (lost, keep): (Vec<_>, Vec<_>) =
                tracked.drain(..).partition(|t| t.connection == connection);
            tracked.extend(keep);
            lost
        };
        for t in lost {
            self.transition(
                server,
                t.record_id,
                "connection_lost",
                serde_json::json!({}),
            );
        }
    }

    /// Mark an elicitation late (deadline passed without completion).
    pub fn mark(&self, server: &str, record_id: i64, state: &str) {
        self.transition(server, record_id, state, serde_json::json!({}));
    }

    /// Stop tracking (the user continued or cancelled by hand).
    pub fn forget(&self, connection: u64, elicitation_id: &str) {
        let id = bounded_id(elicitation_id);
        self.tracked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|t| !(t.connection == connection && t.elicitation_id == id));
    }

    pub fn record_for(&self, connection: u64, elicitation_id: &str) -> Option<i64> {
        let id = bounded_id(elicitation_id);
        self.tracked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|t| t.connection == connection && t.elicitation_id == id)
            .map(|t| t.record_id)
    }
}
