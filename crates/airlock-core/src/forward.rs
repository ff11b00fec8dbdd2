//! Server requests that only the app on whose behalf a call runs can
//! answer: sampling (`sampling/createMessage`, the app's model) and roots
//! (`roots/list`, the app's folders). The gateway implements
//! [`AppRequests`]; with one, Airlock declares sampling and roots to its
//! servers and passes those requests on; without one (the window, the
//! CLI), servers get a clear error (sampling) or no roots.
//!
//! Every request and answer is bounded here ([`checked_sampling`],
//! [`checked_roots`]): a server cannot push a huge request at an app, an
//! app cannot push a huge answer at a server.

// Sampling and roots are deprecated in 2026-07-28 (SEP-2577); 2025-11-25
// servers and apps still use them.
#![allow(deprecated)]

use rmcp::model::{CreateMessageRequestParams, CreateMessageResult, ErrorData, ListRootsResult};

use crate::caller::AppTarget;
use crate::elicitation::BoxFuture;

/// Largest sampling request (server to app) or answer (app to server), in
/// bytes of JSON.
pub const MAX_SAMPLING_BYTES: usize = 1024 * 1024;
/// Roots passed on at most, and the longest root URI or name, in bytes.
pub const MAX_ROOTS: usize = 256;
pub const MAX_ROOT_TEXT_BYTES: usize = 4096;

/// The apps behind the gateway, as seen by a server's connection.
pub trait AppRequests: Send + Sync {
    /// A `sampling/createMessage` of `server` for the app `to_app` (the
    /// one whose requests are in flight on that connection, see
    /// [`crate::elicitation::Broker::sole_app`]; `None`: none, several, or
    /// Airlock's own); an error says why none can answer.
    fn create_message<'a>(
        &'a self,
        server: &'a str,
        to_app: Option<AppTarget>,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'a, Result<CreateMessageResult, ErrorData>>;

    /// `roots/list` of `server`: the roots of the app `to_app` (none when
    /// there is no such app, or it declared no roots).
    fn list_roots<'a>(
        &'a self,
        server: &'a str,
        to_app: Option<AppTarget>,
    ) -> BoxFuture<'a, Result<ListRootsResult, ErrorData>>;

    /// `notifications/resources/updated` of `server` for `uri` (its own
    /// URI): for the apps subscribed to it, if any (else ignored).
    fn resource_updated(&self, _server: &str, _uri: &str) {}

    /// A log line of `server` (its `notifications/message`, masked of its
    /// secrets and bounded) for the app `to_app` (see
    /// [`AppRequests::create_message`]); `None`: no app's, it stays in
    /// Airlock's own log. Must not wait: the server's connection calls it.
    fn server_log(&self, _server: &str, _to_app: Option<AppTarget>, _level: &str, _text: &str) {}
}

fn json_len<T: serde::Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |v| v.len())
}

/// A sampling request or answer within [`MAX_SAMPLING_BYTES`], else an error.
pub fn checked_sampling<T: serde::Serialize>(value: T, what: &str) -> Result<T, ErrorData> {
    if json_len(&value) > MAX_SAMPLING_BYTES {
        return Err(ErrorData::invalid_params(
            format!(
                "the {what} is larger than {MAX_SAMPLING_BYTES} bytes; Airlock does not pass it on"
            ),
            None,
        ));
    }
    Ok(value)
}

/// An app's roots as a server gets them: at most [`MAX_ROOTS`], each with a
/// `file://` URI and a name within [`MAX_ROOT_TEXT_BYTES`] (others left out).
pub fn checked_roots(mut roots: ListRootsResult) -> ListRootsResult {
    roots.roots.retain(|r| {
        r.uri.starts_with("file://")
            && r.uri.len() <= MAX_ROOT_TEXT_BYTES
            && r.name
                .as_ref()
                .is_none_or(|n| n.len() <= MAX_ROOT_TEXT_BYTES)
    });
    roots.roots.truncate(MAX_ROOTS);
    roots.meta = None;
    roots
}
