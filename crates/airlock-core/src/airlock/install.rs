//! Installing a server from the catalog (issue 35): the package is put in
//! the server's own folder and locked to its bytes ([`airlock_install`])
//! before anything of it runs; the person then sees exactly what will run,
//! with which room, and says yes or no ([`Airlock::prepare_install`],
//! [`Airlock::commit_install`]); its first tools wait for the person's
//! review, none pinned unseen. At every start the folder is checked
//! against its lock ([`Airlock::check_install`]); a changed file holds the
//! server.

use std::collections::BTreeMap;
use std::path::PathBuf;

use airlock_catalog::{CatalogEntry, Status};
use airlock_install::{Installed, Lock, Tools};
use serde::Serialize;

use super::Airlock;
use crate::error::{CoreError, CoreResult};
use crate::rooms::RoomReport;
use crate::servers::{validate_name, InputValue, ServerDef, ServerInput, ServerOptions, Transport};
use crate::store::installs::InstallRow;

/// The folder `server` is installed into: `packages/` in the data folder,
/// named like its room; each version in a folder of its own inside.
pub fn install_dir(data_dir: &std::path::Path, server: &str) -> PathBuf {
    let leaf = airlock_sandbox::room_dir(data_dir, server)
        .file_name()
        .map(ToOwned::to_owned)
        .unwrap_or_default();
    data_dir.join("packages").join(leaf)
}

/// An environment variable the package asks for.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AskedVar {
    pub name: String,
    pub description: String,
    pub required: bool,
    pub secret: bool,
    /// The person gave a value.
    pub given: bool,
}

/// What the person is asked to consent to: everything that will run.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InstallPlan {
    pub server: String,
    pub registry: String,
    pub entry_name: String,
    pub version: String,
    /// The registry's word when it deprecated the entry.
    pub deprecated: Option<String>,
    /// `npm`, `pypi` or `mcpb`.
    pub kind: String,
    pub identifier: String,
    /// The exact command and arguments (absolute paths).
    pub command: Vec<String>,
    /// Fixed environment it runs with.
    pub env: BTreeMap<String, String>,
    pub asked: Vec<AskedVar>,
    /// Where it is installed.
    pub dir: String,
    /// The package's own hash as its package manager locked it.
    pub package_hash: Option<String>,
    /// How many packages came with it (each locked by hash).
    pub packages: usize,
    /// One hash over every installed file.
    pub digest: String,
    pub files: usize,
    /// Packages whose install scripts did not run.
    pub scripts_skipped: Vec<String>,
    /// The room it will run in.
    pub room: RoomReport,
}

/// An install made and locked, waiting for the person's yes. Dropped
/// without [`Airlock::commit_install`], its folder is removed.
pub struct StagedInstall {
    pub plan: InstallPlan,
    input: ServerInput,
    lock: Lock,
    dir: PathBuf,
    committed: bool,
}

/// Remove one version's folder, and the server's folder when nothing else
/// is left in it.
pub(crate) fn remove_version(dir: &std::path::Path) {
    let _ = std::fs::remove_dir_all(dir);
    if let Some(home) = dir.parent() {
        let _ = std::fs::remove_dir(home);
    }
}

impl Drop for StagedInstall {
    fn drop(&mut self) {
        if !self.committed {
            remove_version(&self.dir);
        }
    }
}

/// What the person asks for.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InstallRequest {
    pub name: String,
    pub version: Option<String>,
    /// The server's name in Airlock (default: the entry's last part).
    pub server: Option<String>,
    /// Only from this registry (when the name is in several).
    pub registry: Option<String>,
    /// Values of the environment variables the package asks for.
    pub env: BTreeMap<String, String>,
}

/// A server name from a registry name: its last part, in Airlock's
/// characters.
fn default_server_name(entry_name: &str) -> String {
    let last = entry_name.rsplit('/').next().unwrap_or(entry_name);
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(crate::servers::MAX_NAME_CHARS)
        .collect();
    name.trim_start_matches('-').to_owned()
}

impl Airlock {
    /// Find the entry, pick the package this computer can run, install it
    /// into the server's folder and lock it. Nothing of the package runs.
    pub async fn prepare_install(&self, req: &InstallRequest) -> CoreResult<StagedInstall> {
        let hits = self.catalog_entry(&req.name)?;
        let hit = hits
            .into_iter()
            .find(|h| req.registry.as_deref().is_none_or(|r| r == h.registry))
            .ok_or_else(|| {
                CoreError::BadInput(format!(
                    "{} is not in the catalog (`airlock catalog refresh`, then `airlock catalog search`)",
                    req.name
                ))
            })?;
        self.check_registry_policy(&hit.registry)?;
        let latest: CatalogEntry = serde_json::from_value(hit.entry.clone())
            .map_err(|e| CoreError::BadInput(format!("the cached entry does not read: {e}")))?;
        // Another version than the latest: asked of the same registry.
        let entry = match &req.version {
            Some(v) if *v != latest.version => {
                self.catalog_version(&req.name, v, Some(&hit.registry))
                    .await?
                    .1
            }
            _ => latest,
        };
        if entry.status == Status::Deleted {
            return Err(CoreError::BadInput(format!(
                "{} was deleted by its registry: not installed",
                entry.name
            )));
        }
        let server = req
            .server
            .clone()
            .unwrap_or_else(|| default_server_name(&entry.name));
        validate_name(&server).map_err(|e| CoreError::BadInput(e.to_string()))?;
        if self.store.get_server(&server)?.is_some() {
            return Err(CoreError::ServerExists(server));
        }
        let tools = Tools::find();
        let mut why_not = Vec::new();
        let package = entry.packages.iter().find(|p| {
            match airlock_install::runnable(&p.registry_type, &tools) {
                Ok(()) => true,
                Err(e) => {
                    why_not.push(format!("{} {}: {e}", p.registry_type, p.identifier));
                    false
                }
            }
        });
        let Some(package) = package else {
            let remotes = if entry.remotes.is_empty() {
                String::new()
            } else {
                format!(
                    "; it also runs remotely: add it with `airlock servers add {server} --url {}`",
                    entry.remotes[0].url
                )
            };
            return Err(CoreError::BadInput(format!(
                "no package of {} can be installed here{}{remotes}",
                entry.name,
                if why_not.is_empty() {
                    " (it has none)".to_owned()
                } else {
                    format!(" ({})", why_not.join("; "))
                }
            )));
        };
        for var in &package.env {
            if var.is_required && req.env.get(&var.name).is_none_or(|v| v.is_empty()) {
                return Err(CoreError::BadInput(format!(
                    "{} needs {}{}: give it with --env {}=VALUE",
                    entry.name,
                    var.name,
                    if var.description.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", var.description)
                    },
                    var.name
                )));
            }
        }
        if let Some(unknown) = req
            .env
            .keys()
            .find(|k| !package.env.iter().any(|v| &v.name == *k))
        {
            return Err(CoreError::BadInput(format!(
                "{} does not ask for {unknown}",
                entry.name
            )));
        }
        let home = install_dir(&self.data_dir, &server);
        if home.exists() {
            // Left by an install that did not finish: no server uses it.
            std::fs::remove_dir_all(&home)
                .map_err(|e| CoreError::BadInput(format!("{}: {e}", home.display())))?;
        }
        // One folder per version (an update goes beside it): a virtual
        // environment cannot move.
        let dir = home.join(&entry.version);
        let installed: Installed = airlock_install::install(
            &airlock_install::Request {
                kind: &package.registry_type,
                identifier: &package.identifier,
                version: &package.version,
                file_sha256: package.file_sha256.as_deref(),
                dir: &dir,
            },
            &tools,
        )
        .await
        .map_err(|e| {
            remove_version(&dir);
            CoreError::BadInput(format!("{} was not installed: {e}", entry.name))
        })?;
        let mut env: BTreeMap<String, InputValue> = installed
            .env
            .iter()
            .map(|(k, v)| (k.clone(), InputValue::plain(v)))
            .collect();
        for var in &package.env {
            if let Some(v) = req.env.get(&var.name).filter(|v| !v.is_empty()) {
                let secret = var.is_secret || crate::servers::looks_secret(&var.name);
                env.insert(
                    var.name.clone(),
                    InputValue {
                        value: v.clone(),
                        secret,
                    },
                );
            }
        }
        let input = ServerInput {
            name: server.clone(),
            transport: Transport::Stdio {
                command: installed.command.clone(),
                args: installed.args.clone(),
                env,
                cwd: None,
            },
            options: ServerOptions {
                sandbox: Some(airlock_sandbox::SandboxSettings::default()),
                ..ServerOptions::default()
            },
        };
        input.validate().inspect_err(|_| remove_version(&dir))?;
        // The room as it will be, from a definition not stored yet (secret
        // values not in it).
        let candidate = super::policy::def_of(&input);
        // The team's policy sees it whole now (its command, its hash),
        // before the person is asked: a refused one is never offered.
        self.check_server_policy(&airlock_policy::ServerFacts {
            registry_name: Some(entry.name.clone()),
            version: Some(entry.version.clone()),
            artifact_sha256: Some(
                installed
                    .lock
                    .digest
                    .trim_start_matches("sha256:")
                    .to_owned(),
            ),
            ..self.policy_facts(&candidate)
        })
        .inspect_err(|_| remove_version(&dir))?;
        let room = self.room_of(&candidate);
        let lock = installed.lock.clone();
        let top = lock
            .artifacts
            .iter()
            .find(|a| a.name == package.identifier || lock.kind == "mcpb")
            .map(|a| a.hash.clone());
        let plan = InstallPlan {
            server,
            registry: hit.registry.clone(),
            entry_name: entry.name.clone(),
            version: entry.version.clone(),
            deprecated: (entry.status == Status::Deprecated).then(|| {
                entry
                    .status_message
                    .clone()
                    .unwrap_or_else(|| "deprecated by its registry".into())
            }),
            kind: package.registry_type.clone(),
            identifier: package.identifier.clone(),
            command: std::iter::once(installed.command.clone())
                .chain(installed.args.iter().cloned())
                .collect(),
            env: installed.env.clone(),
            asked: package
                .env
                .iter()
                .map(|v| AskedVar {
                    name: v.name.clone(),
                    description: v.description.clone(),
                    required: v.is_required,
                    secret: v.is_secret,
                    given: req.env.contains_key(&v.name),
                })
                .collect(),
            dir: dir.display().to_string(),
            package_hash: top,
            packages: lock.artifacts.len(),
            digest: lock.digest.clone(),
            files: lock.files.len(),
            scripts_skipped: installed.scripts_skipped.clone(),
            room,
        };
        Ok(StagedInstall {
            plan,
            input,
            lock,
            dir,
            committed: false,
        })
    }

    /// The person said yes: add the server (confined, secrets to the
    /// keychain) and keep its lock. Its first tools will wait for review.
    pub fn commit_install(&self, mut staged: StagedInstall) -> CoreResult<ServerDef> {
        let lock_json = serde_json::to_string(&staged.lock)
            .map_err(|e| CoreError::BadInput(format!("the lock does not write: {e}")))?;
        let p = &staged.plan;
        let facts = airlock_policy::ServerFacts {
            registry_name: Some(p.entry_name.clone()),
            version: Some(p.version.clone()),
            artifact_sha256: Some(staged.lock.digest.trim_start_matches("sha256:").to_owned()),
            ..self.policy_facts(&super::policy::def_of(&staged.input))
        };
        self.import_checked(std::slice::from_ref(&staged.input), Some(&facts))?;
        let def = self.get_server(&p.server)?;
        let row = InstallRow {
            server: p.server.clone(),
            registry: p.registry.clone(),
            entry_name: p.entry_name.clone(),
            version: p.version.clone(),
            kind: p.kind.clone(),
            identifier: p.identifier.clone(),
            dir: staged.dir.display().to_string(),
            digest: staged.lock.digest.clone(),
            lock: lock_json,
            first_sight: true,
            installed_at: 0,
        };
        if let Err(e) = self.store.set_install(&row) {
            let _ = self.remove_server(&p.server);
            return Err(e.into());
        }
        staged.committed = true;
        let _ = self.store.audit(
            Some(&p.server),
            "server_installed",
            &serde_json::json!({
                "registry": p.registry, "entry": p.entry_name, "version": p.version,
                "kind": p.kind, "package": p.identifier, "digest": p.digest,
                "command": p.command, "scripts_skipped": p.scripts_skipped,
            }),
        );
        Ok(def)
    }

    /// What is installed for `server` (`None`: it was not installed from a
    /// registry).
    pub fn installed(&self, server: &str) -> CoreResult<Option<InstallRow>> {
        Ok(self.store.install(server)?)
    }

    /// Every server installed from a registry.
    pub fn installed_servers(&self) -> CoreResult<Vec<InstallRow>> {
        Ok(self.store.installs()?)
    }

    /// Start the installed server (in its room) and look at its tools and
    /// prompts: each waits for the person's review (none is pinned
    /// unseen). The changes to review, findings first.
    pub async fn first_sight(
        self: &std::sync::Arc<Self>,
        server: &str,
    ) -> CoreResult<Vec<crate::pins::PinChange>> {
        use crate::pins::PinKind;
        let limit = self.get_server(server)?.options.definition_limit();
        let tools = self.list_tools(server).await?;
        let index = airlock_scan::ToolIndex::new(
            tools
                .iter()
                .map(|t| (server, t.name.as_ref(), t.name.as_ref())),
        );
        let items = tools
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect();
        self.reconcile_pins(server, PinKind::Tool, items, &index, limit)?;
        // A server without prompts answers the list with an error: nothing
        // to see then.
        if let Ok(prompts) = self.list_prompts(server).await {
            let items = prompts
                .iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .collect();
            self.reconcile_pins(server, PinKind::Prompt, items, &index, limit)?;
        }
        let mut changes = self.pending_pin_changes(Some(server))?;
        changes.sort_by_key(|c| std::cmp::Reverse(c.findings.iter().map(|f| f.severity).max()));
        Ok(changes)
    }

    /// The person has seen the installed server's first tools.
    pub fn first_sight_done(&self, server: &str) -> CoreResult<()> {
        Ok(self.store.install_seen(server)?)
    }

    /// Is what `server` runs still what was installed? `Err` names the
    /// first file that changed; the server is not started then.
    pub(crate) async fn check_install(&self, server: &str) -> CoreResult<()> {
        let Some(row) = self.store.install(server)? else {
            return Ok(());
        };
        let lock: Lock = serde_json::from_str(&row.lock)
            .map_err(|e| CoreError::BadInput(format!("{server}'s lock does not read: {e}")))?;
        let dir = PathBuf::from(&row.dir);
        let checked =
            tokio::task::spawn_blocking(move || airlock_install::lock::verify(&dir, &lock))
                .await
                .map_err(|e| CoreError::BadInput(format!("the check of {server} stopped: {e}")))?;
        let drift = match checked {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(drift)) => drift.to_string(),
            Err(e) => e.to_string(),
        };
        let _ = self.store.audit(
            Some(server),
            "install_changed",
            &serde_json::json!({"detail": drift, "digest": row.digest}),
        );
        Err(CoreError::Connect {
            server: server.to_owned(),
            source: crate::mcp::ConnectError::Changed(format!(
                "what {server} would run is not what was installed ({drift}). Install the locked bytes again with `airlock catalog repair {server}`, or remove it"
            )),
        })
    }

    /// Put the locked bytes back (after a held start). The package
    /// managers check their hashes: a registry that now serves other bytes
    /// is refused.
    pub async fn repair_install(&self, server: &str) -> CoreResult<()> {
        let row = self.store.install(server)?.ok_or_else(|| {
            CoreError::BadInput(format!("{server} was not installed from a registry"))
        })?;
        let lock: Lock = serde_json::from_str(&row.lock)
            .map_err(|e| CoreError::BadInput(format!("{server}'s lock does not read: {e}")))?;
        self.disconnect(server);
        let result =
            airlock_install::reinstall(&lock, std::path::Path::new(&row.dir), &Tools::find()).await;
        let _ = self.store.audit(
            Some(server),
            "install_repaired",
            &serde_json::json!({"ok": result.is_ok(), "detail": result.as_ref().err().map(ToString::to_string)}),
        );
        result.map_err(|e| CoreError::BadInput(format!("{server} was not installed again: {e}")))
    }

    /// Forget the install of a removed server and remove its folder.
    pub(crate) fn forget_install(&self, server: &str) {
        if let Ok(Some(row)) = self.store.install(server) {
            // Its folder, every version (only a folder of Airlock's own
            // packages is removed).
            let home = install_dir(&self.data_dir, server);
            if PathBuf::from(&row.dir).starts_with(&home) {
                let _ = std::fs::remove_dir_all(&home);
            }
            let _ = self.store.remove_install(server);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_named_after_the_entry() {
        assert_eq!(default_server_name("io.github.x/weather"), "weather");
        assert_eq!(default_server_name("com.example/a b:c"), "a-b-c");
        assert_eq!(default_server_name("com.example/-x"), "x");
    }
}
