//! A running `airlock` answered as its questions appear, and `airlock` in a real terminal (tmux).

use super::*;

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
    /// Start it with stdin, stdout and stderr as pipes; `stdin(..)` bytes
    /// are written at once and stdin is kept open.
    pub fn spawn(self) -> Live {
        let cmdline = self.cmdline();
        let mut guard = self.start(Stdio::piped(), Stdio::piped(), Stdio::piped());
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
