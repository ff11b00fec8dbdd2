//! Sign-in mix-ups refused (RFC 9207, MCP 2026-07-28 "Authorization
//! Response Validation") and tokens kept per issuer and per server URL
//! (issue 25, item 9).
//!
//! On loopback: real rmcp Streamable HTTP servers ([`ProtectedServer`])
//! that accept only tokens issued for them by the authorization server
//! their protected resource metadata names, and two authorization servers
//! of our own, one honest and one hostile ([`FakeAuthorizationServer`]: a
//! fake, a few dozen lines of HTTP that register clients, issue codes
//! bound to a PKCE challenge and tokens bound to a resource, the way an
//! OAuth 2.1 server does; no real one can be run here). The user's browser
//! is scripted ([`FollowingBrowser`]: follows each redirect as a browser
//! does after the user approves). Airlock is the real core: consent through
//! the broker, the loopback listener, SQLite, and the OS keychain inside
//! `scripts/with-session.sh` (an in-memory keychain elsewhere).
//!
//! `bash scripts/with-session.sh cargo test -p airlock-core --test oauth_mixup`

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_core::auth::LoopbackBrowser;
use airlock_core::elicitation::Opener;
use airlock_core::secrets::{Keychain, SecretError, SecretStore, SecretValue};
use airlock_core::servers::{ServerInput, Transport};
use airlock_core::status::ConnStatus;
use airlock_core::test_support::{InMemoryKeychain, ScriptedConsent};
use airlock_core::{Airlock, AirlockOptions};
use bytes::Bytes;
use http::{header, Request, Response, StatusCode};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::model::{
    ErrorData, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServerHandler;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn random_hex() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).unwrap();
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// ---- PKCE (S256) on the authorization server's side ------------------------

/// base64url without padding (RFC 4648 §5), as PKCE uses it.
fn base64url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn s256(verifier: &str) -> String {
    use sha2::Digest;
    base64url(&sha2::Sha256::digest(verifier.as_bytes()))
}

// ---- Tokens the authorization servers issued, as the resource servers check them

/// Which issuer issued an access token, and for which resource (what a
/// resource server learns by introspection or from a JWT's claims).
#[derive(Default)]
struct TokenBook(Mutex<HashMap<String, (String, String)>>);

impl TokenBook {
    fn issued(&self, token: &str) -> Option<(String, String)> {
        lock(&self.0).get(token).cloned()
    }
}

// ---- The fake authorization server -----------------------------------------

/// How an authorization server answers `/authorize`.
#[derive(Clone)]
enum Behaviour {
    /// Issue a code for the request and send the browser back with it.
    Honest,
    /// The classic mix-up: send the browser on to `honest`'s authorization
    /// endpoint with the same redirect URI, `state` and PKCE challenge, for
    /// a client the hostile server registered there itself, asking for a
    /// token for `victim_resource`. The honest server's answer (its code)
    /// comes back to the flow that started here.
    Relay {
        honest: Arc<FakeAuthorizationServer>,
        victim_resource: String,
    },
    /// Answer with a code of its own, naming `iss` as given.
    AnswerAs { iss: String },
    /// Answer with an error page naming `iss` as given.
    ErrorAs { iss: String, description: String },
}

struct Grant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    resource: String,
}

/// A fake OAuth 2.1 authorization server (RFC 8414 metadata, RFC 7591
/// registration, authorization code + PKCE S256, RFC 8707 resource, RFC
/// 9207 `iss`), on 127.0.0.1. It records every token request it receives.
struct FakeAuthorizationServer {
    issuer: String,
    /// Put `iss` in answers.
    send_iss: bool,
    /// Claim `authorization_response_iss_parameter_supported: true`.
    advertise_iss: bool,
    behaviour: Mutex<Behaviour>,
    clients: Mutex<HashMap<String, Vec<String>>>,
    codes: Mutex<HashMap<String, Grant>>,
    /// Every POST /token, as its form fields.
    token_requests: Mutex<Vec<HashMap<String, String>>>,
    book: Arc<TokenBook>,
}

struct HttpRequest {
    method: String,
    target: String,
    body: Vec<u8>,
}

async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<HttpRequest> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() > 65536 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let mut first = lines.next()?.split_whitespace();
    let (method, target) = (first.next()?.to_owned(), first.next()?.to_owned());
    let length: usize = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(HttpRequest {
        method,
        target,
        body,
    })
}

async fn write_response(
    stream: &mut tokio::net::TcpStream,
    status: &str,
    headers: &[(&str, String)],
    body: &str,
) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\ncache-control: no-store\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn query(target: &str) -> HashMap<String, String> {
    let q = target.split_once('?').map(|(_, q)| q).unwrap_or("");
    url::form_urlencoded::parse(q.as_bytes())
        .into_owned()
        .collect()
}

fn with_query(base: &str, pairs: &[(&str, &str)]) -> String {
    let mut u = url::Url::parse(base).unwrap();
    u.query_pairs_mut().extend_pairs(pairs);
    u.to_string()
}

impl FakeAuthorizationServer {
    async fn start(
        behaviour: Behaviour,
        send_iss: bool,
        advertise_iss: bool,
        book: Arc<TokenBook>,
    ) -> Arc<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let me = Arc::new(Self {
            issuer: format!("http://127.0.0.1:{port}"),
            send_iss,
            advertise_iss,
            behaviour: Mutex::new(behaviour),
            clients: Mutex::default(),
            codes: Mutex::default(),
            token_requests: Mutex::default(),
            book,
        });
        let server = me.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let server = server.clone();
                tokio::spawn(async move {
                    if let Some(req) = read_request(&mut stream).await {
                        server.serve(&mut stream, req).await;
                    }
                });
            }
        });
        me
    }

    fn register(&self, redirect_uris: Vec<String>) -> String {
        let id = format!("client-{}", random_hex());
        lock(&self.clients).insert(id.clone(), redirect_uris);
        id
    }

    fn new_code(&self, grant: Grant) -> String {
        let code = format!("code-{}", random_hex());
        lock(&self.codes).insert(code.clone(), grant);
        code
    }

    fn token_requests(&self) -> Vec<HashMap<String, String>> {
        lock(&self.token_requests).clone()
    }

    async fn serve(&self, stream: &mut tokio::net::TcpStream, req: HttpRequest) {
        let path = req.target.split('?').next().unwrap_or("").to_owned();
        let json_type = ("content-type", "application/json".to_owned());
        match (req.method.as_str(), path.as_str()) {
            ("GET", "/.well-known/oauth-authorization-server") => {
                let mut m = json!({
                    "issuer": self.issuer,
                    "authorization_endpoint": format!("{}/authorize", self.issuer),
                    "token_endpoint": format!("{}/token", self.issuer),
                    "registration_endpoint": format!("{}/register", self.issuer),
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"],
                });
                if self.advertise_iss {
                    m["authorization_response_iss_parameter_supported"] = json!(true);
                }
                write_response(stream, "200 OK", &[json_type], &m.to_string()).await;
            }
            ("POST", "/register") => {
                let body: Value = serde_json::from_slice(&req.body).unwrap_or_default();
                let uris: Vec<String> = body["redirect_uris"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|u| u.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                let id = self.register(uris.clone());
                let answer = json!({
                    "client_id": id,
                    "redirect_uris": uris,
                    "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                });
                write_response(stream, "201 Created", &[json_type], &answer.to_string()).await;
            }
            ("GET", "/authorize") => {
                let q = query(&req.target);
                let location = self.authorize(&q);
                match location {
                    Ok(to) => write_response(stream, "302 Found", &[("location", to)], "").await,
                    Err(why) => write_response(stream, "400 Bad Request", &[], why).await,
                }
            }
            ("POST", "/token") => {
                let form: HashMap<String, String> = url::form_urlencoded::parse(&req.body)
                    .into_owned()
                    .collect();
                lock(&self.token_requests).push(form.clone());
                match self.token(&form) {
                    Ok(v) => write_response(stream, "200 OK", &[json_type], &v.to_string()).await,
                    Err(e) => {
                        let v = json!({"error": e});
                        write_response(stream, "400 Bad Request", &[json_type], &v.to_string())
                            .await
                    }
                }
            }
            _ => write_response(stream, "404 Not Found", &[], "not found").await,
        }
    }

    /// Where `/authorize` sends the browser.
    fn authorize(&self, q: &HashMap<String, String>) -> Result<String, &'static str> {
        let get = |k: &str| q.get(k).cloned().unwrap_or_default();
        let (client_id, redirect_uri, state) =
            (get("client_id"), get("redirect_uri"), get("state"));
        let registered = lock(&self.clients)
            .get(&client_id)
            .is_some_and(|uris| uris.contains(&redirect_uri));
        if !registered || get("code_challenge_method") != "S256" {
            return Err("unknown client, redirect URI or PKCE method");
        }
        let behaviour = lock(&self.behaviour).clone();
        match behaviour {
            Behaviour::Honest => {
                let code = self.new_code(Grant {
                    client_id,
                    redirect_uri: redirect_uri.clone(),
                    challenge: get("code_challenge"),
                    resource: get("resource"),
                });
                let mut pairs = vec![("code", code.as_str()), ("state", state.as_str())];
                if self.send_iss {
                    pairs.push(("iss", self.issuer.as_str()));
                }
                Ok(with_query(&redirect_uri, &pairs))
            }
            Behaviour::Relay {
                honest,
                victim_resource,
            } => {
                let mine_there = honest.register(vec![redirect_uri.clone()]);
                Ok(with_query(
                    &format!("{}/authorize", honest.issuer),
                    &[
                        ("response_type", "code"),
                        ("client_id", &mine_there),
                        ("redirect_uri", &redirect_uri),
                        ("state", &state),
                        ("code_challenge", &get("code_challenge")),
                        ("code_challenge_method", "S256"),
                        ("resource", &victim_resource),
                    ],
                ))
            }
            Behaviour::AnswerAs { iss } => {
                let code = self.new_code(Grant {
                    client_id,
                    redirect_uri: redirect_uri.clone(),
                    challenge: get("code_challenge"),
                    resource: get("resource"),
                });
                Ok(with_query(
                    &redirect_uri,
                    &[("code", &code), ("state", &state), ("iss", &iss)],
                ))
            }
            Behaviour::ErrorAs { iss, description } => Ok(with_query(
                &redirect_uri,
                &[
                    ("error", "access_denied"),
                    ("error_description", &description),
                    ("state", &state),
                    ("iss", &iss),
                ],
            )),
        }
    }

    fn token(&self, form: &HashMap<String, String>) -> Result<Value, &'static str> {
        let get = |k: &str| form.get(k).cloned().unwrap_or_default();
        if get("grant_type") != "authorization_code" {
            return Err("unsupported_grant_type");
        }
        let Some(grant) = lock(&self.codes).remove(&get("code")) else {
            return Err("invalid_grant");
        };
        if grant.client_id != get("client_id")
            || grant.redirect_uri != get("redirect_uri")
            || grant.challenge != s256(&get("code_verifier"))
            || grant.resource != get("resource")
        {
            return Err("invalid_grant");
        }
        let access = format!("at-{}", random_hex());
        lock(&self.book.0).insert(access.clone(), (self.issuer.clone(), grant.resource));
        Ok(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": 3600,
            "refresh_token": format!("rt-{}", random_hex()),
        }))
    }
}

// ---- The protected MCP server (real rmcp) ----------------------------------

#[derive(Clone)]
struct Hello;

impl ServerHandler for Hello {
    fn get_info(&self) -> ServerConfig {
        let mut c = ServerConfig::default();
        c.capabilities = ServerCapabilities::builder().enable_tools().build();
        c
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "hello",
            "says hello",
            Arc::new(serde_json::Map::new()),
        )]))
    }
}

type Body = BoxBody<Bytes, Infallible>;

/// An rmcp Streamable HTTP server at `/mcp` behind a bearer check: it
/// accepts only tokens its authorization server issued for its URL, names
/// that server in its protected resource metadata (RFC 9728), and keeps
/// every bearer token it was sent.
struct ProtectedServer {
    url: String,
    origin: String,
    authorization_server: Mutex<String>,
    seen_tokens: Mutex<Vec<String>>,
    book: Arc<TokenBook>,
    mcp: StreamableHttpService<Hello, LocalSessionManager>,
}

impl ProtectedServer {
    async fn start(authorization_server: &str, book: Arc<TokenBook>) -> Arc<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let origin = format!("http://127.0.0.1:{port}");
        let config =
            StreamableHttpServerConfig::default().with_allowed_hosts(["127.0.0.1", "localhost"]);
        let me = Arc::new(Self {
            url: format!("{origin}/mcp"),
            origin,
            authorization_server: Mutex::new(authorization_server.to_owned()),
            seen_tokens: Mutex::default(),
            book,
            mcp: StreamableHttpService::new(
                || Ok(Hello),
                Arc::new(LocalSessionManager::default()),
                config,
            ),
        });
        let server = me.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let server = server.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| server.clone().handle(req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        me
    }

    /// From now on, name `issuer` as this server's authorization server.
    fn switch_to(&self, issuer: &str) {
        *lock(&self.authorization_server) = issuer.to_owned();
    }

    fn seen(&self) -> Vec<String> {
        lock(&self.seen_tokens).clone()
    }

    async fn handle(self: Arc<Self>, req: Request<Incoming>) -> Result<Response<Body>, Infallible> {
        let text = |status: StatusCode, body: String, kind: &'static str| {
            let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
            *r.status_mut() = status;
            r.headers_mut()
                .insert(header::CONTENT_TYPE, header::HeaderValue::from_static(kind));
            r
        };
        let path = req.uri().path().to_owned();
        if path.starts_with("/.well-known/oauth-protected-resource") {
            let prm = json!({
                "resource": self.url,
                "authorization_servers": [lock(&self.authorization_server).clone()],
                "bearer_methods_supported": ["header"],
            });
            return Ok(text(StatusCode::OK, prm.to_string(), "application/json"));
        }
        if path != "/mcp" {
            return Ok(text(
                StatusCode::NOT_FOUND,
                "not found".into(),
                "text/plain",
            ));
        }
        let token = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_owned);
        if let Some(t) = &token {
            lock(&self.seen_tokens).push(t.clone());
        }
        let issuer = lock(&self.authorization_server).clone();
        let valid = token
            .as_deref()
            .and_then(|t| self.book.issued(t))
            .is_some_and(|(by, for_resource)| by == issuer && for_resource == self.url);
        if !valid {
            let mut r = text(StatusCode::UNAUTHORIZED, "sign in".into(), "text/plain");
            let challenge = format!(
                "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
                self.origin
            );
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_str(&challenge).unwrap(),
            );
            return Ok(r);
        }
        let mut mcp = self.mcp.clone();
        tower_service::Service::call(&mut mcp, req).await
    }
}

// ---- The user's browser, scripted ------------------------------------------

/// What the browser showed at the end of one page it was sent to.
#[derive(Debug, Clone)]
struct Visit {
    /// Every URL it went through, the opened one first.
    hops: Vec<String>,
    status: u16,
    body: String,
}

/// Follow redirects as a browser does (after the user approves at each
/// authorization server), across hosts, up to a few hops.
async fn follow(url: &str) -> Visit {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut hops = vec![url.to_owned()];
    for _ in 0..6 {
        let current = hops.last().unwrap().clone();
        let response = match client.get(&current).send().await {
            Ok(r) => r,
            Err(e) => {
                return Visit {
                    hops,
                    status: 0,
                    body: e.to_string(),
                }
            }
        };
        let status = response.status();
        let location = response
            .headers()
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        match location.filter(|_| status.is_redirection()) {
            Some(next) => hops.push(
                url::Url::parse(&current)
                    .unwrap()
                    .join(&next)
                    .unwrap()
                    .to_string(),
            ),
            None => {
                return Visit {
                    hops,
                    status: status.as_u16(),
                    body: response.text().await.unwrap_or_default(),
                }
            }
        }
    }
    Visit {
        hops,
        status: 0,
        body: "too many redirects".into(),
    }
}

/// The system browser of these tests: each page Airlock opens is followed
/// to its end (see [`follow`]) in the background, and what it showed kept;
/// with `hold`, pages are only kept (the test drives them itself).
#[derive(Default)]
struct FollowingBrowser {
    hold: bool,
    opened: Arc<Mutex<Vec<String>>>,
    visits: Arc<Mutex<Vec<Visit>>>,
}

impl FollowingBrowser {
    fn holding() -> Arc<Self> {
        Arc::new(Self {
            hold: true,
            ..Self::default()
        })
    }

    fn visits(&self) -> Vec<Visit> {
        lock(&self.visits).clone()
    }

    fn opened(&self) -> Vec<String> {
        lock(&self.opened).clone()
    }
}

impl Opener for FollowingBrowser {
    fn open(&self, url: &str) -> Result<(), String> {
        lock(&self.opened).push(url.to_owned());
        if !self.hold {
            let (url, visits) = (url.to_owned(), self.visits.clone());
            tokio::spawn(async move {
                let v = follow(&url).await;
                lock(&visits).push(v);
            });
        }
        Ok(())
    }
}

// ---- The keychain ----------------------------------------------------------

/// The OS keychain inside `scripts/with-session.sh`, else one in memory;
/// either way the references written are kept, to read entries back.
struct KeptKeychain {
    inner: Box<dyn SecretStore>,
    written: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for KeptKeychain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeptKeychain")
    }
}

impl SecretStore for KeptKeychain {
    fn set(&self, reference: &str, value: &SecretValue) -> Result<(), SecretError> {
        lock(&self.written).push(reference.to_owned());
        self.inner.set(reference, value)
    }
    fn get(&self, reference: &str) -> Result<SecretValue, SecretError> {
        self.inner.get(reference)
    }
    fn delete(&self, reference: &str) -> Result<(), SecretError> {
        self.inner.delete(reference)
    }
}

// ---- The world of one test -------------------------------------------------

struct World {
    core: Arc<Airlock>,
    consent: Arc<ScriptedConsent>,
    browser: Arc<FollowingBrowser>,
    keychain: Keychain,
    written: Arc<Mutex<Vec<String>>>,
    book: Arc<TokenBook>,
    _dir: tempfile::TempDir,
}

impl World {
    fn new(browser: Arc<FollowingBrowser>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let consent = ScriptedConsent::accepting();
        let written = Arc::new(Mutex::new(Vec::new()));
        let inner: Box<dyn SecretStore> = if std::env::var_os("AIRLOCK_SESSION_DIR").is_some() {
            Box::new(keyring_store())
        } else {
            Box::new(InMemoryKeychain::default())
        };
        let keychain = Keychain::with_store(KeptKeychain {
            inner,
            written: written.clone(),
        });
        let mut opts = AirlockOptions::new(dir.path().to_owned(), consent.clone(), browser.clone());
        opts.keychain = keychain.clone();
        // Interactive connects (`connect`) may sign in; background ones may not.
        let mut loopback = LoopbackBrowser::new(browser.clone());
        loopback.wait = Duration::from_secs(20);
        opts.oauth_browser = Some(Arc::new(loopback));
        let core = Airlock::open(opts).unwrap();
        Self {
            core,
            consent,
            browser,
            keychain,
            written,
            book: Arc::default(),
            _dir: dir,
        }
    }

    fn add(&self, name: &str, url: &str) {
        self.core
            .add_server(&ServerInput {
                name: name.into(),
                options: Default::default(),
                transport: Transport::Http {
                    url: url.into(),
                    headers: Default::default(),
                },
            })
            .unwrap();
    }

    fn loopback(&self) -> LoopbackBrowser {
        let mut b = LoopbackBrowser::new(self.browser.clone());
        b.wait = Duration::from_secs(20);
        b
    }

    /// `airlock login <server>`: the error's text on failure.
    async fn login(&self, server: &str) -> Result<(), String> {
        self.core
            .login(server, &self.loopback())
            .await
            .map_err(|e| e.to_string())
    }

    /// The server's keychain entry of OAuth tokens, as stored.
    fn credentials(&self, server: &str) -> Option<Value> {
        let suffix = format!("/server/{server}/oauth/credentials");
        let reference = lock(&self.written)
            .iter()
            .find(|r| r.ends_with(&suffix))
            .cloned()?;
        let v = self.keychain.get(&reference).ok()?;
        serde_json::from_str(v.expose()).ok()
    }

    fn audit(&self, server: &str) -> Vec<(String, Value)> {
        self.core
            .audit_events(Some(server), 500)
            .unwrap()
            .into_iter()
            .map(|e| (e.kind, e.detail))
            .collect()
    }

    /// The browser's last page, once it got there.
    async fn last_page(&self) -> Visit {
        for _ in 0..200 {
            if let Some(v) = self.browser.visits().last() {
                return v.clone();
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the browser never finished a page");
    }
}

/// The OS keychain as Airlock's default keychain uses it.
fn keyring_store() -> impl SecretStore {
    struct Os(Keychain);
    impl std::fmt::Debug for Os {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Os")
        }
    }
    impl SecretStore for Os {
        fn set(&self, r: &str, v: &SecretValue) -> Result<(), SecretError> {
            self.0.set(r, v)
        }
        fn get(&self, r: &str) -> Result<SecretValue, SecretError> {
            self.0.get(r)
        }
        fn delete(&self, r: &str) -> Result<(), SecretError> {
            self.0.delete(r)
        }
    }
    Os(Keychain::default())
}

/// What a refused mix-up must leave behind: no tokens, both token
/// endpoints untouched, the error naming both issuers as plain text, the
/// browser told, and the audit trail's `oauth_mixup_refused`.
async fn assert_mix_up_refused(
    w: &World,
    server: &str,
    result: Result<(), String>,
    expected: &str,
    received: Option<&str>,
    token_endpoints: &[&FakeAuthorizationServer],
) {
    let err = result.expect_err("the mix-up was refused");
    assert!(
        err.contains(&format!("\"{expected}\"")),
        "names the flow's issuer: {err}"
    );
    if let Some(received) = received {
        assert!(
            err.contains(&format!("\"{received}\"")),
            "names the answer's issuer: {err}"
        );
    }
    assert!(err.contains("mix-up"), "{err}");
    for endpoint in token_endpoints {
        assert!(
            endpoint.token_requests().is_empty(),
            "{} received a code: {:?}",
            endpoint.issuer,
            endpoint.token_requests()
        );
    }
    assert!(w.credentials(server).is_none(), "no tokens stored");
    let page = w.last_page().await;
    assert_eq!(page.status, 400, "{page:?}");
    assert!(page.body.contains("refused this sign-in"), "{page:?}");
    let audit = w.audit(server);
    let event = audit
        .iter()
        .find(|(k, _)| k == "oauth_mixup_refused")
        .unwrap_or_else(|| panic!("no oauth_mixup_refused in {audit:#?}"));
    assert_eq!(event.1["expected_issuer"], expected, "{event:?}");
    assert_eq!(event.1["received_issuer"].as_str(), received, "{event:?}");
}

// ---- (a) mix-up -------------------------------------------------------------

/// The classic mix-up: server B's authorization server (hostile) sends the
/// browser on to the honest authorization server, for a client of its own
/// there with Airlock's redirect URI, `state` and PKCE challenge, asking
/// for a token for server A. The honest server's code comes back to B's
/// flow: Airlock refuses it, and it reaches no token endpoint (the hostile
/// one would have redeemed it with Airlock's PKCE verifier).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_from_another_authorization_server_is_refused_and_sent_nowhere() {
    let w = World::new(Arc::new(FollowingBrowser::default()));
    let honest =
        FakeAuthorizationServer::start(Behaviour::Honest, true, true, w.book.clone()).await;
    let a = ProtectedServer::start(&honest.issuer, w.book.clone()).await;
    let hostile = FakeAuthorizationServer::start(
        Behaviour::Relay {
            honest: honest.clone(),
            victim_resource: a.url.clone(),
        },
        true,
        true,
        w.book.clone(),
    )
    .await;
    let b = ProtectedServer::start(&hostile.issuer, w.book.clone()).await;
    w.add("b", &b.url);

    let result = w.login("b").await;
    let page = w.last_page().await;
    assert!(
        page.hops
            .iter()
            .any(|h| h.starts_with(&format!("{}/authorize", honest.issuer))),
        "the browser went through the honest server: {page:?}"
    );
    assert_mix_up_refused(
        &w,
        "b",
        result,
        &hostile.issuer,
        Some(&honest.issuer),
        &[&hostile, &honest],
    )
    .await;
    assert!(a.seen().is_empty() && b.seen().is_empty());
}

/// The hostile authorization server answers itself but names the honest
/// one (or a third) as `iss`: refused, its code sent nowhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_naming_another_issuer_than_the_flows_is_refused() {
    for claimed in ["honest", "third"] {
        let w = World::new(Arc::new(FollowingBrowser::default()));
        let honest =
            FakeAuthorizationServer::start(Behaviour::Honest, true, true, w.book.clone()).await;
        let iss = match claimed {
            "honest" => honest.issuer.clone(),
            _ => "https://as.third.example".to_owned(),
        };
        // Not advertising `iss` does not matter: a present one is compared.
        let hostile = FakeAuthorizationServer::start(
            Behaviour::AnswerAs { iss: iss.clone() },
            true,
            false,
            w.book.clone(),
        )
        .await;
        let b = ProtectedServer::start(&hostile.issuer, w.book.clone()).await;
        w.add("b", &b.url);
        let result = w.login("b").await;
        assert_mix_up_refused(
            &w,
            "b",
            result,
            &hostile.issuer,
            Some(&iss),
            &[&hostile, &honest],
        )
        .await;
    }
}

/// An error answer from another issuer is refused as a mix-up, and its
/// text (here a phishing line) is never shown (MCP 2026-07-28: on mismatch
/// the client must not act on or display `error_description`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_answer_from_another_issuer_is_not_shown() {
    let w = World::new(Arc::new(FollowingBrowser::default()));
    let hostile = FakeAuthorizationServer::start(
        Behaviour::ErrorAs {
            iss: "https://as.other.example".into(),
            description: "Your account is locked: call +1 555 0100 now".into(),
        },
        true,
        true,
        w.book.clone(),
    )
    .await;
    let b = ProtectedServer::start(&hostile.issuer, w.book.clone()).await;
    w.add("b", &b.url);
    let result = w.login("b").await;
    let err = result.clone().unwrap_err();
    assert!(!err.contains("locked") && !err.contains("555"), "{err}");
    assert_mix_up_refused(
        &w,
        "b",
        result,
        &hostile.issuer,
        Some("https://as.other.example"),
        &[&hostile],
    )
    .await;
}

// ---- (b) `iss` missing where promised ---------------------------------------

/// The flow's authorization server promises `iss` in every answer, and the
/// answer (here relayed from a server that names nobody) carries none:
/// refused before any token endpoint sees the code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_without_iss_from_a_server_that_promised_it_is_refused() {
    let w = World::new(Arc::new(FollowingBrowser::default()));
    let quiet =
        FakeAuthorizationServer::start(Behaviour::Honest, false, false, w.book.clone()).await;
    let a = ProtectedServer::start(&quiet.issuer, w.book.clone()).await;
    let hostile = FakeAuthorizationServer::start(
        Behaviour::Relay {
            honest: quiet.clone(),
            victim_resource: a.url.clone(),
        },
        true,
        true,
        w.book.clone(),
    )
    .await;
    let b = ProtectedServer::start(&hostile.issuer, w.book.clone()).await;
    w.add("b", &b.url);
    let result = w.login("b").await;
    let err = result.clone().unwrap_err();
    assert!(err.contains("named no issuer"), "{err}");
    assert_mix_up_refused(&w, "b", result, &hostile.issuer, None, &[&hostile, &quiet]).await;
}

// ---- (c) the honest flow ----------------------------------------------------

/// An honest authorization server that names itself: signed in, the tokens
/// bound in the keychain to its issuer and to the server's URL, used by
/// the next connect; the record says the answer's issuer was confirmed. An
/// authorization server that neither sends nor promises `iss` still works
/// (Airlock's choice, see `auth::issuer`), recorded as "not sent".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_honest_flow_signs_in_and_binds_the_tokens_to_issuer_and_server() {
    for sends_iss in [true, false] {
        let w = World::new(Arc::new(FollowingBrowser::default()));
        let honest =
            FakeAuthorizationServer::start(Behaviour::Honest, sends_iss, sends_iss, w.book.clone())
                .await;
        let a = ProtectedServer::start(&honest.issuer, w.book.clone()).await;
        w.add("a", &a.url);
        w.login("a").await.expect("signed in");
        assert_eq!(w.last_page().await.status, 200);
        let creds = w.credentials("a").expect("tokens stored");
        assert_eq!(creds["issuer"], honest.issuer.as_str(), "{creds}");
        assert_eq!(creds["resource"], a.url.as_str(), "{creds}");
        assert_eq!(honest.token_requests().len(), 1);

        let report = w.core.connect_in_background("a").await.expect("connects");
        assert!(
            matches!(report.status, ConnStatus::Ready { .. }),
            "{report:?}"
        );
        let tools = w.core.list_tools("a").await.unwrap();
        assert_eq!(tools.len(), 1);
        let access = creds["token_response"]["access_token"].as_str().unwrap();
        assert!(a.seen().iter().any(|t| t == access));

        let audit = w.audit("a");
        let done = audit
            .iter()
            .find(|(k, d)| k == "elicitation" && d["state"] == "completed")
            .unwrap_or_else(|| panic!("{audit:#?}"));
        let expected = if sends_iss { "confirmed" } else { "not sent" };
        assert_eq!(done.1["response_issuer"], expected, "{done:?}");
        assert_eq!(done.1["issuer"], honest.issuer.as_str(), "{done:?}");
    }
}

// ---- (d) the server names another authorization server later ---------------

/// After sign-in the server's metadata names another (hostile)
/// authorization server: the old tokens go neither to the server nor to
/// the new authorization server's token endpoint; a new sign-in is needed
/// and the reason names both authorization servers (in the error, and in
/// the consent when a sign-in can run); the old tokens stay in the keychain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_not_used_once_the_server_names_another_authorization_server() {
    let w = World::new(Arc::new(FollowingBrowser::default()));
    let honest =
        FakeAuthorizationServer::start(Behaviour::Honest, true, true, w.book.clone()).await;
    let hostile =
        FakeAuthorizationServer::start(Behaviour::Honest, true, true, w.book.clone()).await;
    let a = ProtectedServer::start(&honest.issuer, w.book.clone()).await;
    w.add("a", &a.url);
    w.login("a").await.expect("signed in");
    let old = w.credentials("a").expect("tokens")["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();

    a.switch_to(&hostile.issuer);
    let seen_before = a.seen().len();
    let err = w
        .core
        .connect_in_background("a")
        .await
        .expect_err("a new sign-in is needed")
        .to_string();
    assert!(
        err.contains(&format!("\"{}\"", honest.issuer))
            && err.contains(&format!("\"{}\"", hostile.issuer)),
        "the reason names both authorization servers: {err}"
    );
    assert!(
        matches!(w.core.status("a"), ConnStatus::SignInRequired { .. }),
        "{:?}",
        w.core.status("a")
    );
    assert!(
        !a.seen()[seen_before..].contains(&old),
        "the old token was sent to the server after it switched"
    );
    assert!(
        hostile.token_requests().is_empty(),
        "{:?}",
        hostile.token_requests()
    );
    assert!(
        w.credentials("a").is_some(),
        "the old tokens were not thrown away"
    );
    assert!(
        w.audit("a")
            .iter()
            .any(|(k, d)| k == "oauth_tokens_not_used" && d["kind"] == "other_issuer"),
        "{:#?}",
        w.audit("a")
    );

    // Where a sign-in can run (an interactive connect), the consent says
    // why it is asked again, naming both authorization servers.
    let asked = lock(&w.consent.asked).len();
    let _ = w.core.connect("a").await;
    let consent = lock(&w.consent.asked).clone();
    assert_eq!(consent.len(), asked + 1, "one new sign-in asked for");
    let message = &consent[asked].message;
    assert!(
        message.contains("Why again")
            && message.contains(&honest.issuer)
            && message.contains(&hostile.issuer),
        "{message}"
    );
}

/// A token is sent only to the server URL it was issued for: after the
/// server's address is changed to another server (which names the same
/// authorization server, so the issuer alone would not tell), the old
/// token is not sent there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_not_sent_to_another_address_of_the_same_server_name() {
    let w = World::new(Arc::new(FollowingBrowser::default()));
    let honest =
        FakeAuthorizationServer::start(Behaviour::Honest, true, true, w.book.clone()).await;
    let a = ProtectedServer::start(&honest.issuer, w.book.clone()).await;
    let elsewhere = ProtectedServer::start(&honest.issuer, w.book.clone()).await;
    w.add("a", &a.url);
    w.login("a").await.expect("signed in");
    let old = w.credentials("a").expect("tokens")["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();

    w.core
        .update_server(&ServerInput {
            name: "a".into(),
            options: Default::default(),
            transport: Transport::Http {
                url: elsewhere.url.clone(),
                headers: Default::default(),
            },
        })
        .unwrap();
    let err = w
        .core
        .connect_in_background("a")
        .await
        .expect_err("a new sign-in is needed")
        .to_string();
    assert!(
        !elsewhere.seen().contains(&old),
        "the token issued for {} was sent to {}",
        a.url,
        elsewhere.url
    );
    assert!(
        err.contains(&a.url) && err.contains(&elsewhere.url),
        "{err}"
    );
    assert!(
        w.audit("a")
            .iter()
            .any(|(k, d)| k == "oauth_tokens_not_used" && d["kind"] == "other_resource"),
        "{:#?}",
        w.audit("a")
    );
}

// ---- (e) two sign-ins at once ----------------------------------------------

fn param(url: &str, name: &str) -> String {
    query(url).get(name).cloned().unwrap_or_default()
}

/// Where an authorization server sends the browser back, without going there.
async fn answer_of(authorization_url: &str) -> String {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut url = authorization_url.to_owned();
    for _ in 0..4 {
        let r = client.get(&url).send().await.unwrap();
        let to = r.headers()[header::LOCATION].to_str().unwrap().to_owned();
        if to.starts_with("http://127.0.0.1:") && to.contains("/callback?") {
            return to;
        }
        url = to;
    }
    panic!("no answer from {authorization_url}");
}

/// Send `answer`'s query to `redirect_uri` (the listener of a flow):
/// the status and the page.
async fn deliver(redirect_uri: &str, answer: &str) -> (u16, String) {
    let q = answer.split_once('?').unwrap().1;
    let r = reqwest::get(format!("{redirect_uri}?{q}")).await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// Two sign-ins in progress at once, A at the honest authorization server
/// and B at a hostile one that relays its user to the honest one: each
/// flow has its own `state`, PKCE challenge and listener; an answer given
/// to the other flow's listener is ignored there (and ends nothing); A
/// signs in with its own tokens; B's answer (the honest server's code) is
/// refused as a mix-up and never redeemed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sign_ins_at_once_do_not_cross() {
    let w = World::new(FollowingBrowser::holding());
    let honest =
        FakeAuthorizationServer::start(Behaviour::Honest, true, true, w.book.clone()).await;
    let a = ProtectedServer::start(&honest.issuer, w.book.clone()).await;
    let hostile = FakeAuthorizationServer::start(
        Behaviour::Relay {
            honest: honest.clone(),
            victim_resource: a.url.clone(),
        },
        true,
        true,
        w.book.clone(),
    )
    .await;
    let b = ProtectedServer::start(&hostile.issuer, w.book.clone()).await;
    w.add("a", &a.url);
    w.add("b", &b.url);

    let core = w.core.clone();
    let (browser_a, browser_b) = (w.loopback(), w.loopback());
    let login_a =
        tokio::spawn(async move { core.login("a", &browser_a).await.map_err(|e| e.to_string()) });
    let core = w.core.clone();
    let login_b =
        tokio::spawn(async move { core.login("b", &browser_b).await.map_err(|e| e.to_string()) });
    let mut opened = Vec::new();
    for _ in 0..400 {
        opened = w.browser.opened();
        if opened.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(opened.len(), 2, "both sign-in pages opened: {opened:?}");
    let url_a = opened
        .iter()
        .find(|u| u.starts_with(&honest.issuer))
        .unwrap()
        .clone();
    let url_b = opened
        .iter()
        .find(|u| u.starts_with(&hostile.issuer))
        .unwrap()
        .clone();
    for p in ["state", "code_challenge", "redirect_uri"] {
        assert_ne!(param(&url_a, p), param(&url_b, p), "{p} is per flow");
    }
    let (redirect_a, redirect_b) = (param(&url_a, "redirect_uri"), param(&url_b, "redirect_uri"));

    let answer_a = answer_of(&url_a).await;
    let answer_b = answer_of(&url_b).await;
    // Crossed: each listener ignores the other flow's answer.
    assert_eq!(deliver(&redirect_b, &answer_a).await.0, 400);
    assert_eq!(deliver(&redirect_a, &answer_b).await.0, 400);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !login_a.is_finished() && !login_b.is_finished(),
        "a crossed answer ended a flow"
    );

    let (status_a, _) = deliver(&redirect_a, &answer_a).await;
    assert_eq!(status_a, 200);
    let (status_b, page_b) = deliver(&redirect_b, &answer_b).await;
    assert_eq!(status_b, 400, "{page_b}");
    assert!(page_b.contains("refused this sign-in"), "{page_b}");

    login_a.await.unwrap().expect("A signed in");
    let err_b = login_b.await.unwrap().expect_err("B refused");
    assert!(err_b.contains(&format!("\"{}\"", honest.issuer)), "{err_b}");

    let creds_a = w.credentials("a").expect("A's tokens");
    assert_eq!(creds_a["issuer"], honest.issuer.as_str());
    assert_eq!(creds_a["resource"], a.url.as_str());
    assert!(w.credentials("b").is_none());
    assert!(hostile.token_requests().is_empty());
    let redeemed = honest.token_requests();
    assert_eq!(redeemed.len(), 1, "{redeemed:?}");
    assert_eq!(redeemed[0]["redirect_uri"], redirect_a);
    assert!(w.audit("b").iter().any(|(k, _)| k == "oauth_mixup_refused"));
}
