//! Connect and disconnect, planned (text before, after, diff) then applied.
//!
//! Disconnect puts back only what Airlock took: Airlock's entry goes, the
//! entry it replaced and the servers it moved come back (their secrets from
//! the keychain), and everything the user or the app changed since stays.
//! The whole backup comes back byte for byte only when the file is exactly
//! what Airlock wrote last and every Airlock write started from Airlock's
//! own previous text (nobody else wrote in between).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::doc::Doc;
use crate::entry::{as_entry, as_value, desired_entry, importable, is_gateway};
use crate::files::{read_app_config, remove_config, write_atomic};
use crate::kept::{self, Pending};
use crate::record::{self, sha256, Original, Record};
use crate::vault::{Keeper, Secret};
use crate::{check_program, AppId, AppsError, Places, ENTRY_NAME};

/// Most secret values one connect files in the keychain (env values and
/// secret-looking fields of the servers it moves): each is a keychain
/// entry, and a config stuffed with thousands is refused, not obeyed.
pub const MAX_MOVED_SECRETS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Connect,
    Disconnect,
}

/// A server taken out of an app's config, to be imported into Airlock.
#[derive(Clone, Serialize)]
pub struct MovedServer {
    pub name: String,
    /// The entry as the app had it (secrets included: never serialized).
    #[serde(skip)]
    pub entry: Value,
}

/// A change to one app's config, not yet written. Its texts hold the
/// app's secrets and are never serialized; the diff shows them as
/// `[secret]`.
#[derive(Clone, Serialize)]
pub struct Change {
    pub app: AppId,
    pub action: Action,
    pub path: PathBuf,
    /// The file now (None: there is none).
    #[serde(skip)]
    pub before: Option<String>,
    /// The file after the change (None: removed).
    #[serde(skip)]
    pub after: Option<String>,
    /// Unified diff from `before` to `after` (empty when nothing changes).
    pub diff: String,
    /// Servers this connect moves into Airlock.
    pub moved: Vec<MovedServer>,
    /// Things the user should know before saying yes.
    pub notes: Vec<String>,
    #[serde(skip)]
    record: Option<Record>,
    /// The record starts with this connect (its backup is the original).
    #[serde(skip)]
    fresh_record: bool,
    /// Secrets to file in the vault before anything is written.
    #[serde(skip)]
    pending: Vec<Pending>,
    /// Vault references no longer needed once the change is written.
    #[serde(skip)]
    retire: Vec<String>,
}

/// What [`apply`] did.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// The copy of the file as it was (secrets of moved servers masked),
    /// when there was one.
    pub backup: Option<PathBuf>,
}

/// One app as the Apps page and `airlock apps available` show it.
#[derive(Debug, Clone, Serialize)]
pub struct AppStatus {
    pub app: AppId,
    pub name: &'static str,
    pub path: PathBuf,
    /// One of the app's programs is on PATH.
    pub installed: bool,
    /// The app's config file or its folder exists.
    pub config_found: bool,
    /// Installed or config found.
    pub detected: bool,
    /// The config has Airlock's gateway entry.
    pub connected: bool,
    /// ... with this airlock program and this app's name in Airlock.
    pub up_to_date: bool,
    /// Why the config cannot be read or edited, if so.
    pub problem: Option<String>,
}

// By hand: the texts and entries hold the app's secrets, and a Debug
// print ends up in logs and panic messages.
impl std::fmt::Debug for MovedServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MovedServer")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Change")
            .field("app", &self.app)
            .field("action", &self.action)
            .field("path", &self.path)
            .field("diff", &self.diff)
            .field("moved", &self.moved)
            .field("notes", &self.notes)
            .finish_non_exhaustive()
    }
}

impl Change {
    pub fn changes_nothing(&self) -> bool {
        self.before == self.after
    }

    /// The moved servers as a config Airlock's import reads
    /// (`{"mcpServers": ...}`), or None when nothing moves. It holds the
    /// servers' secrets: hand it to the import only.
    pub fn moved_as_import(&self) -> Option<String> {
        if self.moved.is_empty() {
            return None;
        }
        let servers: Map<String, Value> = self
            .moved
            .iter()
            .filter_map(|m| Some((m.name.clone(), importable(self.app, &m.entry)?)))
            .collect();
        serde_json::to_string_pretty(&json!({ "mcpServers": servers })).ok()
    }
}

fn malformed(path: &Path) -> impl FnOnce(String) -> AppsError + '_ {
    move |reason| AppsError::Malformed {
        path: path.to_owned(),
        reason,
    }
}

fn render(doc: &Doc, path: &Path, notes: &mut Vec<String>) -> String {
    let (text, lost) = doc.render();
    if lost {
        notes.push(format!(
            "{} is laid out in a way Airlock's line-by-line edit does not follow (flow style or anchors): it is written out whole, and its comments are not kept",
            path.display()
        ));
    }
    text
}

/// Plan connecting `app` to Airlock's gateway at `program` (absolute).
/// With `move_servers`, the app's other servers leave its config and are
/// listed in [`Change::moved`] for Airlock to import first; their secrets
/// go to the keychain when the change is applied.
pub fn plan_connect(
    app: AppId,
    places: &Places,
    program: &Path,
    move_servers: bool,
    keeper: Keeper<'_>,
) -> Result<Change, AppsError> {
    check_program(program)?;
    let path = app.config_path(places);
    let before = read_app_config(app, places)?.text;
    let mut doc = Doc::parse(app.format(), before.as_deref()).map_err(malformed(&path))?;
    let desired = desired_entry(app, program);
    let existing = doc.get(ENTRY_NAME);
    let loaded = record::load(places, app);
    let mut retire = Vec::new();
    let (mut record, fresh) = match (&existing, loaded) {
        (Some(e), Some(r)) if is_gateway(e) => (r, false),
        (_, stale) => {
            // A record whose entry is gone is stale: this connect starts afresh.
            if let Some(old) = stale {
                retire.extend(references(&old));
            }
            (
                Record {
                    chain_intact: true,
                    ..Record::default()
                },
                true,
            )
        }
    };
    if !fresh && before.as_deref().map(sha256).as_ref() != Some(&record.written_sha256) {
        // Someone else wrote since Airlock did: the first backup no longer
        // is this file minus Airlock's changes.
        record.chain_intact = false;
    }
    let mut notes = Vec::new();
    let mut pending = Vec::new();
    if let Some(old) = existing.as_ref().filter(|e| !is_gateway(e)) {
        let (kept, secrets) = kept::split(app.as_str(), ENTRY_NAME, old, keeper.detector);
        record.previous_entry = Some(kept);
        pending.extend(secrets);
        notes.push(format!(
            "{path} already has an entry named \"{ENTRY_NAME}\" that is not Airlock's gateway: it is replaced, and disconnecting puts it back",
            path = path.display()
        ));
    }
    let mut changed = false;
    if existing.as_ref() != Some(&as_value(&desired)) {
        doc.set(ENTRY_NAME, &desired);
        changed = true;
    }
    record.entry = Some(as_value(&desired));
    let moved = if move_servers {
        take_servers(app, &mut doc, &mut notes)
    } else {
        Vec::new()
    };
    for m in &moved {
        let (kept, secrets) = kept::split(app.as_str(), &m.name, &m.entry, keeper.detector);
        if let Some(i) = record.moved.iter().position(|k| k.name == m.name) {
            let old = record.moved.remove(i);
            retire.extend(old.secrets.iter().map(|s| s.reference.clone()));
        }
        record.moved.push(kept);
        pending.extend(secrets);
    }
    if pending.len() > MAX_MOVED_SECRETS {
        return Err(AppsError::Malformed {
            path,
            reason: format!(
                "its servers to move hold {} secret values; Airlock moves at most {MAX_MOVED_SECRETS} at once into the OS keychain",
                pending.len()
            ),
        });
    }
    changed |= !moved.is_empty();
    let after = if changed {
        Some(render(&doc, &path, &mut notes))
    } else {
        before.clone()
    };
    record.written_sha256 = after.as_deref().map(sha256).unwrap_or_default();
    let shown: Vec<Secret> = pending.iter().map(|p| p.value.clone()).collect();
    let mut change = finish(app, Action::Connect, path, before, after, &shown, notes);
    change.moved = moved;
    change.record = Some(record);
    change.fresh_record = fresh;
    change.pending = pending;
    change.retire = retire;
    Ok(change)
}

fn references(record: &Record) -> Vec<String> {
    record
        .previous_entry
        .iter()
        .chain(record.moved.iter())
        .flat_map(|k| k.secrets.iter().map(|s| s.reference.clone()))
        .chain(record.original.masks.iter().map(|m| m.reference.clone()))
        .collect()
}

fn take_servers(app: AppId, doc: &mut Doc, notes: &mut Vec<String>) -> Vec<MovedServer> {
    let mut moved = Vec::new();
    for (name, entry) in doc.entries() {
        if name == ENTRY_NAME || is_gateway(&entry) {
            continue;
        }
        if importable(app, &entry).is_some() {
            doc.remove(&name);
            moved.push(MovedServer { name, entry });
        } else {
            notes.push(format!(
                "\"{name}\" stays in {}: Airlock cannot run it (not a command or URL server)",
                app.display_name()
            ));
        }
    }
    moved
}

/// The file as it was before the first connect.
enum Restore {
    /// This text, byte for byte, and the secrets filled back into it.
    Text(String, Vec<Secret>),
    /// There was no file: remove the one Airlock created.
    Remove,
}

/// The original file back, byte for byte, when the file is exactly what
/// Airlock wrote last and nobody else wrote between Airlock's writes.
fn whole_backup(record: &Record, text: &str, keeper: Keeper<'_>) -> Option<Restore> {
    if !record.chain_intact || record.written_sha256 != sha256(text) {
        return None;
    }
    let original = &record.original;
    let Some(backup) = &original.backup else {
        return original.sha256.is_empty().then_some(Restore::Remove);
    };
    let masked = record::read_backup(backup)?;
    let (restored, secrets) = kept::unmask(&masked, &original.masks, keeper.vault)?;
    (sha256(&restored) == original.sha256).then_some(Restore::Text(restored, secrets))
}

/// Plan disconnecting `app`: Airlock's entry goes, and what it replaced or
/// moved comes back (secrets from the keychain) where the names are still
/// free; the user's later edits stay. See the module comment for when the
/// whole backup comes back instead.
pub fn plan_disconnect(
    app: AppId,
    places: &Places,
    keeper: Keeper<'_>,
) -> Result<Change, AppsError> {
    let path = app.config_path(places);
    let before = read_app_config(app, places)?.text;
    let saved = record::load(places, app);
    let retire = saved.as_ref().map(references).unwrap_or_default();
    let mut notes = Vec::new();
    let Some(text) = before.as_deref() else {
        if saved.as_ref().is_some_and(|r| !r.moved.is_empty()) {
            notes.push(format!(
                "{} is gone, so the servers Airlock moved out of it are not put back; they stay in Airlock",
                path.display()
            ));
        }
        let mut change = finish(app, Action::Disconnect, path, None, None, &[], notes);
        change.retire = retire;
        return Ok(change);
    };
    if let Some(restore) = saved.as_ref().and_then(|r| whole_backup(r, text, keeper)) {
        let (after, secrets) = match restore {
            Restore::Text(t, secrets) => (Some(t), secrets),
            Restore::Remove => (None, Vec::new()),
        };
        let mut change = finish(
            app,
            Action::Disconnect,
            path,
            before,
            after,
            &secrets,
            notes,
        );
        change.retire = retire;
        return Ok(change);
    }
    let mut doc = Doc::parse(app.format(), Some(text)).map_err(malformed(&path))?;
    let shown_path = path.display().to_string();
    let mut edited = false;
    match doc.get(ENTRY_NAME) {
        Some(entry) if is_gateway(&entry) => {
            if saved
                .as_ref()
                .and_then(|r| r.entry.as_ref())
                .is_some_and(|written| *written != entry)
            {
                notes.push(format!(
                    "Airlock's entry in {shown_path} was changed since Airlock wrote it; it is removed with that change (the file as it is now is kept as a backup)"
                ));
            }
            doc.remove(ENTRY_NAME);
            edited = true;
        }
        Some(_) => notes.push(format!(
            "the entry named \"{ENTRY_NAME}\" in {shown_path} is not Airlock's gateway (yours, or changed since): left as it is"
        )),
        None if saved.is_some() => notes.push(format!(
            "Airlock's entry is no longer in {shown_path} (removed by hand?): nothing to remove"
        )),
        None => {}
    }
    let mut shown: Vec<Secret> = Vec::new();
    if let Some(rec) = &saved {
        let mut put_back = |doc: &mut Doc, kept: &kept::Kept, notes: &mut Vec<String>| {
            let joined = kept::join(kept, keeper.vault);
            doc.set(&kept.name, &as_entry(&joined.entry));
            for (label, why) in joined.missing {
                notes.push(format!(
                    "\"{}\" is put back without its {label}: {why}. Set it again in {}",
                    kept.name,
                    app.display_name()
                ));
            }
            shown.extend(joined.values);
            edited = true;
        };
        if let Some(prev) = &rec.previous_entry {
            if doc.get(ENTRY_NAME).is_none() {
                put_back(&mut doc, prev, &mut notes);
            } else {
                notes.push(format!(
                    "the earlier entry named \"{ENTRY_NAME}\" that Airlock replaced is not put back: that name is taken"
                ));
            }
        }
        for kept in &rec.moved {
            if doc.get(&kept.name).is_none() {
                put_back(&mut doc, kept, &mut notes);
            } else {
                notes.push(format!(
                    "\"{}\" is in {} again: yours is kept, and the copy Airlock moved stays in Airlock",
                    kept.name,
                    app.display_name()
                ));
            }
        }
    }
    let after = if edited {
        Some(render(&doc, &path, &mut notes))
    } else {
        before.clone()
    };
    let mut change = finish(app, Action::Disconnect, path, before, after, &shown, notes);
    change.retire = retire;
    Ok(change)
}

fn finish(
    app: AppId,
    action: Action,
    path: PathBuf,
    before: Option<String>,
    after: Option<String>,
    secrets: &[Secret],
    notes: Vec<String>,
) -> Change {
    let diff = kept::redact(
        &unified_diff(&path, before.as_deref(), after.as_deref()),
        secrets,
    );
    Change {
        app,
        action,
        path,
        before,
        after,
        diff,
        moved: Vec::new(),
        notes,
        record: None,
        fresh_record: false,
        pending: Vec::new(),
        retire: Vec::new(),
    }
}

fn unified_diff(path: &Path, before: Option<&str>, after: Option<&str>) -> String {
    if before == after {
        return String::new();
    }
    let shown = path.display().to_string();
    let old_name = if before.is_some() {
        shown.as_str()
    } else {
        "/dev/null"
    };
    let new_name = if after.is_some() {
        shown.as_str()
    } else {
        "/dev/null"
    };
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

/// Write a planned change: only if the file is still what the plan was made
/// from; the moved servers' secrets into the vault first (a keychain that
/// refuses stops everything before a byte is written); then the backup
/// (those secrets masked), the record, and the new text atomically (or the
/// file removed when Airlock had created it).
pub fn apply(change: &Change, places: &Places, keeper: Keeper<'_>) -> Result<Applied, AppsError> {
    let now = read_app_config(change.app, places)?;
    if now.text != change.before {
        return Err(AppsError::ChangedSinceShown {
            path: change.path.clone(),
        });
    }
    if change.changes_nothing() {
        if change.action == Action::Disconnect {
            record::forget(places, change.app);
            retire(&change.retire, keeper);
        }
        return Ok(Applied { backup: None });
    }
    let mut stored = Vec::new();
    for p in &change.pending {
        if let Err(e) = keeper.vault.store(&p.reference, &p.value.0) {
            retire(&stored, keeper);
            return Err(AppsError::Vault {
                app: change.app.display_name(),
                reason: e.to_string(),
            });
        }
        stored.push(p.reference.clone());
    }
    let backup = match &change.before {
        Some(text) => {
            let (masked, masks) = kept::mask(text, &change.pending);
            Some((record::backup(places, change.app, &masked)?, masks))
        }
        None => None,
    };
    // A server moved now may sit, secrets and all, in a backup of an
    // earlier change (a connect without --move-servers): mask it there too.
    let remasked = if change.pending.is_empty() {
        Vec::new()
    } else {
        record::remask_backups(places, change.app, &change.pending)?
    };
    if let Some(planned) = &change.record {
        let mut rec = planned.clone();
        if let Some(original) = &rec.original.backup {
            for (path, masks) in &remasked {
                if path == original {
                    rec.original.masks.extend(masks.iter().cloned());
                }
            }
        }
        if change.fresh_record {
            rec.original = match (&backup, &change.before) {
                (Some((path, masks)), Some(text)) => Original {
                    backup: Some(path.clone()),
                    sha256: sha256(text),
                    masks: masks.clone(),
                },
                _ => Original::default(),
            };
        }
        record::save(places, change.app, &rec)?;
    }
    match &change.after {
        Some(text) => write_atomic(&change.path, &now.target, text)?,
        None => remove_config(&change.path, &now.target)?,
    }
    if change.action == Action::Disconnect {
        record::forget(places, change.app);
    }
    retire(&change.retire, keeper);
    Ok(Applied {
        backup: backup.map(|(path, _)| path),
    })
}

/// Best effort: a reference left behind costs an unused keychain entry.
fn retire(references: &[String], keeper: Keeper<'_>) {
    for r in references {
        let _ = keeper.vault.forget(r);
    }
}

/// Where `app` stands: installed, config found, connected, up to date, or
/// why its config cannot be edited.
pub fn status(app: AppId, places: &Places, program: &Path) -> AppStatus {
    let path = app.config_path(places);
    let installed = app.installed(std::env::var_os("PATH").as_deref());
    let config_found = app.config_found(places);
    let mut status = AppStatus {
        app,
        name: app.display_name(),
        installed,
        config_found,
        detected: installed || config_found,
        path: path.clone(),
        connected: false,
        up_to_date: false,
        problem: None,
    };
    let parsed = read_app_config(app, places)
        .and_then(|read| Doc::parse(app.format(), read.text.as_deref()).map_err(malformed(&path)));
    match parsed {
        Ok(doc) => {
            let entry = doc.get(ENTRY_NAME);
            status.connected = entry.as_ref().is_some_and(is_gateway);
            status.up_to_date = entry == Some(as_value(&desired_entry(app, program)));
        }
        Err(e) => status.problem = Some(e.to_string()),
    }
    status
}
