//! The part of Airlock's environment a stdio server inherits: what a
//! program needs to run, find its files and reach a display or a proxy, and
//! nothing else by default (Airlock's environment may hold other programs'
//! tokens). A server's own `env` comes on top; the names a user opts in to
//! (`inherit_env`; `*`: everything) too.
//!
//! - **Everywhere**: `PATH`, `LANG`, `LANGUAGE`, `TZ`, the proxy variables
//!   (both cases), `SSL_CERT_FILE`, `SSL_CERT_DIR`.
//! - **Linux**: `HOME`, `USER`, `LOGNAME`, `SHELL`, `TMPDIR`, `TMP`, `TEMP`, `DISPLAY`,
//!   `WAYLAND_DISPLAY`, `LC_*`, `XDG_*`. Not `DBUS_SESSION_BUS_ADDRESS`: the
//!   session bus leads to the unlocked keychain; a server gets it only when
//!   the person asks for it (an unconfined server's `session_bus`).
//! - **macOS**: `HOME`, `USER`, `LOGNAME`, `SHELL`, `TMPDIR`, `TMP`, `TEMP`, `LC_*`,
//!   `__CF_USER_TEXT_ENCODING` (the user's text encoding).
//! - **Windows**: `SystemRoot` (without it a program cannot start its
//!   network stack), `windir`, `SystemDrive`, `ComSpec`, `PATHEXT`, `TEMP`,
//!   `TMP`, `USERPROFILE`, `USERNAME`, `USERDOMAIN`, `HOMEDRIVE`,
//!   `HOMEPATH`, `APPDATA`, `LOCALAPPDATA`, `ProgramData`, `ProgramFiles`,
//!   `ProgramFiles(x86)`, `ProgramW6432`, `CommonProgramFiles`,
//!   `CommonProgramFiles(x86)`, `NUMBER_OF_PROCESSORS`,
//!   `PROCESSOR_ARCHITECTURE`, `OS`. Names are compared without case, as
//!   Windows does (`Path` is `PATH`).

use std::ffi::OsString;

/// Variables every platform passes on.
const COMMON: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "ALL_PROXY",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

#[cfg(target_os = "linux")]
const PLATFORM: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "TMP",
    "TEMP",
    "DISPLAY",
    "WAYLAND_DISPLAY",
];
#[cfg(target_os = "linux")]
const PREFIXES: &[&str] = &["LC_", "XDG_"];

#[cfg(target_os = "macos")]
const PLATFORM: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "TMP",
    "TEMP",
    "__CF_USER_TEXT_ENCODING",
];
#[cfg(target_os = "macos")]
const PREFIXES: &[&str] = &["LC_"];

#[cfg(windows)]
const PLATFORM: &[&str] = &[
    "SystemRoot",
    "windir",
    "SystemDrive",
    "ComSpec",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "USERNAME",
    "USERDOMAIN",
    "HOMEDRIVE",
    "HOMEPATH",
    "APPDATA",
    "LOCALAPPDATA",
    "ProgramData",
    "ProgramFiles",
    "ProgramFiles(x86)",
    "ProgramW6432",
    "CommonProgramFiles",
    "CommonProgramFiles(x86)",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "OS",
];
#[cfg(windows)]
const PREFIXES: &[&str] = &[];

/// Whether two variable names are the same here (Windows: without case).
fn same_name(a: &str, b: &str) -> bool {
    if cfg!(windows) {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// Whether `name` is passed on by default.
pub fn inherited_by_default(name: &str) -> bool {
    COMMON.iter().chain(PLATFORM).any(|k| same_name(k, name))
        || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The session bus's variable: passed only on the person's say.
pub const SESSION_BUS: &str = "DBUS_SESSION_BUS_ADDRESS";

/// The environment a stdio server starts with (before its own `env`): the
/// variables above, plus the names in `extra` (`*`: all of them, but the
/// session bus).
pub fn inherited_env(extra: &[String]) -> Vec<(OsString, OsString)> {
    inherited_env_for(extra, false)
}

/// [`inherited_env`], with the session bus when `session_bus`.
pub fn inherited_env_for(extra: &[String], session_bus: bool) -> Vec<(OsString, OsString)> {
    let all = extra.iter().any(|e| e == "*");
    std::env::vars_os()
        .filter(|(k, _)| {
            let Some(k) = k.to_str() else { return false };
            if k == SESSION_BUS {
                return session_bus;
            }
            all || inherited_by_default(k) || extra.iter().any(|e| same_name(e, k))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_program_needs_passes_and_tokens_do_not() {
        assert!(inherited_by_default("PATH"));
        assert!(inherited_by_default("https_proxy"));
        assert!(!inherited_by_default("GITHUB_TOKEN"));
        assert!(!inherited_by_default("AWS_SECRET_ACCESS_KEY"));
        #[cfg(target_os = "linux")]
        {
            assert!(inherited_by_default("XDG_RUNTIME_DIR"));
            assert!(
                !inherited_by_default("DBUS_SESSION_BUS_ADDRESS"),
                "the bus leads to the keychain"
            );
            assert!(!inherited_by_default("Path"), "case matters on Linux");
        }
        #[cfg(windows)]
        {
            assert!(inherited_by_default("Path"), "Windows names have no case");
            assert!(inherited_by_default("SYSTEMROOT"));
            assert!(inherited_by_default("APPDATA"));
        }
    }
}
