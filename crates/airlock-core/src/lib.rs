//! Airlock's core: everything that is not a window. Shells (the `airlock` CLI,
//! the desktop app, tests) stand on [`Airlock`] and implement the
//! [`elicitation::Consent`] and [`elicitation::Opener`] ports.
//!
//! Where things are: the [`Airlock`] type and every `impl Airlock` in
//! `airlock/` (one file per thing it does; its fields are private to that
//! folder, so the compiler keeps it so). The modules beside it are the
//! parts it stands on, each naming only the ones below it (no circles,
//! `scripts/check-cycles.py`): `auth` (OAuth flows) over `elicitation`
//! (the broker, consent, forms) over `mcp` (sessions with servers) and
//! `store` (SQLite), with leaves such as `lifecycle`, `limits`, `caller`,
//! `secrets`, `servers` (definitions), `pins`, `owners`, `apps` (apps'
//! profiles: the types) and `process_runs` (which Airlock processes are
//! alive).

pub mod about;
pub mod activity;
mod airlock;
pub mod app_configs;
pub mod apps;
pub mod auth;
pub mod caller;
pub mod elicitation;
mod error;
pub mod events;
pub mod forward;
pub mod lifecycle;
pub mod limits;
pub mod mcp;
pub mod mcp_apps;
pub mod owners;
pub mod paths;
pub mod pins;
mod process_runs;
pub mod rooms;
pub mod secrets;
pub mod servers;
pub mod status;
pub mod store;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod tool_budget;

pub use airlock_url_safety as url_safety;

pub use airlock::{audit_export, catalog, install, tool_switches, update};
pub use airlock::{
    Airlock, AirlockOptions, CallOutcome, ConnectionReport, OAuthSummary, ToolCallError,
};
pub use airlock_catalog;
pub use error::{CoreError, CoreResult};
pub use limits::{FIRST_BACKOFF, MAX_BACKOFF, MAX_RECONNECT_ATTEMPTS};
