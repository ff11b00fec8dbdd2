//! The demo's web page: a minimal HTTP/1.1 responder on 127.0.0.1 only.
//!
//! `GET /connect?id=ID` shows the page, `POST /complete?id=ID` is its button.
//! Pages are static and self-contained (no scripts, no external resources);
//! everything echoed is HTML-escaped. One request per connection.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CustomNotification, ServerNotification};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::flows::{Completion, Flows, Kind};

/// Method of the 2025-11-25 completion notification.
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
/// Largest request head (request line + headers) accepted.
const MAX_HEAD: usize = 16 * 1024;
/// Largest request body read (and thrown away).
const MAX_BODY: usize = 16 * 1024;
/// Connections served at once; more wait.
const MAX_CONNECTIONS: usize = 32;
/// Time a client has to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest flow id accepted from a URL.
const MAX_ID_LEN: usize = 64;

#[derive(Clone)]
pub struct Web {
    flows: Arc<Flows>,
    port: u16,
}

impl Web {
    pub fn new(flows: Arc<Flows>, port: u16) -> Self {
        Self { flows, port }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The page of one flow.
    pub fn page_url(&self, id: &str, kind: Kind) -> String {
        match kind {
            Kind::Never => format!("{}/connect?id={id}&never=1", self.base_url()),
            _ => format!("{}/connect?id={id}", self.base_url()),
        }
    }

    /// Accept connections until the process ends.
    pub async fn serve(self, listener: TcpListener) {
        let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        loop {
            let Ok(permit) = slots.clone().acquire_owned().await else {
                return;
            };
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(e) => {
                    eprintln!("airlock-demo: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let web = self.clone();
            tokio::spawn(async move {
                let _permit = permit;
                if let Err(e) = web.serve_one(stream).await {
                    eprintln!("airlock-demo: http: {e}");
                }
            });
        }
    }

    async fn serve_one(&self, mut stream: TcpStream) -> std::io::Result<()> {
        let (response, head_only) =
            match tokio::time::timeout(READ_TIMEOUT, read_request(&mut stream)).await {
                Ok(Ok(Some(request))) => (self.respond(&request).await, request.method == "HEAD"),
                Ok(Ok(None)) => (
                    Response::text(400, "Bad Request", "Malformed request"),
                    false,
                ),
                Ok(Err(e)) => return Err(e),
                Err(_) => (
                    Response::text(408, "Request Timeout", "Request timeout"),
                    false,
                ),
            };
        stream.write_all(&response.to_bytes(head_only)).await?;
        stream.shutdown().await
    }

    async fn respond(&self, req: &Request) -> Response {
        if !self.host_allowed(req.header("host")) {
            return Response::text(421, "Misdirected Request", "Unexpected Host header");
        }
        let (path, query) = match req.target.split_once('?') {
            Some((p, q)) => (p, q),
            None => (req.target.as_str(), ""),
        };
        let id = query_param(query, "id");
        match (req.method.as_str(), path) {
            ("GET" | "HEAD", "/") => Response::html(200, "OK", index_page(&self.base_url())),
            ("GET" | "HEAD", "/connect") => self.connect_page(id.as_deref()),
            ("POST", "/complete") => {
                if !self.origin_allowed(req.header("origin")) {
                    return Response::text(403, "Forbidden", "Cross-origin request refused");
                }
                self.complete(id.as_deref()).await
            }
            (_, "/" | "/connect" | "/complete") => {
                Response::text(405, "Method Not Allowed", "Method not allowed")
            }
            _ => Response::html(404, "Not Found", message_page("Not found", "No such page.")),
        }
    }

    /// DNS rebinding guard: only our own address may be named.
    fn host_allowed(&self, host: Option<&str>) -> bool {
        match host {
            None => true,
            Some(h) => {
                let h = h.trim().to_ascii_lowercase();
                h == format!("127.0.0.1:{}", self.port) || h == format!("localhost:{}", self.port)
            }
        }
    }

    /// A browser's form POST names its origin; only our own page may press the button.
    fn origin_allowed(&self, origin: Option<&str>) -> bool {
        match origin {
            None => true,
            Some(o) => {
                let o = o.trim().to_ascii_lowercase();
                o == format!("http://127.0.0.1:{}", self.port)
                    || o == format!("http://localhost:{}", self.port)
            }
        }
    }

    fn connect_page(&self, id: Option<&str>) -> Response {
        let Some(id) = id.filter(|id| valid_id(id)) else {
            return unknown_link();
        };
        match self.flows.visit(id) {
            None => unknown_link(),
            Some((Kind::Never, _)) => Response::html(200, "OK", never_page()),
            Some((_, true)) => Response::html(
                200,
                "OK",
                message_page(
                    "Demo account connected",
                    "This step is already done. You can close this tab and go back to your MCP client.",
                ),
            ),
            Some((kind, false)) => Response::html(200, "OK", connect_page(id, kind)),
        }
    }

    async fn complete(&self, id: Option<&str>) -> Response {
        let Some(id) = id.filter(|id| valid_id(id)) else {
            return unknown_link();
        };
        match self.flows.complete(id) {
            Completion::Unknown => unknown_link(),
            Completion::Never => Response::html(
                409,
                "Conflict",
                message_page(
                    "This flow never finishes",
                    "Nothing here can complete it. Go back to your MCP client and choose Continue or Cancel there.",
                ),
            ),
            Completion::AlreadyCompleted => Response::html(200, "OK", done_page()),
            Completion::Completed(peer) => {
                if let Some(peer) = peer {
                    let notification = ServerNotification::CustomNotification(
                        CustomNotification::new(
                            ELICITATION_COMPLETE,
                            Some(serde_json::json!({ "elicitationId": id })),
                        ),
                    );
                    if let Err(e) = peer.send_notification(notification).await {
                        eprintln!("airlock-demo: cannot send {ELICITATION_COMPLETE}: {e}");
                    }
                }
                Response::html(200, "OK", done_page())
            }
        }
    }
}

/// Flow ids are our own hex strings; anything else is unknown.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

struct Request {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Read one request head (and drain a small body). `None`: malformed.
async fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<Request>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let head_end = loop {
        if let Some(pos) = find(&buf, b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let Ok(head) = std::str::from_utf8(&buf[..head_end]) else {
        return Ok(None);
    };
    let mut lines = head.split("\r\n");
    let mut parts = lines.next().unwrap_or_default().split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Ok(None);
    };
    if !version.starts_with("HTTP/1.") || !target.starts_with('/') {
        return Ok(None);
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Ok(None);
        };
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let request = Request {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
    };
    // Drain the body (a form POST may send one) so closing does not reset the
    // connection before the client reads our answer.
    let length = request
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_BODY);
    let mut have = buf.len() - (head_end + 4);
    while have < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        have += n;
    }
    Ok(Some(request))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The first value of `name` in a query string, percent-decoded.
fn query_param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(k)? == name)
            .then(|| percent_decode(v))
            .flatten()
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Escape text for HTML element content and quoted attribute values.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

struct Response {
    status: u16,
    reason: &'static str,
    content_type: &'static str,
    body: String,
}

impl Response {
    fn html(status: u16, reason: &'static str, body: String) -> Self {
        Self {
            status,
            reason,
            content_type: "text/html; charset=utf-8",
            body,
        }
    }

    fn text(status: u16, reason: &'static str, body: &str) -> Self {
        Self {
            status,
            reason,
            content_type: "text/plain; charset=utf-8",
            body: format!("{body}\n"),
        }
    }

    fn to_bytes(&self, head_only: bool) -> Vec<u8> {
        let mut bytes = format!(
            "HTTP/1.1 {} {}\r\n\
             Content-Type: {}\r\n\
             Content-Length: {}\r\n\
             Connection: close\r\n\
             Cache-Control: no-store\r\n\
             Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'\r\n\
             X-Content-Type-Options: nosniff\r\n\
             X-Frame-Options: DENY\r\n\
             Referrer-Policy: same-origin\r\n\
             \r\n",
            self.status,
            self.reason,
            self.content_type,
            self.body.len(),
        )
        .into_bytes();
        if !head_only {
            bytes.extend_from_slice(self.body.as_bytes());
        }
        bytes
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1b1f24;line-height:1.5}\
h1{font-size:1.5rem}.card{border:1px solid #d0d7de;border-radius:8px;padding:1.25rem 1.5rem}\
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #1f6feb;background:#1f6feb;color:#fff;cursor:pointer}\
button[disabled]{background:#eaeef2;border-color:#d0d7de;color:#57606a;cursor:not-allowed}\
.muted{color:#57606a;font-size:.9rem}code{background:#f6f8fa;padding:0 .25rem;border-radius:4px}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · airlock-demo</title><style>{STYLE}</style></head>\
         <body><div class=\"card\">{body}</div>\
         <p class=\"muted\">Served by the airlock-demo MCP server on this computer only.</p></body></html>\n",
        escape_html(title)
    )
}

fn connect_page(id: &str, kind: Kind) -> String {
    let id = escape_html(id);
    page(
        "Connect demo account",
        &format!(
            "<h1>Connect demo account</h1>\
             <p>The <b>airlock-demo</b> server asks: <b>{}</b>.</p>\
             <p>This is a demo: nothing is sent anywhere. Press the button to finish the step; \
             the server then tells your MCP client that it is done.</p>\
             <form method=\"post\" action=\"/complete?id={id}\"><button type=\"submit\">Connect demo account</button></form>\
             <p class=\"muted\">Request <code>{id}</code></p>",
            escape_html(kind.purpose())
        ),
    )
}

fn never_page() -> String {
    page(
        "Connect demo account",
        "<h1>Connect demo account</h1>\
         <p><b>This flow never finishes.</b> The button below does nothing, on purpose: \
         the server never sends a completion.</p>\
         <p>Go back to your MCP client. It should show the step as <b>late</b> and offer \
         <b>Continue</b> (retry without a completion) or <b>Cancel</b>.</p>\
         <button type=\"button\" disabled>Connect demo account (never works)</button>",
    )
}

fn done_page() -> String {
    message_page(
        "Demo account connected",
        "Done. You can close this tab and go back to your MCP client.",
    )
}

fn message_page(title: &str, text: &str) -> String {
    page(
        title,
        &format!(
            "<h1>{}</h1><p>{}</p>",
            escape_html(title),
            escape_html(text)
        ),
    )
}

fn index_page(base: &str) -> String {
    message_page(
        "airlock-demo",
        &format!(
            "This server's pages live under {base}/connect and open when a tool of the airlock-demo MCP server asks for them."
        ),
    )
}

fn unknown_link() -> Response {
    Response::html(
        404,
        "Not Found",
        message_page(
            "Unknown or expired link",
            "This demo link is not (or no longer) known to the server. Call the tool again from your MCP client.",
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_html(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn parses_query_parameters() {
        assert_eq!(query_param("id=abc&never=1", "id").as_deref(), Some("abc"));
        assert_eq!(
            query_param("never=1&id=a%2Db", "id").as_deref(),
            Some("a-b")
        );
        assert_eq!(query_param("never=1", "id"), None);
        assert_eq!(query_param("id=%zz", "id"), None);
        assert_eq!(query_param("id=%4", "id"), None);
    }

    #[test]
    fn ids_are_restricted() {
        assert!(valid_id("0123456789abcdef0123456789abcdef"));
        assert!(!valid_id(""));
        assert!(!valid_id("<script>"));
        assert!(!valid_id(&"a".repeat(MAX_ID_LEN + 1)));
    }

    #[test]
    fn pages_have_no_external_resources() {
        for html in [
            connect_page("abc", Kind::Connect),
            never_page(),
            done_page(),
            index_page("http://127.0.0.1:1"),
        ] {
            assert!(!html.contains("<script"), "{html}");
            assert!(!html.contains("src="), "{html}");
            assert!(!html.contains("https://"), "{html}");
        }
        assert!(connect_page("abc", Kind::Fetch).contains("action=\"/complete?id=abc\""));
    }

    #[test]
    fn host_and_origin_checks() {
        let web = Web::new(Arc::new(Flows::new()), 4242);
        assert!(web.host_allowed(Some("127.0.0.1:4242")));
        assert!(web.host_allowed(Some("LOCALHOST:4242")));
        assert!(web.host_allowed(None));
        assert!(!web.host_allowed(Some("evil.example:4242")));
        assert!(web.origin_allowed(Some("http://127.0.0.1:4242")));
        assert!(!web.origin_allowed(Some("null")));
        assert!(!web.origin_allowed(Some("https://evil.example")));
    }
}
