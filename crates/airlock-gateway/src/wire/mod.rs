//! How apps reach the host: the stdio shim an app starts ([`shim`], which
//! attaches ([`attach`]), copies lines and survives a host's restart:
//! [`relay`]), the one line each side says before MCP ([`hello`]), the
//! local endpoint (a Unix socket, or a named pipe on Windows: [`endpoint`])
//! and the lock in the data dir ([`place`]), the host a shim starts on its
//! own ([`detached`]), the window taking the socket over from the daemon
//! ([`handover`]), Streamable HTTP on loopback ([`http`]), and history
//! written before another process reads it ([`flush`]).

pub mod attach;
pub mod detached;
pub mod endpoint;
pub mod flush;
pub mod handover;
pub mod hello;
pub mod http;
pub mod place;
pub(crate) mod relay;
pub mod shim;
