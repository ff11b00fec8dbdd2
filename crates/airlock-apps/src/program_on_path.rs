//! Whether a program is in a folder of `PATH`, the way the platform's shell
//! would find it.
//!
//! - **Linux and macOS**: a regular file of that name with an executable
//!   bit.
//! - **Windows**: a regular file of that name plus one of the extensions in
//!   `PATHEXT` (`.COM;.EXE;.BAT;.CMD` when unset): npm installs `claude.cmd`,
//!   an installer `Code.exe`'s `code.cmd`.

use std::path::Path;

/// Whether `dir` holds the program `name`.
pub(crate) fn in_folder(dir: &Path, name: &str) -> bool {
    imp::in_folder(dir, name)
}

#[cfg(unix)]
mod imp {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    pub(super) fn in_folder(dir: &Path, name: &str) -> bool {
        std::fs::metadata(dir.join(name))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
}

#[cfg(windows)]
mod imp {
    use std::path::Path;

    /// Longest `PATHEXT` read.
    const MAX_PATHEXT_ENTRIES: usize = 32;
    const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

    pub(super) fn in_folder(dir: &Path, name: &str) -> bool {
        let pathext = std::env::var("PATHEXT").unwrap_or_else(|_| DEFAULT_PATHEXT.to_owned());
        pathext
            .split(';')
            .filter(|e| e.starts_with('.') && e.len() > 1)
            .take(MAX_PATHEXT_ENTRIES)
            .any(|ext| {
                std::fs::metadata(dir.join(format!("{name}{ext}"))).is_ok_and(|m| m.is_file())
            })
    }
}
