//! The life of a stdio server's process beside Airlock's: it must not
//! outlive Airlock, and it is asked to stop before it is killed.
//!
//! - **Linux**: the child asks the kernel for SIGTERM when Airlock dies
//!   (`prctl(PR_SET_PDEATHSIG)` between fork and exec), even when Airlock
//!   is killed without running destructors; stopping sends SIGTERM first.
//! - **macOS**: no parent-death signal exists; the child is killed when
//!   Airlock drops it (`kill_on_drop`) and when its stdin closes the MCP way,
//!   but a killed Airlock leaves it running until it reads the end of its
//!   stdin (every stdio server stops then). Stopping sends SIGTERM first.
//! - **Windows**: the child joins a job object that Airlock holds open for
//!   its whole life, with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`: when Airlock
//!   ends, however it ends, the system closes the job and ends the server
//!   (and the processes it started after joining). There is no SIGTERM:
//!   after stdin closes and the grace period, the server is terminated.

use tokio::process::{Child, Command};

/// Before spawning: what the child must do on its side.
pub(crate) fn prepare(cmd: &mut Command) {
    imp::prepare(cmd)
}

/// Right after spawning: what Airlock does for the child. Failing here
/// leaves the child to `kill_on_drop` alone (said in the returned error).
pub(crate) fn adopt(child: &Child) -> Result<(), String> {
    imp::adopt(child)
}

/// Ask the child to stop (SIGTERM); `false` when the platform has no such
/// request and the caller goes straight to killing it.
pub(crate) fn ask_to_stop(child: &Child) -> bool {
    imp::ask_to_stop(child)
}

#[cfg(unix)]
fn sigterm(child: &Child) -> bool {
    let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) else {
        return false;
    };
    // SAFETY: kill(2) with a pid this process spawned and still holds (not
    // yet reaped), and a valid signal number.
    unsafe { libc::kill(pid, libc::SIGTERM) == 0 }
}

#[cfg(target_os = "linux")]
mod imp {
    use tokio::process::{Child, Command};

    pub(super) fn prepare(cmd: &mut Command) {
        // SAFETY: the closure runs in the forked child before exec and only
        // calls prctl, which is async-signal-safe; it touches no memory of
        // the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    pub(super) fn adopt(_child: &Child) -> Result<(), String> {
        Ok(())
    }

    pub(super) fn ask_to_stop(child: &Child) -> bool {
        super::sigterm(child)
    }
}

#[cfg(target_os = "macos")]
mod imp {
    use tokio::process::{Child, Command};

    pub(super) fn prepare(_cmd: &mut Command) {}

    pub(super) fn adopt(_child: &Child) -> Result<(), String> {
        Ok(())
    }

    pub(super) fn ask_to_stop(child: &Child) -> bool {
        super::sigterm(child)
    }
}

#[cfg(windows)]
mod imp {
    use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
    use std::sync::OnceLock;

    use tokio::process::{Child, Command};
    use windows_sys::Win32::Foundation::HANDLE;
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
        SetInformationJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    };

    /// The job every stdio server joins, open until this process ends.
    static JOB: OnceLock<Result<OwnedHandle, String>> = OnceLock::new();

    fn create_job() -> Result<OwnedHandle, String> {
        // SAFETY: an unnamed job with default security; ours alone.
        let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if job.is_null() {
            return Err(format!(
                "cannot create a job object: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: a handle the call just created for us alone.
        let job = unsafe { OwnedHandle::from_raw_handle(job) };
        // SAFETY: plain data; zeroes are "no limit".
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: `limits` is the structure this information class takes,
        // with its exact size.
        let ok = unsafe {
            SetInformationJobObject(
                job.as_raw_handle() as HANDLE,
                JobObjectExtendedLimitInformation,
                (&raw const limits).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if ok == 0 {
            return Err(format!(
                "cannot set the job's kill-on-close limit: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(job)
    }

    pub(super) fn prepare(_cmd: &mut Command) {}

    pub(super) fn adopt(child: &Child) -> Result<(), String> {
        let job = JOB.get_or_init(create_job).as_ref().map_err(Clone::clone)?;
        let Some(process) = child.raw_handle() else {
            return Ok(()); // Already reaped: nothing to adopt.
        };
        // SAFETY: both handles are open for the call (the job for the life
        // of the process, the child's while `child` is borrowed).
        let ok =
            unsafe { AssignProcessToJobObject(job.as_raw_handle() as HANDLE, process as HANDLE) };
        if ok == 0 {
            return Err(format!(
                "the server was not put in Airlock's job (it may outlive a killed Airlock): {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(())
    }

    pub(super) fn ask_to_stop(_child: &Child) -> bool {
        false
    }
}
