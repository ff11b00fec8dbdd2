//! One attached app: its MCP session (rmcp's server side, [`app`]; what it
//! sees is its app's profile, [`crate::catalog::profile`]), its requests
//! that reach a server and may meet a form on the way ([`requests`], in
//! rounds on 2026-07-28: [`rounds`]), a tool call forwarded and its result
//! as the app gets it ([`forward`]) and the resources it linked ([`links`]),
//! the resources it subscribes to and its listen streams
//! ([`subscriptions`]), list pages ([`paging`]), its tool budget with
//! Airlock's own two tools ([`budget`], the arguments' check: [`schema`]),
//! and the list of attached apps the window shows ([`attached`]). What
//! every session shares, the host's [`shared::Gateway`]: [`shared`].

pub mod app;
pub mod attached;
pub mod budget;
pub(crate) mod forward;
pub mod links;
pub(crate) mod paging;
pub(crate) mod requests;
pub mod rounds;
pub mod schema;
pub mod shared;
pub(crate) mod subscriptions;
