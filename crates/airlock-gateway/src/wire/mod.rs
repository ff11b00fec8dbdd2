//! How apps reach the host: the stdio shim an app starts ([`shim`], which
//! copies lines and survives a host's restart: [`relay`]), the one line
//! each side says before MCP ([`hello`]), the socket and lock in the data
//! dir ([`place`]), the window taking the socket over from the daemon
//! ([`handover`]), Streamable HTTP on loopback ([`http`]), and history
//! written before another process reads it ([`flush`]).

pub mod flush;
pub mod handover;
pub mod hello;
pub mod http;
pub mod place;
pub(crate) mod relay;
pub mod shim;
