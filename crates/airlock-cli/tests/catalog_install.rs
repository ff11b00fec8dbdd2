//! `airlock catalog install` (issue 35): servers from a registry entry,
//! installed from real package registries run here (Verdaccio for npm,
//! pypiserver for PyPI; tests/registries), locked to their bytes. The MCP
//! Registry itself is a FAKE of ours on its published /v0.1 API (the real
//! one cannot run here).
//!
//! What a person would check: the exact command before anything runs, the
//! server running confined from its own folder (never through npx), its
//! first tools shown before any app sees them, a file changed on disk
//! holding the server (the changed code never runs), the locked bytes put
//! back, and a registry that serves other bytes refused.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use airlock_catalog::fake::{FakeRegistry, Trick};
use common::registries::*;
use common::*;
use serde_json::{json, Value};

fn entry(name: &str, version: &str, package: Value) -> Value {
    json!({
        "server": {
            "name": name, "description": "A server for the install tests", "version": version,
            "packages": [package]
        },
        "_meta": {"io.modelcontextprotocol.registry/official":
                  {"status": "active", "isLatest": true, "publishedAt": "2026-12-01T00:00:00Z"}}
    })
}

fn said(out: &Out) -> String {
    text(&out.json()["result"])
}

/// The folder the install put the server in (the only one under packages/).
fn package_dir(sb: &Sandbox) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(sb.data.join("packages"))
        .expect("packages/")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.remove(0)
}

/// Where a program is on this computer's PATH.
fn on_path(name: &str) -> String {
    run_ok(
        std::process::Command::new("sh").args(["-c", &format!("command -v {name}")]),
        name,
    )
    .trim()
    .to_owned()
}

fn kinds(sb: &Sandbox) -> Vec<String> {
    sb.audit()
        .iter()
        .filter_map(|e| e["kind"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_npm_server_is_installed_locked_held_when_changed_and_put_back() {
    let sb = Sandbox::new();
    let (_verdaccio, port, token) = verdaccio(sb.dir());
    publish_everything_as(sb.dir(), port, &token, "airlock-test-locked", "1.0.0");
    let home = sb.dir().join("home");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(
        home.join(".npmrc"),
        format!("registry=http://127.0.0.1:{port}/\n"),
    )
    .expect("npmrc");
    let fake = FakeRegistry::start(
        vec![entry(
            "io.github.airlock-test/locked",
            "1.0.0",
            json!({"registryType": "npm", "identifier": "airlock-test-locked", "version": "1.0.0"}),
        )],
        10,
        Trick::None,
    )
    .await;
    let cmd = || sb.cmd().env("HOME", &home);
    let node = on_path("node");
    cmd()
        .args(["catalog", "refresh", "--registry", &fake.url])
        .run()
        .ok();

    // Without a terminal and without --yes, nothing is kept.
    let asked = cmd()
        .args(["catalog", "install", "io.github.airlock-test/locked"])
        .timeout(Duration::from_secs(300))
        .run();
    assert_eq!(asked.code, Some(2), "{asked:?}");
    assert!(asked.stderr.contains("--yes"), "{asked:?}");
    assert!(
        asked.stdout.contains(&format!("Command:   {node} ")),
        "the exact command was shown: {asked:?}"
    );
    let list = sb.run(&["--json", "servers", "list"]);
    assert!(!list.stdout.contains("\"locked\""), "{list:?}");
    assert!(
        std::fs::read_dir(sb.data.join("packages"))
            .map(|d| d.count() == 0)
            .unwrap_or(true),
        "the download was removed"
    );

    let out = cmd()
        .args([
            "catalog",
            "install",
            "io.github.airlock-test/locked@1.0.0",
            "--yes",
        ])
        .timeout(Duration::from_secs(300))
        .run();
    out.ok();
    let dir = package_dir(&sb);
    let bin = dir.join("node_modules/airlock-test-locked/bin.js");
    assert!(
        out.stdout
            .contains(&format!("Command:   {node} {}", bin.display())),
        "runs its own file with node, not npx: {out:?}"
    );
    assert!(
        out.stdout
            .contains("npm airlock-test-locked@1.0.0  sha512-"),
        "{out:?}"
    );
    assert!(out.stdout.contains("Locked:    "), "{out:?}");
    assert!(out.stdout.contains("room of locked: confined"), "{out:?}");
    assert!(
        out.stdout.contains("tools and prompts"),
        "first sight shown: {out:?}"
    );
    assert!(out.stdout.contains("echo"), "{out:?}");
    let lockfile: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("package-lock.json")).expect("npm's lockfile"),
    )
    .expect("json");
    assert!(
        lockfile["packages"]["node_modules/airlock-test-locked"]["integrity"]
            .as_str()
            .is_some_and(|i| i.starts_with("sha512-")),
        "{lockfile}"
    );
    let show = sb.run(&["--json", "servers", "show", "locked"]);
    show.ok();
    assert_eq!(show.json()["transport"]["command"], node.as_str());

    let call = || {
        cmd()
            .consent("decline")
            .args(["--json"])
            .call("locked", "echo", r#"{"message":"from the lock"}"#)
            .timeout(Duration::from_secs(120))
            .run()
    };
    let first = call();
    first.ok();
    assert!(said(&first).contains("from the lock"), "{first:?}");
    assert!(kinds(&sb).contains(&"server_installed".to_owned()));

    // A changed file: the server is held, the changed code never runs.
    let marker = sb.dir().join("tampered-code-ran");
    let original = std::fs::read_to_string(&bin).expect("bin.js");
    std::fs::write(
        &bin,
        format!(
            "import {{ writeFileSync }} from 'node:fs';\nwriteFileSync({:?}, 'ran');\n{original}",
            s(&marker)
        ),
    )
    .expect("tamper");
    let held = call();
    assert_ne!(held.code, Some(0), "{held:?}");
    assert!(
        held.stdout.contains("not what was installed")
            && held.stdout.contains("bin.js was changed"),
        "the changed file is named: {held:?}"
    );
    assert!(!marker.exists(), "the changed code never ran");
    assert!(kinds(&sb).contains(&"install_changed".to_owned()));

    // Put back from the lock (npm checks every hash).
    cmd()
        .args(["catalog", "repair", "locked"])
        .timeout(Duration::from_secs(300))
        .run()
        .ok();
    assert_eq!(std::fs::read_to_string(&bin).expect("bin.js"), original);
    let again = call();
    again.ok();
    assert!(said(&again).contains("from the lock"), "{again:?}");
    assert!(!marker.exists());

    // The registry now serves other bytes for the same version: a repair
    // (from an empty npm cache, so the bytes come from the registry) is
    // refused by the locked integrity.
    let tarball = sb
        .dir()
        .join("storage/airlock-test-locked/airlock-test-locked-1.0.0.tgz");
    assert!(tarball.is_file(), "Verdaccio's copy: {}", tarball.display());
    swap_tarball(sb.dir(), &tarball);
    std::fs::write(&bin, "// changed again\n").expect("tamper");
    let refused = cmd()
        .env("npm_config_cache", sb.dir().join("empty-npm-cache"))
        .args(["catalog", "repair", "locked"])
        .timeout(Duration::from_secs(300))
        .run();
    assert_ne!(refused.code, Some(0), "{refused:?}");
    assert!(
        refused.stderr.contains("integrity") || refused.stderr.contains("EINTEGRITY"),
        "npm refused the other bytes: {refused:?}"
    );
    let still = call();
    assert!(still.stdout.contains("not what was installed"), "{still:?}");

    // Removing the server removes its folder.
    sb.run(&["servers", "remove", "locked"]).ok();
    assert!(!dir.exists(), "{} removed", dir.display());
}

/// Replace a tarball in Verdaccio's storage with one whose bin.js differs
/// (the registry turned hostile after the install).
fn swap_tarball(dir: &Path, tarball: &Path) {
    let work = dir.join("swap");
    std::fs::create_dir_all(&work).expect("swap");
    run_ok(
        std::process::Command::new("tar")
            .arg("-xzf")
            .arg(tarball)
            .arg("-C")
            .arg(&work)
            .arg("package/bin.js")
            .arg("package/package.json"),
        "unpack",
    );
    std::fs::write(
        work.join("package/bin.js"),
        "#!/usr/bin/env node\nconsole.error('not what was published');\n",
    )
    .expect("bin.js");
    run_ok(
        std::process::Command::new("tar")
            .arg("-czf")
            .arg(tarball)
            .arg("-C")
            .arg(&work)
            .arg("package"),
        "pack",
    );
}
