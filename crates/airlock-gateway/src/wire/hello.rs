//! The one line each side says before MCP starts on the local socket.
//!
//! ```text
//! shim -> host: {"airlock_gateway":1,"client":"cursor"}\n     (the app's name; may be null)
//! host -> shim: {"airlock_gateway":1,"ok":true,"pid":1234}\n
//!            or {"airlock_gateway":1,"error":"why, in words"}\n  (then the host closes)
//! ```
//!
//! A host that wants the socket (the desktop window) says instead
//! `{"airlock_gateway":1,"handover":true}`; see [`crate::wire::handover`].
//! A host that is handing over answers every hello with
//! `{"airlock_gateway":1,"error":"..","moving":true}`: the shim tries again.
//!
//! After these two lines the stream carries newline-delimited JSON-RPC (MCP's
//! stdio framing) both ways, untouched: the shim only copies bytes. A line
//! longer than [`MAX_HELLO_BYTES`], or none within [`HELLO_TIMEOUT`], ends
//! the connection.
//!
//! A reader of history in another process (`airlock history`) is no app: it
//! asks the host to write the calls still queued for history first, and the
//! host answers once they are in the database, then closes:
//!
//! ```text
//! reader -> host: {"airlock_gateway":1,"flush_history":true}\n
//! host -> reader: {"airlock_gateway":1,"ok":true,"pid":1234,"flushed":true}\n
//! ```
//!
//! (A host that predates this answers without `flushed` and waits for MCP:
//! the reader closes and reads anyway.)

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The version of this exchange; a host refuses a version it does not know.
pub const HELLO_VERSION: u32 = 1;
/// Longest hello line, newline included.
pub const MAX_HELLO_BYTES: usize = 4096;
/// How long either side waits for the other's hello.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
pub use airlock_core::apps::MAX_APP_NAME_CHARS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub airlock_gateway: u32,
    /// `--app NAME`; `None`: the host uses the app's own name (clientInfo).
    /// On the wire still `client` (a shim and a host of different versions
    /// read each other's hello).
    #[serde(default, rename = "client")]
    pub app: Option<String>,
    /// A host asking the owner to hand the socket over ([`crate::wire::handover`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub handover: bool,
    /// Not an app: write the queued history, answer, close.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flush_history: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Welcome {
    pub airlock_gateway: u32,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// This host is handing over to another: attach again in a moment.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moving: bool,
    /// To the successor: the socket is free now, claim it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub released: bool,
    /// The answer to a `flush_history` hello: the queued calls are written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flushed: bool,
}

impl Welcome {
    pub fn ok() -> Self {
        Self {
            airlock_gateway: HELLO_VERSION,
            ok: true,
            pid: Some(std::process::id()),
            error: None,
            moving: false,
            released: false,
            flushed: false,
        }
    }
    pub fn flushed() -> Self {
        Self {
            flushed: true,
            ..Self::ok()
        }
    }
    pub fn refuse(why: impl Into<String>) -> Self {
        Self {
            airlock_gateway: HELLO_VERSION,
            ok: false,
            pid: Some(std::process::id()),
            error: Some(why.into()),
            moving: false,
            released: false,
            flushed: false,
        }
    }
}

/// A line of JSON with its newline.
pub fn line<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

/// Is this an app name Airlock records? 1 to [`MAX_APP_NAME_CHARS`]
/// letters, digits, spaces, `.`, `_` or `-`, not starting with `-` or space.
pub fn check_app_name(name: &str) -> Result<(), String> {
    airlock_core::apps::check_app_name(name).map_err(|e| e.to_string())
}

/// Parse the shim's hello; `Err` is the sentence sent back.
pub fn parse_hello(line: &[u8]) -> Result<Hello, String> {
    let hello: Hello = serde_json::from_slice(line).map_err(|_| {
        "not an Airlock gateway hello: connect with `airlock gateway --stdio`".to_owned()
    })?;
    if hello.airlock_gateway != HELLO_VERSION {
        return Err(format!(
            "this Airlock speaks gateway hello version {HELLO_VERSION}, the shim spoke {}: use the same Airlock version for both",
            hello.airlock_gateway
        ));
    }
    if let Some(name) = &hello.app {
        check_app_name(name)?;
    }
    Ok(hello)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_round_trips_and_bad_ones_are_refused_with_a_reason() {
        let h = Hello {
            airlock_gateway: HELLO_VERSION,
            app: Some("cursor".into()),
            handover: false,
            flush_history: false,
        };
        let bytes = line(&h);
        assert!(!String::from_utf8_lossy(&bytes).contains("flush"));
        assert!(bytes.ends_with(b"\n"));
        assert_eq!(parse_hello(&bytes).unwrap(), h);
        assert!(parse_hello(b"{\"airlock_gateway\":1}\n")
            .unwrap()
            .app
            .is_none());
        assert!(parse_hello(b"{\"jsonrpc\":\"2.0\"}").is_err());
        assert!(parse_hello(b"{\"airlock_gateway\":2}")
            .unwrap_err()
            .contains("version"));
        assert!(parse_hello(b"{\"airlock_gateway\":1,\"client\":\"a\\nb\"}").is_err());
    }

    #[test]
    fn a_flush_hello_is_told_apart_and_old_hellos_are_not_one() {
        let h = parse_hello(b"{\"airlock_gateway\":1,\"flush_history\":true}\n").unwrap();
        assert!(h.flush_history);
        assert!(
            !parse_hello(b"{\"airlock_gateway\":1}\n")
                .unwrap()
                .flush_history
        );
        let w: Welcome = serde_json::from_slice(&line(&Welcome::flushed())).unwrap();
        assert!(w.ok && w.flushed);
        let w: Welcome = serde_json::from_slice(&line(&Welcome::ok())).unwrap();
        assert!(w.ok && !w.flushed);
    }

    #[test]
    fn client_names_are_bounded_and_plain() {
        assert!(check_app_name("claude-desktop").is_ok());
        assert!(check_app_name("VS Code").is_ok());
        assert!(check_app_name("").is_err());
        assert!(check_app_name(" x").is_err());
        assert!(check_app_name("-x").is_err());
        assert!(check_app_name("a/b").is_err());
        assert!(check_app_name(&"x".repeat(MAX_APP_NAME_CHARS)).is_ok());
        assert!(check_app_name(&"x".repeat(MAX_APP_NAME_CHARS + 1)).is_err());
    }
}
