//! Reading an app's config file without trusting it, and replacing it
//! atomically (temporary file in the same folder, then rename) with the
//! same permissions.

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use airlock_platform::private_files;

use crate::{AppId, AppsError, Places};

/// Largest app config file Airlock edits, in bytes (Claude Code's
/// `~/.claude.json` also holds its project history and grows).
pub const MAX_APP_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// `app`'s config file as read: its text (None: it does not exist) and the
/// file that was read (a link resolved once, here).
pub(crate) struct AppConfig {
    pub(crate) text: Option<String>,
    /// Where a write goes: the very file the text came from, so a link
    /// swapped after this read cannot send the write elsewhere.
    pub(crate) target: PathBuf,
}

/// Read `app`'s config file, its link (if any) checked and resolved once.
pub(crate) fn read_app_config(app: AppId, places: &Places) -> Result<AppConfig, AppsError> {
    let path = app.config_path(places);
    let target = check_link(app, places, &path)?;
    let text = read_config(&target).map_err(|e| match e {
        AppsError::Unreadable { reason, .. } => AppsError::Unreadable {
            path: path.clone(),
            reason,
        },
        AppsError::Malformed { reason, .. } => AppsError::Malformed {
            path: path.clone(),
            reason,
        },
        other => other,
    })?;
    Ok(AppConfig { text, target })
}

/// A config file that is a symbolic link is followed (dotfile managers
/// link configs) only to a regular file inside the home folder that is not
/// another app's config: a link planted to make Airlock write into another
/// app's file, or outside the user's own files, is refused.
/// Returns the file to read and write: `path`, or the target of its link.
fn check_link(app: AppId, places: &Places, path: &Path) -> Result<PathBuf, AppsError> {
    let refuse = |reason: String| AppsError::Unreadable {
        path: path.to_owned(),
        reason,
    };
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {}
        _ => return Ok(path.to_owned()),
    }
    let target = match fs::canonicalize(path) {
        Ok(t) => t,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(refuse(
                "it is a symbolic link to a file that does not exist; Airlock does not create files through links".to_owned(),
            ))
        }
        Err(e) => return Err(refuse(e.to_string())),
    };
    let home = fs::canonicalize(&places.home).unwrap_or_else(|_| places.home.clone());
    if !target.starts_with(&home) {
        return Err(refuse(format!(
            "it is a symbolic link to {}, outside your home folder; Airlock does not follow it",
            target.display()
        )));
    }
    let other = crate::ALL_APPS.into_iter().filter(|a| *a != app).find(|a| {
        let p = a.config_path(places);
        fs::canonicalize(&p).is_ok_and(|c| c == target)
    });
    if let Some(other) = other {
        return Err(refuse(format!(
            "it is a symbolic link to {}, the config of {}; Airlock does not write one app's entry into another's file",
            target.display(),
            other.display_name()
        )));
    }
    Ok(target)
}

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
    // Read at most one byte past the limit: a file that grows between the
    // size check and the read is still bounded.
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(MAX_APP_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| unreadable(e.to_string()))?;
    if bytes.len() as u64 > MAX_APP_CONFIG_BYTES {
        return Err(unreadable(format!(
            "it is over {MAX_APP_CONFIG_BYTES} bytes, the most Airlock edits"
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| AppsError::Malformed {
            path: path.to_owned(),
            reason: "it is not UTF-8 text".to_owned(),
        })
}

/// Replace (or create) `target` (the file [`read_app_config`] read: a
/// link's target, so the link stays a link) with `text`: same permissions
/// as before, or private for a new file (0600; the current user alone on
/// Windows: airlock_platform::private_files; configs may hold API keys).
/// `path` names it in errors.
pub(crate) fn write_atomic(path: &Path, target: &Path, text: &str) -> Result<(), AppsError> {
    let target = target.to_owned();
    let failed = |e: std::io::Error| AppsError::Write {
        path: path.to_owned(),
        reason: e.to_string(),
    };
    let existed = fs::metadata(&target).is_ok();
    let dir = target.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(failed)?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.airlock-{}.tmp", std::process::id()));
    let written = (|| {
        let mut file =
            private_files::open(&temp, fs::OpenOptions::new().write(true).create_new(true))?;
        file.write_all(text.as_bytes())?;
        if existed {
            private_files::same_access(&target, &file, &temp)?;
        }
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
pub(crate) fn remove_config(path: &Path, target: &Path) -> Result<(), AppsError> {
    match fs::remove_file(target) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AppsError::Write {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// Write a private file (0600; the current user alone on Windows) in
/// Airlock's state folder.
pub(crate) fn write_private(path: &Path, text: &str) -> Result<(), AppsError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| AppsError::Write {
            path: dir.to_owned(),
            reason: e.to_string(),
        })?;
    }
    let _ = fs::remove_file(path);
    let mut file = private_files::open(path, fs::OpenOptions::new().write(true).create_new(true))
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

/// A private file of Airlock's own (a record, a backup), bounded; None when
/// it is missing, too large or not text.
pub(crate) fn read_private(path: &Path, max: u64) -> Option<String> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max {
        return None;
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .ok()?;
    if bytes.len() as u64 > max {
        return None;
    }
    String::from_utf8(bytes).ok()
}
