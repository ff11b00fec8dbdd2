//! Starting the host a shim needs so that it outlives the app that started
//! the shim: other apps share it, and the app's Ctrl-C, its process group
//! being killed or its console closing must not stop it.
//!
//! - **Linux and macOS**: a process group of its own (`setpgid`), so the
//!   app's terminal and group signals do not reach it.
//! - **Windows**: a process group of its own (`CREATE_NEW_PROCESS_GROUP`),
//!   a console of its own with no window (`CREATE_NO_WINDOW`), and out of
//!   the app's job (`CREATE_BREAKAWAY_FROM_JOB`) when the job allows it: an
//!   app that runs its children in a job that kills them when it exits
//!   would take the shared host down with it otherwise. A job that forbids
//!   breaking away keeps the host in it (it then ends with that app).

use std::process::{Child, Command};

/// Spawn `cmd` detached from the app as above.
pub fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    imp::spawn(cmd)
}

#[cfg(unix)]
mod imp {
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};

    pub(super) fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
        cmd.process_group(0).spawn()
    }
}

#[cfg(windows)]
mod imp {
    use std::os::windows::process::CommandExt;
    use std::process::{Child, Command};

    use windows_sys::Win32::System::Threading::{
        CREATE_BREAKAWAY_FROM_JOB, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW,
    };

    pub(super) fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
        let flags = CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW;
        match cmd
            .creation_flags(flags | CREATE_BREAKAWAY_FROM_JOB)
            .spawn()
        {
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                cmd.creation_flags(flags).spawn()
            }
            other => other,
        }
    }
}
