//! A TCP listener that counts connections and a BROWSER that records what it was asked to open.

use super::*;

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
