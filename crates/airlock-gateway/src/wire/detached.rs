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
//!   breaking away keeps the host in it (it then ends with that app). The
//!   shim's own standard handles are made non-inheritable first: Rust's
//!   `spawn` passes every inheritable handle on, and a host holding the
//!   app's pipe would keep the app from ever seeing the shim's output end.

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

    use windows_sys::Win32::Foundation::{
        SetHandleInformation, HANDLE_FLAG_INHERIT, INVALID_HANDLE_VALUE,
    };
    use windows_sys::Win32::System::Console::{
        GetStdHandle, STD_ERROR_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
    };
    use windows_sys::Win32::System::Threading::{
        CREATE_BREAKAWAY_FROM_JOB, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW,
    };

    /// The app's pipes stay with the shim: the host gets its own handles
    /// (the `Stdio` the caller set), never the shim's by inheritance.
    fn keep_own_std_handles() {
        for which in [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE] {
            // SAFETY: GetStdHandle has no preconditions; SetHandleInformation
            // only changes a flag of a handle this process holds (a null or
            // invalid one is skipped, and a failure leaves the flag as it was).
            unsafe {
                let handle = GetStdHandle(which);
                if !handle.is_null() && handle != INVALID_HANDLE_VALUE {
                    SetHandleInformation(handle, HANDLE_FLAG_INHERIT, 0);
                }
            }
        }
    }

    pub(super) fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
        keep_own_std_handles();
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
