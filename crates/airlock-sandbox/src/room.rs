//! From a [`Profile`] to the command that starts the server inside its
//! room, one definition per platform:
//!
//! - **Linux**: bubblewrap (new user, mount, PID, network, IPC, UTS and
//!   cgroup namespaces; the system's folders read-only; the private home
//!   and `/tmp`; the profile's paths; no further user namespaces), then
//!   Airlock's own helper inside ([`crate::helper`]): Landlock and a
//!   seccomp filter as further layers, and the only way out to the network,
//!   a forwarder to Airlock's proxy ([`crate::proxy`]).
//! - **macOS**: not built yet; a server that should be confined is not
//!   started there unless the person runs it unconfined ([`Unavailable`]).
//! - **Windows**: the same: no confinement yet, said plainly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::profile::Profile;

/// The port inside a room where the forwarder to Airlock's proxy listens
/// (each room has its own network namespace, so every room can use it).
pub const PROXY_PORT: u16 = 3128;
/// Where the proxy's socket appears inside a room.
pub const PROXY_SOCKET_INSIDE: &str = "/run/airlock/proxy.sock";
/// The first argument that turns Airlock's own binary into the helper.
pub const HELPER_ARG: &str = "__airlock-confine";

/// Why a server cannot be confined here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);

/// What starting one server in its room needs.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    pub profile: &'a Profile,
    /// `$HOME` as the server sees it (its private home is mounted there).
    pub home: Option<&'a Path>,
    /// The server's private home and temporary folder (kept across starts).
    pub private_home: &'a Path,
    pub private_tmp: &'a Path,
    /// Airlock's proxy for this server; `None`: it shares this computer's
    /// network (the person chose so).
    pub proxy_socket: Option<&'a Path>,
    /// Airlock's own binary, run inside as the helper.
    pub helper: &'a Path,
}

/// The command to run instead of the server's own, and the environment it
/// adds (the proxy variables, the launcher's).
#[derive(Debug, Clone)]
pub struct Wrapped {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(String, String)>,
}

/// The environment that sends a room's HTTP through Airlock's proxy.
pub fn proxy_env() -> Vec<(String, String)> {
    let url = format!("http://127.0.0.1:{PROXY_PORT}");
    let mut env = Vec::new();
    for name in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
        env.push((name.to_owned(), url.clone()));
        env.push((name.to_ascii_lowercase(), url.clone()));
    }
    // Nothing goes around the proxy: there is no other way out.
    env.push(("NO_PROXY".into(), String::new()));
    env.push(("no_proxy".into(), String::new()));
    env
}

/// The command that starts `launch` confined, or why it cannot be.
pub fn wrap(launch: &Launch<'_>) -> Result<Wrapped, Unavailable> {
    imp::wrap(launch)
}

/// Whether confinement works on this computer (checked once, then remembered).
pub fn available() -> Result<(), Unavailable> {
    imp::available()
}

/// The mechanism in words, for `servers sandbox` and the window.
pub fn mechanism() -> &'static str {
    imp::MECHANISM
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};
    use std::sync::OnceLock;

    use super::{Launch, Unavailable, Wrapped, HELPER_ARG, PROXY_SOCKET_INSIDE};
    use crate::helper::Spec;
    use crate::profile::SYSTEM_READ;

    pub(super) const MECHANISM: &str =
        "bubblewrap namespaces, Landlock and seccomp; network only through Airlock's proxy";

    fn bwrap() -> Result<&'static PathBuf, Unavailable> {
        static FOUND: OnceLock<Result<PathBuf, Unavailable>> = OnceLock::new();
        FOUND.get_or_init(probe).as_ref().map_err(Clone::clone)
    }

    pub(super) fn available() -> Result<(), Unavailable> {
        bwrap().map(|_| ())
    }

    /// bubblewrap on PATH, and a room it makes actually starting (user
    /// namespaces can be turned off by the kernel or a policy).
    fn probe() -> Result<PathBuf, Unavailable> {
        // Another bubblewrap than the one on PATH (`AIRLOCK_BWRAP`).
        if let Some(chosen) = std::env::var_os("AIRLOCK_BWRAP") {
            let chosen = PathBuf::from(chosen);
            if !chosen.is_file() {
                return Err(Unavailable(format!(
                    "AIRLOCK_BWRAP names {}, which is not there",
                    chosen.display()
                )));
            }
            return check(chosen);
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let found = std::env::split_paths(&path)
            .chain([PathBuf::from("/usr/bin")])
            .map(|d| d.join("bwrap"))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                Unavailable(
                    "bubblewrap (bwrap) is not installed: install the bubblewrap package (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)".into(),
                )
            })?;
        check(found)
    }

    fn check(found: PathBuf) -> Result<PathBuf, Unavailable> {
        let out = std::process::Command::new(&found)
            .args([
                "--unshare-user",
                "--unshare-net",
                "--unshare-pid",
                "--disable-userns",
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--",
                "true",
            ])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| Unavailable(format!("bubblewrap could not be run: {e}")))?;
        if out.status.success() {
            Ok(found)
        } else {
            let why = String::from_utf8_lossy(&out.stderr);
            Err(Unavailable(format!(
                "bubblewrap cannot make a room here ({}): unprivileged user namespaces may be turned off (sysctl kernel.unprivileged_userns_clone, or an AppArmor rule)",
                why.trim().chars().take(300).collect::<String>()
            )))
        }
    }

    fn depth(p: &Path) -> usize {
        p.components().count()
    }

    pub(super) fn wrap(l: &Launch<'_>) -> Result<Wrapped, Unavailable> {
        let bwrap = bwrap()?;
        let mut a: Vec<OsString> = Vec::new();
        let mut push = |words: &[&dyn AsRef<std::ffi::OsStr>]| {
            for w in words {
                a.push(w.as_ref().to_os_string());
            }
        };
        push(&[
            &"--unshare-user",
            &"--unshare-ipc",
            &"--unshare-pid",
            &"--unshare-uts",
            &"--unshare-cgroup-try",
            &"--disable-userns",
            &"--die-with-parent",
            &"--new-session",
        ]);
        if l.proxy_socket.is_some() {
            push(&[&"--unshare-net"]);
        }
        for dir in SYSTEM_READ {
            let p = Path::new(dir);
            match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = std::fs::read_link(p) {
                        push(&[&"--symlink", &target, dir]);
                    }
                }
                Ok(_) => push(&[&"--ro-bind", dir, dir]),
                Err(_) => {}
            }
        }
        push(&[&"--proc", &"/proc", &"--dev", &"/dev"]);
        // Mounts in depth order: a deeper entry wins over its parent's.
        enum Kind {
            Ro,
            Rw,
        }
        let mut mounts: Vec<(PathBuf, PathBuf, Kind)> = Vec::new();
        for d in [l.private_home, l.private_tmp] {
            std::fs::create_dir_all(d)
                .map_err(|e| Unavailable(format!("cannot make {}: {e}", d.display())))?;
        }
        mounts.push((l.private_tmp.to_path_buf(), "/tmp".into(), Kind::Rw));
        if let Some(home) = l.home {
            mounts.push((l.private_home.to_path_buf(), home.to_path_buf(), Kind::Rw));
        }
        // An entry behind a symlink (a linked venv, `~/.nvm` elsewhere) is
        // mounted where it really is, and at its own path too unless a
        // plain view of its parent already holds the link.
        let entries = l
            .profile
            .read
            .iter()
            .map(|e| (&e.path, false))
            .chain(l.profile.write.iter().map(|e| (&e.path, true)));
        let mut linked = Vec::new();
        for (path, write) in entries {
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            let kind = || if write { Kind::Rw } else { Kind::Ro };
            if real != *path {
                linked.push((real.clone(), path.clone(), kind()));
            }
            mounts.push((real.clone(), real, kind()));
        }
        for (real, path, kind) in linked {
            let held = mounts
                .iter()
                .any(|(src, dest, _)| src == dest && path.starts_with(dest) && path != *dest);
            if !held {
                mounts.push((real, path, kind));
            }
        }
        mounts.push((l.helper.to_path_buf(), l.helper.to_path_buf(), Kind::Ro));
        mounts.sort_by_key(|(_, dest, _)| depth(dest));
        for (src, dest, kind) in &mounts {
            let flag = match kind {
                Kind::Ro => "--ro-bind-try",
                Kind::Rw => "--bind-try",
            };
            push(&[&flag, src, dest]);
        }
        if let Some(sock) = l.proxy_socket {
            push(&[&"--ro-bind", &sock, &PROXY_SOCKET_INSIDE]);
        }
        if let Some(cwd) = l.cwd {
            push(&[&"--chdir", &cwd]);
        } else if let Some(home) = l.home {
            push(&[&"--chdir", &home]);
        }
        let spec = Spec {
            proxy: l.proxy_socket.is_some(),
            read: SYSTEM_READ
                .iter()
                .map(PathBuf::from)
                .filter(|p| p.exists())
                .chain(l.profile.read.iter().map(|e| e.path.clone()))
                .chain([l.helper.to_path_buf(), "/proc".into()])
                .collect(),
            write: l
                .profile
                .write
                .iter()
                .map(|e| e.path.clone())
                .chain(l.home.map(Path::to_path_buf))
                .chain(["/tmp".into(), "/dev".into()])
                .collect(),
        };
        let spec = serde_json::to_string(&spec)
            .map_err(|e| Unavailable(format!("cannot write the room's plan: {e}")))?;
        // A command written with `.` or `..` runs as the room holds it
        // (taken out lexically: a venv's `bin/../bin/python` stays in its
        // venv), not through folders the room does not hold.
        let command = {
            let p = Path::new(l.command);
            let dotted = p.components().any(|c| {
                matches!(
                    c,
                    std::path::Component::ParentDir | std::path::Component::CurDir
                )
            });
            if p.is_absolute() && dotted {
                crate::profile::lexical(p).to_string_lossy().into_owned()
            } else {
                l.command.to_owned()
            }
        };
        push(&[&"--", &l.helper, &HELPER_ARG, &spec, &"--", &command]);
        for arg in l.args {
            a.push(arg.into());
        }
        let mut env: Vec<(String, String)> = l
            .profile
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if l.proxy_socket.is_some() {
            env.extend(super::proxy_env());
        }
        Ok(Wrapped {
            program: bwrap.clone(),
            args: a,
            env,
        })
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Launch, Unavailable, Wrapped};

    #[cfg(target_os = "macos")]
    pub(super) const MECHANISM: &str =
        "not built on macOS yet (Seatbelt's sandbox-exec is the planned mechanism)";
    #[cfg(not(target_os = "macos"))]
    pub(super) const MECHANISM: &str = "not available on this platform yet";

    pub(super) fn available() -> Result<(), Unavailable> {
        Err(Unavailable(format!(
            "Airlock cannot confine servers on this platform yet ({MECHANISM})"
        )))
    }

    pub(super) fn wrap(_: &Launch<'_>) -> Result<Wrapped, Unavailable> {
        available().map(|()| unreachable_wrapped())
    }

    fn unreachable_wrapped() -> Wrapped {
        Wrapped {
            program: Default::default(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }
}

/// A server's folder under Airlock's data folder: the name made safe (no
/// `.` or space, so `..` cannot climb; at most 24 characters, so the
/// proxy's socket path stays within the kernel's 108 bytes) and a hash of
/// the exact name (so `a.b` and `a_b` get two rooms).
pub fn room_dir(data_dir: &Path, server: &str) -> PathBuf {
    let safe: String = server
        .chars()
        .take(24)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // FNV-1a: stable across builds and platforms.
    let hash = fnv(server.as_bytes());
    data_dir.join("rooms").join(format!("{safe}-{hash:016x}"))
}

/// A server's private home and temporary folder (kept across starts).
pub fn private_dirs(data_dir: &Path, server: &str) -> (PathBuf, PathBuf) {
    let base = room_dir(data_dir, server);
    (base.join("home"), base.join("tmp"))
}

/// Longest Unix socket path used (the kernel takes 107 bytes and a NUL).
pub const MAX_SOCKET_PATH: usize = 100;

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Where Airlock's proxy for a server listens: in its room's folder, or,
/// when that path is too long for a socket (a data folder deep in a
/// temporary folder), in a private folder of the system's temporary one
/// named after the data folder ([`crate::proxy::Proxy::start`] makes it
/// 0700 and refuses one that is not this user's).
pub fn proxy_socket(data_dir: &Path, server: &str) -> PathBuf {
    let p = room_dir(data_dir, server).join("proxy.sock");
    if p.as_os_str().len() <= MAX_SOCKET_PATH {
        return p;
    }
    std::env::temp_dir()
        .join(format!(
            "airlock-rooms-{:016x}",
            fnv(data_dir.as_os_str().as_encoded_bytes())
        ))
        .join(format!("{:016x}.sock", fnv(server.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooms_cannot_climb_or_collide() {
        let d = Path::new("/data");
        assert_eq!(room_dir(d, "..").parent(), Some(Path::new("/data/rooms")));
        assert_ne!(room_dir(d, "a.b"), room_dir(d, "a_b"));
        let long = "x".repeat(64);
        assert!(proxy_socket(d, &long).as_os_str().len() < 80);
        let deep = Path::new("/tmp").join("d".repeat(120));
        let short = proxy_socket(&deep, &long);
        assert!(
            short.as_os_str().len() <= MAX_SOCKET_PATH,
            "{}",
            short.display()
        );
        assert_ne!(short, proxy_socket(&deep, "other"), "one socket per server");
        assert_ne!(
            short,
            proxy_socket(&deep.join("x"), &long),
            "one folder per data folder"
        );
    }
}
