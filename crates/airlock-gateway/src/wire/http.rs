//! Streamable HTTP on the loopback interface (issue 12): off by default,
//! `airlock daemon --http-port N`. rmcp's Streamable HTTP server serves one
//! [`AppSession`] per MCP session; in front of it, every request must
//!
//! - come to a loopback address: the listener is never bound elsewhere
//!   ([`check_bind`] refuses, with a clear error);
//! - name this listener in `Host` (`127.0.0.1:PORT`, `localhost:PORT`,
//!   `[::1]:PORT`): a DNS-rebinding page's `Host` is its own domain;
//! - carry no `Origin`, or this listener's own: a web page in the user's
//!   browser cannot drive the gateway (checked here and again by rmcp);
//! - carry `Authorization: Bearer <token>` of an app (`airlock apps
//!   add NAME --token`): tokens are in the keychain, compared in constant
//!   time ([`airlock_core::Airlock::app_for_token`]; a wrong token seen
//!   before costs no SQLite or keychain read);
//! - if it names a session (`mcp-session-id`), whatever its method, name
//!   one its own app made ([`sessions`]): another app's gets 403 and
//!   never reaches rmcp; the app's name also goes with the request to
//!   the session ([`HttpClient`]), which checks it again.
//!
//! Bounds: [`MAX_HTTP_CONNECTIONS`], [`MAX_HTTP_SESSIONS`] and
//! [`MAX_HTTP_SESSIONS_PER_CLIENT`], [`MAX_HTTP_REQUESTS_PER_CLIENT`], the
//! connection timeouts ([`conn`]) and [`SESSION_IDLE_TIMEOUT`].
//!
//! A refusal is a plain-text 4xx/503 that says why, and closes the
//! connection.

mod conn;
mod sessions;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use airlock_core::apps::TokenCache;
use bytes::Bytes;
use http::{header, Request, Response, StatusCode};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServerHandler;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::catalog::log;
use crate::limits;
use crate::session::app::AppSession;
pub use crate::session::app::HttpClient;
use crate::session::shared::Gateway;

/// At most this many MCP sessions over HTTP, and this many connections.
pub const MAX_HTTP_SESSIONS: usize = 64;
pub const MAX_HTTP_CONNECTIONS: usize = 256;
/// One app's sessions at most (its next initialize gets 429); other
/// apps are not affected.
pub const MAX_HTTP_SESSIONS_PER_CLIENT: usize = 16;
/// One app's requests in flight and streams open at most, so that one
/// app cannot hold every connection (429 beyond).
pub const MAX_HTTP_REQUESTS_PER_CLIENT: usize = 64;
/// A connection whose next request's headers have not all come this long
/// after it opened or its last response ended is closed.
pub const HTTP_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// A request body with no byte for this long fails (408).
pub const HTTP_BODY_STALL_TIMEOUT: Duration = Duration::from_secs(30);
/// A session with no request in flight and no stream open for this long is
/// closed and its resources freed (its next request gets 404: the app
/// initializes again).
pub const SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How often idle sessions are looked for.
pub const SESSION_IDLE_CHECK: Duration = Duration::from_secs(60);

type Body = BoxBody<Bytes, Infallible>;

/// Refuse any address but loopback.
pub fn check_bind(ip: IpAddr) -> Result<(), String> {
    if ip.is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "the gateway listens on the loopback interface only (127.0.0.1 or ::1), not on {ip}: anything on the network could reach your tools"
        ))
    }
}

/// Bind the HTTP listener (loopback only).
pub async fn bind(ip: IpAddr, port: u16) -> Result<TcpListener, String> {
    check_bind(ip)?;
    TcpListener::bind(SocketAddr::new(ip, port))
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", SocketAddr::new(ip, port)))
}

struct State {
    gateway: Arc<Gateway>,
    port: u16,
    tokens: TokenCache,
    front: Front<AppSession>,
}

/// rmcp's service behind the session checks.
struct Front<S: ServerHandler + Send + 'static> {
    mcp: StreamableHttpService<S, sessions::OwnedSessions>,
    sessions: Arc<sessions::OwnedSessions>,
    body_stall: Duration,
}

fn refuse(status: StatusCode, why: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(format!("Airlock: {why}\n"))).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    // A refused app gets no idle connection to hold on to.
    r.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer realm=\"airlock-gateway\""),
        );
    }
    r
}

/// The `Host` values that name this listener.
fn own_hosts(port: u16) -> [String; 3] {
    [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ]
}

/// `Err(why)`: refuse with 403.
fn check_headers<B>(req: &Request<B>, port: u16) -> Result<(), &'static str> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase);
    if !host.is_some_and(|h| own_hosts(port).contains(&h)) {
        return Err("this Host is not Airlock's gateway (DNS rebinding refused)");
    }
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let own = origin.to_str().ok().is_some_and(|o| {
            let o = o.to_ascii_lowercase();
            own_hosts(port).iter().any(|h| o == format!("http://{h}"))
        });
        if !own {
            return Err("requests from web pages (a foreign Origin) are refused");
        }
    }
    Ok(())
}

fn bearer<B>(req: &Request<B>) -> Option<&str> {
    let v = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty() && t.len() <= 256)
}

async fn handle(
    state: Arc<State>,
    mut req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    if let Err(why) = check_headers(&req, state.port) {
        return Ok(refuse(StatusCode::FORBIDDEN, why));
    }
    let Some(token) = bearer(&req).map(str::to_owned) else {
        return Ok(refuse(
            StatusCode::UNAUTHORIZED,
            "a bearer token is needed (`airlock apps add NAME --token` makes one)",
        ));
    };
    let found = {
        let state = state.clone();
        tokio::task::spawn_blocking(move || state.gateway.core.app_for_token(&state.tokens, &token))
            .await
    };
    let app = match found {
        Ok(Ok(Some(name))) => name,
        Ok(Ok(None)) => return Ok(refuse(StatusCode::UNAUTHORIZED, "unknown token")),
        Ok(Err(e)) => {
            log(&format!("http: cannot check a token: {e}"));
            return Ok(refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "cannot check tokens now",
            ));
        }
        Err(_) => {
            return Ok(refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "cannot check tokens now",
            ))
        }
    };
    req.extensions_mut().insert(HttpClient(app.clone()));
    Ok(state.front.serve(app, req).await)
}

impl<S: ServerHandler + Send + 'static> Front<S> {
    fn new(
        factory: impl Fn() -> Result<S, std::io::Error> + Send + Sync + 'static,
        config: StreamableHttpServerConfig,
        body_stall: Duration,
    ) -> Self {
        let sessions = Arc::new(sessions::OwnedSessions::new());
        Self {
            mcp: StreamableHttpService::new(factory, sessions.clone(), config),
            sessions,
            body_stall,
        }
    }

    /// Serve `app`'s request: its session checked, its slot and its
    /// session's activity held until the response ends.
    async fn serve<B>(&self, app: String, req: Request<B>) -> Response<Body>
    where
        B: hyper::body::Body<Data = Bytes> + Send + Unpin + 'static,
        B::Error: std::fmt::Display,
    {
        let book = &self.sessions.book;
        let slot = match book.begin_request(&app) {
            Ok(slot) => slot,
            Err(r) => return refuse(r.status(), &r.to_string()),
        };
        let mut named = req.headers().get_all("mcp-session-id").iter();
        let activity = match (named.next(), named.next()) {
            (None, _) => None,
            (Some(_), Some(_)) => {
                return refuse(StatusCode::BAD_REQUEST, "one mcp-session-id header at most")
            }
            (Some(id), None) => {
                let Ok(id) = id.to_str() else {
                    return refuse(
                        StatusCode::NOT_FOUND,
                        &sessions::Refusal::Unknown.to_string(),
                    );
                };
                match book.enter(id, &app) {
                    Ok(a) => Some(a),
                    Err(r) => {
                        let n = book.foreign_refusals(&app);
                        if r == sessions::Refusal::Foreign && sessions::log_foreign(n) {
                            log(&format!(
                                "http: refused a {} from app {app:?} on another app's session ({n} so far)",
                                req.method()
                            ));
                        }
                        return refuse(r.status(), &r.to_string());
                    }
                }
            }
        };
        let (req, stalled) = {
            let (parts, body) = req.into_parts();
            let (body, stalled) = conn::StallBound::new(body, self.body_stall);
            (Request::from_parts(parts, body), stalled)
        };
        let caller = sessions::Caller::new(app);
        let mut mcp = self.mcp.clone();
        let Ok(response) = sessions::CALLER
            .scope(caller.clone(), tower_service::Service::call(&mut mcp, req))
            .await;
        if let Some(r) = caller.refused() {
            return refuse(r.status(), &r.to_string());
        }
        if stalled.load(Ordering::SeqCst) {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                &format!(
                    "no byte of the request body for {} s",
                    self.body_stall.as_secs()
                ),
            );
        }
        response.map(|b| conn::Held::new(b, (slot, activity)).boxed())
    }
}

/// Serve MCP over HTTP on `listener` until `stop`.
pub async fn serve(gateway: Arc<Gateway>, listener: TcpListener, stop: CancellationToken) {
    let port = match listener.local_addr() {
        Ok(a) => a.port(),
        Err(e) => {
            log(&format!("http: no local address: {e}"));
            return;
        }
    };
    let factory_gateway = gateway.clone();
    let front = Front::new(
        move || Ok(AppSession::new_http(factory_gateway.clone())),
        mcp_config(port, &stop),
        HTTP_BODY_STALL_TIMEOUT,
    );
    tokio::spawn(sessions::reap(
        front.sessions.clone(),
        SESSION_IDLE_TIMEOUT,
        SESSION_IDLE_CHECK,
        stop.clone(),
    ));
    let state = Arc::new(State {
        gateway,
        port,
        tokens: TokenCache::default(),
        front,
    });
    let connections = Arc::new(Semaphore::new(MAX_HTTP_CONNECTIONS));
    log(&format!("http: listening on http://127.0.0.1:{port}/mcp"));
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stop.cancelled() => return,
        };
        let Ok((stream, _)) = accepted else { continue };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            continue; // dropped: too many connections
        };
        let state = state.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| handle(state.clone(), req));
            serve_connection(stream, service, HTTP_IDLE_TIMEOUT, &stop).await;
            drop(permit);
        });
    }
}

/// What rmcp checks again behind us.
fn mcp_config(port: u16, stop: &CancellationToken) -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(["127.0.0.1", "localhost", "::1"])
        .with_allowed_origins(own_hosts(port).map(|h| format!("http://{h}")))
        .enforce_origin_validation()
        .with_max_request_body_bytes(limits::MAX_APP_MESSAGE_BYTES)
        .with_cancellation_token(stop.child_token())
}

/// One connection, closed when idle for `idle` or at `stop`.
async fn serve_connection<I, S>(io: I, service: S, idle: Duration, stop: &CancellationToken)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: hyper::service::HttpService<Incoming, ResBody = Body>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let conn = conn::builder(idle).serve_connection(TokioIo::new(io), service);
    tokio::select! {
        _ = conn => {}
        () = stop.cancelled() => {}
    }
}

#[cfg(test)]
mod front_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_binds() {
        assert!(check_bind("127.0.0.1".parse().unwrap()).is_ok());
        assert!(check_bind("::1".parse().unwrap()).is_ok());
        for ip in ["0.0.0.0", "192.168.1.2", "::"] {
            let err = check_bind(ip.parse().unwrap()).unwrap_err();
            assert!(err.contains("loopback"), "{err}");
        }
    }

    #[test]
    fn host_origin_and_bearer_are_checked() {
        let req = |host: &str, origin: Option<&str>| {
            let mut b = Request::builder().uri("/mcp").header("host", host);
            if let Some(o) = origin {
                b = b.header("origin", o);
            }
            b.body(()).unwrap()
        };
        assert!(check_headers(&req("127.0.0.1:8123", None), 8123).is_ok());
        assert!(check_headers(&req("localhost:8123", Some("http://localhost:8123")), 8123).is_ok());
        for (h, o) in [
            ("evil.example:8123", None),
            ("127.0.0.1:9", None),
            ("127.0.0.1:8123", Some("https://evil.example")),
            ("127.0.0.1:8123", Some("null")),
            ("127.0.0.1:8123", Some("http://127.0.0.1:9")),
        ] {
            assert!(check_headers(&req(h, o), 8123).is_err(), "{h} {o:?}");
        }
        let auth = |v: &str| {
            Request::builder()
                .header("authorization", v)
                .body(())
                .unwrap()
        };
        assert_eq!(bearer(&auth("Bearer abc")), Some("abc"));
        assert_eq!(bearer(&auth("bearer abc")), Some("abc"));
        assert_eq!(bearer(&auth("Basic abc")), None);
        assert_eq!(bearer(&auth("Bearer ")), None);
    }
}
