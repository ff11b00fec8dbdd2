//! Child processes of a test: killed on drop, hardened env, one finished run (`Out`), a command line (`Cmd`).

use super::*;

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
pub(super) const HARDEN_REMOVE: [&str; 8] = [
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
    pub(super) program: PathBuf,
    pub(super) args: Vec<OsString>,
    pub(super) envs: Vec<(OsString, OsString)>,
    pub(super) env_removes: Vec<OsString>,
    pub(super) stdin: Vec<u8>,
    pub(super) hold_stdin: Duration,
    pub(super) timeout: Duration,
    pub(super) dir: Option<PathBuf>,
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
            dir: None,
        }
    }
    /// Run in this folder (an app that reads its project's config there).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }
    /// The global `--consent WORD` (ask, accept, decline, cancel).
    pub fn consent(self, word: &str) -> Self {
        self.args(["--consent", word])
    }

    /// The global `--open HOW` (system, print, none).
    pub fn open(self, how: &str) -> Self {
        self.args(["--open", how])
    }

    /// The global `--late-after S --give-up-after S`.
    pub fn deadlines(self, late_after: &str, give_up_after: &str) -> Self {
        self.args(["--late-after", late_after, "--give-up-after", give_up_after])
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

    /// `call SERVER TOOL --args JSON`.
    pub fn call(self, server: &str, tool: &str, args: &str) -> Self {
        self.args(["call", server, tool, "--args", args])
    }

    /// Start it and leave it running, like an `airlock daemon`: stdin and
    /// stdout null, stderr to `stderr`; killed when the guard drops.
    pub fn spawn_daemon(self, stderr: impl Into<Stdio>) -> ChildGuard {
        self.start(Stdio::null(), Stdio::null(), stderr.into())
    }

    /// Start the process with these stdio handles, the sandbox's environment
    /// and its folder; killed when the guard drops.
    pub(super) fn start(&self, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> ChildGuard {
        let cmdline = self.cmdline();
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(stderr);
        self.prepare(&mut c);
        let child = c
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmdline}: {e}"));
        ChildGuard::new(child, cmdline)
    }

    pub(super) fn cmdline(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The hardened environment, then this command's env and folder.
    pub(super) fn prepare(&self, c: &mut Command) {
        harden(c);
        for k in &self.env_removes {
            c.env_remove(k);
        }
        for (k, v) in &self.envs {
            c.env(k, v);
        }
        if let Some(d) = &self.dir {
            c.current_dir(d);
        }
    }

    pub fn run(self) -> Out {
        let cmdline = self.cmdline();
        let start = Instant::now();
        let mut guard = self.start(Stdio::piped(), Stdio::piped(), Stdio::piped());
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
