//! Where the host listens: the local endpoint of the data dir
//! (crate::wire::endpoint: `gateway.sock`, 0600, on Linux and macOS; a named
//! pipe for this user alone on Windows), and `gateway.lock` next to it,
//! locked for as long as a host owns the endpoint. The lock decides who owns
//! it: a second host finds it locked and stops with the owner's pid; a
//! socket left behind by a host that is gone (the lock is free) is removed
//! before binding again.

use std::path::{Path, PathBuf};

use airlock_platform::process_lock::{self, PidLock};

use crate::wire::endpoint;

/// The lock's file name in the data dir; it holds the owner's pid.
pub const LOCK_FILE: &str = "gateway.lock";
/// Where a host started by the shim writes its stderr.
pub const LOG_FILE: &str = "gateway.log";
/// Longest endpoint address the platform takes (a socket's `sun_path`,
/// less its NUL; a pipe's name).
pub const MAX_SOCKET_PATH_BYTES: usize = endpoint::MAX_ADDRESS_BYTES;

/// The endpoint's address (a socket path, or a pipe name on Windows).
pub fn socket_path(data_dir: &Path) -> PathBuf {
    endpoint::address(data_dir)
}

pub fn lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join(LOCK_FILE)
}

pub fn log_path(data_dir: &Path) -> PathBuf {
    data_dir.join(LOG_FILE)
}

#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error("an Airlock host is already running for {data_dir} (pid {pid}); apps attach to it with `airlock gateway --stdio`, and only one host may own its socket")]
    AlreadyRunning { data_dir: String, pid: String },
    #[error("the socket path {path} is {len} bytes, longer than the {MAX_SOCKET_PATH_BYTES} this platform allows: use a shorter --data-dir")]
    PathTooLong { path: String, len: usize },
    #[error("the running Airlock host did not hand its socket over: {0}")]
    Handover(String),
    #[error("cannot {what} {path}: {source}")]
    Io {
        what: &'static str,
        path: String,
        source: std::io::Error,
    },
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ClaimError + 'a {
    move |source| ClaimError::Io {
        what,
        path: path.display().to_string(),
        source,
    }
}

/// The endpoint, owned: the lock is held until this is dropped (after the
/// endpoint, whose socket file goes with it).
pub struct Owned {
    /// Only processes of the host's user may attach (the endpoint checks).
    pub listener: endpoint::Listener,
    /// Its address.
    pub socket: PathBuf,
    _lock: PidLock,
}

/// Take the lock at `path` (a private file, created if missing) with this
/// process's pid in it (airlock_platform::process_lock). `Ok(None)`:
/// another process holds it.
pub(crate) fn lock_with_pid(path: &Path) -> std::io::Result<Option<PidLock>> {
    PidLock::take(path)
}

/// Take the socket of `data_dir` for this process, or say who has it.
pub fn claim(data_dir: &Path) -> Result<Owned, ClaimError> {
    create_data_dir(data_dir).map_err(io("create", data_dir))?;
    let socket = socket_path(data_dir);
    let len = socket.as_os_str().len();
    if len > MAX_SOCKET_PATH_BYTES {
        return Err(ClaimError::PathTooLong {
            path: socket.display().to_string(),
            len,
        });
    }
    let lock_at = lock_path(data_dir);
    let Some(lock) = lock_with_pid(&lock_at).map_err(io("lock", &lock_at))? else {
        let pid = std::fs::read_to_string(&lock_at).unwrap_or_default();
        let pid = pid.trim();
        return Err(ClaimError::AlreadyRunning {
            data_dir: data_dir.display().to_string(),
            pid: if pid.is_empty() { "unknown" } else { pid }.to_owned(),
        });
    };
    // We hold the lock, so whatever socket is there was left by a host
    // that is gone (the endpoint removes it).
    let listener = endpoint::Listener::bind(data_dir).map_err(io("listen on", &socket))?;
    Ok(Owned {
        listener,
        socket,
        _lock: lock,
    })
}

/// The pid of the host that owns the socket of `data_dir`, if one runs.
pub fn running_host(data_dir: &Path) -> Option<u32> {
    lock_holder(&lock_path(data_dir))
}

/// The pid written in the lock file at `lock_at`, while someone holds it.
pub fn lock_holder(lock_at: &Path) -> Option<u32> {
    process_lock::holder(lock_at)
}

/// Create the data dir (and its parents) readable by its owner only.
pub fn create_data_dir(data_dir: &Path) -> std::io::Result<()> {
    airlock_platform::private_files::create_dir(data_dir)
}

/// Connect to the host's endpoint, if one listens.
pub fn connect(data_dir: &Path) -> std::io::Result<endpoint::Stream> {
    endpoint::connect(data_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_owner_at_a_time_and_the_next_one_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let owned = claim(&data).unwrap();
        assert_eq!(running_host(&data), Some(std::process::id()));
        // A second claim (another host; locks are per open file) is refused with the pid.
        match claim(&data) {
            Err(ClaimError::AlreadyRunning { pid, .. }) => {
                assert_eq!(pid, std::process::id().to_string())
            }
            Err(other) => panic!("unexpected error: {other}"),
            Ok(_) => panic!("a second owner was allowed"),
        }
        assert!(connect(&data).is_ok());
        drop(owned);
        assert_eq!(running_host(&data), None);
        assert!(connect(&data).is_err());
        let again = claim(&data).unwrap();
        assert!(connect(&data).is_ok());
        drop(again);
    }
}
