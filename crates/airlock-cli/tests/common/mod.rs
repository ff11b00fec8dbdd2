//! Shared helpers for Airlock's end-to-end tests: run the real `airlock`
//! binary against real MCP peers (tests/peers), each test in its own temp
//! data dir, every child process killed when the test ends (even on panic).
//!
//! Peers: `bash scripts/setup.sh` installs them. Tests that store secrets need
//! the OS keychain: run the suite as `scripts/with-session.sh cargo test`.

#![allow(dead_code)]

use std::collections::hash_map::RandomState;
use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hasher};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

pub mod gateway;
mod live;
pub mod notify;
mod peers;
mod recorders;
pub mod registries;
mod run;
mod sandbox;

// Each test binary uses some of these, none uses all.
#[allow(unused_imports)]
pub use live::*;
#[allow(unused_imports)]
pub use peers::*;
#[allow(unused_imports)]
pub use recorders::*;
#[allow(unused_imports)]
pub use run::*;
#[allow(unused_imports)]
pub use sandbox::*;

/// Longest any single `airlock` invocation may take before the test fails.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

// ----- locations -----

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

pub fn airlock_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_airlock"))
}

pub fn peers_dir() -> PathBuf {
    repo_root().join("tests/peers")
}

fn must_exist(p: PathBuf) -> PathBuf {
    assert!(
        p.exists(),
        "{} is missing: run `bash scripts/setup.sh` to install the test peers",
        p.display()
    );
    p
}

/// server-everything's entry point (`node <this> stdio|streamableHttp`).
pub fn everything_js() -> PathBuf {
    must_exist(
        peers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    )
}

/// server-everything's tool that asks for a URL elicitation ([`url_args`]).
pub const URL_TRIGGER: &str = "trigger-url-elicitation";

/// The arguments of [`URL_TRIGGER`] (and of py-peer's URL tools): `{"url": URL}`.
pub fn url_args(url: &str) -> String {
    serde_json::json!({ "url": url }).to_string()
}

/// The venv python that has the `mcp` SDK (for py_server.py).
pub fn py() -> PathBuf {
    must_exist(peers_dir().join(".venv/bin/python"))
}

pub fn py_server() -> PathBuf {
    must_exist(peers_dir().join("py_server.py"))
}

pub fn bad_server() -> PathBuf {
    must_exist(peers_dir().join("bad_server.py"))
}

/// A stdio proxy that answers `server/discover` with -32601 so that the
/// server behind it is seen as a 2025-11-25 (initialize-only) server.
pub fn legacy_proxy() -> PathBuf {
    must_exist(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/legacy_stdio_proxy.py"))
}

pub fn s(p: &Path) -> String {
    p.to_str().expect("utf-8 path").to_owned()
}

// ----- small utilities -----

/// 16 random hex digits (std's randomly seeded hasher; no extra crate).
pub fn random_hex() -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_usize(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    );
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// The text of a tool result: its content's text items, joined by newlines
/// ("" when it has no content array).
pub fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// A port that was free a moment ago (bind to 0, read it, release it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Poll `f` every 25 ms until it returns `Some`, or panic after `timeout`.
pub fn wait_until<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        if start.elapsed() > timeout {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        thread::sleep(Duration::from_millis(25));
    }
}

/// Tests that store secrets need the OS keychain of `scripts/with-session.sh`.
pub fn require_keychain() {
    assert!(
        std::env::var_os("AIRLOCK_SESSION_DIR").is_some(),
        "this test stores secrets in the OS keychain: run the suite as \
         `scripts/with-session.sh cargo test -p airlock-cli` (private D-Bus + unlocked gnome-keyring)"
    );
}

/// `secret-tool lookup` of an Airlock keychain entry (service dev.airlock).
pub fn keychain_lookup(secret_ref: &str) -> Option<String> {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", "dev.airlock", "username", secret_ref])
        .stdin(Stdio::null())
        .output()
        .expect("secret-tool is installed (package libsecret-tools)");
    (out.status.success() && !out.stdout.is_empty())
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Every file under `dir` (recursively) with its bytes.
pub fn read_all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let p = entry.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push((p, bytes));
            }
        }
    }
    out
}

pub fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// The data dir has files, the database among them, and none holds any of
/// `canaries` (secrets a test gave Airlock).
pub fn assert_no_canary_in_data_dir(sb: &Sandbox, canaries: &[&str]) {
    let files = read_all_files(&sb.data);
    assert!(!files.is_empty(), "the data dir has files");
    assert!(
        files.iter().any(|(p, _)| p.ends_with("airlock.sqlite3")),
        "the database is among them: {:?}",
        files
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect::<Vec<_>>()
    );
    for (path, bytes) in &files {
        for c in canaries {
            assert!(
                !contains_bytes(bytes, c.as_bytes()),
                "secret {c} found in {}",
                path.display()
            );
        }
    }
}

/// Is a process gone (or a zombie that nobody reaped yet)?
pub fn process_is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/status")) {
        Err(_) => true,
        Ok(status) => status
            .lines()
            .find(|l| l.starts_with("State:"))
            .is_some_and(|l| l.contains("Z") || l.contains("X")),
    }
}

fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
