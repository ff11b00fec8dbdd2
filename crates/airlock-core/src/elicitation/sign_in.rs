//! MCP authorization (OAuth) sign-in pages go through the same record,
//! inspection, rate limit and consent as URL elicitations. The sign-in flow
//! (in `auth`) opens the page itself and tells the record how it ended.

use std::sync::Arc;

use airlock_url_safety::neutralize_for_display;

use super::broker::{Broker, MAX_MESSAGE_CHARS};
use super::outcome::Refusal;
use super::url::{Dropped, UrlQuestion};
use crate::lifecycle::{ElicitationState as S, Origin};

/// Most characters of the reason a sign-in is asked for again, in its
/// consent message.
pub const MAX_REASON_CHARS: usize = 600;

/// An answer from another authorization server than the flow's, as the
/// sign-in flow describes it (this module knows no OAuth).
pub struct MixUpSeen<'a> {
    pub kind: &'a str,
    pub expected: Option<&'a str>,
    pub received: Option<&'a str>,
    pub step: &'a str,
    pub message: &'a str,
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
        self.broker
            .advance(self.record_id, S::Opened, None, serde_json::json!({}));
    }
    /// Tokens are stored: the sign-in is done. `issuer`: the authorization
    /// server's issuer the flow expected; `answer`: whether the answer
    /// named it or named none (recorded, so sign-ins whose answer was not
    /// bound to an issuer can be told apart later).
    /// `issuer`: as shown; `response_issuer`: the word for how the
    /// answer's issuer was found (the sign-in flow's, recorded as given).
    pub fn succeeded(mut self, issuer: Option<&str>, response_issuer: &str) {
        self.finished = true;
        self.broker.advance(
            self.record_id,
            S::Completed,
            None,
            serde_json::json!({
                "issuer": issuer,
                "response_issuer": response_issuer,
            }),
        );
    }
    /// The answer came from another authorization server than the flow's
    /// and was refused (its code sent nowhere): the record fails and the
    /// audit trail gets an `oauth_mixup_refused` event naming both issuers.
    /// `kind`, `expected`, `received`: the mix-up in the flow's words;
    /// `step`: the flow's name for the step that refused it.
    pub fn refused_mix_up(self, mix_up: MixUpSeen<'_>) {
        let _ = self.broker.store.audit(
            Some(&self.server),
            "oauth_mixup_refused",
            &serde_json::json!({
                "record_id": self.record_id,
                "kind": mix_up.kind,
                "expected_issuer": mix_up.expected,
                "received_issuer": mix_up.received,
                "sign_in_domain": self.domain,
            }),
        );
        self.failed(mix_up.step, mix_up.message);
    }
    /// The flow failed at `step` (named in words) for `detail`.
    pub fn failed(mut self, step: &str, detail: &str) {
        self.finished = true;
        let detail = neutralize_for_display(detail, MAX_MESSAGE_CHARS);
        self.broker.advance(
            self.record_id,
            S::Failed,
            Some(format!("{step}: {detail}")),
            serde_json::json!({"step": step, "error": detail}),
        );
    }
}

impl Drop for SignInRecord {
    fn drop(&mut self) {
        if !self.finished {
            self.broker.advance(
                self.record_id,
                S::Cancelled,
                Some("the sign-in was cancelled".into()),
                serde_json::json!({"while": "waiting for the browser"}),
            );
        }
    }
}

impl Broker {
    /// Ask to open an MCP authorization (OAuth) page of `server`: the same
    /// record, inspection, rate limit and consent as a URL elicitation, but
    /// nothing is opened here (the sign-in flow opens it and waits for the
    /// redirect). `app`: the app whose request needed the sign-in
    /// (`None`: Airlock itself), named in the record and the audit like
    /// the app of a URL request. `Ok` carries the record to finish once the
    /// flow ends.
    pub async fn approve_sign_in(
        self: &Arc<Self>,
        server: &str,
        authorization_url: &str,
        token_endpoint: Option<&str>,
        app: Option<&str>,
        reason: Option<&str>,
    ) -> Result<SignInRecord, Refusal> {
        let why = reason
            .map(|r| {
                format!(
                    " Why again: {}.",
                    neutralize_for_display(r, MAX_REASON_CHARS)
                )
            })
            .unwrap_or_default();
        let message = format!(
            "Sign in to {server}: the server requires you to sign in (MCP authorization, OAuth) at its authorization server.{why} Check that you expect to sign in at this domain. Airlock never sees your password; the tokens it gets back are kept in the OS keychain."
        );
        let (_, result) = self
            .ask(UrlQuestion {
                server,
                message: &message,
                url: authorization_url,
                elicitation_id: None,
                origin: Origin::SignIn,
                dropped: Dropped::As(S::Cancelled),
                token_endpoint,
                app,
            })
            .await;
        let request = result?;
        // The sign-in flow opens the page itself; it counts as a visit.
        self.note_opened(&request);
        Ok(SignInRecord {
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
        })
    }
}
