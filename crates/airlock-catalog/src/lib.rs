//! MCP Registries read by Airlock (the `/v0.1` API: `GET /v0.1/servers`
//! with `cursor`/`metadata.nextCursor`, `search`, `version=latest`): every
//! entry checked and bounded before anything else sees it ([`entry`]), pages
//! followed within bounds ([`client`]). A registry is untrusted: it chooses
//! names, descriptions, commands and how many pages there are.
//!
//! With the `test-support` feature, [`fake`] is a registry of our own on the
//! same API over entries a test gives it: the MCP Registry itself (Go and
//! PostgreSQL) cannot run here. It is named as the fake it is.

pub mod client;
pub mod entry;
#[cfg(feature = "test-support")]
pub mod fake;

pub use client::{fetch_latest, fetch_version, CatalogError, FetchLimits, OFFICIAL_REGISTRY};
pub use entry::{CatalogEntry, EnvVar, Package, Remote, Status};
