//! What Airlock remembers about a connection, so that disconnecting puts
//! back what was there: `<state>/apps/<app>.json` (0600) and the backup of
//! the file as it was before the first connect.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::files::write_private;
use crate::{AppId, AppsError, Places};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Record {
    /// Copy of the file before the first connect; None: there was no file.
    pub(crate) backup: Option<PathBuf>,
    /// SHA-256 of the text Airlock wrote last: when the file still has it,
    /// disconnect restores the backup byte for byte.
    pub(crate) written_sha256: String,
    /// An entry named `airlock` that was there before and was not Airlock's.
    pub(crate) previous_entry: Option<Value>,
    /// Servers moved into Airlock, put back on disconnect.
    #[serde(default)]
    pub(crate) moved: Vec<(String, Value)>,
}

pub(crate) fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn record_path(places: &Places, app: AppId) -> PathBuf {
    places.apps_dir().join(format!("{app}.json"))
}

/// The record, if any; a broken record counts as none (disconnect then
/// only removes Airlock's entry).
pub(crate) fn load(places: &Places, app: AppId) -> Option<Record> {
    let text = std::fs::read_to_string(record_path(places, app)).ok()?;
    serde_json::from_str(&text).ok()
}

pub(crate) fn save(places: &Places, app: AppId, record: &Record) -> Result<(), AppsError> {
    let text = serde_json::to_string_pretty(record).unwrap_or_default();
    write_private(&record_path(places, app), &text)
}

pub(crate) fn forget(places: &Places, app: AppId) {
    let _ = std::fs::remove_file(record_path(places, app));
}

/// Copy `text` (the file before a change) into the backups folder.
pub(crate) fn backup(places: &Places, app: AppId, text: &str) -> Result<PathBuf, AppsError> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let path = places
        .apps_dir()
        .join("backups")
        .join(format!("{app}-{stamp}.bak"));
    write_private(&path, text)?;
    Ok(path)
}

pub(crate) fn read_backup(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}
