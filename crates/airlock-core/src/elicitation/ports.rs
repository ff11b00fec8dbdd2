//! The ports the broker asks through: [`Consent`] (a human, or a script)
//! and [`Opener`] (somewhere Airlock cannot see the page), the requests they
//! are shown and the answers they give; and the real implementations every
//! shell shares (the system browser, fixed answers for scripts).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use airlock_url_safety::Inspection;
use serde::Serialize;

use super::form::FormSchema;
use crate::lifecycle::Origin;

/// How long the system opener may take to report a failure.
pub const OPENER_CHECK: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ConsentDecision {
    Accept,
    Decline,
    Cancel,
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
    /// Has this server sent the user to this domain before; does a
    /// first-time domain look like one the user opened before?
    pub familiarity: Familiarity,
    /// A sign-in whose authorization code goes to another registrable
    /// domain than the login page's (the token endpoint's): that domain.
    pub code_goes_to: Option<String>,
    /// The app whose tool call raised this, through the gateway (see
    /// [`crate::store::ElicitationRecord::app`]); `None`: Airlock itself.
    /// A validated app name, but an app chose it: show it labelled, as
    /// plain text.
    pub app: Option<String>,
}

impl UrlConsentRequest {
    /// Nothing about this page calls for a closer look: no warning about
    /// the URL, not blocked, no look-alike of a domain opened before, no
    /// sign-in code sent elsewhere. Only then may a surface offer one-click
    /// approval (a notification's "Open" button); otherwise the person
    /// reviews it where the whole address and its warnings are shown.
    pub fn one_click_ok(&self) -> bool {
        self.inspection.warnings.is_empty()
            && self.inspection.block_reason.is_none()
            && self.familiarity.is_reassuring()
            && self.code_goes_to.is_none()
    }
}

/// What Airlock knows about the domain from the user's own history (no
/// network): the strongest phishing signal it can give.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Familiarity {
    /// Times this server sent the user to this registrable domain before.
    pub times_before: u32,
    /// When it first did (ms since the epoch).
    pub first_seen_ms: Option<i64>,
    /// A domain the user opened before that this first-time domain looks like.
    pub looks_like: Option<LookAlike>,
}

/// A known domain a new one resembles, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LookAlike {
    pub domain: String,
    /// How; in words: `view::sentences::resemblance`.
    pub resemblance: airlock_url_safety::Resemblance,
}

impl Familiarity {
    /// Nothing about the domain calls for a closer look (no one-click approval otherwise).
    pub fn is_reassuring(&self) -> bool {
        self.looks_like.is_none()
    }
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

    /// A confined server tries to reach a host its room does not list.
    /// The default denies, for shells that cannot ask a person.
    fn ask_host<'a>(&'a self, request: &'a HostConsentRequest) -> BoxFuture<'a, HostDecision> {
        let _ = request;
        Box::pin(async { HostDecision::Deny })
    }
}

/// What a question about a host shows: a confined server's connection,
/// held by Airlock's proxy until the person answers.
#[derive(Debug, Clone, Serialize)]
pub struct HostConsentRequest {
    pub server: String,
    /// Lower case, as the server asked for it (a name or an IP address).
    pub host: String,
    pub port: u16,
    /// `https://host:port/` inspected: the registrable domain, Punycode,
    /// look-alike and IP warnings.
    pub inspection: Inspection,
}

/// The person's answer about a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum HostDecision {
    /// This connection, and others to it until the server restarts.
    AllowOnce,
    /// Kept in the server's room.
    Always,
    Deny,
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
    /// See [`UrlConsentRequest::app`].
    pub app: Option<String>,
    /// The gateway's app (and call) this form belongs to: known exactly
    /// for a 2026-07-28 input round of an app's call; on a 2025-11-25
    /// connection, the one app whose requests are in flight there (none of
    /// Airlock's own). `None`: Airlock's own consent answers.
    #[serde(skip)]
    pub to_app: Option<crate::caller::AppTarget>,
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

    /// Accept allows once (a script never widens a room for good).
    fn ask_host<'a>(&'a self, _request: &'a HostConsentRequest) -> BoxFuture<'a, HostDecision> {
        let d = match self.0 {
            ConsentDecision::Accept => HostDecision::AllowOnce,
            _ => HostDecision::Deny,
        };
        Box::pin(async move { d })
    }
}

/// The system browser via the platform's standard mechanism
/// (super::browser_opener). The URL is one argument of a process, never part
/// of a shell command line.
pub struct SystemBrowser;

impl Opener for SystemBrowser {
    fn open(&self, url: &str) -> Result<(), String> {
        let mut cmd = super::browser_opener::command();
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
