//! The program that hands a URL to the user's default browser, per
//! platform. The URL is one argument of a process, never part of a shell
//! command line (the broker has checked and normalized it first: no
//! spaces, no quotes).
//!
//! - **Linux**: `xdg-open URL`.
//! - **macOS**: `open URL`.
//! - **Windows**: `rundll32 url.dll,FileProtocolHandler URL` (the shell's
//!   URL handler, no console window).

use std::process::Command;

/// The opener, its URL argument still to add.
pub(super) fn command() -> Command {
    imp::command()
}

#[cfg(target_os = "linux")]
mod imp {
    pub(super) fn command() -> std::process::Command {
        std::process::Command::new("xdg-open")
    }
}

#[cfg(target_os = "macos")]
mod imp {
    pub(super) fn command() -> std::process::Command {
        std::process::Command::new("open")
    }
}

#[cfg(windows)]
mod imp {
    pub(super) fn command() -> std::process::Command {
        let mut c = std::process::Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler");
        c
    }
}
