//! Where the host listens: `gateway.sock` in the data dir (mode 0600), and
//! `gateway.lock` next to it, locked for as long as a host owns the socket.
//! The lock decides who owns the socket: a second host finds it locked and
//! stops with the owner's pid; a socket left behind by a host that is gone
//! (the lock is free) is removed before binding again.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// The socket's file name in the data dir.
pub const SOCKET_FILE: &str = "gateway.sock";
/// The lock's file name in the data dir; it holds the owner's pid.
pub const LOCK_FILE: &str = "gateway.lock";
/// Where a host started by the shim writes its stderr.
pub const LOG_FILE: &str = "gateway.log";
/// Longest socket path the platform takes (`sun_path`, less its NUL).
pub const MAX_SOCKET_PATH_BYTES: usize = 107;

pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
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

/// The socket, owned: the lock is held until this is dropped, and then the
/// socket file is removed.
pub struct Owned {
    pub listener: UnixListener,
    pub socket: PathBuf,
    /// The uid that owns the data dir: only its processes may attach.
    pub uid: u32,
    lock: File,
}

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
        let _ = self.lock.set_len(0);
        let _ = self.lock.unlock();
    }
}

/// Open `path` (mode 0600, created if missing), take its exclusive lock and
/// write this process's pid in it. `Ok(None)`: another process holds it.
pub(crate) fn lock_with_pid(path: &Path) -> std::io::Result<Option<File>> {
    let mut lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    }
    let _ = lock.set_len(0);
    let _ = lock.seek(SeekFrom::Start(0));
    let _ = write!(lock, "{}", std::process::id());
    let _ = lock.flush();
    Ok(Some(lock))
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
    let uid = lock.metadata().map_err(io("read", &lock_at))?.uid();
    // We hold the lock, so whatever socket is there was left by a host
    // that is gone.
    if socket.exists() {
        std::fs::remove_file(&socket).map_err(io("remove the stale socket", &socket))?;
    }
    let listener = UnixListener::bind(&socket).map_err(io("listen on", &socket))?;
    // Connecting needs write permission on the socket: the owner only.
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .map_err(io("set the mode of", &socket))?;
    Ok(Owned {
        listener,
        socket,
        uid,
        lock,
    })
}

/// The pid of the host that owns the socket of `data_dir`, if one runs.
pub fn running_host(data_dir: &Path) -> Option<u32> {
    lock_holder(&lock_path(data_dir))
}

/// The pid written in the lock file at `lock_at`, while someone holds it.
pub fn lock_holder(lock_at: &Path) -> Option<u32> {
    let lock = OpenOptions::new().read(true).open(lock_at).ok()?;
    match lock.try_lock_shared() {
        // Nobody holds it: no host.
        Ok(()) => {
            let _ = lock.unlock();
            None
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            std::fs::read_to_string(lock_at).ok()?.trim().parse().ok()
        }
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// Create the data dir (and its parents) readable by its owner only.
pub fn create_data_dir(data_dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(data_dir)
}

/// Connect to the host's socket, if one listens.
pub fn connect(data_dir: &Path) -> std::io::Result<UnixStream> {
    UnixStream::connect(socket_path(data_dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_owner_at_a_time_mode_0600_and_stale_sockets_go() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let owned = claim(&data).unwrap();
        let mode = std::fs::metadata(&owned.socket)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(running_host(&data), Some(std::process::id()));
        // A second claim (another host; flock locks are per open file) is refused with the pid.
        match claim(&data) {
            Err(ClaimError::AlreadyRunning { pid, .. }) => {
                assert_eq!(pid, std::process::id().to_string())
            }
            Err(other) => panic!("unexpected error: {other}"),
            Ok(_) => panic!("a second owner was allowed"),
        }
        assert!(connect(&data).is_ok());
        drop(owned);
        assert!(!socket_path(&data).exists());
        assert_eq!(running_host(&data), None);

        // A socket left behind (its host was killed): removed, then bound again.
        let stale = UnixListener::bind(socket_path(&data)).unwrap();
        drop(stale);
        assert!(connect(&data).is_err());
        let again = claim(&data).unwrap();
        assert!(connect(&data).is_ok());
        drop(again);
    }

    #[test]
    fn a_too_long_path_is_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("d".repeat(120));
        match claim(&data) {
            Err(e @ ClaimError::PathTooLong { .. }) => {
                assert!(e.to_string().contains("shorter --data-dir"))
            }
            Err(other) => panic!("unexpected error: {other}"),
            Ok(_) => panic!("bound a path longer than sun_path"),
        }
    }
}
