//! Linux and macOS: a Unix socket in the data dir, 0600, peers' uid checked.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use super::Connection;

/// The socket's file name in the data dir.
pub const SOCKET_FILE: &str = "gateway.sock";
/// Longest socket path the platform takes (`sun_path`, less its NUL).
#[cfg(not(target_os = "macos"))]
pub const MAX_ADDRESS_BYTES: usize = 107;
/// Longest socket path the platform takes (`sun_path`, less its NUL).
#[cfg(target_os = "macos")]
pub const MAX_ADDRESS_BYTES: usize = 103;
const SOCKET_MODE: u32 = 0o600;

/// The shim's side of an attachment.
pub type Stream = std::os::unix::net::UnixStream;
pub type ReadHalf = tokio::net::unix::OwnedReadHalf;
pub type WriteHalf = tokio::net::unix::OwnedWriteHalf;

/// Where the host of `data_dir` listens.
pub fn address(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
}

/// Connect to the host of `data_dir`, if one listens (`NotFound` or
/// `ConnectionRefused` when none does). Only to a socket of this user
/// (`PermissionDenied` otherwise): another user's socket in a shared or
/// opened-up folder would get the app's calls, arguments and secrets.
pub fn connect(data_dir: &Path) -> io::Result<Stream> {
    connect_owned_by(data_dir, airlock_platform::private_files::current_uid())
}

/// [`connect`], the socket's owner to be `uid`.
fn connect_owned_by(data_dir: &Path, uid: u32) -> io::Result<Stream> {
    let socket = address(data_dir);
    let meta = std::fs::symlink_metadata(&socket)?;
    if meta.uid() != uid || meta.file_type().is_symlink() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not your socket (its owner is uid {}, you are uid {uid}{}): Airlock does not attach to another user's host",
                socket.display(),
                meta.uid(),
                if meta.file_type().is_symlink() {
                    "; it is a symbolic link"
                } else {
                    ""
                }
            ),
        ));
    }
    Stream::connect(socket)
}

/// The bound socket; its file is removed when this is dropped.
pub struct Listener {
    listener: UnixListener,
    socket: PathBuf,
    /// Only processes of this uid may attach (the socket's owner: this
    /// process's user).
    uid: u32,
}

impl Listener {
    /// Bind the socket of `data_dir`. The caller holds the data dir's lock,
    /// so a socket file already there was left by a host that is gone.
    pub fn bind(data_dir: &Path) -> io::Result<Listener> {
        let socket = address(data_dir);
        if std::fs::symlink_metadata(&socket).is_ok() {
            std::fs::remove_file(&socket)?;
        }
        let listener = UnixListener::bind(&socket)?;
        // Connecting needs write permission on the socket: the owner only.
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(SOCKET_MODE))?;
        let uid = std::fs::metadata(&socket)?.uid();
        Ok(Listener {
            listener,
            socket,
            uid,
        })
    }

    /// Accept on the async runtime (call inside it).
    pub fn serve(&self) -> io::Result<AsyncListener> {
        let listener = self.listener.try_clone()?;
        listener.set_nonblocking(true)?;
        Ok(AsyncListener {
            listener: tokio::net::UnixListener::from_std(listener)?,
            uid: self.uid,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

pub struct AsyncListener {
    listener: tokio::net::UnixListener,
    uid: u32,
}

impl AsyncListener {
    /// The next process that connects (cancel-safe).
    pub async fn accept(&self) -> io::Result<Connection> {
        let (stream, _) = self.listener.accept().await?;
        let cred = stream.peer_cred().ok();
        let same_user = cred.is_some_and(|c| c.uid() == self.uid);
        let peer_pid = cred
            .and_then(|c| c.pid())
            .and_then(|p| u32::try_from(p).ok());
        let (read, write) = stream.into_split();
        Ok(Connection {
            read,
            write,
            peer_pid,
            same_user,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_socket_is_0600_peers_are_the_same_user_and_the_file_goes_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let listener = Listener::bind(dir.path()).unwrap();
        let mode = std::fs::metadata(address(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let server = listener.serve().unwrap();
        let data = dir.path().to_owned();
        let app = std::thread::spawn(move || connect(&data).unwrap());
        let conn = server.accept().await.unwrap();
        assert!(conn.same_user);
        assert_eq!(conn.peer_pid, Some(std::process::id()));
        drop(app.join().unwrap());
        drop(server);
        drop(listener);
        assert!(!address(dir.path()).exists());
        assert!(connect(dir.path()).is_err());
    }

    /// Issue 34, item 8: the shim attaches only to a socket its own user
    /// owns (and not through a symbolic link); nothing connects otherwise.
    #[test]
    fn the_shim_attaches_only_to_a_socket_of_its_own_user() {
        let dir = tempfile::tempdir().unwrap();
        let listener = UnixListener::bind(address(dir.path())).unwrap();
        listener.set_nonblocking(true).unwrap();
        let me = airlock_platform::private_files::current_uid();
        let other = me.wrapping_add(1);
        let refused = connect_owned_by(dir.path(), other).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::PermissionDenied);
        assert!(
            refused.to_string().contains("is not your socket"),
            "{refused}"
        );
        assert!(
            listener.accept().is_err(),
            "nothing connected to the other user's socket"
        );
        // Through a symbolic link to a socket: refused too.
        let linked = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(address(dir.path()), address(linked.path())).unwrap();
        let refused = connect(linked.path()).unwrap_err();
        assert!(refused.to_string().contains("symbolic link"), "{refused}");
        // Its own: attached.
        assert!(connect(dir.path()).is_ok());
        assert!(listener.accept().is_ok());
    }

    #[test]
    fn a_socket_left_behind_is_removed_and_bound_again() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let owned = crate::wire::place::claim(&data).unwrap();
        drop(owned);
        assert!(!address(&data).exists());
        // A socket left behind (its host was killed): removed, then bound again.
        let stale = UnixListener::bind(address(&data)).unwrap();
        drop(stale);
        assert!(connect(&data).is_err());
        let again = crate::wire::place::claim(&data).unwrap();
        assert!(connect(&data).is_ok());
        drop(again);
    }

    #[test]
    fn a_too_long_path_is_refused_with_what_to_do() {
        use crate::wire::place::{claim, ClaimError};
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
