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

/// One change a person makes to a room (the CLI's `servers sandbox NAME
/// ...`, the window's server page). Paths must be absolute (a shell makes
/// a typed one absolute first).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum RoomChange {
    /// Run it confined (from its next start).
    On,
    /// Run it unconfined, with all the person's rights.
    Off,
    AllowRead {
        path: String,
    },
    AllowWrite {
        path: String,
    },
    /// `HOST`, `HOST:PORT` or `*.DOMAIN[:PORT]`.
    AllowHost {
        host: String,
    },
    /// Take back a path or a host (as listed).
    Remove {
        entry: String,
    },
    /// Share this computer's network (on) or go through the proxy (off).
    HostNetwork {
        on: bool,
    },
}

impl RoomChange {
    /// Apply to `s`; the change in words (for the audit trail), or why not.
    pub fn apply(&self, s: &mut SandboxSettings) -> Result<String, String> {
        use airlock_sandbox::{GrantSource, HostGrant};
        Ok(match self {
            Self::On => {
                s.enabled = true;
                s.session_bus = false;
                "confined".into()
            }
            Self::Off => {
                s.enabled = false;
                "unconfined".into()
            }
            Self::AllowRead { path } => {
                s.allow_path(false, path, GrantSource::User)?;
                format!("allow-read {path}")
            }
            Self::AllowWrite { path } => {
                s.allow_path(true, path, GrantSource::User)?;
                format!("allow-write {path}")
            }
            Self::AllowHost { host } => {
                let g = HostGrant::parse(host, GrantSource::User)?;
                let label = g.label();
                s.allow_host(g)?;
                format!("allow-host {label}")
            }
            Self::Remove { entry } => {
                if !s.remove(entry) {
                    return Err(format!(
                        "{entry} was not allowed: nothing to remove (the room lists what is)"
                    ));
                }
                format!("remove {entry}")
            }
            Self::HostNetwork { on } => {
                s.host_network = *on;
                format!("host-network {}", if *on { "on" } else { "off" })
            }
        })
    }
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
            // A host the team's policy denies is refused without asking.
            if let Some(a) = airlock.upgrade() {
                if let Err(why) = a.check_host_policy(&host) {
                    a.host_refused(&server, &host, port, &why.to_string());
                    return Verdict::Deny;
                }
            }
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
