//! The only way out of a room: an HTTP proxy (CONNECT and plain HTTP) on a
//! Unix socket that Airlock runs per server. A host in the server's list
//! passes; any other is put to a [`Gate`] (the person, through Airlock's
//! consent), one question at a time; a refusal is remembered until the
//! server restarts, so a looping server cannot flood the person. Loopback,
//! private and link-local addresses are reached only through a host that
//! names them (an IP literal or `localhost`), never through a name that
//! resolves there (DNS rebinding).

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};

use crate::profile::HostEntry;

/// Largest request head the proxy reads.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// How long a client may take to send its request head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to the host may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Most connections waiting for the person's answer at once; more are refused.
pub const MAX_WAITING: usize = 16;
/// Most connections the proxy serves at once per server.
pub const MAX_OPEN: usize = 128;
/// Most hosts one run of a server may ask the person about; past that,
/// every unlisted host is denied without a question (a hostile server
/// cannot bury the person in dialogs by trying host after host).
pub const MAX_QUESTIONS: usize = 8;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The person's answer about a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    AllowOnce,
    /// Allowed, and kept in the server's profile.
    Always,
    Deny,
}

/// What the proxy reports and asks.
pub trait Gate: Send + Sync + 'static {
    /// Ask about a host not in the list.
    fn ask(&self, host: String, port: u16) -> BoxFuture<'static, Verdict>;
    /// A connection was refused (`why` in words), for the server's log.
    fn refused(&self, host: &str, port: u16, why: &str);
}

struct State {
    hosts: Vec<HostEntry>,
    /// Allowed for this run ("Allow once" lasts until the server restarts).
    allowed: Vec<(String, u16)>,
    denied: Vec<(String, u16)>,
    open: usize,
    waiting: usize,
    /// Questions asked since the proxy started.
    asked: usize,
}

/// A running proxy; dropping it stops accepting (open tunnels end with
/// their peers).
pub struct Proxy {
    path: PathBuf,
    /// The socket file's identity (device, inode) when it was bound.
    id: Option<(u64, u64)>,
    task: tokio::task::JoinHandle<()>,
}

fn file_id(p: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(p)
            .ok()
            .map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        None
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
        // A newer proxy for the same server may listen at this path now.
        if self.id.is_some() && file_id(&self.path) == self.id {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Proxy {
    /// Listen on `socket` (replaced if it exists; made 0600) for one server.
    pub fn start(
        socket: &Path,
        hosts: Vec<HostEntry>,
        gate: Arc<dyn Gate>,
    ) -> std::io::Result<Self> {
        if let Some(dir) = socket.parent() {
            private_dir(dir)?;
        }
        let _ = std::fs::remove_file(socket);
        let listener = UnixListener::bind(socket)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
        }
        let state = Arc::new(Mutex::new(State {
            hosts,
            allowed: Vec::new(),
            denied: Vec::new(),
            open: 0,
            waiting: 0,
            asked: 0,
        }));
        let asking = Arc::new(tokio::sync::Mutex::new(()));
        let task = tokio::spawn(async move {
            loop {
                let Ok((conn, _)) = listener.accept().await else {
                    continue;
                };
                {
                    let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                    if s.open >= MAX_OPEN {
                        continue;
                    }
                    s.open += 1;
                }
                let (state, gate, asking) = (state.clone(), gate.clone(), asking.clone());
                tokio::spawn(async move {
                    serve(conn, &state, &*gate, &asking).await;
                    state.lock().unwrap_or_else(|e| e.into_inner()).open -= 1;
                });
            }
        });
        Ok(Self {
            path: socket.to_path_buf(),
            id: file_id(socket),
            task,
        })
    }
}

/// Make `dir` (and its parents), then insist that it is a real folder of
/// this user's that nobody else may enter: a folder someone else made in
/// a shared temporary folder must not hold a room's socket.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let m = std::fs::symlink_metadata(dir)?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if !m.is_dir() || m.uid() != me {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} is not a folder of this user's", dir.display()),
            ));
        }
        if m.mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(())
}

/// What a request asks for.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    host: String,
    port: u16,
    /// Plain HTTP: the head to send on, in origin form.
    forward_head: Option<Vec<u8>>,
}

async fn serve(
    mut conn: UnixStream,
    state: &Mutex<State>,
    gate: &dyn Gate,
    asking: &tokio::sync::Mutex<()>,
) {
    let Ok(Ok((head, rest))) = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut conn)).await
    else {
        let _ = conn
            .write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
            .await;
        return;
    };
    let target = match parse_head(&head) {
        Ok(t) => t,
        Err(why) => {
            let _ = conn.write_all(response(400, &why).as_bytes()).await;
            return;
        }
    };
    let (host, port) = (target.host.clone(), target.port);
    if let Err(why) = decide(state, gate, asking, &host, port).await {
        gate.refused(&host, port, &why);
        let _ = conn.write_all(response(403, &why).as_bytes()).await;
        return;
    }
    let addr = match resolve(&host, port).await {
        Ok(a) => a,
        Err(why) => {
            gate.refused(&host, port, &why);
            let _ = conn.write_all(response(502, &why).as_bytes()).await;
            return;
        }
    };
    let upstream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await;
    let mut upstream = match upstream {
        Ok(Ok(u)) => u,
        _ => {
            let why = format!("{host}:{port} did not answer");
            let _ = conn.write_all(response(502, &why).as_bytes()).await;
            return;
        }
    };
    match &target.forward_head {
        None => {
            if conn
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await
                .is_err()
            {
                return;
            }
        }
        Some(head) => {
            if upstream.write_all(head).await.is_err() {
                return;
            }
        }
    }
    if !rest.is_empty() && upstream.write_all(&rest).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut conn, &mut upstream).await;
}

/// Allowed by the list, by an earlier answer, or now by the person.
async fn decide(
    state: &Mutex<State>,
    gate: &dyn Gate,
    asking: &tokio::sync::Mutex<()>,
    host: &str,
    port: u16,
) -> Result<(), String> {
    let known = |s: &State| -> Option<bool> {
        if s.hosts.iter().any(|h| h.admits(host, port))
            || s.allowed.iter().any(|(h, p)| h == host && *p == port)
        {
            Some(true)
        } else if s.denied.iter().any(|(h, p)| h == host && *p == port) {
            Some(false)
        } else {
            None
        }
    };
    let declined =
        || format!("{host}:{port} is not among the hosts this server may reach (declined)");
    {
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        match known(&s) {
            Some(true) => return Ok(()),
            Some(false) => return Err(declined()),
            None if s.waiting >= MAX_WAITING => {
                return Err(format!(
                    "{host}:{port}: too many connections are waiting for an answer"
                ))
            }
            None => s.waiting += 1,
        }
    }
    // One question at a time; the answer may settle the ones behind it.
    let _turn = asking.lock().await;
    let (settled, may_ask) = {
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        let settled = known(&s);
        let may_ask = settled.is_none() && s.asked < MAX_QUESTIONS;
        if may_ask {
            s.asked += 1;
        }
        (settled, may_ask)
    };
    let verdict = match settled {
        Some(true) => Verdict::AllowOnce,
        Some(false) => Verdict::Deny,
        None if may_ask => gate.ask(host.to_owned(), port).await,
        None => {
            state.lock().unwrap_or_else(|e| e.into_inner()).waiting -= 1;
            return Err(format!(
                "{host}:{port}: not asked, this server already asked about {MAX_QUESTIONS} hosts since it started (allow hosts in its room, or restart it)"
            ));
        }
    };
    let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
    s.waiting -= 1;
    match verdict {
        Verdict::AllowOnce | Verdict::Always => {
            if settled.is_none() {
                s.allowed.push((host.to_owned(), port));
            }
            Ok(())
        }
        Verdict::Deny => {
            if settled.is_none() {
                s.denied.push((host.to_owned(), port));
            }
            Err(declined())
        }
    }
}

/// Is `ip` on this computer or a private network?
pub fn is_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.octets()[0] == 100 && (64..128).contains(&v4.octets()[1]) // CGNAT
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_local(IpAddr::V4(v4));
            }
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (v6.segments()[0] & 0xfe00) == 0xfc00 // unique local
                || (v6.segments()[0] & 0xffc0) == 0xfe80 // link local
        }
    }
}

/// The address to connect to. A host that names a local address (an IP
/// literal, `localhost`) may reach it; a name that resolves to one may not.
async fn resolve(host: &str, port: u16) -> Result<SocketAddr, String> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    let names_local = host == "localhost" || host.ends_with(".localhost");
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| format!("{host} could not be resolved: {e}"))?
        .collect();
    if names_local {
        return addrs
            .into_iter()
            .find(|a| a.ip().is_loopback())
            .ok_or_else(|| format!("{host} did not resolve to this computer"));
    }
    if addrs.iter().any(|a| is_local(a.ip())) {
        return Err(format!(
            "{host} resolves to an address on this computer or a private network; name the address itself to allow it"
        ));
    }
    addrs
        .into_iter()
        .next()
        .ok_or_else(|| format!("{host} has no address"))
}

fn response(code: u16, why: &str) -> String {
    let reason = match code {
        400 => "Bad Request",
        403 => "Forbidden",
        _ => "Bad Gateway",
    };
    let body = format!("Airlock: {why}\n");
    format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The request head (up to the blank line) and what came after it.
async fn read_head(conn: &mut UnixStream) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok((buf, rest));
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
    }
}

fn parse_head(head: &[u8]) -> Result<Target, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the request is not text".to_owned())?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut words = first.split(' ');
    let (Some(method), Some(target), Some(version)) = (words.next(), words.next(), words.next())
    else {
        return Err("malformed request line".into());
    };
    if method == "CONNECT" {
        let (host, port) = target
            .rsplit_once(':')
            .ok_or_else(|| "CONNECT needs host:port".to_owned())?;
        let port: u16 = port.parse().map_err(|_| "bad port".to_owned())?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        // What the person is asked about is what the proxy would reach: a
        // plain host name or address, nothing a display could read otherwise.
        if host.starts_with("*.") {
            return Err(format!("{host:?} is not a host"));
        }
        crate::settings::check_host(&host)?;
        return Ok(Target {
            host,
            port,
            forward_head: None,
        });
    }
    let url = url::Url::parse(target)
        .map_err(|_| format!("{target:?} is not an absolute http:// URL"))?;
    if url.scheme() != "http" {
        return Err(format!(
            "only http:// goes through plainly (got {})",
            url.scheme()
        ));
    }
    let host = url
        .host_str()
        .ok_or_else(|| "no host".to_owned())?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let port = url.port_or_known_default().unwrap_or(80);
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    let mut out = format!("{method} {path} {version}\r\n");
    for line in lines {
        let lower = line.to_ascii_lowercase();
        // One request per connection: what follows on a kept-alive
        // connection would reach the host unrewritten (and the host is
        // fixed for the connection's life).
        if lower.starts_with("proxy-authorization:")
            || lower.starts_with("proxy-connection:")
            || lower.starts_with("connection:")
            || lower.starts_with("keep-alive:")
            || lower.is_empty()
        {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    Ok(Target {
        host,
        port,
        forward_head: Some(out.into_bytes()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connect_target_is_a_plain_host_or_refused() {
        for bad in [
            "CONNECT evil.example/@accounts.google.com:443 HTTP/1.1\r\n\r\n",
            "CONNECT g\u{43e}\u{43e}gle.com:443 HTTP/1.1\r\n\r\n",
            "CONNECT *.example.com:443 HTTP/1.1\r\n\r\n",
            "CONNECT :443 HTTP/1.1\r\n\r\n",
            "CONNECT a\u{202e}moc.evil:443 HTTP/1.1\r\n\r\n",
        ] {
            assert!(parse_head(bad.as_bytes()).is_err(), "{bad:?}");
        }
        assert!(parse_head(b"CONNECT xn--ggle-55da.com:443 HTTP/1.1\r\n\r\n").is_ok());
    }

    /// Counts the questions; answers Deny.
    struct Counting(Arc<std::sync::atomic::AtomicUsize>);

    impl Gate for Counting {
        fn ask(&self, _host: String, _port: u16) -> BoxFuture<'static, Verdict> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::pin(async { Verdict::Deny })
        }
        fn refused(&self, _host: &str, _port: u16, _why: &str) {}
    }

    async fn connect_to(socket: &Path, host: &str) -> String {
        let mut c = UnixStream::connect(socket).await.expect("connect");
        c.write_all(format!("CONNECT {host}:443 HTTP/1.1\r\n\r\n").as_bytes())
            .await
            .expect("write");
        let mut out = String::new();
        c.read_to_string(&mut out).await.expect("read");
        out
    }

    #[tokio::test]
    async fn a_server_cannot_bury_the_person_in_questions() {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("p.sock");
        let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let _proxy =
            Proxy::start(&socket, Vec::new(), Arc::new(Counting(asked.clone()))).expect("proxy");
        for i in 0..MAX_QUESTIONS + 5 {
            let answer = connect_to(&socket, &format!("host{i}.example")).await;
            assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        }
        // The same host again: the Deny stands, no new question.
        let answer = connect_to(&socket, "host0.example").await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert_eq!(
            asked.load(std::sync::atomic::Ordering::SeqCst),
            MAX_QUESTIONS,
            "asked about the first {MAX_QUESTIONS} hosts only"
        );
    }

    #[test]
    fn heads_parse() {
        let t = parse_head(b"CONNECT API.github.com:443 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("api.github.com", 443));
        let t = parse_head(
            b"GET http://127.0.0.1:8080/a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nProxy-Authorization: x\r\n\r\n",
        )
        .unwrap();
        assert_eq!((t.host.as_str(), t.port), ("127.0.0.1", 8080));
        let fwd = String::from_utf8(t.forward_head.unwrap()).unwrap();
        assert_eq!(
            fwd, "GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n",
            "one request per connection"
        );
        assert!(parse_head(b"GET /relative HTTP/1.1\r\n\r\n").is_err());
        assert!(parse_head(b"GET ftp://x/ HTTP/1.1\r\n\r\n").is_err());
        let t = parse_head(b"CONNECT [::1]:22 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(t.host, "::1");
    }

    #[test]
    fn local_addresses() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.1",
            "169.254.1.1",
            "::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "100.64.0.1",
            "0.0.0.0",
        ] {
            assert!(is_local(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111"] {
            assert!(!is_local(ip.parse().unwrap()), "{ip}");
        }
    }
}
