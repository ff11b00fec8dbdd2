//! Package registries run here for the tests: Verdaccio (npm) and
//! pypiserver (PyPI's simple API), both from tests/registries
//! (scripts/setup.sh), on loopback with no uplink: nothing leaves this
//! computer.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use super::{free_port, peers_dir, repo_root, wait_until};

pub fn registries() -> PathBuf {
    repo_root().join("tests/registries")
}

pub fn must(p: PathBuf) -> PathBuf {
    assert!(
        p.exists(),
        "{} is missing: run `bash scripts/setup.sh`",
        p.display()
    );
    p
}

/// A registry process, stopped when dropped.
pub struct Running(pub std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn wait_port(port: u16, what: &str) {
    wait_until(what, Duration::from_secs(60), || {
        std::net::TcpStream::connect(("127.0.0.1", port))
            .ok()
            .map(drop)
    });
}

pub fn run_ok(cmd: &mut Command, what: &str) -> String {
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
pub fn verdaccio(dir: &Path) -> (Running, u16, String) {
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
pub fn publish_everything(dir: &Path, port: u16, token: &str) {
    publish_everything_as(dir, port, token, "airlock-test-everything", "1.0.0");
}

/// Publish server-everything to Verdaccio as `name@version`.
pub fn publish_everything_as(dir: &Path, port: u16, token: &str, name: &str, version: &str) {
    let pkg = dir.join(format!("pkg-{name}-{version}"));
    std::fs::create_dir_all(&pkg).expect("pkg");
    std::fs::write(
        pkg.join("package.json"),
        json!({
            "name": name,
            "version": version,
            "type": "module",
            "bin": {name: "bin.js"},
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
pub fn pypiserver(dir: &Path) -> (Running, u16) {
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
