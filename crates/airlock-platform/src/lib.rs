//! What differs between Linux, Windows and macOS and more than one Airlock
//! crate needs, each difference behind one module named for what it does,
//! with one implementation per platform chosen at compile time:
//!
//! - [`private_files`]: files and folders only the current user may read
//!   (Linux and macOS: modes 0600 and 0700; Windows: a protected access
//!   control list with one entry, the current user).
//! - [`process_lock`]: a lock file held while a process runs, with its pid
//!   readable by the others (Linux and macOS: `flock`; Windows: `LockFileEx`
//!   on a byte far past the pid, since Windows locks are mandatory and a
//!   lock over the pid would keep the others from reading it).
//! - [`folders`]: where Airlock keeps its data by default and where the
//!   user's home is (Linux: XDG; Windows: `%LOCALAPPDATA%`, `%USERPROFILE%`;
//!   macOS: `~/Library/Application Support`).
//! - `current_user` (Windows only): the current user's SID and security
//!   descriptors that admit that user alone, for the private files here and
//!   the gateway's named pipe.
//!
//! Each module's documentation says what each platform does. Linux is built
//! and tested on every change; Windows is cross-built and its tests run
//! under Wine (`scripts/test-windows.sh`); macOS is compile-checked only
//! (`scripts/check-macos.sh`).

#[cfg(windows)]
pub mod current_user;
pub mod folders;
pub mod private_files;
pub mod process_lock;
