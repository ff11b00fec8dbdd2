//! The local endpoint the stdio shim attaches to, one per data dir, and who
//! may attach: only processes of the user who runs the host.
//!
//! - **Linux and macOS** ([`unix`]): a Unix socket `gateway.sock` in the
//!   data dir (itself 0700), mode 0600, and each peer's uid checked
//!   (`SO_PEERCRED` on Linux, `getpeereid`/`LOCAL_PEERPID` on macOS, both
//!   through tokio's `peer_cred`). The path is bounded by `sun_path`: 107
//!   bytes on Linux, 103 on macOS.
//! - **Windows** (`windows`, compiled on Windows only): a named pipe
//!   `\\.\pipe\airlock-gateway-<hash of the user's SID and the data dir>`
//!   whose security descriptor admits the current user alone
//!   (`D:P(A;;FA;;;<SID>)`, no inherited entries), created with
//!   `FILE_FLAG_FIRST_PIPE_INSTANCE` (a pipe of that name squatted before
//!   the host starts makes it fail instead of sharing the name) and
//!   `PIPE_REJECT_REMOTE_CLIENTS`. The host checks each app's SID (its
//!   process's token, through `GetNamedPipeClientProcessId`); the shim
//!   checks the server's the same way before saying anything, and opens
//!   the pipe at `SECURITY_IDENTIFICATION` level, so a server that is not
//!   Airlock cannot act as the app's user with its connection. A pipe has
//!   no half-close: [`Stream::shutdown`] ends both directions.
//!
//! What both provide: [`address`] (what error messages name),
//! [`Listener`] (bound while the data dir's lock is held,
//! crate::wire::place), [`AsyncListener::accept`] (a [`Connection`]: its
//! read and write halves, the peer's pid and whether it is the same user),
//! and the shim's blocking [`Stream`] ([`connect`]).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{
    address, connect, AsyncListener, Listener, ReadHalf, Stream, WriteHalf, MAX_ADDRESS_BYTES,
};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{
    address, connect, AsyncListener, Listener, ReadHalf, Stream, WriteHalf, MAX_ADDRESS_BYTES,
};

/// One attached process, accepted.
pub struct Connection {
    pub read: ReadHalf,
    pub write: WriteHalf,
    /// The peer's process id, when the system tells it.
    pub peer_pid: Option<u32>,
    /// The peer runs as the user who runs the host (fails closed: unknown
    /// is `false`).
    pub same_user: bool,
}
