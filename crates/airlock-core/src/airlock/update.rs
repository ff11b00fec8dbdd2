//! What the registries say of installed servers (a newer version, a
//! deprecation, a deletion), read on demand and by the daemon at most
//! daily; and an installed server's update, as one review (issue 35): the registry's
//! newer version is installed beside the running one and locked (nothing of
//! it runs yet), then started once, confined, under a trial name, so its
//! tools can be compared with the pinned ones; the person sees the version,
//! the hashes, the command and room, and every tool that changed, was added
//! or went, with the scanner's findings. Approving moves the server to the
//! new version and its pins to the new definitions in one step; rejecting
//! (or dropping the review) removes the new version, the old one runs on.

use std::path::PathBuf;
use std::sync::Arc;

use airlock_catalog::{CatalogEntry, Status};
use airlock_install::{Lock, Tools};
use serde::Serialize;

use super::install::{install_dir, remove_version};
use super::lists::{list_bounded, paginated};
use super::Airlock;
use crate::error::{CoreError, CoreResult};
use crate::pins::{canonical, definition_hash, PinChange, PinKind};
use crate::rooms::RoomReport;
use crate::servers::{ServerDef, Transport};
use crate::store::installs::InstallRow;
use crate::store::pins::ChangeRow;

/// How often the daemon reads the registries of installed servers for
/// updates, at most.
pub const UPDATE_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// What a registry now says of an installed server.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UpdateInfo {
    pub server: String,
    pub entry_name: String,
    pub registry: String,
    pub installed: String,
    /// The registry's latest version, when it differs from the installed
    /// one (`None`: up to date, or no longer listed).
    pub available: Option<String>,
    /// `active`, `deprecated`, `deleted`, or `unlisted` (the registry no
    /// longer lists it, as of the last read).
    pub status: String,
    pub status_message: Option<String>,
}

/// What the person reviews before an update runs.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UpdatePlan {
    pub server: String,
    pub entry_name: String,
    pub from_version: String,
    pub to_version: String,
    /// The package: its kind and name (a bundle: its URL).
    pub package: String,
    /// The exact command of the new version.
    pub command: Vec<String>,
    pub package_hash: Option<String>,
    pub digest: String,
    pub files: usize,
    pub scripts_skipped: Vec<String>,
    pub room: RoomReport,
    /// Each tool that differs from its pin: changed, added or removed, as
    /// the review shows a change (`id` 0: not recorded).
    pub changes: Vec<PinChange>,
    /// Tools the same as pinned.
    pub unchanged: usize,
}

/// A newer version installed beside the running one, waiting for the
/// person. Dropped without [`Airlock::commit_update`], it is removed.
pub struct StagedUpdate {
    pub plan: UpdatePlan,
    /// The server as it was when the update was reviewed.
    old: ServerDef,
    def: ServerDef,
    row: InstallRow,
    lock: Lock,
    dir: PathBuf,
    /// The new definitions to pin: (name, canonical text, hash, findings).
    pins: Vec<(String, String, String, String)>,
    committed: bool,
}

/// The name an update's trial start runs under.
fn trial_name(server: &str) -> String {
    format!("{server}.update")
}

impl Drop for StagedUpdate {
    fn drop(&mut self) {
        if !self.committed {
            remove_version(&self.dir);
        }
    }
}

impl Airlock {
    /// What the registries (as last read into the catalog) say of every
    /// installed server: a newer version, a deprecation, a deletion. Nothing
    /// is installed: an update is the person's to review.
    pub fn catalog_updates(&self) -> CoreResult<Vec<UpdateInfo>> {
        let mut out = Vec::new();
        for row in self.store.installs()? {
            let cached = self.cached_entry(&row.entry_name, &row.registry)?;
            let (available, status, status_message) = match cached {
                None => (None, "unlisted".to_owned(), None),
                Some(e) => (
                    (e.version != row.version).then(|| e.version.clone()),
                    match e.status {
                        Status::Active => "active",
                        Status::Deprecated => "deprecated",
                        Status::Deleted => "deleted",
                    }
                    .to_owned(),
                    e.status_message.as_deref().map(airlock_scan::visible),
                ),
            };
            out.push(UpdateInfo {
                server: row.server,
                entry_name: row.entry_name,
                registry: row.registry,
                installed: row.version,
                available,
                status,
                status_message,
            });
        }
        Ok(out)
    }

    /// Read the registries of the installed servers again when the last
    /// read for updates is older than `every` (at most daily by default:
    /// [`UPDATE_CHECK_EVERY`]); what they say then, the servers with news
    /// only (`None`: not due, or nothing installed). Nothing is installed.
    pub async fn check_updates_if_due(
        &self,
        every: std::time::Duration,
    ) -> CoreResult<Option<Vec<UpdateInfo>>> {
        let installs = self.store.installs()?;
        if installs.is_empty() {
            return Ok(None);
        }
        let now = crate::store::now_ms();
        let every_ms = i64::try_from(every.as_millis()).unwrap_or(i64::MAX);
        if self
            .store
            .catalog_checked_at()?
            .is_some_and(|at| now.saturating_sub(at) < every_ms)
        {
            return Ok(None);
        }
        self.store.set_catalog_checked_at(now)?;
        let mut registries: Vec<String> = installs.into_iter().map(|r| r.registry).collect();
        registries.sort();
        registries.dedup();
        for r in &registries {
            if let Err(e) = self.refresh_catalog(r).await {
                let _ = self.store.audit(
                    None,
                    "catalog_check_failed",
                    &serde_json::json!({"registry": r, "error": e.to_string()}),
                );
            }
        }
        let news: Vec<UpdateInfo> = self
            .catalog_updates()?
            .into_iter()
            .filter(|u| u.available.is_some() || u.status != "active")
            .collect();
        if !news.is_empty() {
            let _ = self.store.audit(
                None,
                "updates_available",
                &serde_json::json!({"servers": news.iter().map(|u| &u.server).collect::<Vec<_>>()}),
            );
        }
        Ok(Some(news))
    }

    /// Install the registry's newer version of `server` beside it, start it
    /// once confined under a trial name, and compare its tools with the
    /// pinned ones. Nothing the apps see changes.
    pub async fn prepare_update(self: &Arc<Self>, server: &str) -> CoreResult<StagedUpdate> {
        let old = self.get_server(server)?;
        // The trial start's name must be nobody's: its room and proxy are
        // named after it.
        let trial = trial_name(server);
        if self.store.get_server(&trial)?.is_some() {
            return Err(CoreError::BadInput(format!(
                "a server named {trial} exists: the update's trial start needs that name; rename or remove it first"
            )));
        }
        let row = self.store.install(server)?.ok_or_else(|| {
            CoreError::BadInput(format!("{server} was not installed from a registry"))
        })?;
        let entry: CatalogEntry = self
            .cached_entry(&row.entry_name, &row.registry)?
            .ok_or_else(|| {
                CoreError::BadInput(format!(
                    "{} is not listed by {} (as of the last read: `airlock catalog refresh`)",
                    row.entry_name, row.registry
                ))
            })?;
        if entry.status == Status::Deleted {
            return Err(CoreError::BadInput(format!(
                "{} was deleted by its registry: no update is offered",
                entry.name
            )));
        }
        if entry.version == row.version {
            return Err(CoreError::BadInput(format!(
                "{server} is at {} already, the registry's latest",
                row.version
            )));
        }
        let package = entry
            .packages
            .iter()
            // The same package (a bundle by its kind: its URL names each
            // version's file).
            .find(|p| {
                p.registry_type == row.kind
                    && (p.identifier == row.identifier || row.kind == "mcpb")
            })
            .ok_or_else(|| {
                CoreError::BadInput(format!(
                    "{} {} no longer offers the {} package {}: install it anew instead",
                    entry.name, entry.version, row.kind, row.identifier
                ))
            })?;
        self.check_registry_policy(&row.registry)?;
        let dir = install_dir(&self.data_dir, server).join(&entry.version);
        if dir.exists() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        let installed = airlock_install::install(
            &airlock_install::Request {
                kind: &package.registry_type,
                identifier: &package.identifier,
                version: &package.version,
                file_sha256: package.file_sha256.as_deref(),
                dir: &dir,
            },
            &Tools::find(),
        )
        .await
        .map_err(|e| {
            CoreError::BadInput(format!(
                "{} {} was not installed: {e}",
                entry.name, entry.version
            ))
        })?;
        // The new definition: the old one's values (its secrets stay in the
        // keychain), the new command and fixed environment.
        let mut def = old.clone();
        if let Transport::Stdio {
            command, args, env, ..
        } = &mut def.transport
        {
            *command = installed.command.clone();
            *args = installed.args.clone();
            for (k, v) in &installed.env {
                env.insert(
                    k.clone(),
                    crate::servers::StoredValue::Plain { value: v.clone() },
                );
            }
        }
        let staged_lock = installed.lock.clone();
        let digest = staged_lock.digest.clone();
        let facts = airlock_policy::ServerFacts {
            registry_name: Some(entry.name.clone()),
            version: Some(entry.version.clone()),
            artifact_sha256: Some(digest.trim_start_matches("sha256:").to_owned()),
            ..self.policy_facts(&def)
        };
        if let Err(e) = self.check_server_policy(&facts) {
            remove_version(&dir);
            return Err(e);
        }
        let mut staged = StagedUpdate {
            plan: UpdatePlan {
                server: server.to_owned(),
                entry_name: entry.name.clone(),
                from_version: row.version.clone(),
                to_version: entry.version.clone(),
                package: format!("{} {}", package.registry_type, package.identifier),
                command: std::iter::once(installed.command.clone())
                    .chain(installed.args.iter().cloned())
                    .collect(),
                package_hash: staged_lock
                    .artifacts
                    .iter()
                    .find(|a| a.name == row.identifier || row.kind == "mcpb")
                    .map(|a| a.hash.clone()),
                digest,
                files: staged_lock.files.len(),
                scripts_skipped: installed.scripts_skipped.clone(),
                room: self.room_of(&def),
                changes: Vec::new(),
                unchanged: 0,
            },
            old: old.clone(),
            def: def.clone(),
            row,
            lock: staged_lock,
            dir: dir.clone(),
            pins: Vec::new(),
            committed: false,
        };
        self.trial_tools(server, &def, &dir, &mut staged).await?;
        Ok(staged)
    }

    /// Start `def` once under a trial name, in a room that reads the new
    /// version's folder, and compare its tools with `server`'s pins.
    async fn trial_tools(
        self: &Arc<Self>,
        server: &str,
        def: &ServerDef,
        dir: &std::path::Path,
        staged: &mut StagedUpdate,
    ) -> CoreResult<()> {
        let trial = trial_name(server);
        let mut trial_def = def.clone();
        trial_def.name = trial.clone();
        trial_def.paused = false;
        self.trial_packages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(trial.clone(), dir.to_path_buf());
        let tools = async {
            let (session, _) = self.open_session(&trial_def, false, None).await?;
            let listed = list_bounded(&session, "tools", |cursor| {
                let s = session.clone();
                async move {
                    let page = s.peer.list_tools(paginated(cursor)).await?;
                    Ok((page.tools, page.next_cursor))
                }
            })
            .await;
            session.close();
            listed
        }
        .await;
        self.trial_packages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&trial);
        self.proxies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&trial);
        let tools = tools?;
        let names: Vec<(String, String)> = tools
            .iter()
            .map(|t| (t.name.to_string(), t.name.to_string()))
            .collect();
        let index = airlock_scan::ToolIndex::new(
            names.iter().map(|(n, e)| (server, n.as_str(), e.as_str())),
        );
        let ctx = airlock_scan::Context::new(server, &index);
        let pins = self.store.pins(server, PinKind::Tool.as_str())?;
        let mut seen = std::collections::HashSet::new();
        for t in &tools {
            let Ok(item) = serde_json::to_value(t) else {
                continue;
            };
            let text = canonical(PinKind::Tool, &item).to_string();
            let hash = definition_hash(&text);
            let findings = crate::pins::reconcile::scan(PinKind::Tool, &item, &ctx);
            let findings_json = serde_json::to_string(&findings).unwrap_or_else(|_| "[]".into());
            let name = t.name.to_string();
            seen.insert(name.clone());
            let pin = pins.iter().find(|p| p.name == name);
            staged.pins.push((
                name.clone(),
                text.clone(),
                hash.clone(),
                findings_json.clone(),
            ));
            let change = match pin {
                Some(p) if p.hash == hash => {
                    staged.plan.unchanged += 1;
                    continue;
                }
                Some(_) => "changed",
                None => "added",
            };
            staged.plan.changes.push(PinChange::from_row(ChangeRow {
                id: 0,
                server: server.to_owned(),
                kind: PinKind::Tool.as_str().to_owned(),
                name,
                change: change.to_owned(),
                old_definition: pin.map(|p| p.definition.clone()),
                new_definition: Some(text),
                new_hash: hash,
                findings: findings_json,
                state: "pending".into(),
                seen_at: 0,
                decided_at: None,
            }));
        }
        for p in pins.iter().filter(|p| !seen.contains(&p.name)) {
            staged.plan.changes.push(PinChange::from_row(ChangeRow {
                id: 0,
                server: server.to_owned(),
                kind: PinKind::Tool.as_str().to_owned(),
                name: p.name.clone(),
                change: "removed".into(),
                old_definition: Some(p.definition.clone()),
                new_definition: None,
                new_hash: String::new(),
                findings: "[]".into(),
                state: "pending".into(),
                seen_at: 0,
                decided_at: None,
            }));
        }
        Ok(())
    }

    /// The person approved the update: the server runs the new version
    /// from its next start, its pins are the new definitions, the old
    /// version's folder goes.
    pub fn commit_update(&self, mut staged: StagedUpdate) -> CoreResult<ServerDef> {
        if staged.plan.changes.iter().any(|c| !c.complete) {
            return Err(CoreError::BadInput(
                "a changed tool of this update cannot be shown whole, so the update cannot be approved: what you could not review is not approved".into(),
            ));
        }
        // Nothing moved under the review: the server as it was reviewed, at
        // the version it was reviewed from.
        let now = self.get_server(&staged.plan.server)?;
        let installed = self.store.install(&staged.plan.server)?;
        if now.transport != staged.old.transport
            || now.options != staged.old.options
            || installed.map(|r| r.version) != Some(staged.row.version.clone())
        {
            return Err(CoreError::BadInput(format!(
                "{} changed since this update was reviewed: nothing was updated; review it again",
                staged.plan.server
            )));
        }
        let lock_json = serde_json::to_string(&staged.lock)
            .map_err(|e| CoreError::BadInput(format!("the lock does not write: {e}")))?;
        let server = staged.plan.server.clone();
        let old_dir = PathBuf::from(&staged.row.dir);
        self.disconnect(&server);
        self.store.update_server(&Self::row(&staged.def))?;
        let mut row = staged.row.clone();
        row.version = staged.plan.to_version.clone();
        row.dir = staged.dir.display().to_string();
        row.digest = staged.lock.digest.clone();
        row.lock = lock_json;
        row.first_sight = false;
        self.store.set_install(&row)?;
        let kind = PinKind::Tool.as_str();
        for (name, text, hash, findings) in &staged.pins {
            self.store
                .set_pin(&server, kind, name, text, hash, findings)?;
            self.store.supersede_pin_changes(&server, kind, name)?;
        }
        for c in staged
            .plan
            .changes
            .iter()
            .filter(|c| c.change == crate::pins::ChangeKind::Removed)
        {
            self.store.delete_pin(&server, kind, &c.name)?;
        }
        staged.committed = true;
        if old_dir != staged.dir && old_dir.starts_with(install_dir(&self.data_dir, &server)) {
            let _ = std::fs::remove_dir_all(&old_dir);
        }
        let _ = self.store.audit(
            Some(&server),
            "server_updated_from_registry",
            &serde_json::json!({
                "entry": staged.plan.entry_name, "from": staged.plan.from_version,
                "to": staged.plan.to_version, "digest": staged.plan.digest,
                "command": staged.plan.command,
                "changed_tools": staged.plan.changes.iter().map(|c| &c.name).collect::<Vec<_>>(),
            }),
        );
        self.pins_changed(&server);
        self.get_server(&server)
    }
}
