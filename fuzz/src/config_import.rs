//! Config import: a Claude Desktop / Cursor (`mcpServers`) or VS Code
//! (`servers` + `inputs`) file, as `airlock servers import` and the window
//! read it, then stored the way an import stores it.
//!
//! Input: the file's text (invalid UTF-8 replaced). Each input prompt is
//! answered with a value made from its id, the plan resolved, and the
//! servers imported into an Airlock with an in-memory keychain (one per
//! process, emptied after each input); what lands in SQLite and in an export
//! must not hold a value that went to the keychain.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use airlock_core::elicitation::BrokerSettings;
use airlock_core::secrets::{Redactor, SecretValue};
use airlock_core::servers::{
    export_mcp_servers, looks_secret, parse_config, ImportError, ServerInput, StoredValue,
    Transport,
};
use airlock_core::test_support::{open_core, RecordingOpener, ScriptedConsent};
use airlock_core::Airlock;

/// Shortest secret value whose absence from stored text is checked (shorter
/// ones collide with ordinary text by chance).
const MIN_CHECKED_SECRET: usize = 8;

/// The Airlock of this process and its data dir, opened at the first input
/// (opening one per input would measure SQLite's start-up, not the import)
/// and removed by [`cleanup`].
static CORE: Mutex<Option<(Arc<Airlock>, tempfile::TempDir)>> = Mutex::new(None);

fn core() -> Arc<Airlock> {
    let mut slot = CORE.lock().unwrap_or_else(|e| e.into_inner());
    let (core, _) = slot.get_or_insert_with(|| {
        open_core(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            BrokerSettings::default(),
        )
    });
    core.clone()
}

/// Close this process's Airlock and remove its data dir (the corpus test
/// calls it when done; a fuzzer's runs end with the process, in a temporary
/// dir of scripts/fuzz.sh's own).
pub fn cleanup() {
    let taken = CORE.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((core, dir)) = taken {
        core.close();
        drop(core);
        drop(dir);
    }
}

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let plan = match parse_config(&text) {
        Ok(plan) => plan,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for s in &plan.servers {
        assert!(
            s.validate().is_ok(),
            "a parsed server does not validate: {:?}",
            s.name
        );
    }
    // Every answer missing: refused, naming one.
    if !plan.prompts.is_empty() {
        assert!(
            matches!(
                plan.resolve(&BTreeMap::new()),
                Err(ImportError::MissingInput { .. })
            ),
            "unanswered inputs accepted"
        );
    }
    let answers: BTreeMap<String, String> = plan
        .prompts
        .iter()
        .map(|p| (p.id.clone(), format!("answer-{}-0123456789", p.id.len())))
        .collect();
    let Ok(servers) = plan.resolve(&answers) else {
        return;
    };
    for s in &servers {
        assert!(
            s.validate().is_ok(),
            "a resolved server does not validate: {:?}",
            s.name
        );
        check_guard(s);
    }
    store_and_check(&servers);
}

/// Every text of a server that is stored as is (not in the keychain).
fn plain_texts(s: &ServerInput) -> Vec<&str> {
    let mut out = vec![s.name.as_str()];
    match &s.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            out.push(command);
            out.extend(args.iter().map(String::as_str));
            out.extend(cwd.as_deref());
            for (k, v) in env {
                out.push(k);
                if !v.secret {
                    out.push(&v.value);
                }
            }
        }
        Transport::Http { url, headers } => {
            out.push(url);
            for (k, v) in headers {
                out.push(k);
                if !v.secret {
                    out.push(&v.value);
                }
            }
        }
    }
    out
}

/// `guard_secrets` marks secret what looks secret, or refuses; the redactor
/// masks what it marked.
fn check_guard(s: &ServerInput) {
    let mut guarded = s.clone();
    let Ok(moved) = guarded.guard_secrets() else {
        return;
    };
    let before = s.transport.values();
    let after = guarded.transport.values();
    assert_eq!(before.len(), after.len());
    let mut newly = 0;
    for (k, v) in after {
        let was = &before[k];
        assert_eq!(
            v.value, was.value,
            "guard_secrets changed the value of {k:?}"
        );
        assert!(
            v.secret || !was.secret,
            "guard_secrets made {k:?} plain again"
        );
        if looks_secret(k) {
            assert!(v.secret, "{k:?} looks secret but stays plain");
        }
        if v.secret && !was.secret {
            newly += 1;
        }
        if v.secret && is_checkable(&v.value) {
            let redactor = Redactor::new([SecretValue::new(v.value.clone())]);
            let masked = redactor.redact(&format!("stderr: {} (end)", v.value));
            assert!(
                !masked.contains(&v.value),
                "the redactor left {k:?} in {masked:?}"
            );
        }
    }
    assert_eq!(moved.len(), newly, "guard_secrets reports {moved:?}");
}

/// A secret value whose presence in other text can be checked by substring:
/// long enough, and of word characters, so that the redaction marker and the
/// text around it cannot spell it.
fn is_checkable(v: &str) -> bool {
    v.len() >= MIN_CHECKED_SECRET && v.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Every string of a JSON value (object keys included) but the keychain
/// references, which are Airlock's own names.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                if k != "secret_ref" {
                    out.push(k.clone());
                    strings(v, out);
                }
            }
        }
        _ => {}
    }
}

/// No text in `stored` holds a secret value of `servers` that the user did
/// not also write somewhere in plain text.
fn assert_no_secret(what: &str, stored: &serde_json::Value, servers: &[ServerInput]) {
    let mut texts = Vec::new();
    strings(stored, &mut texts);
    let plain: Vec<&str> = servers.iter().flat_map(plain_texts).collect();
    for s in servers {
        for (k, v) in s.transport.values() {
            if !v.secret || !is_checkable(&v.value) || plain.iter().any(|p| p.contains(&v.value)) {
                continue;
            }
            if let Some(t) = texts.iter().find(|t| t.contains(&v.value)) {
                panic!("the secret of {:?} {k:?} is in {what}: {t:?}", s.name);
            }
        }
    }
}

/// Import all servers (all or nothing), then check what SQLite and an export
/// hold, then remove them again.
fn store_and_check(servers: &[ServerInput]) {
    let core = core();
    let imported = core.import_servers(servers);
    if let Ok(names) = &imported {
        assert_eq!(names.len(), servers.len());
        // What import stores: each server after its own guard.
        let guarded: Vec<ServerInput> = servers
            .iter()
            .map(|s| {
                let mut g = s.clone();
                let _ = g.guard_secrets();
                g
            })
            .collect();
        let mut defs = Vec::new();
        for s in &guarded {
            let def = core
                .get_server(&s.name)
                .expect("an imported server is stored");
            assert_eq!(def.name, s.name);
            for (k, v) in s.transport.values() {
                if v.secret {
                    assert!(
                        matches!(def.transport.values()[k], StoredValue::Secret { .. }),
                        "secret {k:?} of {:?} stored in plain text",
                        s.name
                    );
                }
            }
            let stored = serde_json::to_value(&def).expect("a stored server serialises");
            assert_no_secret("the stored server", &stored, &guarded);
            defs.push(def);
        }
        assert_no_secret("the export", &export_mcp_servers(&defs).json, &guarded);
    }
    // Leave the store as it was, whatever happened.
    for s in core.list_servers().unwrap_or_default() {
        core.remove_server(&s.name)
            .unwrap_or_else(|e| panic!("remove {:?}: {e}", s.name));
    }
    if let Err(e) = imported {
        let _ = e.to_string();
    }
}
