//! Where Airlock keeps its data by default, and where the user's home is.
//!
//! | | data folder (`--data-dir` / `AIRLOCK_DATA_DIR` override it) | home |
//! |---|---|---|
//! | Linux | `$XDG_DATA_HOME/airlock` (`~/.local/share/airlock`) | `$HOME` |
//! | Windows | `%LOCALAPPDATA%\Airlock` (local, not roaming: a database and its locks) | `%USERPROFILE%` |
//! | macOS | `~/Library/Application Support/Airlock` | `$HOME` |

use std::path::PathBuf;

/// The variable that names the user's home folder here.
#[cfg(not(windows))]
pub const HOME_VARIABLE: &str = "HOME";
/// The variable that names the user's home folder here.
#[cfg(windows)]
pub const HOME_VARIABLE: &str = "USERPROFILE";

/// Airlock's data folder when nothing else is said (`None`: the platform
/// has no home to put it in).
pub fn default_data_dir() -> Option<PathBuf> {
    imp::default_data_dir()
}

/// The user's home folder from the environment ([`HOME_VARIABLE`]; empty
/// counts as unset).
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os(HOME_VARIABLE)
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(target_os = "linux")]
mod imp {
    pub(super) fn default_data_dir() -> Option<std::path::PathBuf> {
        dirs::data_dir().map(|d| d.join("airlock"))
    }
}

#[cfg(windows)]
mod imp {
    pub(super) fn default_data_dir() -> Option<std::path::PathBuf> {
        dirs::data_local_dir().map(|d| d.join("Airlock"))
    }
}

#[cfg(target_os = "macos")]
mod imp {
    pub(super) fn default_data_dir() -> Option<std::path::PathBuf> {
        dirs::data_dir().map(|d| d.join("Airlock"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_data_folder_is_the_platforms() {
        let dir = super::default_data_dir().expect("a data folder");
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
        assert!(name.eq_ignore_ascii_case("airlock"), "{}", dir.display());
    }
}
