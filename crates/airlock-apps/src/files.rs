//! Reading an app's config file without trusting it, and replacing it
//! atomically (temporary file in the same folder, then rename) with the
//! same permissions.

use std::fs;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::AppsError;

/// Largest app config file Airlock edits, in bytes (Claude Code's
/// `~/.claude.json` also holds its project history and grows).
pub const MAX_APP_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Mode of files Airlock creates (configs and backups may hold API keys).
const NEW_FILE_MODE: u32 = 0o600;

/// The file's text, or None when it does not exist.
pub(crate) fn read_config(path: &Path) -> Result<Option<String>, AppsError> {
    let unreadable = |reason: String| AppsError::Unreadable {
        path: path.to_owned(),
        reason,
    };
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    if !meta.is_file() {
        return Err(unreadable("it is not a regular file".to_owned()));
    }
    if meta.len() > MAX_APP_CONFIG_BYTES {
        return Err(unreadable(format!(
            "it is {} bytes; Airlock edits files up to {MAX_APP_CONFIG_BYTES}",
            meta.len()
        )));
    }
    let bytes = fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| AppsError::Malformed {
            path: path.to_owned(),
            reason: "it is not UTF-8 text".to_owned(),
        })
}

/// Where a write really lands: the target of a symlink (dotfile managers
/// link configs), so the link stays a link.
fn write_target(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// Replace (or create) `path` with `text`: same permissions as before, or
/// 0600 for a new file.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<(), AppsError> {
    let target = write_target(path);
    let failed = |e: std::io::Error| AppsError::Write {
        path: path.to_owned(),
        reason: e.to_string(),
    };
    let mode = fs::metadata(&target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(NEW_FILE_MODE);
    let dir = target.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(failed)?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.airlock-{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(NEW_FILE_MODE)
            .open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.sync_all()?;
        fs::rename(&temp, &target)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(failed(e));
    }
    Ok(())
}

/// Remove a file Airlock created (disconnect of an app that had none).
pub(crate) fn remove_config(path: &Path) -> Result<(), AppsError> {
    match fs::remove_file(write_target(path)) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AppsError::Write {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// Write a private file (0600) in Airlock's state folder.
pub(crate) fn write_private(path: &Path, text: &str) -> Result<(), AppsError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| AppsError::Write {
            path: dir.to_owned(),
            reason: e.to_string(),
        })?;
    }
    let _ = fs::remove_file(path);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(NEW_FILE_MODE)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()).map(|()| f))
        .map_err(|e| AppsError::Write {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
    file.flush().map_err(|e| AppsError::Write {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}
