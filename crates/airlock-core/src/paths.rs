//! Where Airlock keeps its data: the platform default, overridable with
//! `--data-dir` or `AIRLOCK_DATA_DIR`.

use std::path::PathBuf;

pub const DATA_DIR_ENV: &str = "AIRLOCK_DATA_DIR";

/// `explicit` (a `--data-dir` flag) wins, then `AIRLOCK_DATA_DIR`, then the
/// platform's data dir (airlock_platform::folders: `~/.local/share/airlock`
/// on Linux, `%LOCALAPPDATA%\Airlock` on Windows, `~/Library/Application
/// Support/Airlock` on macOS).
pub fn resolve_data_dir(explicit: Option<PathBuf>) -> PathBuf {
    if let Some(p) = explicit {
        return p;
    }
    if let Some(p) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    airlock_platform::folders::default_data_dir().unwrap_or_else(|| PathBuf::from(".airlock"))
}
