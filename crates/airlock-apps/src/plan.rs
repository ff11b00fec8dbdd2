//! Connect and disconnect, planned (text before, after, diff) then applied.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::apps::Format;
use crate::doc::{Doc, Entry};
use crate::files::{read_config, remove_config, write_atomic};
use crate::record::{self, sha256, Record};
use crate::{check_program, gateway_args, AppId, AppsError, Places, ENTRY_NAME};

/// Seconds Goose waits for one tool call: a call through Airlock may wait
/// for the user to finish a sign-in in the browser.
const GOOSE_TIMEOUT_SECS: u64 = 600;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Connect,
    Disconnect,
}

/// A server taken out of an app's config, to be imported into Airlock.
#[derive(Debug, Clone, Serialize)]
pub struct MovedServer {
    pub name: String,
    /// The entry as the app had it.
    pub entry: Value,
}

/// A change to one app's config, not yet written.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub app: AppId,
    pub action: Action,
    pub path: PathBuf,
    /// The file now (None: there is none).
    pub before: Option<String>,
    /// The file after the change (None: removed).
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
}

/// What [`apply`] did.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// The copy of the file as it was, when there was one.
    pub backup: Option<PathBuf>,
}

/// One app as the Connect apps page and `airlock clients apps` show it.
#[derive(Debug, Clone, Serialize)]
pub struct AppStatus {
    pub app: AppId,
    pub name: &'static str,
    pub path: PathBuf,
    /// The app's config file or its folder exists.
    pub detected: bool,
    /// The config has Airlock's gateway entry.
    pub connected: bool,
    /// ... with this airlock program and this app's client name.
    pub up_to_date: bool,
    /// Why the config cannot be read or edited, if so.
    pub problem: Option<String>,
}

impl Change {
    pub fn changes_nothing(&self) -> bool {
        self.before == self.after
    }

    /// The moved servers as a config Airlock's import reads
    /// (`{"mcpServers": ...}`), or None when nothing moves.
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

/// The `airlock` entry in the app's own format.
fn desired_entry(app: AppId, program: &Path) -> Entry {
    let program = Value::String(program.to_string_lossy().into_owned());
    let args = Value::from(gateway_args(app));
    let pairs: Vec<(&str, Value)> = match app.format() {
        Format::Json { typed: true, .. } => vec![
            ("type", "stdio".into()),
            ("command", program),
            ("args", args),
            ("env", json!({})),
        ],
        Format::Json { typed: false, .. } | Format::Jsonc { typed: false, .. } => {
            vec![("command", program), ("args", args)]
        }
        Format::Jsonc { typed: true, .. } => vec![
            ("type", "stdio".into()),
            ("command", program),
            ("args", args),
        ],
        Format::GooseYaml => vec![
            ("enabled", true.into()),
            ("type", "stdio".into()),
            ("name", ENTRY_NAME.into()),
            (
                "description",
                "Airlock: your MCP servers, with Airlock's consent for sign-ins and web pages"
                    .into(),
            ),
            ("cmd", program),
            ("args", args),
            ("envs", json!({})),
            ("env_keys", json!([])),
            ("timeout", GOOSE_TIMEOUT_SECS.into()),
        ],
    };
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

fn as_value(entry: &Entry) -> Value {
    Value::Object(entry.iter().cloned().collect())
}

fn as_entry(value: &Value) -> Entry {
    match value {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Vec::new(),
    }
}

/// An entry that runs Airlock's gateway (any path to the program).
fn is_gateway(entry: &Value) -> bool {
    let has = |word: &str| {
        entry
            .get("args")
            .and_then(Value::as_array)
            .is_some_and(|args| args.iter().any(|a| a.as_str() == Some(word)))
    };
    has("gateway") && has("--stdio")
}

/// An app entry in the `mcpServers` shape Airlock's import reads, or None
/// when Airlock cannot run it (Zed extensions, Goose built-ins).
fn importable(app: AppId, entry: &Value) -> Option<Value> {
    match app.format() {
        Format::GooseYaml => {
            let kind = entry.get("type").and_then(Value::as_str);
            let cmd = entry.get("cmd").and_then(Value::as_str)?;
            if kind != Some("stdio") {
                return None;
            }
            let mut out = json!({ "command": cmd });
            if let Some(args) = entry.get("args") {
                out["args"] = args.clone();
            }
            if let Some(envs) = entry.get("envs").filter(|e| e.is_object()) {
                out["env"] = envs.clone();
            }
            Some(out)
        }
        // A VS Code `${input:...}` is answered by VS Code: such a server stays.
        Format::Jsonc { typed: true, .. } if entry.to_string().contains("${input:") => None,
        _ if entry.get("command").is_some_and(Value::is_string) || entry.get("url").is_some() => {
            let mut out = entry.clone();
            if let Some(obj) = out.as_object_mut() {
                // Zed's own keys; Airlock's import names unknown keys.
                obj.remove("source");
                obj.remove("enabled");
            }
            Some(out)
        }
        _ => None,
    }
}

/// Plan connecting `app` to Airlock's gateway at `program` (absolute).
/// With `move_servers`, the app's other servers leave its config and are
/// listed in [`Change::moved`] for Airlock to import first.
pub fn plan_connect(
    app: AppId,
    places: &Places,
    program: &Path,
    move_servers: bool,
) -> Result<Change, AppsError> {
    check_program(program)?;
    let path = app.config_path(places);
    let before = read_config(&path)?;
    let mut doc = Doc::parse(app.format(), before.as_deref()).map_err(malformed(&path))?;
    let desired = desired_entry(app, program);
    let existing = doc.get(ENTRY_NAME);
    // A record whose entry is gone is stale: this connect starts afresh.
    let (mut record, fresh) = match (&existing, record::load(places, app)) {
        (Some(e), Some(r)) if is_gateway(e) => (r, false),
        _ => (Record::default(), true),
    };
    let mut notes = Vec::new();
    let mut changed = false;
    if let Some(old) = existing.as_ref().filter(|e| !is_gateway(e)) {
        record.previous_entry = Some(old.clone());
        notes.push(format!(
            "{path} already has an entry named \"{ENTRY_NAME}\" that is not Airlock's gateway: it is replaced, and disconnecting puts it back",
            path = path.display()
        ));
    }
    if existing.as_ref() != Some(&as_value(&desired)) {
        doc.set(ENTRY_NAME, &desired);
        changed = true;
    }
    let moved = if move_servers {
        take_servers(app, &mut doc, &mut notes)
    } else {
        Vec::new()
    };
    changed |= !moved.is_empty();
    record
        .moved
        .extend(moved.iter().map(|m| (m.name.clone(), m.entry.clone())));
    let after = if changed {
        Some(doc.render())
    } else {
        before.clone()
    };
    record.written_sha256 = after.as_deref().map(sha256).unwrap_or_default();
    let mut change = finish(
        app,
        Action::Connect,
        path,
        before,
        after,
        moved,
        notes,
        Some(record),
    );
    change.fresh_record = fresh;
    Ok(change)
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

/// Plan disconnecting `app`: when the file is still exactly what Airlock
/// wrote, the backup comes back byte for byte; otherwise Airlock's entry is
/// removed and what it replaced or moved is put back.
pub fn plan_disconnect(app: AppId, places: &Places) -> Result<Change, AppsError> {
    let path = app.config_path(places);
    let before = read_config(&path)?;
    let saved = record::load(places, app);
    let mut notes = Vec::new();
    let Some(text) = before.as_deref() else {
        return Ok(finish(
            app,
            Action::Disconnect,
            path,
            None,
            None,
            vec![],
            notes,
            None,
        ));
    };
    if let Some(rec) = saved.as_ref().filter(|r| r.written_sha256 == sha256(text)) {
        let restored = match &rec.backup {
            None => Some(None),
            Some(backup) => record::read_backup(backup).map(Some),
        };
        if let Some(after) = restored {
            return Ok(finish(
                app,
                Action::Disconnect,
                path,
                before,
                after,
                vec![],
                notes,
                None,
            ));
        }
    }
    let mut doc = Doc::parse(app.format(), Some(text)).map_err(malformed(&path))?;
    let mut changed = false;
    match doc.get(ENTRY_NAME) {
        Some(entry) if is_gateway(&entry) => {
            doc.remove(ENTRY_NAME);
            changed = true;
        }
        Some(_) => notes.push(format!(
            "the entry named \"{ENTRY_NAME}\" in {} is not Airlock's gateway: left as it is",
            path.display()
        )),
        None => {}
    }
    if let Some(rec) = saved.filter(|_| changed) {
        if let Some(prev) = &rec.previous_entry {
            doc.set(ENTRY_NAME, &as_entry(prev));
        }
        for (name, entry) in &rec.moved {
            if doc.get(name).is_none() {
                doc.set(name, &as_entry(entry));
            }
        }
    }
    let after = if changed {
        Some(doc.render())
    } else {
        before.clone()
    };
    Ok(finish(
        app,
        Action::Disconnect,
        path,
        before,
        after,
        vec![],
        notes,
        None,
    ))
}

#[allow(clippy::too_many_arguments, reason = "one constructor for both plans")]
fn finish(
    app: AppId,
    action: Action,
    path: PathBuf,
    before: Option<String>,
    after: Option<String>,
    moved: Vec<MovedServer>,
    notes: Vec<String>,
    record: Option<Record>,
) -> Change {
    let diff = unified_diff(&path, before.as_deref(), after.as_deref());
    Change {
        app,
        action,
        path,
        before,
        after,
        diff,
        moved,
        notes,
        record,
        fresh_record: false,
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
/// from; backup first; then the new text atomically (or the file removed
/// when Airlock had created it).
pub fn apply(change: &Change, places: &Places) -> Result<Applied, AppsError> {
    if read_config(&change.path)? != change.before {
        return Err(AppsError::ChangedSinceShown {
            path: change.path.clone(),
        });
    }
    if change.changes_nothing() {
        if change.action == Action::Disconnect {
            record::forget(places, change.app);
        }
        return Ok(Applied { backup: None });
    }
    let backup = match &change.before {
        Some(text) => Some(record::backup(places, change.app, text)?),
        None => None,
    };
    if let Some(planned) = &change.record {
        let mut rec = planned.clone();
        // First connect (no backup recorded yet): remember the original.
        if change.fresh_record {
            rec.backup.clone_from(&backup);
        }
        record::save(places, change.app, &rec)?;
    }
    match &change.after {
        Some(text) => write_atomic(&change.path, text)?,
        None => remove_config(&change.path)?,
    }
    if change.action == Action::Disconnect {
        record::forget(places, change.app);
    }
    Ok(Applied { backup })
}

/// Where `app` stands: detected, connected, up to date, or why its config
/// cannot be edited.
pub fn status(app: AppId, places: &Places, program: &Path) -> AppStatus {
    let path = app.config_path(places);
    let mut status = AppStatus {
        app,
        name: app.display_name(),
        detected: app.detected(places),
        path: path.clone(),
        connected: false,
        up_to_date: false,
        problem: None,
    };
    let parsed = read_config(&path)
        .and_then(|text| Doc::parse(app.format(), text.as_deref()).map_err(malformed(&path)));
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
