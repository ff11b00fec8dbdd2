//! A server's room as Airlock shows and runs it: whether it is confined
//! (and by what), the profile with where each entry came from, and the
//! gate that turns a blocked host into a question through the consent port
//! (the same surfaces as a URL elicitation), remembered when the person
//! says "Always".

use std::sync::{Arc, Weak};

use airlock_sandbox::proxy::{BoxFuture, Gate, Verdict};
use airlock_sandbox::{Container, Profile, SandboxSettings};
use serde::Serialize;

use crate::elicitation::{Consent, HostConsentRequest, HostDecision};

/// How a server runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum RoomState {
    /// In its room.
    Confined,
    /// In its room, but sharing this computer's network (the person's choice).
    ConfinedHostNetwork,
    /// Should be confined, but this computer cannot: it is not started
    /// (`why` says what is missing).
    Unavailable { why: String },
    /// Unconfined because the person chose so.
    UnconfinedByChoice,
    /// Configured before Airlock confined servers: unconfined until the
    /// person confines it (`airlock servers sandbox NAME on`).
    NotConfinedYet,
    /// A container engine confines it (not wrapped again).
    Container,
    /// A Streamable HTTP server: no process of Airlock's to confine.
    Remote,
}

impl RoomState {
    /// A short label for lists: `confined`, `NOT CONFINED`, ...
    pub fn label(&self) -> &'static str {
        match self {
            Self::Confined => "confined",
            Self::ConfinedHostNetwork => "confined (host network)",
            Self::Unavailable { .. } => "cannot be confined here",
            Self::UnconfinedByChoice => "NOT CONFINED (your choice)",
            Self::NotConfinedYet => "NOT CONFINED (added before confinement)",
            Self::Container => "in a container",
            Self::Remote => "remote",
        }
    }
}

/// Everything about a server's room, for `servers sandbox` and the window.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoomReport {
    pub server: String,
    pub state: RoomState,
    /// The exact command the server starts with.
    pub command: Vec<String>,
    /// The platform's mechanism, in words.
    pub mechanism: String,
    /// What is stored (`None`: the server predates confinement, or is remote).
    pub settings: Option<SandboxSettings>,
    /// The room it gets (or would get, when it is not confined).
    pub profile: Option<Profile>,
    pub container: Option<Container>,
}

/// The proxy's questions and refusals for one server.
pub(crate) struct RoomGate {
    pub server: String,
    pub consent: Arc<dyn Consent>,
    pub airlock: Weak<crate::Airlock>,
}

impl Gate for RoomGate {
    fn ask(&self, host: String, port: u16) -> BoxFuture<'static, Verdict> {
        let (server, consent, airlock) = (
            self.server.clone(),
            self.consent.clone(),
            self.airlock.clone(),
        );
        Box::pin(async move {
            let inspection = airlock_url_safety::inspect(
                &format!("https://{}:{port}/", bracket(&host)),
                &airlock_url_safety::Policy::default(),
            );
            let request = HostConsentRequest {
                server: server.clone(),
                host: host.clone(),
                port,
                inspection,
            };
            let decision = consent.ask_host(&request).await;
            if let Some(a) = airlock.upgrade() {
                a.host_answered(&server, &host, port, decision);
            }
            match decision {
                HostDecision::AllowOnce => Verdict::AllowOnce,
                HostDecision::Always => Verdict::Always,
                HostDecision::Deny => Verdict::Deny,
            }
        })
    }

    fn refused(&self, host: &str, port: u16, why: &str) {
        if let Some(a) = self.airlock.upgrade() {
            a.host_refused(&self.server, host, port, why);
        }
    }
}

/// An IPv6 address in brackets for a URL.
fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}
