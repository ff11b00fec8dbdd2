//! Peers over HTTP, the OAuth example and the servers written the 2025-11-25 way.

use super::*;

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
