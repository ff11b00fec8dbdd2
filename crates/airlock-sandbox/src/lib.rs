//! A stdio server's process in its own room (issue 33): what it may read
//! and write, which hosts it may reach, worked out from how it starts
//! ([`profile`]) and what the person granted ([`settings`]), turned into
//! the platform's confinement ([`room`]: bubblewrap with Landlock and
//! seccomp inside on Linux, through Airlock's binary as [`helper`]), with
//! the network only through Airlock's [`proxy`], which asks the person
//! about any host not in the list.
//!
//! No Airlock types here: the core stores [`SandboxSettings`] with a
//! server, and answers the proxy's questions through its consent port.

pub mod helper;
pub mod profile;
pub mod proxy;
pub mod room;
pub mod settings;

pub use profile::{infer, Container, Context, EntryOrigin, HostEntry, PathEntry, Profile};
pub use room::{
    available, mechanism, private_dirs, proxy_socket, room_dir, wrap, Launch, Unavailable, Wrapped,
};
pub use settings::{GrantSource, HostGrant, PathGrant, SandboxSettings};
