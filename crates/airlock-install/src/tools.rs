//! The programs an install needs, found on the PATH once: their absolute
//! paths go into a server's command (so a later change of PATH does not
//! change what runs).

use std::path::{Path, PathBuf};

/// Absolute paths of the tools found (`None`: not on the PATH).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tools {
    pub node: Option<PathBuf>,
    pub npm: Option<PathBuf>,
    pub python: Option<PathBuf>,
}

impl Tools {
    /// Look the tools up on `PATH`.
    pub fn find() -> Tools {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
        Tools {
            node: on_path(&dirs, "node"),
            npm: on_path(&dirs, "npm"),
            python: on_path(&dirs, "python3").or_else(|| on_path(&dirs, "python")),
        }
    }
}

fn on_path(dirs: &[PathBuf], name: &str) -> Option<PathBuf> {
    dirs.iter()
        .filter(|d| d.is_absolute())
        .map(|d| d.join(exe(name)))
        .find(|p| is_executable(p))
}

#[cfg(windows)]
fn exe(name: &str) -> String {
    format!("{name}.exe")
}

#[cfg(not(windows))]
fn exe(name: &str) -> String {
    name.to_owned()
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}
