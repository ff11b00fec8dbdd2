//! `npx` and `uvx` servers in their rooms (issue 33), from real package
//! registries run here: Verdaccio (npm) and pypiserver (PyPI's simple
//! API), both from tests/registries (scripts/setup.sh). The launcher's
//! cache is writable, the registry its configuration names is reachable
//! through Airlock's proxy without a question, and two servers that share a
//! cache share nothing else.

mod common;

use std::time::Duration;

use common::registries::*;
use common::*;
use serde_json::{json, Value};

fn said(out: &Out) -> String {
    text(&out.json()["result"])
}

#[test]
fn an_npx_server_from_a_registry_runs_in_its_room() {
    let sb = Sandbox::new();
    let (_verdaccio, port, token) = verdaccio(sb.dir());
    publish_everything(sb.dir(), port, &token);
    let home = sb.dir().join("home");
    std::fs::create_dir_all(&home).expect("home");
    // The user's npm configuration names the registry (and a token it
    // must not carry into the room).
    std::fs::write(
        home.join(".npmrc"),
        format!("registry=http://127.0.0.1:{port}/\n//127.0.0.1:{port}/:_authToken={token}\n"),
    )
    .expect("npmrc");
    let cmd = || sb.cmd().env("HOME", &home);
    let added = cmd()
        .args([
            "servers",
            "add",
            "ev",
            "--command",
            "npx",
            "--",
            "-y",
            "airlock-test-everything@1.0.0",
        ])
        .run();
    added.ok();
    assert!(
        added.stdout.contains("npm's cache") && added.stdout.contains(&format!("127.0.0.1:{port}")),
        "its cache and the registry npm is configured with: {added:?}"
    );
    let call = cmd()
        .consent("decline")
        .args(["--json"])
        .call("ev", "echo", r#"{"message":"through npx"}"#)
        .timeout(Duration::from_secs(120))
        .run();
    call.ok();
    assert!(said(&call).contains("through npx"), "{call:?}");
    assert!(
        std::fs::read_dir(home.join(".npm/_npx")).is_ok_and(|mut d| d.next().is_some()),
        "npx installed it into the user's npm cache"
    );
    // A second start uses the cache (and asks nothing).
    let again = cmd()
        .consent("decline")
        .args(["--json"])
        .call("ev", "echo", r#"{"message":"again"}"#)
        .run();
    again.ok();
    assert!(said(&again).contains("again"), "{again:?}");
    assert!(
        !sb.audit().iter().any(|e| e["kind"] == "sandbox_host"),
        "the registry needed no question"
    );
    // The token in ~/.npmrc stayed out of the room: the room's home has
    // no .npmrc.
    let rooms = sb.data.join("rooms");
    for room in std::fs::read_dir(&rooms).expect("rooms").flatten() {
        assert!(!room.path().join("home/.npmrc").exists());
    }
}

#[test]
fn uvx_servers_share_their_cache_and_nothing_else() {
    let sb = Sandbox::new();
    let (_pypi, port) = pypiserver(sb.dir());
    let home = sb.dir().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let uvx = s(&must(registries().join(".venv/bin/uvx")));
    let index = format!("UV_DEFAULT_INDEX=http://127.0.0.1:{port}/simple/");
    let cmd = || {
        sb.cmd()
            .env("HOME", &home)
            .env_remove("XDG_CACHE_HOME")
            .env_remove("XDG_DATA_HOME")
    };
    for name in ["one", "two"] {
        cmd()
            .args([
                "servers",
                "add",
                name,
                "--env",
                &index,
                "--command",
                &uvx,
                "--",
                "airlock-test-escape",
            ])
            .run()
            .ok();
    }
    let tool = |server: &str, tool: &str, args: Value| -> Value {
        let out = cmd()
            .consent("decline")
            .args(["--json"])
            .call(server, tool, &args.to_string())
            .timeout(Duration::from_secs(120))
            .run();
        out.ok();
        serde_json::from_str(&said(&out)).unwrap_or(Value::Null)
    };
    let note = format!("NOTE-{}", random_hex());
    let home_s = s(&home);
    let w = tool(
        "one",
        "write_file",
        json!({"path": format!("{home_s}/note.txt"), "text": note}),
    );
    assert_eq!(
        w["ok"], true,
        "uvx installed and ran it; it writes its own home: {w}"
    );
    let cache = home.join(".cache/uv");
    assert!(cache.is_dir(), "uv's cache is the user's");
    // The second server reads the shared cache, not the first one's home.
    let listed = tool("two", "list_dir", json!({"path": s(&cache)}));
    assert_eq!(listed["ok"], true, "the cache is shared: {listed}");
    let r = tool(
        "two",
        "read_file",
        json!({"path": format!("{home_s}/note.txt")}),
    );
    assert!(r["ok"] == false && !r.to_string().contains(&note), "{r}");
    let first_home = std::fs::read_dir(sb.data.join("rooms"))
        .expect("rooms")
        .flatten()
        .map(|e| e.path().join("home"))
        .find(|h| h.join("note.txt").exists())
        .expect("the first server's home holds its note");
    let r = tool(
        "two",
        "read_file",
        json!({"path": s(&first_home.join("note.txt"))}),
    );
    assert!(r["ok"] == false && !r.to_string().contains(&note), "{r}");
    assert!(
        !home.join("note.txt").exists(),
        "neither wrote the user's home"
    );
}
