//! Files and folders only the current user may read and write: Airlock's
//! data folder, its database, locks, logs and records, and the files it
//! creates in other apps' folders (configs may hold API keys).
//!
//! - **Linux and macOS**: folders 0700, files 0600 (set at creation, so no
//!   other user can open them in between).
//! - **Windows**: a protected access control list with a single entry, full
//!   access for the current user (`D:P(A;OICI;FA;;;<user SID>)` on a folder,
//!   which its files and subfolders inherit; `D:P(A;;FA;;;<SID>)` on a
//!   file). Protected: the entries the profile folder passes down (SYSTEM,
//!   Administrators, sometimes Users) do not apply. Folders get it at
//!   creation (`CreateDirectoryW` with the descriptor), so a file created
//!   inside is private from its first moment; a file gets it again by name
//!   right after it is opened.
//!
//! Under Wine (the Windows check here), the list is kept as Unix mode bits:
//! an owner-only list reads back as `D:(A;;FA;;;SY)(A;;FA;;;<user SID>)`
//! (measured with Wine 8.0), which [`is_private`] counts as private: the
//! system account is the only other entry.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Create `dir` and its missing parents, each private; an existing folder
/// is left as it is.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    imp::create_dir(dir)
}

/// Make an existing folder private again (Linux and macOS: 0700 when any
/// group or other bit is set; `Ok(true)` when it had to be changed). A
/// folder owned by another user, or shared (the sticky bit of `/tmp`), is
/// refused (`PermissionDenied`): Airlock keeps nothing in a folder someone
/// else controls. Windows: checked at
/// creation only (`Ok(false)`).
pub fn make_dir_private(dir: &Path) -> io::Result<bool> {
    imp::make_dir_private(dir)
}

/// The current user's id (Linux and macOS: the effective uid).
#[cfg(unix)]
pub fn current_uid() -> u32 {
    imp::current_uid()
}

/// Open `path` with `options`; a file it creates is private. On Windows
/// the file is made private even when it existed (callers only open their
/// own files this way).
pub fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    imp::open(path, options)
}

/// Make an existing file private (Linux and macOS: 0600).
pub fn restrict(path: &Path) -> io::Result<()> {
    imp::restrict(path)
}

/// Give `to` (open as `to_file`, a file this process just created) the same
/// access as the existing file `from`: a config file replaced through a
/// temporary file keeps the permissions it had.
pub fn same_access(from: &Path, to_file: &File, to: &Path) -> io::Result<()> {
    imp::same_access(from, to_file, to)
}

/// Whether only the current user may read `path`: Linux and macOS, no
/// permission bit for group or others; Windows, every entry of its access
/// list that allows is for the current user or the system account (which
/// reads every file anyway).
pub fn is_private(path: &Path) -> io::Result<bool> {
    imp::is_private(path)
}

#[cfg(unix)]
mod imp {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    use std::path::Path;

    const DIR_MODE: u32 = 0o700;
    const FILE_MODE: u32 = 0o600;

    pub(super) fn create_dir(dir: &Path) -> io::Result<()> {
        if dir.is_dir() {
            return Ok(());
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(dir)?;
        // The umask may have taken bits off, never added any; said again
        // for the folder asked for.
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))
    }

    pub(super) fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
        options.mode(FILE_MODE).open(path)
    }

    pub(super) fn current_uid() -> u32 {
        // SAFETY: geteuid takes nothing, cannot fail and touches no memory.
        #[allow(unsafe_code, reason = "geteuid: no arguments, no failure")]
        unsafe {
            libc::geteuid()
        }
    }

    pub(super) fn make_dir_private(dir: &Path) -> io::Result<bool> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(dir)?;
        let me = current_uid();
        if meta.uid() != me {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} belongs to another user (uid {}, you are uid {me})",
                    dir.display(),
                    meta.uid()
                ),
            ));
        }
        if !meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a folder", dir.display()),
            ));
        }
        let mode = meta.permissions().mode();
        if mode & 0o1000 != 0 {
            // /tmp and the like: a folder others share, never Airlock's.
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is a folder other users share (sticky bit)",
                    dir.display()
                ),
            ));
        }
        if mode & 0o077 == 0 {
            return Ok(false);
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))?;
        Ok(true)
    }

    pub(super) fn restrict(path: &Path) -> io::Result<()> {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(FILE_MODE))
    }

    pub(super) fn same_access(from: &Path, to_file: &File, _to: &Path) -> io::Result<()> {
        let mode = std::fs::metadata(from)?.permissions().mode() & 0o7777;
        to_file.set_permissions(std::fs::Permissions::from_mode(mode))
    }

    pub(super) fn is_private(path: &Path) -> io::Result<bool> {
        Ok(std::fs::metadata(path)?.permissions().mode() & 0o077 == 0)
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::path::Path;

    use windows_sys::Win32::Foundation::ERROR_ALREADY_EXISTS;
    use windows_sys::Win32::Security::Authorization::{
        GetNamedSecurityInfoW, SetNamedSecurityInfoW, SE_FILE_OBJECT,
    };
    use windows_sys::Win32::Security::{
        GetSecurityDescriptorControl, ACL, DACL_SECURITY_INFORMATION,
        PROTECTED_DACL_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, SE_DACL_PROTECTED,
        UNPROTECTED_DACL_SECURITY_INFORMATION,
    };
    use windows_sys::Win32::Storage::FileSystem::CreateDirectoryW;

    use crate::current_user::{self, wide, Inherit, SecurityDescriptor};

    /// Most folders created in one call (a data dir nested this deep under
    /// an existing folder is refused rather than walked without end).
    const MAX_NEW_FOLDERS: usize = 64;

    pub(super) fn make_dir_private(_dir: &Path) -> io::Result<bool> {
        Ok(false)
    }

    pub(super) fn create_dir(dir: &Path) -> io::Result<()> {
        if dir.is_dir() {
            return Ok(());
        }
        let sd = SecurityDescriptor::owner_only(Inherit::ToChildren)?;
        let attributes = sd.attributes();
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(p) = at.filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
            if missing.len() >= MAX_NEW_FOLDERS {
                return Err(io::Error::other(format!(
                    "{} is more than {MAX_NEW_FOLDERS} folders below an existing one",
                    dir.display()
                )));
            }
            missing.push(p);
            at = p.parent();
        }
        for p in missing.into_iter().rev() {
            let name = wide(p.as_os_str());
            // SAFETY: `name` is NUL-terminated and `attributes` points at a
            // descriptor that outlives the call.
            if unsafe { CreateDirectoryW(name.as_ptr(), &attributes) } == 0 {
                let e = io::Error::last_os_error();
                // Created meanwhile by another process: fine if a folder.
                if e.raw_os_error() != Some(ERROR_ALREADY_EXISTS as i32) || !p.is_dir() {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    pub(super) fn open(path: &Path, options: &OpenOptions) -> io::Result<File> {
        let file = options.open(path)?;
        restrict(path)?;
        Ok(file)
    }

    pub(super) fn restrict(path: &Path) -> io::Result<()> {
        let sd = SecurityDescriptor::owner_only(Inherit::No)?;
        set_dacl(path, sd.dacl()?, true)
    }

    fn set_dacl(path: &Path, dacl: *mut ACL, protected: bool) -> io::Result<()> {
        let name = wide(path.as_os_str());
        let what = DACL_SECURITY_INFORMATION
            | if protected {
                PROTECTED_DACL_SECURITY_INFORMATION
            } else {
                UNPROTECTED_DACL_SECURITY_INFORMATION
            };
        // SAFETY: `name` is NUL-terminated; `dacl` points into a descriptor
        // the caller keeps alive for the call; the call only reads it.
        let status = unsafe {
            SetNamedSecurityInfoW(
                name.as_ptr(),
                SE_FILE_OBJECT,
                what,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                dacl,
                std::ptr::null(),
            )
        };
        if status != 0 {
            return Err(io::Error::from_raw_os_error(status as i32));
        }
        Ok(())
    }

    pub(super) fn same_access(from: &Path, _to_file: &File, to: &Path) -> io::Result<()> {
        let name = wide(from.as_os_str());
        let mut dacl: *mut ACL = std::ptr::null_mut();
        let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: `name` is NUL-terminated; the call allocates `sd` (and
        // points `dacl` inside it), owned by the guard below.
        let status = unsafe {
            GetNamedSecurityInfoW(
                name.as_ptr(),
                SE_FILE_OBJECT,
                DACL_SECURITY_INFORMATION,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut dacl,
                std::ptr::null_mut(),
                &mut sd,
            )
        };
        if status != 0 {
            return Err(io::Error::from_raw_os_error(status as i32));
        }
        // SAFETY: the call allocated `sd` with LocalAlloc; nobody else owns it.
        let sd = unsafe { SecurityDescriptor::from_local(sd) };
        let mut control = 0u16;
        let mut revision = 0u32;
        // SAFETY: a valid descriptor (the call above succeeded).
        if unsafe { GetSecurityDescriptorControl(sd.as_ptr(), &mut control, &mut revision) } == 0 {
            return Err(io::Error::last_os_error());
        }
        if dacl.is_null() {
            return Err(io::Error::other("the file has no access list to copy"));
        }
        // A list that inherits from its folder keeps inheriting: its
        // inherited entries come from the same folder again.
        set_dacl(to, dacl, control & SE_DACL_PROTECTED != 0)
    }

    pub(super) fn is_private(path: &Path) -> io::Result<bool> {
        let dacl = current_user::dacl_of_path(path)?;
        Ok(current_user::admits_only(&dacl, &current_user::current()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_files_created_here_are_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a").join("b");
        create_dir(&dir).unwrap();
        assert!(is_private(&dir).unwrap());
        assert!(is_private(&tmp.path().join("a")).unwrap(), "parents too");
        let file = dir.join("f");
        open(&file, OpenOptions::new().write(true).create_new(true)).unwrap();
        assert!(is_private(&file).unwrap());
        // Created again: an existing folder is left alone, no error.
        create_dir(&dir).unwrap();
    }

    /// What the system says of `path`'s access (for failure messages).
    fn access(path: &Path) -> String {
        #[cfg(windows)]
        return crate::current_user::dacl_of_path(path).unwrap_or_else(|e| e.to_string());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(path)
                .map(|m| format!("{:o}", m.permissions().mode() & 0o7777))
                .unwrap_or_else(|e| e.to_string())
        }
    }

    /// What the system reports for a folder and a file made private here
    /// (printed: under Wine, which keeps no access lists on files, this is
    /// the measurement the Windows check shows).
    #[test]
    fn what_the_system_reports_for_a_private_folder_and_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        create_dir(&dir).unwrap();
        let file = dir.join("f");
        open(&file, OpenOptions::new().write(true).create_new(true)).unwrap();
        restrict(&file).unwrap();
        for p in [&dir, &file] {
            println!("{}: private {}", p.display(), is_private(p).unwrap());
            #[cfg(windows)]
            println!(
                "  access list read back: {}",
                crate::current_user::dacl_of_path(p).unwrap()
            );
        }
    }

    #[test]
    fn a_replacement_keeps_the_access_of_the_file_it_replaces() {
        let tmp = tempfile::tempdir().unwrap();
        let old = tmp.path().join("old");
        std::fs::write(&old, b"x").unwrap();
        let was_private = is_private(&old).unwrap();
        let new = tmp.path().join("new");
        let file = open(&new, OpenOptions::new().write(true).create_new(true)).unwrap();
        assert!(is_private(&new).unwrap(), "{}", access(&new));
        same_access(&old, &file, &new).unwrap();
        assert_eq!(is_private(&new).unwrap(), was_private);
        restrict(&new).unwrap();
        assert!(is_private(&new).unwrap());
    }
}

#[cfg(all(test, unix))]
mod make_private_tests {
    use std::os::unix::fs::PermissionsExt;

    use super::make_dir_private;

    #[test]
    fn an_opened_folder_is_made_private_and_a_shared_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mode =
            |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(make_dir_private(dir.path()).unwrap(), "it had to change");
        assert_eq!(mode(dir.path()), 0o700);
        assert!(!make_dir_private(dir.path()).unwrap(), "private already");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let shared = make_dir_private(dir.path()).unwrap_err();
        assert_eq!(shared.kind(), std::io::ErrorKind::PermissionDenied);
        assert_eq!(mode(dir.path()), 0o1777, "a shared folder is left alone");
    }
}
