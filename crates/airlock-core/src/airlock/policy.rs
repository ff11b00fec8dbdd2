//! A team's policy (issue 36), enforced in this one place: every path that
//! adds, changes or starts a server (the window, the CLI, import, the apps'
//! moved servers, the catalog) and every read of a registry asks here, and
//! a refusal names the rule ([`airlock_policy::Refusal`]).
//!
//! The files are where administrators put them
//! ([`airlock_policy::default_locations`]); they are read again when one of
//! them changed (looked at no more than once a second). Only a debug build
//! (the tests) reads them from `AIRLOCK_TEST_POLICY_ROOT` instead, trusting
//! the test's own files: no variable a user could set moves the policy of a
//! release build.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use airlock_policy::{Loaded, ServerFacts, Verdict};

use super::Airlock;
use crate::error::{CoreError, CoreResult};
use crate::servers::{ServerDef, StoredValue, Transport};

/// How often the files are looked at for a change, at most.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// What a file looked like when it was read: modified time and size.
type Signature = Vec<(PathBuf, Option<(SystemTime, u64)>)>;

/// The policy in force, and what its files looked like.
pub(crate) struct PolicyState {
    loaded: Arc<Loaded>,
    signature: Signature,
    looked_at: Option<Instant>,
}

impl Default for PolicyState {
    fn default() -> Self {
        PolicyState {
            loaded: Arc::new(Loaded::default()),
            signature: Vec::new(),
            looked_at: None,
        }
    }
}

/// Where the policy is read from, and the owner trusted besides root.
fn locations() -> (Vec<PathBuf>, u32) {
    #[cfg(debug_assertions)]
    if let Some(root) = std::env::var_os("AIRLOCK_TEST_POLICY_ROOT") {
        let root = PathBuf::from(root);
        return (
            vec![root.join("policy.json"), root.join("policy.d")],
            current_uid(),
        );
    }
    (airlock_policy::default_locations(), 0)
}

#[cfg(all(unix, debug_assertions))]
fn current_uid() -> u32 {
    // SAFETY: getuid(2) cannot fail and touches no memory.
    unsafe { libc::getuid() }
}

#[cfg(all(not(unix), debug_assertions))]
fn current_uid() -> u32 {
    0
}

/// Every file that may hold policy, with its modified time and size.
fn signature(paths: &[PathBuf]) -> Signature {
    let mut out = Vec::new();
    for p in paths {
        let stamp = |p: &std::path::Path| {
            std::fs::metadata(p)
                .ok()
                .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
        };
        out.push((p.clone(), stamp(p)));
        if let Ok(dir) = std::fs::read_dir(p) {
            let mut files: Vec<PathBuf> = dir.flatten().map(|e| e.path()).collect();
            files.sort();
            for f in files
                .into_iter()
                .take(airlock_policy::MAX_DROP_IN_FILES + 1)
            {
                let s = stamp(&f);
                out.push((f, s));
            }
        }
    }
    out
}

/// A refusal as Airlock's error.
fn refused(verdict: Verdict) -> CoreResult<()> {
    match verdict {
        Verdict::Allowed => Ok(()),
        Verdict::Refused(r) => Err(CoreError::Policy(r.to_string())),
    }
}

impl Airlock {
    /// The policy in force (read again if a file changed).
    pub fn policy(&self) -> Arc<Loaded> {
        let mut g = self.policy.lock().unwrap_or_else(|e| e.into_inner());
        if g.looked_at.is_some_and(|t| t.elapsed() < LOOK_EVERY) {
            return g.loaded.clone();
        }
        let (paths, owner) = locations();
        let now = signature(&paths);
        if g.looked_at.is_none() || now != g.signature {
            let loaded = airlock_policy::load_with_trusted_owner(&paths, owner);
            if g.looked_at.is_some() {
                let _ = self.store.audit(
                    None,
                    "policy_changed",
                    &serde_json::json!({
                        "files": loaded.files,
                        "refused_files": loaded.warnings.iter().map(|w| &w.path).collect::<Vec<_>>(),
                        "broken": !loaded.errors.is_empty(),
                    }),
                );
            }
            g.loaded = Arc::new(loaded);
            g.signature = now;
        }
        g.looked_at = Some(Instant::now());
        g.loaded.clone()
    }

    /// What the policy knows of a server: its command or URL, whether it
    /// is confined, and, installed from a registry, its name there, version
    /// and locked hash.
    pub fn policy_facts(&self, def: &ServerDef) -> ServerFacts {
        let (command, url) = match &def.transport {
            Transport::Stdio { command, args, .. } => (
                Some(
                    std::iter::once(command.clone())
                        .chain(args.iter().cloned())
                        .collect(),
                ),
                None,
            ),
            Transport::Http { url, .. } => (None, Some(url.clone())),
        };
        let confined = match &def.transport {
            Transport::Http { .. } => true,
            Transport::Stdio { .. } => def.options.sandbox.as_ref().is_some_and(|s| s.enabled),
        };
        let install = self.store.install(&def.name).ok().flatten();
        ServerFacts {
            name: def.name.clone(),
            registry_name: install.as_ref().map(|i| i.entry_name.clone()),
            version: install.as_ref().map(|i| i.version.clone()),
            artifact_sha256: install
                .as_ref()
                .map(|i| i.digest.trim_start_matches("sha256:").to_owned()),
            command,
            url,
            confined,
        }
    }

    /// Why the team's policy refuses `def` now, if it does.
    pub fn policy_refusal(&self, def: &ServerDef) -> Option<String> {
        // No policy on this computer (the usual case): nothing to look up.
        if !self.policy().policy.is_active() {
            return None;
        }
        self.check_def_policy(def).err().map(|e| e.to_string())
    }

    /// May this server be added, kept or started?
    pub(crate) fn check_server_policy(&self, facts: &ServerFacts) -> CoreResult<()> {
        refused(self.policy().policy.check_server(facts))
    }

    /// May `def` be added or started (as stored, or as it would be)?
    pub(crate) fn check_def_policy(&self, def: &ServerDef) -> CoreResult<()> {
        self.check_server_policy(&self.policy_facts(def))
    }

    /// May the catalog read this registry?
    pub(crate) fn check_registry_policy(&self, url: &str) -> CoreResult<()> {
        refused(self.policy().policy.check_registry(url))
    }

    /// May a server's room be let through to this host?
    pub(crate) fn check_host_policy(&self, host: &str) -> CoreResult<()> {
        refused(self.policy().policy.check_host(host))
    }

    /// May a server's room be given this path?
    pub(crate) fn check_path_policy(&self, path: &std::path::Path) -> CoreResult<()> {
        refused(self.policy().policy.check_path(path))
    }

    /// The exception request for a server the policy refuses: the text to
    /// send (the server, its command, its locked hash, the rule, the
    /// person's reason) and a `mailto:` link to the policy's contact, if it
    /// has an email. `None`: the policy does not refuse it.
    pub fn policy_exception(
        &self,
        server: &str,
        reason: &str,
    ) -> CoreResult<Option<(String, Option<String>)>> {
        let def = self.get_server(server)?;
        let facts = self.policy_facts(&def);
        let loaded = self.policy();
        let Verdict::Refused(refusal) = loaded.policy.check_server(&facts) else {
            return Ok(None);
        };
        let text = airlock_policy::exception_request(&facts, &refusal, reason);
        let mail = refusal.contact.as_ref().and_then(|c| {
            airlock_policy::mailto(c, &format!("Airlock exception: {server}"), &text)
        });
        Ok(Some((text, mail)))
    }

    /// Why the team's policy keeps this app out of the gateway, if it does.
    pub fn app_refused(&self, app: &str) -> Option<String> {
        match self.policy().policy.check_app(app) {
            Verdict::Allowed => None,
            Verdict::Refused(r) => Some(r.to_string()),
        }
    }

    /// The pin mode the policy fixes, if any.
    pub(crate) fn policy_pin_mode(&self) -> Option<crate::pins::PinPolicy> {
        self.policy()
            .policy
            .fixed_pin_mode()
            .and_then(crate::pins::PinPolicy::parse)
    }

    /// A definition the policy approved for everyone (by its hash).
    pub(crate) fn policy_approves(&self, server: &str, name: &str, hash: &str) -> bool {
        self.policy().policy.is_tool_approved(server, name, hash)
    }
}

/// A definition made from a server as entered (secrets not resolved: the
/// policy never sees a secret).
pub(crate) fn def_of(input: &crate::servers::ServerInput) -> ServerDef {
    ServerDef {
        name: input.name.clone(),
        transport: input
            .transport
            .try_map(|_, v| {
                Ok::<_, std::convert::Infallible>(if v.secret {
                    StoredValue::Secret {
                        secret_ref: String::new(),
                    }
                } else {
                    StoredValue::Plain {
                        value: v.value.clone(),
                    }
                })
            })
            .unwrap_or_else(|e| match e {}),
        options: input.options.clone(),
        protocol_learned: None,
        paused: false,
    }
}

/// The state an [`Airlock`] starts with.
pub(crate) fn initial() -> Mutex<PolicyState> {
    Mutex::new(PolicyState::default())
}
