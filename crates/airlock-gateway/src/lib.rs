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
//! - [`shim`]: the stdio side an app starts; it starts a host when none runs.
//! - [`hello`]: the one line each side says before MCP; [`flush`]: history
//!   written before another process reads it.
//! - [`place`]: the socket and lock in the data dir (0600; one owner);
//!   [`handover`]: the window takes the socket over from the daemon.
//! - [`host`]: the host: first connects, the server-list watch, one
//!   [`app::AppSession`] (rmcp server side) per attached app.
//! - [`catalog`], [`names`] and [`templates`]: the aggregated lists and
//!   their names.
//! - [`notify`]: the daemon's consent through desktop notifications;
//!   [`consent`]: the refusal when none can be shown; [`forms`]: forms to the
//!   app that asked, when it can show them, during its tool calls, prompts
//!   and resource reads (`requests`), in rounds on 2026-07-28 ([`rounds`]).
//! - [`progress`]: a call's progress, server to app; [`sampling`]: its
//!   sampling and roots requests, to the app.
//! - [`logs`]: servers' log lines to the apps that set a level;
//!   [`subscribe`]: resource updates to the apps subscribed to them.
//! - [`limits`]: every bound.

pub mod app;
mod ask;
pub mod attached;
pub mod catalog;
mod changes;
pub mod consent;
pub mod flush;
pub mod forms;
mod forward;
pub mod handover;
pub mod hello;
pub mod host;
pub mod http;
pub mod limits;
mod listen;
pub mod logs;
pub mod names;
pub mod notify;
mod paging;
pub mod place;
pub mod profile;
mod progress;
mod relay;
mod requests;
pub mod rounds;
pub mod sampling;
pub mod shim;
pub mod subscribe;
pub mod templates;

pub use attached::{AttachedApp, Attachments};
pub use host::{run as run_host, serve_until as serve_host_until, Gateway, HostError, HostOptions};
pub use shim::{run as run_shim, ShimError, ShimOptions};
