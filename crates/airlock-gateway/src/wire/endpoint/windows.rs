//! Windows: a named pipe per user and data dir, its access list the
//! current user alone, each peer's SID checked on both ends.

use std::io::{self, Read, Write};
use std::os::windows::io::{AsRawHandle, FromRawHandle, IntoRawHandle, OwnedHandle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_platform::current_user::{self, wide, Inherit, SecurityDescriptor, Sid};
use tokio::net::windows::named_pipe::NamedPipeServer;
use windows_sys::Win32::Foundation::{
    ERROR_ACCESS_DENIED, ERROR_BROKEN_PIPE, ERROR_IO_PENDING, ERROR_NO_DATA,
    ERROR_OPERATION_ABORTED, ERROR_PIPE_BUSY, ERROR_PIPE_NOT_CONNECTED, GENERIC_READ,
    GENERIC_WRITE, HANDLE, INVALID_HANDLE_VALUE, WAIT_OBJECT_0, WAIT_TIMEOUT,
};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, ReadFile, WriteFile, FILE_FLAG_FIRST_PIPE_INSTANCE, FILE_FLAG_OVERLAPPED,
    OPEN_EXISTING, PIPE_ACCESS_DUPLEX, SECURITY_IDENTIFICATION, SECURITY_SQOS_PRESENT,
};
use windows_sys::Win32::System::Pipes::{
    CreateNamedPipeW, GetNamedPipeClientProcessId, GetNamedPipeServerProcessId, WaitNamedPipeW,
    PIPE_READMODE_BYTE, PIPE_REJECT_REMOTE_CLIENTS, PIPE_TYPE_BYTE, PIPE_UNLIMITED_INSTANCES,
    PIPE_WAIT,
};
use windows_sys::Win32::System::Threading::{CreateEventW, WaitForSingleObject, INFINITE};
use windows_sys::Win32::System::IO::{CancelIoEx, GetOverlappedResult, OVERLAPPED};

use super::Connection;

/// Longest pipe name Windows takes (in characters).
pub const MAX_ADDRESS_BYTES: usize = 256;
/// The pipe's name before its hash.
const PIPE_PREFIX: &str = r"\\.\pipe\airlock-gateway-";
/// Each direction's buffer in the pipe.
const PIPE_BUFFER_BYTES: u32 = 64 * 1024;
/// How long a shim waits for a free instance when every one is busy (the
/// host makes the next right after each connect).
const BUSY_WAIT: Duration = Duration::from_secs(5);
const BUSY_WAIT_STEP_MS: u32 = 250;

pub type ReadHalf = tokio::io::ReadHalf<NamedPipeServer>;
pub type WriteHalf = tokio::io::WriteHalf<NamedPipeServer>;

/// FNV-1a, 64 bits: a stable name across builds.
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The pipe of `data_dir` for the current user: one name per user and
/// folder (Windows paths are compared without case).
fn pipe_name(data_dir: &Path) -> io::Result<PathBuf> {
    let dir = std::fs::canonicalize(data_dir).or_else(|_| std::path::absolute(data_dir))?;
    let folder = dir.as_os_str().to_string_lossy().to_lowercase();
    let user = current_user::current()?.to_sddl()?;
    let key = format!("{user}\n{folder}");
    Ok(PathBuf::from(format!(
        "{PIPE_PREFIX}{:016x}",
        fnv1a(key.bytes())
    )))
}

/// Where the host of `data_dir` listens.
pub fn address(data_dir: &Path) -> PathBuf {
    pipe_name(data_dir).unwrap_or_else(|_| PathBuf::from(format!("{PIPE_PREFIX}?")))
}

fn create_instance(name: &[u16], sd: &SecurityDescriptor, first: bool) -> io::Result<OwnedHandle> {
    let attributes = sd.attributes();
    let mut open_mode = PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED;
    if first {
        open_mode |= FILE_FLAG_FIRST_PIPE_INSTANCE;
    }
    // SAFETY: `name` is NUL-terminated and `attributes` points at a
    // descriptor that outlives the call; a valid result is ours alone.
    let handle = unsafe {
        CreateNamedPipeW(
            name.as_ptr(),
            open_mode,
            PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
            PIPE_UNLIMITED_INSTANCES,
            PIPE_BUFFER_BYTES,
            PIPE_BUFFER_BYTES,
            0,
            &attributes,
        )
    };
    if handle == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a handle the call just created for us alone.
    Ok(unsafe { OwnedHandle::from_raw_handle(handle) })
}

/// The SID of the process at the other end of `pipe`, through `which`
/// (`GetNamedPipeClientProcessId` or `GetNamedPipeServerProcessId`).
fn peer(
    pipe: HANDLE,
    which: unsafe extern "system" fn(HANDLE, *mut u32) -> windows_sys::core::BOOL,
) -> (Option<u32>, Option<Sid>) {
    let mut pid = 0u32;
    // SAFETY: `pipe` is an open pipe handle; the call writes one u32.
    if unsafe { which(pipe, &mut pid) } == 0 {
        return (None, None);
    }
    (Some(pid), current_user::of_process(pid).ok())
}

/// The host's pipe, bound: its first instance, created while the data dir's
/// lock is held.
pub struct Listener {
    name: Vec<u16>,
    sd: Arc<SecurityDescriptor>,
    me: Sid,
    first: Mutex<Option<OwnedHandle>>,
}

impl Listener {
    pub fn bind(data_dir: &Path) -> io::Result<Listener> {
        let address = pipe_name(data_dir)?;
        let name = wide(address.as_os_str());
        let sd = Arc::new(SecurityDescriptor::owner_only(Inherit::No)?);
        let first = create_instance(&name, &sd, true).map_err(|e| {
            if e.raw_os_error() == Some(ERROR_ACCESS_DENIED as i32) {
                io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "another process already serves {}: Airlock does not share its pipe (a pipe made before Airlock started, by another program or user)",
                        address.display()
                    ),
                )
            } else {
                e
            }
        })?;
        Ok(Listener {
            name,
            sd,
            me: current_user::current()?,
            first: Mutex::new(Some(first)),
        })
    }

    /// Accept on the async runtime (call inside it, once).
    pub fn serve(&self) -> io::Result<AsyncListener> {
        let first = self
            .first
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or_else(|| io::Error::other("the pipe is served already"))?;
        Ok(AsyncListener {
            current: tokio::sync::Mutex::new(into_server(first)?),
            name: self.name.clone(),
            sd: self.sd.clone(),
            me: self.me.clone(),
        })
    }

    /// The access list of the pipe, in SDDL (tests and the Wine check).
    pub fn dacl(&self) -> io::Result<String> {
        let first = self.first.lock().unwrap_or_else(|p| p.into_inner());
        let handle = first
            .as_ref()
            .ok_or_else(|| io::Error::other("the pipe is served already"))?;
        current_user::dacl_of_handle(handle.as_raw_handle() as HANDLE)
    }
}

fn into_server(handle: OwnedHandle) -> io::Result<NamedPipeServer> {
    let raw = handle.into_raw_handle();
    // SAFETY: an overlapped pipe handle we own (created by
    // `create_instance`), handed over to tokio, which closes it.
    unsafe { NamedPipeServer::from_raw_handle(raw) }
}

pub struct AsyncListener {
    /// The instance waiting for the next app.
    current: tokio::sync::Mutex<NamedPipeServer>,
    name: Vec<u16>,
    sd: Arc<SecurityDescriptor>,
    me: Sid,
}

impl AsyncListener {
    fn next_instance(&self) -> io::Result<NamedPipeServer> {
        into_server(create_instance(&self.name, &self.sd, false)?)
    }

    /// The next process that connects (cancel-safe: the waiting instance
    /// stays until an app comes).
    pub async fn accept(&self) -> io::Result<Connection> {
        let mut current = self.current.lock().await;
        if let Err(e) = current.connect().await {
            // That instance is spent (an app came and went): a fresh one.
            *current = self.next_instance()?;
            return Err(e);
        }
        // The next instance exists before this one is handed out, so the
        // name never disappears (a shim would think no host runs).
        let next = self.next_instance()?;
        let connected = std::mem::replace(&mut *current, next);
        drop(current);
        let (peer_pid, sid) = peer(
            connected.as_raw_handle() as HANDLE,
            GetNamedPipeClientProcessId,
        );
        let same_user = sid.is_some_and(|s| s == self.me);
        let (read, write) = tokio::io::split(connected);
        Ok(Connection {
            read,
            write,
            peer_pid,
            same_user,
        })
    }
}

/// The shim's side of an attachment: blocking reads and writes, which may
/// run in two threads at once (overlapped I/O, one event per operation),
/// with timeouts like a socket's. Clones share the pipe, its timeouts and
/// its shutdown.
#[derive(Clone)]
pub struct Stream {
    inner: Arc<Inner>,
}

struct Inner {
    handle: OwnedHandle,
    closed: AtomicBool,
    read_timeout: Mutex<Option<Duration>>,
    write_timeout: Mutex<Option<Duration>>,
}

/// Connect to the host of `data_dir`, if one listens (`NotFound` when no
/// pipe of that name exists), and check it runs as this user.
pub fn connect(data_dir: &Path) -> io::Result<Stream> {
    let address = pipe_name(data_dir)?;
    let name = wide(address.as_os_str());
    let until = Instant::now() + BUSY_WAIT;
    let handle = loop {
        // SAFETY: `name` is NUL-terminated; a valid result is ours alone.
        let h = unsafe {
            CreateFileW(
                name.as_ptr(),
                GENERIC_READ | GENERIC_WRITE,
                0,
                std::ptr::null(),
                OPEN_EXISTING,
                FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION,
                std::ptr::null_mut(),
            )
        };
        if h != INVALID_HANDLE_VALUE {
            // SAFETY: a handle the call just opened for us alone.
            break unsafe { OwnedHandle::from_raw_handle(h) };
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(ERROR_PIPE_BUSY as i32) || Instant::now() >= until {
            return Err(e);
        }
        // SAFETY: `name` is NUL-terminated.
        unsafe { WaitNamedPipeW(name.as_ptr(), BUSY_WAIT_STEP_MS) };
    };
    let (pid, sid) = peer(
        handle.as_raw_handle() as HANDLE,
        GetNamedPipeServerProcessId,
    );
    if sid.is_none() || sid != Some(current_user::current()?) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is served by a process of another user (pid {}): not attaching",
                address.display(),
                pid.map_or_else(|| "unknown".to_owned(), |p| p.to_string())
            ),
        ));
    }
    Ok(Stream {
        inner: Arc::new(Inner {
            handle,
            closed: AtomicBool::new(false),
            read_timeout: Mutex::new(None),
            write_timeout: Mutex::new(None),
        }),
    })
}

/// Read or write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write,
}

impl Stream {
    pub fn try_clone(&self) -> io::Result<Stream> {
        Ok(self.clone())
    }

    /// A pipe has no half-close: any shutdown ends both directions here
    /// (reads waiting in other threads return end of stream). The host
    /// sees the end when the last clone is dropped.
    pub fn shutdown(&self, _how: std::net::Shutdown) -> io::Result<()> {
        self.inner.closed.store(true, Ordering::SeqCst);
        // SAFETY: cancels this process's I/O on a handle we keep open.
        unsafe { CancelIoEx(self.raw(), std::ptr::null()) };
        Ok(())
    }

    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        *self
            .inner
            .read_timeout
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = t;
        Ok(())
    }

    pub fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        *self
            .inner
            .write_timeout
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = t;
        Ok(())
    }

    fn raw(&self) -> HANDLE {
        self.inner.handle.as_raw_handle() as HANDLE
    }

    /// The access list of the pipe this stream is attached to, in SDDL.
    pub fn dacl(&self) -> io::Result<String> {
        current_user::dacl_of_handle(self.raw())
    }

    fn io(&self, op: Op, buf: *mut u8, len: usize) -> io::Result<usize> {
        let closed = || self.inner.closed.load(Ordering::SeqCst);
        if closed() {
            return match op {
                Op::Read => Ok(0),
                Op::Write => Err(io::ErrorKind::BrokenPipe.into()),
            };
        }
        let timeout = match op {
            Op::Read => &self.inner.read_timeout,
            Op::Write => &self.inner.write_timeout,
        };
        let timeout = *timeout.lock().unwrap_or_else(|p| p.into_inner());
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        // SAFETY: a manual-reset event, not signalled, no name; ours alone.
        let event = unsafe { CreateEventW(std::ptr::null(), 1, 0, std::ptr::null()) };
        if event.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a handle the call just created for us alone.
        let event = unsafe { OwnedHandle::from_raw_handle(event) };
        // SAFETY: OVERLAPPED is plain data; zeroes are its initial state.
        let mut ov: OVERLAPPED = unsafe { std::mem::zeroed() };
        ov.hEvent = event.as_raw_handle() as HANDLE;
        let h = self.raw();
        // SAFETY: `buf` holds `len` bytes for the whole operation: this
        // function does not return before the operation completed or was
        // cancelled and waited for (below), and `ov` lives as long.
        let started = unsafe {
            match op {
                Op::Read => ReadFile(h, buf, len, std::ptr::null_mut(), &mut ov),
                Op::Write => WriteFile(h, buf, len, std::ptr::null_mut(), &mut ov),
            }
        };
        if started == 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(ERROR_IO_PENDING as i32) {
                return done(op, Err(e), closed());
            }
            let ms = timeout.map_or(INFINITE, |t| {
                u32::try_from(t.as_millis()).unwrap_or(INFINITE - 1).max(1)
            });
            // SAFETY: waits on our event.
            let waited = unsafe { WaitForSingleObject(ov.hEvent, ms) };
            if waited == WAIT_TIMEOUT {
                // SAFETY: cancels the one operation started above.
                unsafe { CancelIoEx(h, &ov) };
                let mut n = 0u32;
                // SAFETY: waits until the cancelled operation is over, so
                // `buf` and `ov` are no longer used by the system.
                let ok = unsafe { GetOverlappedResult(h, &ov, &mut n, 1) };
                if ok != 0 {
                    return Ok(n as usize);
                }
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the Airlock host did not answer in time",
                ));
            }
            if waited != WAIT_OBJECT_0 {
                // The wait itself failed: make sure the operation is over.
                // SAFETY: as in the timeout case.
                unsafe { CancelIoEx(h, &ov) };
            }
        }
        let mut n = 0u32;
        // SAFETY: waits for the operation started above; after it returns
        // the system no longer uses `buf` or `ov`.
        let ok = unsafe { GetOverlappedResult(h, &ov, &mut n, 1) };
        if ok == 0 {
            return done(op, Err(io::Error::last_os_error()), closed());
        }
        Ok(n as usize)
    }
}

/// A pipe broken or closed is the end of the stream for a read.
fn done(op: Op, result: io::Result<usize>, closed: bool) -> io::Result<usize> {
    match result {
        Err(e) if op == Op::Read => match e.raw_os_error().map(|c| c as u32) {
            Some(ERROR_BROKEN_PIPE | ERROR_PIPE_NOT_CONNECTED | ERROR_NO_DATA) => Ok(0),
            Some(ERROR_OPERATION_ABORTED) if closed => Ok(0),
            _ => Err(e),
        },
        Err(e) if op == Op::Write => match e.raw_os_error().map(|c| c as u32) {
            Some(ERROR_BROKEN_PIPE | ERROR_PIPE_NOT_CONNECTED | ERROR_NO_DATA) => {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            Some(ERROR_OPERATION_ABORTED) if closed => Err(io::ErrorKind::BrokenPipe.into()),
            _ => Err(e),
        },
        other => other,
    }
}

impl Read for &Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.io(Op::Read, buf.as_mut_ptr(), buf.len())
    }
}

impl Write for &Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // WriteFile only reads the buffer.
        self.io(Op::Write, buf.as_ptr().cast_mut(), buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self).read(buf)
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_pipe_admits_this_user_alone_and_each_end_checks_the_other() {
        let dir = tempfile::tempdir().unwrap();
        let listener = Listener::bind(dir.path()).unwrap();
        let me = current_user::current().unwrap();
        assert_eq!(
            listener.dacl().unwrap(),
            current_user::owner_only_sddl(&me, Inherit::No).unwrap(),
            "the pipe's access list is the current user alone"
        );
        let server = listener.serve().unwrap();
        let data = dir.path().to_owned();
        let app = std::thread::spawn(move || {
            let s = connect(&data).unwrap();
            (&s).write_all(b"hello\n").unwrap();
            let mut buf = [0u8; 3];
            (&s).read_exact(&mut buf).unwrap();
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            let timed_out = (&s).read(&mut buf).unwrap_err();
            (buf, timed_out.kind(), s)
        });
        let mut conn = server.accept().await.unwrap();
        assert!(conn.same_user);
        assert_eq!(conn.peer_pid, Some(std::process::id()));
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut line = [0u8; 6];
        conn.read.read_exact(&mut line).await.unwrap();
        assert_eq!(&line, b"hello\n");
        conn.write.write_all(b"ok!").await.unwrap();
        let (got, timed_out, stream) = tokio::task::spawn_blocking(move || app.join().unwrap())
            .await
            .unwrap();
        assert_eq!(&got, b"ok!");
        assert_eq!(timed_out, io::ErrorKind::TimedOut);
        // Shut down: reads end at once, the host sees the end once dropped.
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        assert_eq!((&stream).read(&mut [0u8; 4]).unwrap(), 0);
        drop(stream);
        let mut rest = Vec::new();
        conn.read.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
    }

    /// Two hosts of one data dir never share its pipe (the first-instance
    /// flag; the data dir's lock already keeps a second Airlock out).
    #[test]
    fn a_second_first_instance_of_the_pipe_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let _first = Listener::bind(dir.path()).unwrap();
        let second = Listener::bind(dir.path()).err().expect("refused");
        assert_eq!(second.kind(), io::ErrorKind::PermissionDenied, "{second}");
    }

    #[test]
    fn a_pipe_made_first_by_another_program_is_not_shared() {
        let dir = tempfile::tempdir().unwrap();
        let name = wide(pipe_name(dir.path()).unwrap().as_os_str());
        // A squatter: the same name, the system's default access list.
        // SAFETY: `name` is NUL-terminated; the handle is closed below.
        let squat = unsafe {
            CreateNamedPipeW(
                name.as_ptr(),
                PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED,
                PIPE_TYPE_BYTE,
                PIPE_UNLIMITED_INSTANCES,
                1024,
                1024,
                0,
                std::ptr::null(),
            )
        };
        assert_ne!(squat, INVALID_HANDLE_VALUE);
        // SAFETY: the handle just created, ours alone.
        let squat = unsafe { OwnedHandle::from_raw_handle(squat) };
        let e = Listener::bind(dir.path()).err().expect("refused");
        assert!(e.to_string().contains("does not share its pipe"), "{e}");
        drop(squat);
        assert!(Listener::bind(dir.path()).is_ok(), "free again");
    }

    /// Opens `name` while this thread acts as `token`; the Windows error
    /// when that is refused.
    fn open_as(token: &OwnedHandle, name: &[u16], access: u32) -> Result<(), u32> {
        use windows_sys::Win32::Security::{ImpersonateLoggedOnUser, RevertToSelf};
        // SAFETY: a token we hold open; this thread acts as it until
        // RevertToSelf below.
        assert_ne!(
            unsafe { ImpersonateLoggedOnUser(token.as_raw_handle() as HANDLE) },
            0
        );
        // SAFETY: `name` is NUL-terminated; a valid handle is closed below.
        let h = unsafe {
            CreateFileW(
                name.as_ptr(),
                access,
                0,
                std::ptr::null(),
                OPEN_EXISTING,
                0,
                std::ptr::null_mut(),
            )
        };
        let error = io::Error::last_os_error().raw_os_error().unwrap_or(0) as u32;
        // SAFETY: ends the impersonation started above.
        unsafe { RevertToSelf() };
        if h == INVALID_HANDLE_VALUE {
            return Err(error);
        }
        // SAFETY: the handle just opened, ours alone.
        drop(unsafe { OwnedHandle::from_raw_handle(h) });
        Ok(())
    }

    /// This process's token with the user's SID made deny-only: what a
    /// process of another account looks like to an access list that names
    /// this user alone (one machine, one account: the closest stand-in).
    fn token_without_my_sid() -> OwnedHandle {
        use windows_sys::Win32::Security::{
            CreateRestrictedToken, SID_AND_ATTRIBUTES, TOKEN_ASSIGN_PRIMARY, TOKEN_DUPLICATE,
            TOKEN_IMPERSONATE, TOKEN_QUERY,
        };
        use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};
        let me = current_user::current().unwrap();
        let mut mine: HANDLE = std::ptr::null_mut();
        // SAFETY: this process's pseudo handle; the token is closed below.
        let ok = unsafe {
            OpenProcessToken(
                GetCurrentProcess(),
                TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY | TOKEN_IMPERSONATE,
                &mut mine,
            )
        };
        assert_ne!(ok, 0, "{}", io::Error::last_os_error());
        // SAFETY: the token just opened, ours alone.
        let mine = unsafe { OwnedHandle::from_raw_handle(mine) };
        let disable = SID_AND_ATTRIBUTES {
            Sid: me.as_psid(),
            Attributes: 0,
        };
        let mut restricted: HANDLE = std::ptr::null_mut();
        // SAFETY: `disable` points at a SID alive for the call; the new
        // token is ours alone.
        let ok = unsafe {
            CreateRestrictedToken(
                mine.as_raw_handle() as HANDLE,
                0,
                1,
                &disable,
                0,
                std::ptr::null(),
                0,
                std::ptr::null(),
                &mut restricted,
            )
        };
        assert_ne!(ok, 0, "{}", io::Error::last_os_error());
        // SAFETY: the token just created, ours alone.
        unsafe { OwnedHandle::from_raw_handle(restricted) }
    }

    #[test]
    fn a_process_without_this_users_sid_is_refused_by_the_pipes_access_list() {
        let dir = tempfile::tempdir().unwrap();
        let listener = Listener::bind(dir.path()).unwrap();
        let ours = wide(pipe_name(dir.path()).unwrap().as_os_str());
        // For contrast, a pipe with the system's default access list
        // (Everyone may read): the mistake the owner-only list avoids.
        let open = wide(r"\\.\pipe\airlock-test-default-acl".as_ref());
        // SAFETY: `open` is NUL-terminated; the handle is closed below.
        let default_acl = unsafe {
            CreateNamedPipeW(
                open.as_ptr(),
                PIPE_ACCESS_DUPLEX,
                PIPE_TYPE_BYTE,
                PIPE_UNLIMITED_INSTANCES,
                1024,
                1024,
                0,
                std::ptr::null(),
            )
        };
        assert_ne!(default_acl, INVALID_HANDLE_VALUE);
        // SAFETY: the handle just created, ours alone.
        let default_acl = unsafe { OwnedHandle::from_raw_handle(default_acl) };
        let stranger = token_without_my_sid();
        assert_eq!(
            open_as(&stranger, &open, GENERIC_READ),
            Ok(()),
            "the default access list lets a stranger read"
        );
        assert_eq!(
            open_as(&stranger, &ours, GENERIC_READ),
            Err(ERROR_ACCESS_DENIED),
            "Airlock's pipe refuses a stranger even to read"
        );
        assert_eq!(
            open_as(&stranger, &ours, GENERIC_READ | GENERIC_WRITE),
            Err(ERROR_ACCESS_DENIED)
        );
        drop(default_acl);
        drop(listener);
    }
}
