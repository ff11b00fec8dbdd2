//! Airlock's own binary as the first process inside a room (Linux): it
//! binds the forwarder to Airlock's proxy on the room's loopback, then
//! forks; the child takes on the further layers (Landlock: only the room's
//! paths, no abstract sockets or signals outside its domain; seccomp: no
//! ptrace, mounts, namespaces, keyrings, kernel modules, `TIOCSTI`) and
//! execs the server; the parent forwards connections until the server
//! ends, and ends with its status.
//!
//! Every binary that starts servers calls [`run_if_asked`] first thing in
//! `main`, before any thread exists (the fork needs that).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The plan the room passes to its helper.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Spec {
    /// Forward `127.0.0.1:PROXY_PORT` to the proxy's socket.
    pub proxy: bool,
    /// Landlock: paths to read (and run), paths to write.
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
}

/// Most connections the forwarder holds open at once.
pub const MAX_FORWARDED: usize = 64;

/// How long a server may run on once its stdin has no writer left (Airlock
/// gone) before the room's helper kills it. Longer than Airlock's own
/// stop (stdin closed, then SIGTERM after its grace), so it only acts when
/// Airlock could not.
pub const LIFELINE_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// When this process was started as a room's helper, run as one and
/// return the exit code; otherwise `None` (start as usual).
pub fn run_if_asked() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != crate::room::HELPER_ARG {
        return None;
    }
    Some(imp::run(args.collect()))
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn run(_: Vec<std::ffi::OsString>) -> i32 {
        eprintln!("airlock: the room helper runs on Linux only");
        126
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::{CString, OsString};
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::net::UnixStream;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use std::path::PathBuf;

    use super::{Spec, MAX_FORWARDED};
    use crate::room::{PROXY_PORT, PROXY_SOCKET_INSIDE};

    fn fail(what: &str) -> i32 {
        eprintln!("airlock room: {what}");
        126
    }

    pub(super) fn run(args: Vec<OsString>) -> i32 {
        let mut it = args.into_iter();
        let Some(spec) = it.next() else {
            return fail("no plan");
        };
        let spec: Spec = match serde_json::from_slice(spec.as_bytes()) {
            Ok(s) => s,
            Err(e) => return fail(&format!("bad plan: {e}")),
        };
        if it.next().as_deref() != Some(std::ffi::OsStr::new("--")) {
            return fail("no command");
        }
        let argv: Vec<CString> = match it.map(|a| CString::new(a.as_bytes())).collect() {
            Ok(v) => v,
            Err(_) => return fail("an argument holds a NUL byte"),
        };
        if argv.is_empty() {
            return fail("no command");
        }
        // Bound before the fork: the server may connect at once.
        let listener = if spec.proxy {
            match TcpListener::bind(("127.0.0.1", PROXY_PORT)) {
                Ok(l) => Some(l),
                Err(e) => return fail(&format!("cannot listen for the proxy: {e}")),
            }
        } else {
            None
        };
        // SAFETY: this process has one thread (run_if_asked runs first in
        // main); the child only calls async-signal-safe functions and
        // exec, or allocates in a fresh single-threaded copy.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return fail(&format!("fork: {}", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            drop(listener);
            child(&spec, &argv);
        }
        // The parent: not the server's reader or writer, but it watches
        // the server's stdin for its end (below).
        // SAFETY: dup of a descriptor this process has; the copy is ours.
        let lifeline = unsafe { libc::dup(0) };
        release_stdio();
        if lifeline >= 0 {
            std::thread::spawn(move || lifeline_watch(lifeline, pid));
        }
        if let Some(listener) = listener {
            std::thread::spawn(move || forward(listener));
        }
        wait_for(pid)
    }

    /// A second way for the room to end with Airlock: bubblewrap's
    /// `--die-with-parent` misses an Airlock killed while bubblewrap is
    /// still setting the room up. When every writer of the server's stdin
    /// is gone (Airlock ended, or closed it to stop the server) and the
    /// server has not stopped within [`LIFELINE_GRACE`], it is killed.
    /// The pipe is only polled, never read: the server's input is untouched.
    fn lifeline_watch(fd: libc::c_int, pid: libc::pid_t) {
        loop {
            let mut p = libc::pollfd {
                fd,
                events: 0,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the call's duration.
            let r = unsafe { libc::poll(&mut p, 1, -1) };
            if r > 0 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                break;
            }
            if r < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return;
            }
        }
        std::thread::sleep(super::LIFELINE_GRACE);
        // SAFETY: kill(2) of our own child (if it was reaped meanwhile the
        // pid is not reused inside this room before we exit).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }

    fn release_stdio() {
        if let Ok(null) = std::fs::File::open("/dev/null") {
            use std::os::fd::AsRawFd;
            // SAFETY: dup2 onto the standard descriptors from a file we hold.
            unsafe {
                libc::dup2(null.as_raw_fd(), 0);
                libc::dup2(null.as_raw_fd(), 1);
            }
        }
    }

    fn wait_for(pid: libc::pid_t) -> i32 {
        loop {
            let mut status = 0;
            // SAFETY: waiting for our own child with a valid out-pointer.
            let r = unsafe { libc::waitpid(pid, &mut status, 0) };
            if r == pid {
                if libc::WIFEXITED(status) {
                    return libc::WEXITSTATUS(status);
                }
                if libc::WIFSIGNALED(status) {
                    return 128 + libc::WTERMSIG(status);
                }
            } else if r < 0
                && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                return 126;
            }
        }
    }

    fn child(spec: &Spec, argv: &[CString]) -> ! {
        if let Err(why) = landlock_layer(spec) {
            eprintln!("airlock room: Landlock not applied: {why}");
        }
        if let Err(why) = seccomp_layer() {
            eprintln!("airlock room: the system-call filter could not be applied: {why}");
            // SAFETY: leaving the forked child at once.
            unsafe { libc::_exit(126) };
        }
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        // SAFETY: a NUL-terminated array of NUL-terminated strings that
        // outlive the call (exec does not return on success).
        unsafe { libc::execvp(ptrs[0], ptrs.as_ptr()) };
        let err = std::io::Error::last_os_error();
        eprintln!(
            "airlock room: cannot start {}: {err}",
            argv[0].to_string_lossy()
        );
        // SAFETY: leaving the forked child.
        unsafe {
            libc::_exit(if err.kind() == std::io::ErrorKind::NotFound {
                127
            } else {
                126
            })
        }
    }

    fn landlock_layer(spec: &Spec) -> Result<(), String> {
        use landlock::{
            path_beneath_rules, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr,
            RulesetStatus, Scope, ABI,
        };
        let abi = ABI::V6;
        let read_access = AccessFs::from_read(abi);
        let all = AccessFs::from_all(abi);
        // A path that is not there cannot be opened for a rule (and would
        // fail the whole ruleset).
        let read: Vec<&PathBuf> = spec.read.iter().filter(|p| p.exists()).collect();
        let write: Vec<&PathBuf> = spec.write.iter().filter(|p| p.exists()).collect();
        let status = Ruleset::default()
            .handle_access(all)
            .and_then(|r| r.scope(Scope::AbstractUnixSocket | Scope::Signal))
            .and_then(|r| r.create())
            .and_then(|r| r.add_rules(path_beneath_rules(read, read_access)))
            .and_then(|r| r.add_rules(path_beneath_rules(write, all)))
            .and_then(|r| r.restrict_self())
            .map_err(|e| e.to_string())?;
        match status.ruleset {
            RulesetStatus::NotEnforced => Err("the kernel has no Landlock".into()),
            _ => Ok(()),
        }
    }

    fn seccomp_layer() -> Result<(), String> {
        use seccompiler::{
            BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
            SeccompFilter, SeccompRule,
        };
        use std::collections::BTreeMap;
        let arch = std::env::consts::ARCH
            .try_into()
            .map_err(|_| format!("no filter for {}", std::env::consts::ARCH))?;
        let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
        for call in [
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_pivot_root,
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_bpf,
            libc::SYS_perf_event_open,
            libc::SYS_kexec_load,
            libc::SYS_init_module,
            libc::SYS_finit_module,
            libc::SYS_delete_module,
            libc::SYS_userfaultfd,
            libc::SYS_open_by_handle_at,
            libc::SYS_syslog,
            libc::SYS_acct,
            libc::SYS_swapon,
            libc::SYS_swapoff,
            libc::SYS_reboot,
            libc::SYS_fsopen,
            libc::SYS_fsmount,
            libc::SYS_move_mount,
            libc::SYS_open_tree,
        ] {
            rules.insert(call, Vec::new());
        }
        let ioctl_cmd = |cmd: u64| {
            SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, cmd)
                .and_then(|c| SeccompRule::new(vec![c]))
                .map_err(|e| e.to_string())
        };
        rules.insert(
            libc::SYS_ioctl,
            vec![
                ioctl_cmd(libc::TIOCSTI)?,
                ioctl_cmd(0x541C)?, // TIOCLINUX
            ],
        );
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )
        .map_err(|e| e.to_string())?;
        let program: BpfProgram = filter
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?;
        seccompiler::apply_filter(&program).map_err(|e| e.to_string())
    }

    /// Accept on the room's loopback, copy to and from the proxy's socket.
    fn forward(listener: TcpListener) {
        let open = Arc::new(AtomicUsize::new(0));
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            if open.load(Ordering::Relaxed) >= MAX_FORWARDED {
                drop(conn);
                continue;
            }
            let Ok(up) = UnixStream::connect(PROXY_SOCKET_INSIDE) else {
                drop(conn);
                continue;
            };
            open.fetch_add(1, Ordering::Relaxed);
            let open = open.clone();
            std::thread::spawn(move || {
                relay(conn, up);
                open.fetch_sub(1, Ordering::Relaxed);
            });
        }
    }

    fn relay(tcp: TcpStream, unix: UnixStream) {
        let (Ok(tcp2), Ok(unix2)) = (tcp.try_clone(), unix.try_clone()) else {
            return;
        };
        let up = std::thread::spawn(move || copy(tcp2, unix2));
        copy(unix, tcp);
        let _ = up.join();
    }

    fn copy(mut from: impl Read + Shutdown, mut to: impl Write + Shutdown) {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        to.shut_write();
        from.shut_read();
    }

    trait Shutdown {
        fn shut_write(&self);
        fn shut_read(&self);
    }
    impl Shutdown for TcpStream {
        fn shut_write(&self) {
            let _ = self.shutdown(std::net::Shutdown::Write);
        }
        fn shut_read(&self) {
            let _ = self.shutdown(std::net::Shutdown::Read);
        }
    }
    impl Shutdown for UnixStream {
        fn shut_write(&self) {
            let _ = self.shutdown(std::net::Shutdown::Write);
        }
        fn shut_read(&self) {
            let _ = self.shutdown(std::net::Shutdown::Read);
        }
    }
}
