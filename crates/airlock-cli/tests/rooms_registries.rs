//! `npx` and `uvx` servers in their rooms (issue 33), from real package
//! registries run here: Verdaccio (npm) and pypiserver (PyPI's simple
//! API), both from tests/registries (scripts/setup.sh). The launcher's
//! cache is writable, the registry its configuration names is reachable
//! through Airlock's proxy without a question, and two servers that share a
//! cache share nothing else.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{json, Value};

fn registries() -> PathBuf {
    repo_root().join("tests/registries")
}

fn must(p: PathBuf) -> PathBuf {
    assert!(
        p.exists(),
        "{} is missing: run `bash scripts/setup.sh`",
        p.display()
    );
    p
}

/// A registry process, stopped when dropped.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_port(port: u16, what: &str) {
    wait_until(what, Duration::from_secs(60), || {
        std::net::TcpStream::connect(("127.0.0.1", port))
            .ok()
            .map(drop)
    });
}

fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Verdaccio on a free port with no uplink (nothing leaves this computer),
/// and a token that may publish.
fn verdaccio(dir: &Path) -> (Running, u16, String) {
    let port = free_port();
    let config = dir.join("verdaccio.yaml");
    std::fs::write(
        &config,
        format!(
            "storage: {0}/storage\nauth:\n  htpasswd:\n    file: {0}/htpasswd\nuplinks: {{}}\npackages:\n  '**':\n    access: $all\n    publish: $all\nlog: {{ type: stdout, format: pretty, level: warn }}\n",
            dir.display()
        ),
    )
    .expect("verdaccio config");
    let child = Command::new(must(registries().join("node_modules/.bin/verdaccio")))
        .arg("--config")
        .arg(&config)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("verdaccio starts");
    let running = Running(child);
    wait_port(port, "Verdaccio to listen");
    let answer = run_ok(
        Command::new("curl").args([
            "-sf",
            "-XPUT",
            "-H",
            "content-type: application/json",
            "-d",
            r#"{"name":"publisher","password":"publisher-password"}"#,
            &format!("http://127.0.0.1:{port}/-/user/org.couchdb.user:publisher"),
        ]),
        "create a Verdaccio user",
    );
    let token = serde_json::from_str::<Value>(&answer).expect("json")["token"]
        .as_str()
        .expect("token")
        .to_owned();
    (running, port, token)
}

/// Publish server-everything to Verdaccio as `airlock-test-everything`,
/// its dependencies bundled (the registry has no uplink to fetch them from).
fn publish_everything(dir: &Path, port: u16, token: &str) {
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(&pkg).expect("pkg");
    std::fs::write(
        pkg.join("package.json"),
        json!({
            "name": "airlock-test-everything",
            "version": "1.0.0",
            "type": "module",
            "bin": {"airlock-test-everything": "bin.js"},
            "dependencies": {"@modelcontextprotocol/server-everything": "2026.8.31"},
            "bundleDependencies": ["@modelcontextprotocol/server-everything"],
        })
        .to_string(),
    )
    .expect("package.json");
    std::fs::write(
        pkg.join("bin.js"),
        "#!/usr/bin/env node\nprocess.argv.splice(2, 0, \"stdio\");\nawait import(\"@modelcontextprotocol/server-everything/dist/index.js\");\n",
    )
    .expect("bin.js");
    run_ok(
        Command::new("cp")
            .arg("-rL")
            .arg(peers_dir().join("node_modules"))
            .arg(pkg.join("node_modules")),
        "copy the dependencies to bundle",
    );
    let npmrc = dir.join("publish.npmrc");
    std::fs::write(&npmrc, format!("//127.0.0.1:{port}/:_authToken={token}\n")).expect("npmrc");
    run_ok(
        Command::new("npm")
            .current_dir(&pkg)
            .args([
                "publish",
                "--registry",
                &format!("http://127.0.0.1:{port}/"),
            ])
            .arg("--userconfig")
            .arg(&npmrc)
            .env("npm_config_cache", dir.join("publish-cache")),
        "npm publish",
    );
}

/// pypiserver over a folder with the Python SDK's wheels (setup's
/// wheelhouse) and the test's own wheel.
fn pypiserver(dir: &Path) -> (Running, u16) {
    let pkgs = dir.join("wheels");
    std::fs::create_dir_all(&pkgs).expect("wheels");
    let house = must(registries().join(".venv/wheelhouse"));
    for w in std::fs::read_dir(&house).expect("wheelhouse").flatten() {
        std::fs::copy(w.path(), pkgs.join(w.file_name())).expect("copy wheel");
    }
    run_ok(
        Command::new("python3")
            .arg(registries().join("mkwheel.py"))
            .args(["airlock-test-escape", "1.0.0"])
            .arg(peers_dir().join("escape_server.py"))
            .arg(&pkgs)
            .arg("mcp==2.3.0"),
        "build the test's wheel",
    );
    let port = free_port();
    let child = Command::new(must(registries().join(".venv/bin/pypi-server")))
        .args(["run", "-i", "127.0.0.1", "-p", &port.to_string()])
        .arg(&pkgs)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("pypiserver starts");
    let running = Running(child);
    wait_port(port, "pypiserver to listen");
    (running, port)
}

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
