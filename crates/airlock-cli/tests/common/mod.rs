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

// ----- child processes -----

/// Kills (and reaps) its child when dropped, so nothing outlives a test.
pub struct ChildGuard {
    pub child: Child,
    pub name: String,
}

impl ChildGuard {
    pub fn new(child: Child, name: impl Into<String>) -> Self {
        Self {
            child,
            name: name.into(),
        }
    }
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Environment every `airlock` run gets: nothing can open a real browser
/// (xdg-open in generic mode without a display, BROWSER=true) and the
/// user's data dir is never touched.
const HARDEN_REMOVE: [&str; 8] = [
    "AIRLOCK_DATA_DIR",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "KDE_FULL_SESSION",
    "GNOME_DESKTOP_SESSION_ID",
    "MATE_DESKTOP_SESSION_ID",
    "DESKTOP_SESSION",
    "LXQT_SESSION_CONFIG",
];

pub fn harden(c: &mut Command) {
    for k in HARDEN_REMOVE {
        c.env_remove(k);
    }
    c.env("XDG_CURRENT_DESKTOP", "X-Generic");
    c.env("BROWSER", "true");
}

/// One finished `airlock` run.
pub struct Out {
    pub cmdline: String,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr_bytes: Vec<u8>,
    pub elapsed: Duration,
    pub timed_out: bool,
    /// Peak resident set size (VmHWM) seen while it ran, in KiB.
    pub peak_rss_kb: Option<u64>,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "\n$ {}\nexit: {:?}{} after {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}\n",
            self.cmdline,
            self.code,
            if self.timed_out {
                " (TIMED OUT, killed)"
            } else {
                ""
            },
            self.elapsed,
            clip(&self.stdout),
            clip(&self.stderr)
        )
    }
}

pub fn clip(s: &str) -> String {
    if s.len() > 6000 {
        let mut end = 6000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… [{} bytes more]", &s[..end], s.len() - end)
    } else {
        s.to_owned()
    }
}

impl Out {
    pub fn code(&self) -> i32 {
        assert!(!self.timed_out, "command timed out: {self:?}");
        self.code
            .unwrap_or_else(|| panic!("killed by a signal: {self:?}"))
    }

    /// Assert exit 0; returns self for chaining.
    pub fn ok(&self) -> &Self {
        assert_eq!(self.code(), 0, "expected success: {self:?}");
        self
    }

    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(self.code(), code, "expected exit code {code}: {self:?}");
        self
    }

    /// stdout parsed as one JSON document.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// stdout parsed as JSON lines.
    pub fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?} in {self:?}"))
            })
            .collect()
    }

    /// The last JSON line of stdout (the result, after any event lines).
    pub fn json_last(&self) -> Value {
        self.json_lines()
            .pop()
            .unwrap_or_else(|| panic!("no JSON on stdout: {self:?}"))
    }
}

/// A command line to run, with stdin, extra env and a time limit.
pub struct Cmd {
    program: PathBuf,
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    env_removes: Vec<OsString>,
    stdin: Vec<u8>,
    hold_stdin: Duration,
    timeout: Duration,
}

impl Cmd {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            envs: Vec::new(),
            env_removes: Vec::new(),
            stdin: Vec::new(),
            hold_stdin: Duration::ZERO,
            timeout: DEFAULT_TIMEOUT,
        }
    }
    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Self {
        self.args.push(a.as_ref().to_owned());
        self
    }
    pub fn args<I, A>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = A>,
        A: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }
    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Self {
        self.envs
            .push((k.as_ref().to_owned(), v.as_ref().to_owned()));
        self
    }
    pub fn env_remove(mut self, k: impl AsRef<OsStr>) -> Self {
        self.env_removes.push(k.as_ref().to_owned());
        self
    }
    /// Bytes written to stdin; stdin is then closed (after `hold_stdin`).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = bytes.into();
        self
    }
    /// Keep stdin open this long after writing it (a user who does not answer).
    pub fn hold_stdin(mut self, d: Duration) -> Self {
        self.hold_stdin = d;
        self
    }
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }

    pub fn run(self) -> Out {
        let cmdline = std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        harden(&mut c);
        for k in &self.env_removes {
            c.env_remove(k);
        }
        for (k, v) in &self.envs {
            c.env(k, v);
        }
        let start = Instant::now();
        let child = c
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmdline}: {e}"));
        let mut guard = ChildGuard::new(child, cmdline.clone());
        let pid = guard.pid();

        let mut stdin = guard.child.stdin.take().expect("stdin");
        let input = self.stdin;
        let hold = self.hold_stdin;
        thread::spawn(move || {
            let _ = stdin.write_all(&input);
            let _ = stdin.flush();
            if !hold.is_zero() {
                thread::sleep(hold);
            }
            drop(stdin);
        });
        let read_to_end = |mut r: Box<dyn Read + Send>| {
            let (tx, rx) = mpsc::channel();
            thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = r.read_to_end(&mut buf);
                let _ = tx.send(buf);
            });
            rx
        };
        let out_rx = read_to_end(Box::new(guard.child.stdout.take().expect("stdout")));
        let err_rx = read_to_end(Box::new(guard.child.stderr.take().expect("stderr")));

        let mut peak = None;
        let mut timed_out = false;
        let status = loop {
            if let Some(kb) = peak_rss_kb(pid) {
                peak = Some(peak.map_or(kb, |p: u64| p.max(kb)));
            }
            match guard.child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) => {}
                Err(e) => panic!("wait for {cmdline}: {e}"),
            }
            if start.elapsed() > self.timeout {
                timed_out = true;
                let _ = guard.child.kill();
                break guard.child.wait().ok();
            }
            thread::sleep(Duration::from_millis(10));
        };
        let elapsed = start.elapsed();
        let stdout_bytes = out_rx
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_default();
        let stderr_bytes = err_rx
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_default();
        Out {
            cmdline,
            code: status.and_then(|s| s.code()),
            stdout: String::from_utf8_lossy(&stdout_bytes).into_owned(),
            stderr: String::from_utf8_lossy(&stderr_bytes).into_owned(),
            stdout_bytes,
            stderr_bytes,
            elapsed,
            timed_out,
            peak_rss_kb: peak,
        }
    }
}

// ----- a sandbox: one temp dir and one Airlock data dir per test -----

pub struct Sandbox {
    pub tmp: tempfile::TempDir,
    pub data: PathBuf,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    pub fn new() -> Self {
        let tmp = tempfile::Builder::new()
            .prefix("airlock-e2e-")
            .tempdir()
            .expect("temp dir");
        let data = tmp.path().join("data");
        Self { tmp, data }
    }

    pub fn dir(&self) -> &Path {
        self.tmp.path()
    }

    /// `airlock --data-dir <this sandbox>`; add arguments, then `.run()`.
    pub fn cmd(&self) -> Cmd {
        Cmd::new(airlock_bin()).arg("--data-dir").arg(&self.data)
    }

    pub fn run(&self, args: &[&str]) -> Out {
        self.cmd().args(args).run()
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir().join(name);
        std::fs::write(&p, text).expect("write file");
        p
    }

    /// `servers add NAME --command node -- <server-everything> stdio`.
    pub fn add_everything(&self, name: &str) {
        self.run(&[
            "servers",
            "add",
            name,
            "--command",
            "node",
            "--",
            &s(&everything_js()),
            "stdio",
        ])
        .ok();
    }

    /// `servers add NAME [--env K=V]... --command <venv python> -- py_server.py stdio`.
    pub fn add_py(&self, name: &str, env: &[&str]) {
        let mut args: Vec<String> = vec!["servers".into(), "add".into(), name.into()];
        for e in env {
            args.push("--env".into());
            args.push((*e).into());
        }
        args.extend([
            "--command".into(),
            s(&py()),
            "--".into(),
            s(&py_server()),
            "stdio".into(),
        ]);
        self.cmd().args(&args).run().ok();
    }

    /// py_server behind the legacy proxy: a 2025-11-25-only stdio server.
    pub fn add_py_legacy(&self, name: &str, env: &[&str]) {
        let mut args: Vec<String> = vec!["servers".into(), "add".into(), name.into()];
        for e in env {
            args.push("--env".into());
            args.push((*e).into());
        }
        args.extend([
            "--command".into(),
            "python3".into(),
            "--".into(),
            s(&legacy_proxy()),
            s(&py()),
            s(&py_server()),
            "stdio".into(),
        ]);
        self.cmd().args(&args).run().ok();
    }

    pub fn add_url(&self, name: &str, url: &str) {
        self.run(&["servers", "add", name, "--url", url]).ok();
    }

    /// `servers list --json`.
    pub fn servers(&self) -> Vec<Value> {
        self.run(&["--json", "servers", "list"])
            .ok()
            .json()
            .as_array()
            .expect("servers list --json is an array")
            .clone()
    }

    pub fn server_names(&self) -> Vec<String> {
        self.servers()
            .iter()
            .map(|v| v["name"].as_str().expect("name").to_owned())
            .collect()
    }

    /// `history --json [extra...]` -> the `calls` array.
    pub fn history(&self, extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["--json", "history"];
        args.extend_from_slice(extra);
        self.run(&args).ok().json()["calls"]
            .as_array()
            .expect("calls array")
            .clone()
    }

    /// `elicitations --json`, newest first.
    pub fn elicitations(&self) -> Vec<Value> {
        self.run(&["--json", "elicitations", "--limit", "100"])
            .ok()
            .json()
            .as_array()
            .expect("array")
            .clone()
    }

    /// `audit --json`, oldest first.
    pub fn audit(&self) -> Vec<Value> {
        let mut v = self
            .run(&["--json", "audit", "--limit", "1000"])
            .ok()
            .json()
            .as_array()
            .expect("array")
            .clone();
        v.reverse();
        v
    }

    /// The states an elicitation record went through, oldest first (from the audit trail).
    pub fn states_of(&self, record_id: i64) -> Vec<String> {
        self.audit()
            .iter()
            .filter(|e| {
                e["kind"] == "elicitation" && e["detail"]["record_id"].as_i64() == Some(record_id)
            })
            .map(|e| e["detail"]["state"].as_str().unwrap_or("?").to_owned())
            .collect()
    }

    /// The texts of `logs NAME --json`.
    pub fn log_texts(&self, server: &str) -> Vec<String> {
        self.run(&["--json", "logs", server, "--limit", "1000"])
            .ok()
            .json()
            .as_array()
            .expect("array")
            .iter()
            .map(|l| l["text"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

// ----- peers over HTTP -----

/// A peer process serving HTTP; killed on drop.
pub struct HttpPeer {
    pub guard: ChildGuard,
    pub url: String,
    pub log: Arc<Mutex<String>>,
}

impl HttpPeer {
    pub fn port(&self) -> u16 {
        url_port(&self.url)
    }
}

pub fn url_port(url: &str) -> u16 {
    let rest = url.split("://").nth(1).expect("url with scheme");
    let hostport = rest.split('/').next().unwrap();
    hostport
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .expect("port in url")
}

/// Spawn `cmd`, drain its stderr, and wait for a line containing `marker`
/// followed by a URL (`http://...`); returns that URL.
pub fn spawn_with_ready_line(mut cmd: Command, name: &str, marker: &'static str) -> HttpPeer {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
    let mut guard = ChildGuard::new(child, name);
    let stderr = guard.child.stderr.take().expect("stderr");
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = mpsc::channel();
    {
        let log = log.clone();
        thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                log.lock().unwrap().push_str(&format!("{line}\n"));
                if line.contains(marker) {
                    if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                        if let Some(tx) = tx.take() {
                            let _ = tx.send(url.to_owned());
                        }
                    }
                }
            }
        });
    }
    let url = match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(url) => url,
        Err(_) => panic!(
            "{name} did not print its ready line; stderr:\n{}",
            log.lock().unwrap()
        ),
    };
    HttpPeer { guard, url, log }
}

/// py-peer over streamable HTTP on a port it picks (`--port 0`).
pub fn start_py_http(env: &[(&str, &str)]) -> HttpPeer {
    let mut c = Command::new(py());
    c.arg(py_server()).args(["http", "--port", "0"]);
    for (k, v) in env {
        c.env(k, v);
    }
    spawn_with_ready_line(c, "py-peer http", "py-peer ready")
}

/// bad_server.py html: 200 text/html for every request.
pub fn start_bad_html() -> HttpPeer {
    let mut c = Command::new("python3");
    c.arg(bad_server()).args(["html", "--port", "0"]);
    spawn_with_ready_line(c, "bad-server html", "bad-server html ready")
}

/// server-everything over streamable HTTP on a free port (`PORT`), once it accepts.
pub fn start_everything_http() -> HttpPeer {
    let (guard, ports, log) = start_on_free_ports("server-everything http", 1, |p| {
        let mut c = Command::new("node");
        c.arg(everything_js())
            .arg("streamableHttp")
            .env("PORT", p[0].to_string());
        c
    });
    HttpPeer {
        guard,
        url: format!("http://127.0.0.1:{}/mcp", ports[0]),
        log,
    }
}

/// Start a server on `n` free ports picked here (`cmd` puts them in its
/// command line or environment), with its stdout and stderr collected;
/// returns once every port accepts. A port taken by someone else in
/// between makes the server exit: then other ports are tried (3 attempts).
fn start_on_free_ports(
    name: &str,
    n: usize,
    mut cmd: impl FnMut(&[u16]) -> Command,
) -> (ChildGuard, Vec<u16>, Arc<Mutex<String>>) {
    for _attempt in 0..3 {
        let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
        let child = cmd(&ports)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let mut guard = ChildGuard::new(child, name);
        let log = Arc::new(Mutex::new(String::new()));
        let pipes: [Option<Box<dyn Read + Send>>; 2] = [
            guard.child.stdout.take().map(|p| Box::new(p) as _),
            guard.child.stderr.take().map(|p| Box::new(p) as _),
        ];
        for pipe in pipes.into_iter().flatten() {
            let log = log.clone();
            thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    log.lock().unwrap().push_str(&format!("{line}\n"));
                }
            });
        }
        let start = Instant::now();
        let up = |port: &u16| {
            let addr: SocketAddr = ([127, 0, 0, 1], *port).into();
            TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
        };
        loop {
            if ports.iter().all(up) {
                return (guard, ports, log);
            }
            if let Ok(Some(_)) = guard.child.try_wait() {
                break; // a port was taken in between: try others
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!(
                    "{name} did not listen on {ports:?}; output:\n{}",
                    log.lock().unwrap()
                );
            }
            thread::sleep(Duration::from_millis(25));
        }
    }
    panic!("{name} could not start on free ports (3 attempts)");
}

// ----- a TCP listener that counts (and records) connections -----

pub struct CountingListener {
    pub port: u16,
    count: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    handle: Option<thread::JoinHandle<()>>,
}

impl CountingListener {
    /// Listen on 127.0.0.1:<free>; every connection is counted, its request
    /// head recorded, and answered with `response` (raw HTTP) if given.
    pub fn start(response: Option<&'static str>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().unwrap().port();
        let count = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handle = {
            let (count, requests, stop) = (count.clone(), requests.clone(), stop.clone());
            thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((mut stream, _)) => {
                            count.fetch_add(1, Ordering::SeqCst);
                            let _ = stream.set_nonblocking(false);
                            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                            let mut head = Vec::new();
                            let mut buf = [0u8; 4096];
                            while !contains_bytes(&head, b"\r\n\r\n") && head.len() < 64 * 1024 {
                                match stream.read(&mut buf) {
                                    Ok(0) | Err(_) => break,
                                    Ok(n) => head.extend_from_slice(&buf[..n]),
                                }
                            }
                            requests
                                .lock()
                                .unwrap()
                                .push(String::from_utf8_lossy(&head).into_owned());
                            if let Some(r) = response {
                                let _ = stream.write_all(r.as_bytes());
                            }
                        }
                        Err(_) => thread::sleep(Duration::from_millis(10)),
                    }
                }
            })
        };
        Self {
            port,
            count,
            requests,
            stop,
            handle: Some(handle),
        }
    }

    pub fn connections(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for CountingListener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

// ----- a BROWSER that records what it was asked to open -----

/// A fake browser for xdg-open (`BROWSER=...`): appends each URL to a file.
pub struct BrowserRecorder {
    pub script: PathBuf,
    pub log: PathBuf,
}

impl BrowserRecorder {
    pub fn new(dir: &Path) -> Self {
        assert!(
            Path::new("/usr/bin/xdg-open").exists()
                || Command::new("sh").args(["-c", "command -v xdg-open"]).output().is_ok_and(|o| o.status.success()),
            "xdg-open is not installed (Debian package xdg-utils): Airlock's system-browser opener needs it"
        );
        let script = dir.join("record-browser.sh");
        let log = dir.join("opened.txt");
        std::fs::write(
            &script,
            format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", log.display()),
        )
        .expect("write recorder");
        Self { script, log }
    }

    /// Environment for `airlock --open system`: xdg-open (generic mode) runs
    /// `sh <script> URL`. The script is read by sh, never exec'd, so there is
    /// no "text file busy" race with other tests' forks.
    pub fn apply(&self, cmd: Cmd) -> Cmd {
        cmd.env("BROWSER", format!("sh {} %s", self.script.display()))
            .env("XDG_CURRENT_DESKTOP", "X-Generic")
    }

    pub fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .map(|t| t.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// Wait until at least `n` URLs were opened, then a little longer for extras.
    pub fn wait_for(&self, n: usize) -> Vec<String> {
        wait_until("the browser recorder", Duration::from_secs(10), || {
            (self.lines().len() >= n).then_some(())
        });
        thread::sleep(Duration::from_millis(400));
        self.lines()
    }

    /// Give a (wrongly) started opener time to show up, then report.
    pub fn settle(&self) -> Vec<String> {
        thread::sleep(Duration::from_millis(600));
        self.lines()
    }
}

impl BrowserRecorder {
    /// A recorder that also acts as the user's browser for URLs starting
    /// with `prefix`: it follows their redirects with curl (for demo
    /// authorization servers that approve at once and redirect back to
    /// Airlock's loopback listener). Other URLs are only recorded.
    pub fn following(dir: &Path, prefix: &str) -> Self {
        let me = Self::new(dir);
        std::fs::write(
            &me.script,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\ncase \"$1\" in\n  '{}'*) curl -s -L -o /dev/null --max-time 20 \"$1\" </dev/null >/dev/null 2>&1 & ;;\nesac\n",
                me.log.display(),
                prefix.replace('\'', "")
            ),
        )
        .expect("write following recorder");
        me
    }
}

/// The first keychain entry of Airlock whose reference ends with `suffix`:
/// `(reference, secret)`.
pub fn keychain_find(suffix: &str) -> Option<(String, String)> {
    let out = Command::new("secret-tool")
        .args(["search", "--all", "--unlock", "service", "dev.airlock"])
        .stdin(Stdio::null())
        .output()
        .expect("secret-tool is installed (package libsecret-tools)");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let user = text
        .lines()
        .filter_map(|l| l.strip_prefix("attribute.username = "))
        .find(|u| u.ends_with(suffix))?
        .to_owned();
    keychain_lookup(&user).map(|s| (user, s))
}

/// The TypeScript SDK's `elicitationUrlExample` server: MCP on
/// `http://localhost:<mcp>/mcp` behind OAuth, its demo authorization server
/// (which approves at once) on `http://localhost:<auth>`.
pub struct OAuthExample {
    pub guard: ChildGuard,
    pub mcp_url: String,
    pub auth_origin: String,
    pub log: Arc<Mutex<String>>,
}

pub fn start_oauth_example() -> OAuthExample {
    let js = must_exist(peers_dir().join(
        "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/elicitationUrlExample.js",
    ));
    let (guard, ports, log) = start_on_free_ports("elicitationUrlExample", 2, |p| {
        let mut c = Command::new("node");
        c.arg(&js)
            .env("MCP_PORT", p[0].to_string())
            .env("MCP_AUTH_PORT", p[1].to_string());
        c
    });
    OAuthExample {
        guard,
        mcp_url: format!("http://localhost:{}/mcp", ports[0]),
        auth_origin: format!("http://localhost:{}", ports[1]),
        log,
    }
}

// ----- servers written the 2025-11-25 way (server-initiated requests) -----

pub fn py_old_style() -> PathBuf {
    peers_dir().join("py_old_style.py")
}

pub fn ts_old_style() -> PathBuf {
    peers_dir().join("ts_old_style.mjs")
}

/// py_old_style.py over streamable HTTP on a port it picks.
pub fn start_py_old_style_http() -> HttpPeer {
    let mut c = Command::new(py());
    c.arg(py_old_style()).args(["http", "--port", "0"]);
    spawn_with_ready_line(c, "py-old-style http", "py-old-style ready")
}

/// ts_old_style.mjs over streamable HTTP on a port it picks.
pub fn start_ts_old_style_http() -> HttpPeer {
    let mut c = Command::new("node");
    c.arg(ts_old_style()).args(["http", "0"]);
    spawn_with_ready_line(c, "ts-old-style http", "ts-old-style ready")
}

// ----- a running `airlock`, answered as its questions appear -----

/// An `airlock` run whose stdin is written while it runs (an answer typed
/// after its question shows), its stdout and stderr collected as they come.
/// Killed when dropped.
pub struct Live {
    guard: ChildGuard,
    cmdline: String,
    stdin: Option<ChildStdin>,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<thread::JoinHandle<()>>,
    start: Instant,
    timeout: Duration,
}

impl Cmd {
    fn cmdline(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Start it with stdin, stdout and stderr as pipes; `stdin(..)` bytes
    /// are written at once and stdin is kept open.
    pub fn spawn(self) -> Live {
        let cmdline = self.cmdline();
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        harden(&mut c);
        for k in &self.env_removes {
            c.env_remove(k);
        }
        for (k, v) in &self.envs {
            c.env(k, v);
        }
        let child = c
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmdline}: {e}"));
        let mut guard = ChildGuard::new(child, cmdline.clone());
        let collect = |r: Box<dyn Read + Send>, buf: Arc<Mutex<Vec<u8>>>| {
            thread::spawn(move || {
                let mut r = r;
                let mut chunk = [0u8; 4096];
                loop {
                    match r.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.lock().unwrap().extend_from_slice(&chunk[..n]),
                    }
                }
            })
        };
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let readers = vec![
            collect(
                Box::new(guard.child.stdout.take().expect("stdout")),
                stdout.clone(),
            ),
            collect(
                Box::new(guard.child.stderr.take().expect("stderr")),
                stderr.clone(),
            ),
        ];
        let mut live = Live {
            stdin: guard.child.stdin.take(),
            guard,
            cmdline,
            stdout,
            stderr,
            readers,
            start: Instant::now(),
            timeout: self.timeout,
        };
        if !self.stdin.is_empty() {
            live.send_bytes(&self.stdin);
        }
        live
    }
}

impl Live {
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout.lock().unwrap()).into_owned()
    }

    /// Wait until stderr contains `needle` at least `n` times; returns stderr.
    pub fn wait_for(&self, needle: &str, n: usize) -> String {
        let start = Instant::now();
        loop {
            let err = self.stderr();
            if err.matches(needle).count() >= n {
                return err;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!(
                    "timed out waiting for {needle:?} x{n} from {}\n--- stderr ---\n{}\n--- stdout ---\n{}",
                    self.cmdline,
                    clip(&err),
                    clip(&self.stdout())
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Type `text` (include the line ending).
    pub fn send(&mut self, text: &str) {
        self.send_bytes(text.as_bytes());
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        stdin.write_all(bytes).expect("write to airlock's stdin");
        stdin.flush().expect("flush airlock's stdin");
    }

    /// Close stdin, wait for the exit (or kill it at the time limit).
    pub fn finish(mut self) -> Out {
        drop(self.stdin.take());
        let mut timed_out = false;
        let status = loop {
            match self.guard.child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) => {}
                Err(e) => panic!("wait for {}: {e}", self.cmdline),
            }
            if self.start.elapsed() > self.timeout {
                timed_out = true;
                let _ = self.guard.child.kill();
                break self.guard.child.wait().ok();
            }
            thread::sleep(Duration::from_millis(10));
        };
        let elapsed = self.start.elapsed();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        let stdout_bytes = self.stdout.lock().unwrap().clone();
        let stderr_bytes = self.stderr.lock().unwrap().clone();
        Out {
            cmdline: self.cmdline.clone(),
            code: status.and_then(|s| s.code()),
            stdout: String::from_utf8_lossy(&stdout_bytes).into_owned(),
            stderr: String::from_utf8_lossy(&stderr_bytes).into_owned(),
            stdout_bytes,
            stderr_bytes,
            elapsed,
            timed_out,
            peak_rss_kb: None,
        }
    }
}

// ----- a real terminal: `airlock` in tmux -----

/// A word for `sh`, quoted.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `airlock` running in a detached tmux session (its own server and socket,
/// no user configuration): a real terminal, typed into with send-keys and
/// read with capture-pane. The tmux server is killed when dropped.
pub struct Tmux {
    socket: PathBuf,
    pub exit_file: PathBuf,
}

impl Tmux {
    /// Run `cmd` (with the same hardened environment as `Cmd::run`) in a
    /// `width` x `height` terminal. When it exits, `[airlock exited N]` is
    /// printed and the pane stays.
    pub fn start(dir: &Path, cmd: Cmd, width: u16, height: u16) -> Tmux {
        assert!(
            Command::new("tmux")
                .arg("-V")
                .output()
                .is_ok_and(|o| o.status.success()),
            "tmux is not installed (Debian package tmux)"
        );
        let id = random_hex();
        let socket = dir.join(format!("tmux-{id}.sock"));
        let script = dir.join(format!("tmux-{id}.sh"));
        let exit_file = dir.join(format!("tmux-{id}.exit"));
        let mut text = String::from("#!/bin/sh\n");
        for k in HARDEN_REMOVE {
            text.push_str(&format!("unset {k}\n"));
        }
        text.push_str("export XDG_CURRENT_DESKTOP=X-Generic BROWSER=true\n");
        for (k, v) in &cmd.envs {
            text.push_str(&format!(
                "export {}={}\n",
                k.to_string_lossy(),
                sh_quote(&v.to_string_lossy())
            ));
        }
        for k in &cmd.env_removes {
            text.push_str(&format!("unset {}\n", k.to_string_lossy()));
        }
        let words: Vec<String> = std::iter::once(cmd.program.as_os_str())
            .chain(cmd.args.iter().map(OsString::as_os_str))
            .map(|a| sh_quote(&a.to_string_lossy()))
            .collect();
        text.push_str(&words.join(" "));
        text.push_str(&format!(
            "\ncode=$?\necho \"[airlock exited $code]\"\necho $code > {}\nexec sleep 3600\n",
            sh_quote(&exit_file.to_string_lossy())
        ));
        std::fs::write(&script, text).expect("write tmux script");
        let me = Tmux { socket, exit_file };
        let out = me
            .tmux()
            .args(["new-session", "-d", "-s", "airlock", "-x"])
            .arg(width.to_string())
            .arg("-y")
            .arg(height.to_string())
            .arg(format!("sh {}", sh_quote(&script.to_string_lossy())))
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        me
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.arg("-f")
            .arg("/dev/null")
            .arg("-S")
            .arg(&self.socket)
            .stdin(Stdio::null());
        c
    }

    /// `send-keys`: each key is a tmux key name or literal text (`"y"`, `"Enter"`).
    pub fn send_keys(&self, keys: &[&str]) {
        let out = self
            .tmux()
            .args(["send-keys", "-t", "airlock"])
            .args(keys)
            .output()
            .expect("tmux send-keys");
        assert!(out.status.success(), "tmux send-keys failed");
    }

    /// What the terminal shows now (the visible rows).
    pub fn screen(&self) -> String {
        self.capture(&[])
    }

    /// Everything printed so far, wrapped lines joined.
    pub fn history(&self) -> String {
        self.capture(&["-J", "-S", "-"])
    }

    fn capture(&self, extra: &[&str]) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-t", "airlock"])
            .args(extra)
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Wait until the history contains `needle` at least `n` times; returns it.
    pub fn wait_for(&self, needle: &str, n: usize) -> String {
        let start = Instant::now();
        loop {
            let h = self.history();
            if h.matches(needle).count() >= n {
                return h;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!(
                    "timed out waiting for {needle:?} x{n} in the terminal:\n{}",
                    clip(&h)
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// The exit code, once `airlock` has exited.
    pub fn wait_exit(&self) -> i32 {
        wait_until("airlock to exit in tmux", Duration::from_secs(30), || {
            std::fs::read_to_string(&self.exit_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
        })
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
    }
}
