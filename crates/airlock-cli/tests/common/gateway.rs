//! The gateway's end-to-end helpers: `airlock daemon` with scripted
//! consent, the stdio shim an app runs, and the SDK apps of tests/peers
//! (gateway_client.mjs and gateway_client.py) running a script of ops.

use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use super::*;

pub fn socket(sb: &Sandbox) -> PathBuf {
    sb.data.join("gateway.sock")
}

/// The pid in the host's lock file, when one runs.
pub fn host_pid(sb: &Sandbox) -> Option<u32> {
    std::fs::read_to_string(sb.data.join("gateway.lock"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// `airlock daemon` with scripted consent (by default with short deadlines
/// and the given browser); stopped with SIGTERM (then killed) when dropped.
pub struct Daemon {
    guard: ChildGuard,
    log: PathBuf,
}

impl Daemon {
    /// `--consent CONSENT --open system --late-after 1 --give-up-after 5 daemon`.
    pub fn start(sb: &Sandbox, consent: &str, browser: Option<&BrowserRecorder>) -> Daemon {
        let mut cmd = sb
            .cmd()
            .consent(consent)
            .open("system")
            .deadlines("1", "5")
            .arg("daemon");
        if let Some(b) = browser {
            cmd = b.apply(cmd);
        }
        Daemon::spawn(sb, cmd)
    }

    /// Start `cmd` (an `airlock ... daemon` of `sb`), its stderr in a log
    /// file, and wait until its socket accepts.
    pub fn spawn(sb: &Sandbox, cmd: Cmd) -> Daemon {
        let log = sb.dir().join(format!("daemon-{}.log", random_hex()));
        let d = Daemon {
            guard: cmd.spawn_daemon(std::fs::File::create(&log).expect("daemon log")),
            log,
        };
        wait_until("the daemon's socket", Duration::from_secs(20), || {
            UnixStream::connect(socket(sb)).ok().map(|_| ())
        });
        d
    }

    pub fn pid(&self) -> u32 {
        self.guard.pid()
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        stop(self.pid());
    }
}

/// SIGTERM, then up to 5 s for the process to go.
pub fn stop(pid: u32) {
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let _ = wait_for_exit(pid, Duration::from_secs(5));
}

pub fn wait_for_exit(pid: u32, within: Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < within {
        if process_is_dead(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    false
}

/// The command an app runs: the shim, with an explicit data dir (apps do
/// not pass their environment on: the Python SDK gives a child only a
/// minimal one).
pub fn shim_argv(sb: &Sandbox, client: Option<&str>, extra: &[&str]) -> Vec<String> {
    let mut v = vec![s(&airlock_bin()), "--data-dir".into(), s(&sb.data)];
    v.extend(extra.iter().map(|e| (*e).to_owned()));
    v.extend(["gateway".into(), "--stdio".into()]);
    if let Some(c) = client {
        v.extend(["--app".into(), c.into()]);
    }
    v
}

/// The TypeScript SDK app running `ops`; one JSON value per op.
pub fn ts_app(sb: &Sandbox, name: &str, client: Option<&str>, ops: &Value) -> Cmd {
    Cmd::new("node")
        .arg(peers_dir().join("gateway_client.mjs"))
        .args(["--name", name, "--ops", &ops.to_string(), "--"])
        .args(shim_argv(sb, client, &[]))
        .timeout(Duration::from_secs(90))
}

/// The Python SDK app (mode auto: it negotiates 2026-07-28 with the gateway).
pub fn py_app(sb: &Sandbox, name: &str, client: Option<&str>, ops: &Value) -> Cmd {
    Cmd::new(py())
        .arg(peers_dir().join("gateway_client.py"))
        .args(["--name", name, "--ops", &ops.to_string(), "--"])
        .args(shim_argv(sb, client, &[]))
        .timeout(Duration::from_secs(90))
}

pub fn lines(out: &Out) -> Vec<Value> {
    out.ok();
    let v = out.json_lines();
    assert!(!v.is_empty(), "no output: {out:?}");
    v
}

pub fn tool_names(v: &Value) -> Vec<String> {
    v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t.as_str().expect("name").to_owned())
        .collect()
}

pub fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": name, "arguments": arguments})
}

/// tests/peers/py_calls.py (progress, cancellation, sampling, roots) as
/// server `name`; `extra` goes before `--command` (`--protocol ...`). Its
/// events file is returned.
pub fn add_py_calls(sb: &Sandbox, name: &str, extra: &[&str]) -> PathBuf {
    let events = sb.peer_out().join(format!("{name}-events.txt"));
    let env = format!("AIRLOCK_PEER_EVENTS={}", events.display());
    let mut args: Vec<String> = vec!["servers".into(), "add".into(), name.into()];
    args.extend(extra.iter().map(|e| (*e).to_owned()));
    args.extend([
        "--allow-write".into(),
        s(&sb.peer_out()),
        "--env".into(),
        env,
        "--command".into(),
        s(&py()),
        "--".into(),
        s(&peers_dir().join("py_calls.py")),
        "stdio".into(),
    ]);
    sb.cmd().args(&args).run().ok();
    events
}

/// The lines of a peer's events file so far.
pub fn events(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Wait for `client`'s two history rows (a call the app cancelled and one
/// after it) and check the cancelled `tool` is recorded as such.
pub fn assert_cancelled_row(sb: &Sandbox, client: &str, tool: &str) {
    let rows = wait_until("two history rows", Duration::from_secs(10), || {
        let rows = sb.history(&["--app", client]);
        (rows.len() == 2).then_some(rows)
    });
    let cancelled = rows
        .iter()
        .find(|r| r["tool"] == tool)
        .expect("the cancelled call's row");
    assert_eq!(cancelled["outcome"], "failed", "{cancelled}");
    assert!(
        cancelled["error"]
            .as_str()
            .unwrap_or("")
            .contains("cancelled"),
        "{cancelled}"
    );
}
