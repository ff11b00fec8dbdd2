//! What Airlock remembers about a connection, so that disconnecting puts
//! back what Airlock took and nothing else: `<state>/apps/<app>.json`
//! (0600). It holds no secret value: the entries Airlock moved or replaced
//! are kept with their secrets cut out ([`Kept`]), the values in the OS
//! keychain; the backup of the file before the first connect has them
//! masked ([`Mask`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::files::{read_private, write_private};
use crate::kept::{self, Kept, Mask, Pending};
use crate::{AppId, AppsError, Places};

/// Largest record Airlock reads back, in bytes (its own file; a bigger one
/// was not written by Airlock and counts as none).
pub(crate) const MAX_RECORD_BYTES: u64 = 4 * 1024 * 1024;

/// The file as it was before the first connect.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Original {
    /// Its copy in the backups folder, secrets masked; None: there was no
    /// file (disconnect then removes the one Airlock created).
    pub(crate) backup: Option<PathBuf>,
    /// SHA-256 of the real text, to check an unmasked backup against.
    #[serde(default)]
    pub(crate) sha256: String,
    #[serde(default)]
    pub(crate) masks: Vec<Mask>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Record {
    pub(crate) original: Original,
    /// True while every Airlock write started from the text Airlock wrote
    /// before it: only then is "the file as Airlock last wrote it, minus
    /// Airlock's changes" the original backup, byte for byte.
    #[serde(default)]
    pub(crate) chain_intact: bool,
    /// SHA-256 of the text Airlock wrote last.
    pub(crate) written_sha256: String,
    /// The `airlock` entry Airlock wrote last (to tell a user's edit).
    #[serde(default)]
    pub(crate) entry: Option<Value>,
    /// An entry named `airlock` that was there before and was not Airlock's.
    #[serde(default)]
    pub(crate) previous_entry: Option<Kept>,
    /// Servers moved into Airlock, put back on disconnect.
    #[serde(default)]
    pub(crate) moved: Vec<Kept>,
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

/// The record, if any. A record of an older Airlock (servers moved with
/// their values, one backup whatever happened since) or a broken one
/// counts as none: disconnect then removes Airlock's entry and keeps the
/// rest as it is.
pub(crate) fn load(places: &Places, app: AppId) -> Option<Record> {
    let text = read_private(&record_path(places, app), MAX_RECORD_BYTES)?;
    serde_json::from_str(&text).ok()
}

pub(crate) fn save(places: &Places, app: AppId, record: &Record) -> Result<(), AppsError> {
    let text = serde_json::to_string_pretty(record).map_err(|e| AppsError::Write {
        path: record_path(places, app),
        reason: e.to_string(),
    })?;
    write_private(&record_path(places, app), &text)
}

pub(crate) fn forget(places: &Places, app: AppId) {
    let _ = std::fs::remove_file(record_path(places, app));
}

/// Copy `text` (the file before a change, secrets already masked) into
/// the backups folder.
pub(crate) fn backup(places: &Places, app: AppId, text: &str) -> Result<PathBuf, AppsError> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let path = places
        .apps_dir()
        .join("backups")
        .join(format!("{app}-{stamp}.bak"));
    write_private(&path, text)?;
    Ok(path)
}

pub(crate) fn read_backup(path: &Path) -> Option<String> {
    read_private(path, crate::files::MAX_APP_CONFIG_BYTES)
}

/// Mask `secrets` in every backup of `app` already in the backups folder (a
/// server moved now may sit in a backup an earlier change made); returns
/// the masks made per file.
pub(crate) fn remask_backups(
    places: &Places,
    app: AppId,
    secrets: &[Pending],
) -> Result<Vec<(PathBuf, Vec<Mask>)>, AppsError> {
    let mut out = Vec::new();
    let dir = places.apps_dir().join("backups");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(out);
    };
    let prefix = format!("{app}-");
    for entry in entries.flatten() {
        let path = entry.path();
        let ours = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".bak"));
        if !ours {
            continue;
        }
        let Some(text) = read_backup(&path) else {
            continue;
        };
        let (masked, masks) = kept::mask(&text, secrets);
        if !masks.is_empty() {
            write_private(&path, &masked)?;
            out.push((path, masks));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_up_to_the_bound_is_read_and_a_bigger_one_counts_as_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        let places = Places {
            home: dir.path().to_owned(),
            xdg_config_home: None,
            app_data: None,
            state_dir: dir.path().join("data"),
            app_homes: Default::default(),
        };
        let rec = Record {
            written_sha256: "abc".into(),
            ..Record::default()
        };
        save(&places, AppId::Cursor, &rec).expect("save");
        let path = record_path(&places, AppId::Cursor);
        let text = std::fs::read_to_string(&path).expect("read");
        let pad = MAX_RECORD_BYTES as usize - text.len();
        std::fs::write(&path, format!("{text}{}", " ".repeat(pad))).expect("pad");
        assert_eq!(load(&places, AppId::Cursor), Some(rec));
        std::fs::write(&path, format!("{text}{}", " ".repeat(pad + 1))).expect("pad");
        assert_eq!(load(&places, AppId::Cursor), None);
    }
}
