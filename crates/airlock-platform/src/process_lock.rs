//! A lock file held for as long as a process runs, with the holder's pid
//! inside for the others to read: one gateway host per data folder
//! (`gateway.lock`), one successor taking over (`gateway.next.lock`). The
//! system releases the lock however the process ends (killed included), so
//! a lock nobody holds is a process that is gone.
//!
//! - **Linux and macOS**: an advisory `flock` over the file (std's
//!   `File::try_lock`); anyone may read the pid while it is held.
//! - **Windows**: `LockFileEx` on one byte at [`WINDOWS_LOCK_OFFSET`], far
//!   past the pid. Windows locks are mandatory: std's `File::try_lock`
//!   locks the whole file, and then nobody else could read the pid.
//!
//! The file is private ([`crate::private_files`]). Runs of Airlock
//! (airlock-core's `runs/`) lock their own empty files with std's
//! `File::try_lock`, which is the same on every platform since nobody reads
//! them.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Where the Windows lock sits: byte 2^32 of the file (locks may lie past
/// its end), never where the pid is written.
pub const WINDOWS_LOCK_OFFSET: u64 = 1 << 32;
/// Longest pid text read back (a u32 has at most 10 digits).
const MAX_PID_BYTES: u64 = 32;

/// The lock, held until dropped; dropping empties the file and releases it.
#[derive(Debug)]
pub struct PidLock {
    file: File,
}

impl PidLock {
    /// Take the lock at `path` (a private file, created if missing) and
    /// write this process's pid in it. `Ok(None)`: another process holds it.
    pub fn take(path: &Path) -> io::Result<Option<PidLock>> {
        let mut file = crate::private_files::open(
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )?;
        if !imp::try_lock(&file, true)? {
            return Ok(None);
        }
        let _ = file.set_len(0);
        let _ = file.seek(SeekFrom::Start(0));
        let _ = write!(file, "{}", std::process::id());
        let _ = file.flush();
        Ok(Some(PidLock { file }))
    }

    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Drop for PidLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        imp::unlock(&self.file);
    }
}

/// The pid written in the lock file at `path`, while a process holds it.
pub fn holder(path: &Path) -> Option<u32> {
    let mut file = OpenOptions::new().read(true).open(path).ok()?;
    match imp::try_lock(&file, false) {
        // Nobody holds it.
        Ok(true) => {
            imp::unlock(&file);
            None
        }
        Ok(false) => {
            let mut text = String::new();
            (&mut file)
                .take(MAX_PID_BYTES)
                .read_to_string(&mut text)
                .ok()?;
            text.trim().parse().ok()
        }
        Err(_) => None,
    }
}

#[cfg(unix)]
mod imp {
    use std::fs::{File, TryLockError};
    use std::io;

    /// `Ok(false)`: held by another open file.
    pub(super) fn try_lock(file: &File, exclusive: bool) -> io::Result<bool> {
        let taken = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        match taken {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    pub(super) fn unlock(file: &File) {
        let _ = file.unlock();
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::File;
    use std::io;
    use std::os::windows::io::AsRawHandle;

    use windows_sys::Win32::Foundation::{ERROR_IO_PENDING, ERROR_LOCK_VIOLATION, HANDLE};
    use windows_sys::Win32::Storage::FileSystem::{
        LockFileEx, UnlockFileEx, LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY,
    };
    use windows_sys::Win32::System::IO::OVERLAPPED;

    use super::WINDOWS_LOCK_OFFSET;

    fn at_lock_byte() -> OVERLAPPED {
        // SAFETY: OVERLAPPED is plain data; all zeroes is its initial state.
        let mut o: OVERLAPPED = unsafe { std::mem::zeroed() };
        o.Anonymous.Anonymous.Offset = WINDOWS_LOCK_OFFSET as u32;
        o.Anonymous.Anonymous.OffsetHigh = (WINDOWS_LOCK_OFFSET >> 32) as u32;
        o
    }

    pub(super) fn try_lock(file: &File, exclusive: bool) -> io::Result<bool> {
        let mut flags = LOCKFILE_FAIL_IMMEDIATELY;
        if exclusive {
            flags |= LOCKFILE_EXCLUSIVE_LOCK;
        }
        let mut o = at_lock_byte();
        // SAFETY: a handle std keeps open (synchronous, so the call
        // completes before returning and `o` outlives it); one byte locked.
        let ok = unsafe { LockFileEx(file.as_raw_handle() as HANDLE, flags, 0, 1, 0, &mut o) };
        if ok != 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error().map(|c| c as u32) {
            Some(ERROR_LOCK_VIOLATION | ERROR_IO_PENDING) => Ok(false),
            _ => Err(e),
        }
    }

    pub(super) fn unlock(file: &File) {
        let mut o = at_lock_byte();
        // SAFETY: as in `try_lock`; unlocking a byte not locked only fails.
        unsafe { UnlockFileEx(file.as_raw_handle() as HANDLE, 0, 1, 0, &mut o) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_its_pid_is_readable_meanwhile() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("x.lock");
        assert_eq!(holder(&path), None, "no file");
        let lock = PidLock::take(&path).unwrap().expect("free");
        assert_eq!(holder(&path), Some(std::process::id()));
        // A second open file of the same process is refused as another
        // process would be (flock and LockFileEx are per open file).
        assert!(PidLock::take(&path).unwrap().is_none());
        drop(lock);
        assert_eq!(holder(&path), None, "released");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "", "emptied");
        let again = PidLock::take(&path).unwrap().expect("free again");
        assert_eq!(holder(&path), Some(std::process::id()));
        drop(again);
    }
}
