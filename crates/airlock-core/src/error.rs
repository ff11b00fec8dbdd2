//! The core's errors: a stable code for scripts and the UI, and a sentence
//! a person can act on.

use crate::mcp::ConnectError;
use crate::secrets::SecretError;
use crate::servers::{self, DefinitionError};
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("no server named {0:?}; `airlock servers list` shows the configured ones")]
    UnknownServer(String),
    #[error("a server named {0:?} already exists; remove it first or pick another name")]
    ServerExists(String),
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    #[error(transparent)]
    Import(#[from] servers::ImportError),
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot connect to {server:?}: {source}")]
    Connect {
        server: String,
        source: ConnectError,
    },
    #[error("{server:?} is not connected")]
    NotConnected { server: String },
    #[error("{0:?} is paused: resume it to connect (`airlock servers resume {0}`, or Resume in the window)")]
    Paused(String),
    #[error("{server:?} answered with an error: {message} (code {code})")]
    Mcp {
        server: String,
        code: i32,
        message: String,
    },
    #[error("{server:?}: {message}")]
    Protocol { server: String, message: String },
    #[error("{0}")]
    BadInput(String),
    /// The organization's policy says no; the sentence names the rule.
    #[error("{0}")]
    Policy(String),
}

impl CoreError {
    /// A stable code for scripts and the UI.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownServer(_) => "unknown_server",
            Self::ServerExists(_) => "server_exists",
            Self::Definition(_) => "invalid_definition",
            Self::Import(_) => "invalid_config",
            Self::Secret(_) => "keychain",
            Self::Store(_) => "store",
            Self::Connect { .. } => "connect_failed",
            Self::NotConnected { .. } => "not_connected",
            Self::Paused(_) => "paused",
            Self::Mcp { .. } => "server_error",
            Self::Protocol { .. } => "protocol",
            Self::BadInput(_) => "bad_input",
            Self::Policy(_) => "policy_refused",
        }
    }

    /// Did the user ask for something impossible (as opposed to a server failing)?
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Self::UnknownServer(_)
                | Self::ServerExists(_)
                | Self::Definition(_)
                | Self::Import(_)
                | Self::BadInput(_)
        )
    }
}

pub type CoreResult<T> = Result<T, CoreError>;
