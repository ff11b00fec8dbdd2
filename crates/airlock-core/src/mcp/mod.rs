//! MCP sessions over the official Rust SDK (`rmcp`): stdio and Streamable
//! HTTP, 2025-11-25 (initialize) and 2026-07-28 (discovery) chosen per server.

mod connect;
mod errors;
mod handler;
pub mod inherited_env;
mod list_changes;
pub(crate) mod listen;
pub mod log_rate;
pub mod oversize;
pub mod progress;
mod server_process;
mod stderr;
mod stdio;
mod withdrawals;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{Peer, RoleClient, RunningServiceCancellationToken};
use serde::Serialize;
use tokio::sync::broadcast;

use crate::elicitation::Broker;
use crate::events::CoreEvent;
use crate::secrets::Redactor;
pub use crate::status::ConnStatus;
use crate::store::Store;

pub use crate::mcp_apps::{LEGACY_RESOURCE_URI_META, MCP_APP_MIME_TYPE, UI_EXTENSION, UI_META};
pub use connect::connect;
#[cfg(feature = "test-support")]
pub use connect::connect_io;
pub use errors::{error_chain, insufficient_scope_challenge};
pub(crate) use handler::log_line;
pub use handler::{client_info, AirlockClient};
pub use stderr::STDERR_TAIL_LINES;
pub use withdrawals::NOTICE_GRACE;

/// How long the handshake (initialize or discovery) may take.
pub const DEFAULT_CONNECT_TIMEOUT: Duration =
    Duration::from_secs(crate::limits::CONNECT_TIMEOUT_SECS.default);
/// The method of the 2025-11-25 completion notification.
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// What the server told us about itself.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionInfo {
    pub protocol_version: String,
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    pub capabilities: serde_json::Value,
    pub instructions: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("command `{command}` was not found; check that it is installed and on PATH")]
    CommandNotFound { command: String },
    #[error("cannot start `{command}`: {detail}")]
    Spawn { command: String, detail: String },
    #[error("the server did not finish the MCP handshake within {secs} s{tail}")]
    Timeout { secs: u64, tail: String },
    #[error("the MCP handshake failed: {detail}{tail}")]
    Handshake { detail: String, tail: String },
    #[error("invalid server configuration: {0}")]
    Config(String),
    /// What an installed server would run is not what was installed.
    #[error("not started: {0}")]
    Changed(String),
    /// `reason`: why the stored tokens were not used, as ` (<sentence>)`,
    /// or empty.
    #[error(
        "the server requires you to sign in (MCP authorization, OAuth){reason}: use Sign in in the window, or `airlock login {server}`"
    )]
    AuthorizationRequired { server: String, reason: String },
    #[error(transparent)]
    Authorization(crate::auth::AuthFlowError),
}

impl ConnectError {
    /// The same error with the server's secrets masked in its text (a
    /// server may echo a token in an error page or on stderr).
    pub fn redacted(self, r: &Redactor) -> Self {
        match self {
            Self::Timeout { secs, tail } => Self::Timeout {
                secs,
                tail: r.redact(&tail),
            },
            Self::Handshake { detail, tail } => Self::Handshake {
                detail: r.redact(&detail),
                tail: r.redact(&tail),
            },
            Self::Spawn { command, detail } => Self::Spawn {
                command,
                detail: r.redact(&detail),
            },
            Self::Config(detail) => Self::Config(r.redact(&detail)),
            other => other,
        }
    }
}

/// An open MCP session with one server.
pub struct Session {
    pub server: String,
    pub connection: u64,
    pub peer: Peer<RoleClient>,
    pub info: SessionInfo,
    /// Masks this server's secrets in anything stored from it.
    pub redactor: Arc<Redactor>,
    cancel: Mutex<Option<RunningServiceCancellationToken>>,
    closed: Arc<tokio::sync::Notify>,
    closed_flag: Arc<AtomicBool>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Calls on this connection waiting for the server's progress.
    pub(crate) progress: crate::mcp::progress::ProgressRoutes,
    /// 2026-07-28: the listen stream (list changes, resource updates).
    pub(crate) listener: Option<Arc<listen::Listener>>,
}

impl Session {
    pub fn is_closed(&self) -> bool {
        self.closed_flag.load(Ordering::SeqCst)
    }

    /// Wait until the transport closes (server exit, network loss, disconnect).
    pub async fn closed(&self) {
        let notified = self.closed.notified();
        if self.is_closed() {
            return;
        }
        notified.await;
    }

    pub fn close(&self) {
        if let Some(c) = self.cancel.lock().unwrap_or_else(|e| e.into_inner()).take() {
            c.cancel();
        }
    }

    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}

pub struct ConnectContext {
    pub store: Arc<Store>,
    pub broker: Arc<Broker>,
    pub events: broadcast::Sender<CoreEvent>,
    pub redactor: Arc<Redactor>,
    pub connect_timeout: Duration,
    /// OAuth for Streamable HTTP servers; `None` sends no tokens.
    pub oauth: Option<OAuthContext>,
    /// The protocol revision to speak (automatic: 2026-07-28 when offered).
    pub protocol: crate::servers::ProtocolChoice,
    /// What a stdio server inherits beyond the minimal environment.
    pub inherit_env: Vec<String>,
    /// Sign-ins over plain http:// to another computer are allowed.
    pub allow_insecure_http: bool,
    /// Where sampling and roots requests go (the gateway's apps).
    pub app_requests: Option<Arc<dyn crate::forward::AppRequests>>,
    /// Largest message read from the server, in bytes (see [`oversize`]).
    pub max_message_bytes: usize,
    /// A confined stdio server: the command that starts it in its room.
    pub wrapped: Option<airlock_sandbox::Wrapped>,
    /// Hand a stdio server the session bus (unconfined servers only).
    pub session_bus: bool,
}

/// What a connect needs for MCP authorization: where tokens live and,
/// when the shell can run a login, how to reach the browser.
#[derive(Clone)]
pub struct OAuthContext {
    pub keychain: crate::secrets::Keychain,
    pub instance: String,
    pub identity: crate::auth::ClientIdentity,
    /// Run the authorization on a 401 during connect; `None`: fail with a
    /// hint to log in (`airlock login <server>`).
    pub browser: Option<Arc<dyn crate::auth::Browser>>,
    /// Consent and cancellation of a sign-in started by this connect.
    pub gate: crate::auth::SignInGate,
}

/// Headers that the transport owns; a user may not set them.
pub const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "content-type",
];

pub fn header_is_reserved(name: &str) -> bool {
    RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str())
}
