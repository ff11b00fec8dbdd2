//! Airlock in front of other apps: every app that speaks MCP attaches to the
//! one running Airlock host and sees the servers Airlock manages as one MCP
//! server. URL elicitations and sign-ins never reach the app: Airlock's own
//! broker and consent fulfil them, and the app gets the tool's real result
//! or a clear tool error.
//!
//! ```text
//! app --stdio--> `airlock gateway --stdio` (shim) --gateway.sock--> host (`airlock daemon`)
//!                                                                    -> Airlock core -> servers
//! ```
//!
//! The rooms, top to bottom; each names only rooms below it (no import
//! circles: `scripts/check-cycles.py`):
//!
//! ```text
//! host -> wire -> session -> routing -> catalog -> limits
//!                 (session and routing -> errors)
//! ```
//!
//! - [`host`]: the host itself: first connects, the server-list watch, the
//!   endpoint's accept loop and the handover, one app session per attached
//!   app.
//! - [`wire`]: how apps reach the host (the stdio shim, its attach and
//!   relay, the hello, the local endpoint (a Unix socket; a named pipe on
//!   Windows), the handover, HTTP, the history flush).
//! - [`session`]: one attached app: its MCP session, requests in flight and
//!   rounds, its subscriptions; and what every session shares, the
//!   [`Gateway`] ([`session::shared`]).
//! - [`routing`]: every message from a server to an app (forms, sampling,
//!   roots, progress, logs, resource updates, list changes) reaches the app
//!   it belongs to, or none.
//! - `errors`: errors as an app gets them, whichever room answers it.
//! - [`catalog`]: what apps see: each server's lists kept in its own room,
//!   names, owners of URIs, pinned definitions, each app's profile; and
//!   the host's log line.
//! - [`limits`]: every bound.
//!
//! Beside them: [`consent`], the daemon's consent (notifications, or a
//! refusal when nobody can be asked; it names only the catalog's log);
//! [`stop_signal`], what asks a daemon to stop (signals; console events on
//! Windows); `test_support` (feature `test-support`): the gateway in a
//! test's process, with servers and apps on the official SDK over pipes.

pub mod catalog;
pub mod consent;
pub(crate) mod errors;
pub mod host;
pub mod limits;
pub mod routing;
pub mod session;
pub mod stop_signal;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod wire;

pub use host::{run as run_host, serve_until as serve_host_until, HostError, HostOptions};
pub use session::attached::{AttachedApp, Attachments};
pub use session::shared::Gateway;
pub use wire::attach::{ShimError, ShimOptions};
pub use wire::shim::run as run_shim;
