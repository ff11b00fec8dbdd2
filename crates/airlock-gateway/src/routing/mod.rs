//! Messages from servers to apps. The core hands each to the gateway
//! (its `AppRequests` port, its consent port, a call's progress channel);
//! [`router`] says which app each belongs to (its table lists every kind),
//! and each reaches that one app, or none:
//! forms ([`forms`], asked of the app with [`ask`]), sampling and roots
//! ([`sampling`]), progress ([`progress`]), log lines ([`logs`]), resource
//! updates ([`subscribe`], on 2026-07-28 listen streams: [`listen`]) and
//! list changes ([`changes`]).

pub(crate) mod ask;
pub(crate) mod changes;
pub mod forms;
pub(crate) mod listen;
pub mod logs;
pub(crate) mod progress;
pub mod router;
pub mod sampling;
pub mod subscribe;
