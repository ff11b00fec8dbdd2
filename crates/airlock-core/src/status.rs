//! The live status of a server connection, as every shell shows it.

use serde::Serialize;

/// Live status of a server connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ConnStatus {
    Disconnected,
    Connecting,
    Ready {
        protocol_version: String,
    },
    Failed {
        reason: String,
    },
    Reconnecting {
        attempt: u32,
        retry_in_ms: u64,
        reason: String,
    },
    /// The server needs MCP authorization (OAuth) and has no usable
    /// tokens, or the last sign-in did not finish (`reason` says why).
    SignInRequired {
        reason: String,
    },
    /// The user accepted the sign-in page; Airlock waits for the browser's
    /// redirect back from `domain`.
    SigningIn {
        domain: String,
    },
    /// The user paused the server: it is not connected and asks nothing
    /// until it is resumed.
    Paused,
}
