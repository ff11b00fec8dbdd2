//! What asks a host without a window (`airlock daemon`) to stop.
//!
//! - **Linux and macOS**: SIGTERM and SIGINT.
//! - **Windows**: Ctrl-C and Ctrl-Break, the console closing, the user
//!   logging off and the system shutting down (the console control events;
//!   Windows has no SIGTERM: `taskkill /F` ends a process without telling
//!   it, like SIGKILL).

use std::future::Future;

/// Start listening now (so nothing sent from here on is missed); the
/// future resolves with the name of the first request to stop.
pub fn listen() -> std::io::Result<impl Future<Output = &'static str> + Send> {
    imp::listen()
}

#[cfg(unix)]
mod imp {
    use std::future::Future;

    use tokio::signal::unix::{signal, SignalKind};

    pub(super) fn listen() -> std::io::Result<impl Future<Output = &'static str> + Send> {
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = terminate.recv() => "SIGTERM",
                _ = interrupt.recv() => "SIGINT",
            }
        })
    }
}

#[cfg(windows)]
mod imp {
    use std::future::Future;

    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, ctrl_logoff, ctrl_shutdown};

    pub(super) fn listen() -> std::io::Result<impl Future<Output = &'static str> + Send> {
        let mut c = ctrl_c()?;
        let mut brk = ctrl_break()?;
        let mut close = ctrl_close()?;
        let mut logoff = ctrl_logoff()?;
        let mut shutdown = ctrl_shutdown()?;
        Ok(async move {
            tokio::select! {
                _ = c.recv() => "Ctrl-C",
                _ = brk.recv() => "Ctrl-Break",
                _ = close.recv() => "the console closed",
                _ = logoff.recv() => "the user logs off",
                _ = shutdown.recv() => "the system shuts down",
            }
        })
    }
}
