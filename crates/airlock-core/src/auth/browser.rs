//! The browser port of the authorization code flow: where the user (or a
//! test) is sent with the authorization URL and how the redirect back with
//! `code` and `state` is caught.
//!
//! - [`LoopbackBrowser`] (CLI, desktop): a listener on `127.0.0.1` at a
//!   random port, the system browser opened through an [`Opener`], one
//!   redirect accepted within a bounded wait, `state` checked.
//! - [`FollowRedirects`] (conformance client, tests): follows the
//!   authorization server's redirects with an HTTP client and catches the
//!   one that points at the redirect URI.
//!
//! Both judge the answer with [`check_redirect`]: this flow's `state` first
//! (anything else is not for this flow and is ignored), then each parameter
//! at most once, then its issuer ([`super::issuer`]) before anything else in
//! it is believed, an `error` included.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use url::Url;

use super::issuer::{self, ExpectedIssuer, IssuerCheck};
use super::{AuthFlowError, AuthStep};
use crate::elicitation::Opener;

/// Path of the loopback redirect endpoint.
pub const CALLBACK_PATH: &str = "/callback";
/// Default wait for the user to finish in the browser.
pub const DEFAULT_BROWSER_WAIT: Duration = Duration::from_secs(300);

/// Opens a redirect endpoint for one authorization.
#[async_trait::async_trait]
pub trait Browser: Send + Sync {
    /// Prepare a redirect target (e.g. bind the loopback listener, on
    /// `port` when a registered client needs a fixed redirect URI, else on
    /// a random one).
    async fn redirect(&self, port: Option<u16>) -> Result<Box<dyn Redirect>, AuthFlowError>;
}

/// One prepared redirect target.
#[async_trait::async_trait]
pub trait Redirect: Send {
    /// The `redirect_uri` to register and send.
    fn uri(&self) -> String;
    /// Send the user to `authorization_url`; return the answer once one
    /// with this flow's `state` came back and passed [`check_redirect`]
    /// against `issuer`, what the flow expects of the answer's `iss`.
    async fn complete(
        self: Box<Self>,
        authorization_url: &str,
        issuer: &ExpectedIssuer,
    ) -> Result<Answer, AuthFlowError>;
}

/// The authorization server's answer, accepted: the full redirect URL (with
/// `code`, `state`, maybe `iss`) and how its issuer was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub callback: String,
    pub issuer: IssuerCheck,
}

/// What one flow expects of the answer: its `state` and its issuer, both
/// recorded before the browser opens.
#[derive(Debug, Clone)]
pub struct ExpectedAnswer {
    pub state: String,
    pub issuer: ExpectedIssuer,
}

impl ExpectedAnswer {
    /// For the flow of `authorization_url` (its `state`).
    pub fn for_url(
        authorization_url: &str,
        issuer: &ExpectedIssuer,
    ) -> Result<Self, AuthFlowError> {
        let state = state_of(authorization_url).ok_or_else(|| {
            AuthFlowError::new(
                AuthStep::UserAuthorization,
                "the authorization URL has no `state`",
            )
        })?;
        Ok(Self {
            state,
            issuer: issuer.clone(),
        })
    }
}

/// Parameters of an answer that may appear at most once (RFC 6749 §3.1): a
/// repeated one could be read one way here and another way elsewhere.
pub const SINGLE_PARAMETERS: &[&str] = &["state", "code", "iss", "error", "error_description"];

/// The `state` parameter of an authorization URL.
pub fn state_of(authorization_url: &str) -> Option<String> {
    Url::parse(authorization_url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
    })
}

/// Check a redirect back from the authorization server, in this order:
/// its `state` must be this flow's (a forged or stale redirect fails); no
/// parameter of [`SINGLE_PARAMETERS`] twice; its issuer must be the one
/// the flow was sent to ([`issuer::check`]: an answer from another
/// authorization server is refused before its `error` or `code` is
/// believed, and its error text is never shown); then an `error` there
/// (the user declined, the server refused) fails the flow; else it must
/// carry a `code`.
pub fn check_redirect(
    redirect_url: &Url,
    expected: &ExpectedAnswer,
) -> Result<IssuerCheck, AuthFlowError> {
    let all = |name: &str| {
        redirect_url
            .query_pairs()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .collect::<Vec<_>>()
    };
    let get = |name: &str| all(name).into_iter().next();
    // The state first: an answer that is not for this login says nothing
    // about it, whatever else it carries.
    match get("state") {
        Some(s) if constant_time_eq(s.as_bytes(), expected.state.as_bytes()) => {}
        Some(_) => {
            return Err(AuthFlowError::new(
                AuthStep::Redirect,
                "the redirect carried a `state` that does not match this login (a stale or forged redirect)",
            ))
        }
        None => {
            return Err(AuthFlowError::new(
                AuthStep::Redirect,
                "the redirect carried no `state`",
            ))
        }
    }
    if let Some(name) = SINGLE_PARAMETERS.iter().find(|n| all(n).len() > 1) {
        return Err(AuthFlowError::new(
            AuthStep::Redirect,
            format!("the redirect carried `{name}` more than once; Airlock refused it"),
        ));
    }
    let found = issuer::check(&expected.issuer, get("iss").as_deref())
        .map_err(AuthFlowError::refused_mix_up)?;
    if let Some(error) = get("error") {
        let description = get("error_description").unwrap_or_default();
        return Err(AuthFlowError::new(
            AuthStep::UserAuthorization,
            format!(
                "the authorization server answered {:?} {:?}",
                crate::url_safety::neutralize_for_display(&error, 100),
                crate::url_safety::neutralize_for_display(&description, 300)
            ),
        ));
    }
    if get("code").is_none() {
        return Err(AuthFlowError::new(
            AuthStep::Redirect,
            "the redirect carried no authorization `code`",
        ));
    }
    Ok(found)
}

/// Is this redirect for this login (its `state` matches)? Anything else is
/// ignored by the loopback listener: it does not end the sign-in.
fn is_for_this_login(redirect_url: &Url, expected_state: &str) -> bool {
    redirect_url
        .query_pairs()
        .find(|(k, _)| k == "state")
        .is_some_and(|(_, v)| constant_time_eq(v.as_bytes(), expected_state.as_bytes()))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The system browser and a loopback listener on `127.0.0.1`.
pub struct LoopbackBrowser {
    pub opener: Arc<dyn Opener>,
    pub wait: Duration,
}

impl LoopbackBrowser {
    pub fn new(opener: Arc<dyn Opener>) -> Self {
        Self {
            opener,
            wait: DEFAULT_BROWSER_WAIT,
        }
    }
}

#[async_trait::async_trait]
impl Browser for LoopbackBrowser {
    async fn redirect(&self, port: Option<u16>) -> Result<Box<dyn Redirect>, AuthFlowError> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0)))
            .await
            .map_err(|e| {
                AuthFlowError::new(
                    AuthStep::Redirect,
                    match port {
                        Some(p) => format!("cannot listen on 127.0.0.1:{p}, the redirect port of this server's registered client ({e}); close what uses it and try again"),
                        None => format!("cannot listen on 127.0.0.1 for the browser's redirect: {e}"),
                    },
                )
            })?;
        let port = listener
            .local_addr()
            .map_err(|e| AuthFlowError::new(AuthStep::Redirect, e.to_string()))?
            .port();
        Ok(Box::new(LoopbackRedirect {
            listener,
            uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            opener: self.opener.clone(),
            wait: self.wait,
        }))
    }
}

struct LoopbackRedirect {
    listener: TcpListener,
    uri: String,
    opener: Arc<dyn Opener>,
    wait: Duration,
}

const DONE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Airlock</title><p>Airlock: authorization finished. You can close this tab.";
const STRAY_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Airlock</title><p>Airlock: this is not the sign-in Airlock is waiting for.";
const FAILED_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Airlock</title><p>Airlock: authorization failed. Return to Airlock for details.";
const MIX_UP_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Airlock</title><p>Airlock refused this sign-in: the answer did not come from the authorization server Airlock sent you to. Nothing was sent on. Return to Airlock for details.";

#[async_trait::async_trait]
impl Redirect for LoopbackRedirect {
    fn uri(&self) -> String {
        self.uri.clone()
    }

    async fn complete(
        self: Box<Self>,
        authorization_url: &str,
        issuer: &ExpectedIssuer,
    ) -> Result<Answer, AuthFlowError> {
        let expected = ExpectedAnswer::for_url(authorization_url, issuer)?;
        self.opener.open(authorization_url).map_err(|e| {
            AuthFlowError::new(
                AuthStep::UserAuthorization,
                // Never the page's address: this text may reach an app
                // through the gateway. `--open print` shows it to the user.
                format!(
                    "cannot open the browser ({e}); sign in again with `airlock --open print login <server>` to get the sign-in page's address"
                ),
            )
        })?;
        let base = Url::parse(&self.uri)
            .map_err(|e| AuthFlowError::new(AuthStep::Redirect, e.to_string()))?;
        let wait = self.wait;
        match tokio::time::timeout(wait, serve_redirects(self.listener, base, expected)).await {
            Ok(r) => r,
            Err(_) => Err(AuthFlowError::new(
                AuthStep::UserAuthorization,
                format!("no answer from the browser within {} s", wait.as_secs()),
            )),
        }
    }
}

/// Longest a local client may take to send its request line.
pub const REDIRECT_READ_TIMEOUT: Duration = Duration::from_secs(2);
/// Connections to the loopback listener served at once.
pub const MAX_REDIRECT_CONNECTIONS: usize = 32;

/// Serve the loopback listener until the redirect for this login arrives:
/// every connection in its own task with a short read time-out, so a slow or
/// silent local client cannot stall the real redirect; requests for another
/// path or without this login's `state` are answered and ignored.
async fn serve_redirects(
    listener: TcpListener,
    base: Url,
    expected: ExpectedAnswer,
) -> Result<Answer, AuthFlowError> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Answer, AuthFlowError>>(1);
    let expected = Arc::new(expected);
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_REDIRECT_CONNECTIONS));
    loop {
        tokio::select! {
            answer = rx.recv() => {
                if let Some(answer) = answer {
                    return answer;
                }
            }
            accepted = listener.accept() => {
                let (stream, _) = accepted.map_err(|e| {
                    AuthFlowError::new(AuthStep::Redirect, format!("loopback listener failed: {e}"))
                })?;
                // Past the limit, new connections are closed at once.
                let Ok(slot) = slots.clone().try_acquire_owned() else { continue };
                let (tx, base, expected) = (tx.clone(), base.clone(), expected.clone());
                tokio::spawn(async move {
                    let _slot = slot;
                    if let Some(answer) = serve_one(stream, &base, &expected).await {
                        let _ = tx.send(answer).await;
                    }
                });
            }
        }
    }
}

/// One connection: `Some` when it was the redirect for this login (with
/// this flow's `state`): accepted, or refused and the flow ends (fail
/// closed: an answer for this flow that fails a check is not waited past).
async fn serve_one(
    mut stream: tokio::net::TcpStream,
    base: &Url,
    expected: &ExpectedAnswer,
) -> Option<Result<Answer, AuthFlowError>> {
    let target = read_request_target(&mut stream).await?;
    let url = match base.join(&target) {
        Ok(u) if u.path() == CALLBACK_PATH => u,
        _ => {
            let _ = respond(&mut stream, "404 Not Found", "not found").await;
            return None;
        }
    };
    if !is_for_this_login(&url, &expected.state) {
        let _ = respond(&mut stream, "400 Bad Request", STRAY_PAGE).await;
        return None;
    }
    let verdict = check_redirect(&url, expected);
    let (status, page) = match &verdict {
        Ok(_) => ("200 OK", DONE_PAGE),
        Err(e) if e.mix_up.is_some() => ("400 Bad Request", MIX_UP_PAGE),
        Err(_) => ("400 Bad Request", FAILED_PAGE),
    };
    let _ = respond(&mut stream, status, page).await;
    Some(verdict.map(|issuer| Answer {
        callback: url.to_string(),
        issuer,
    }))
}

/// The request target (`/callback?...`) of an HTTP/1 request line.
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(2).any(|w| w == b"\r\n") && buf.len() < 8192 {
        let n = tokio::time::timeout(REDIRECT_READ_TIMEOUT, stream.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    parse_request_line(&String::from_utf8_lossy(&buf))
}

/// `GET <target> HTTP/1.1` -> `<target>`.
pub fn parse_request_line(head: &str) -> Option<String> {
    let line = head.lines().next()?;
    let mut parts = line.split_whitespace();
    if parts.next()? != "GET" {
        return None;
    }
    let target = parts.next()?;
    target.starts_with('/').then(|| target.to_owned())
}

async fn respond(
    stream: &mut tokio::net::TcpStream,
    status: &str,
    body: &str,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

/// Follows the authorization server's redirects itself (no user, no
/// browser): for test authorization servers that redirect at once.
pub struct FollowRedirects {
    pub redirect_uri: String,
    pub max_hops: usize,
}

impl Default for FollowRedirects {
    fn default() -> Self {
        Self {
            redirect_uri: format!("http://127.0.0.1:1{CALLBACK_PATH}"),
            max_hops: 5,
        }
    }
}

#[async_trait::async_trait]
impl Browser for FollowRedirects {
    async fn redirect(&self, _port: Option<u16>) -> Result<Box<dyn Redirect>, AuthFlowError> {
        Ok(Box::new(FollowRedirect {
            uri: self.redirect_uri.clone(),
            max_hops: self.max_hops,
        }))
    }
}

struct FollowRedirect {
    uri: String,
    max_hops: usize,
}

#[async_trait::async_trait]
impl Redirect for FollowRedirect {
    fn uri(&self) -> String {
        self.uri.clone()
    }

    async fn complete(
        self: Box<Self>,
        authorization_url: &str,
        issuer: &ExpectedIssuer,
    ) -> Result<Answer, AuthFlowError> {
        let step = |d: String| AuthFlowError::new(AuthStep::UserAuthorization, d);
        let expected = ExpectedAnswer::for_url(authorization_url, issuer)?;
        let redirect_uri = Url::parse(&self.uri).map_err(|e| step(e.to_string()))?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(15))
            .build()
            .map_err(|e| step(e.to_string()))?;
        let mut current = Url::parse(authorization_url).map_err(|e| step(e.to_string()))?;
        for _ in 0..self.max_hops {
            let response = client
                .get(current.clone())
                .send()
                .await
                .map_err(|e| step(format!("GET {current}: {e}")))?;
            let status = response.status();
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let Some(location) = location.filter(|_| status.is_redirection()) else {
                return Err(step(format!(
                    "{current} answered {status} instead of redirecting back"
                )));
            };
            let next = current.join(&location).map_err(|e| step(e.to_string()))?;
            if next.origin() == redirect_uri.origin() && next.path() == redirect_uri.path() {
                let issuer = check_redirect(&next, &expected)?;
                return Ok(Answer {
                    callback: next.to_string(),
                    issuer,
                });
            }
            current = next;
        }
        Err(step(format!(
            "no redirect back to {} within {} hops",
            self.uri, self.max_hops
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoOpen;
    impl Opener for NoOpen {
        fn open(&self, _url: &str) -> Result<(), String> {
            Ok(())
        }
    }

    const HONEST: &str = "https://as.honest.example";

    fn expecting(state: &str, issuer: Option<&str>, required: bool) -> ExpectedAnswer {
        ExpectedAnswer {
            state: state.into(),
            issuer: ExpectedIssuer {
                issuer: issuer.map(str::to_owned),
                required,
            },
        }
    }

    /// A flow that expects no particular issuer (none published, none promised).
    fn any_issuer() -> ExpectedIssuer {
        ExpectedIssuer {
            issuer: None,
            required: false,
        }
    }

    #[test]
    fn state_is_checked() {
        let abc = expecting("abc", None, false);
        let ok = Url::parse("http://127.0.0.1:5/callback?code=c&state=abc").unwrap();
        assert_eq!(check_redirect(&ok, &abc).unwrap(), IssuerCheck::NotSent);
        let bad = check_redirect(&ok, &expecting("abd", None, false)).unwrap_err();
        assert_eq!(bad.step, AuthStep::Redirect);
        let none = Url::parse("http://127.0.0.1:5/callback?code=c").unwrap();
        assert_eq!(
            check_redirect(&none, &abc).unwrap_err().step,
            AuthStep::Redirect
        );
        let denied =
            Url::parse("http://127.0.0.1:5/callback?error=access_denied&state=abc").unwrap();
        assert_eq!(
            check_redirect(&denied, &abc).unwrap_err().step,
            AuthStep::UserAuthorization
        );
        assert_eq!(
            state_of("https://as/authorize?a=1&state=x%20y").as_deref(),
            Some("x y")
        );
    }

    /// The issuer is checked after the state and before anything else the
    /// answer says: an error page from another authorization server is
    /// refused as a mix-up and its text is never shown (MCP 2026-07-28).
    #[test]
    fn the_issuer_is_checked_before_the_error_or_the_code() {
        let flow = expecting("s1", Some(HONEST), false);
        let url = |q: &str| Url::parse(&format!("http://127.0.0.1:5/callback?{q}")).unwrap();
        let good = url("code=c&state=s1&iss=https%3A%2F%2Fas.honest.example");
        assert_eq!(
            check_redirect(&good, &flow).unwrap(),
            IssuerCheck::Confirmed
        );
        let other = check_redirect(
            &url("code=c&state=s1&iss=https%3A%2F%2Fas.hostile.example"),
            &flow,
        )
        .unwrap_err();
        assert_eq!(other.step, AuthStep::ResponseIssuer);
        assert!(other.mix_up.is_some());
        let phishing = check_redirect(
            &url("error=access_denied&error_description=Call+1-800-PHISH&state=s1&iss=https%3A%2F%2Fas.hostile.example"),
            &flow,
        )
        .unwrap_err();
        assert_eq!(phishing.step, AuthStep::ResponseIssuer);
        assert!(!phishing.to_string().contains("PHISH"), "{phishing}");
        // Advertised but missing: refused.
        let promised = expecting("s1", Some(HONEST), true);
        let err = check_redirect(&url("code=c&state=s1"), &promised).unwrap_err();
        assert!(
            matches!(err.mix_up, Some(issuer::MixUp::NoIssuer { .. })),
            "{err}"
        );
        // An answer for another flow is judged by its state alone.
        let err = check_redirect(
            &url("code=c&state=s2&iss=https%3A%2F%2Fas.hostile.example"),
            &flow,
        )
        .unwrap_err();
        assert_eq!(err.step, AuthStep::Redirect);
        assert!(err.mix_up.is_none());
    }

    /// A parameter given twice could be read one way here and another way
    /// by the token exchange: refused, whichever copy would pass.
    #[test]
    fn repeated_parameters_are_refused() {
        let flow = expecting("s1", Some(HONEST), false);
        for q in [
            "code=c&state=s1&iss=https%3A%2F%2Fas.honest.example&iss=https%3A%2F%2Fas.hostile.example",
            "code=c&state=s1&state=s2",
            "code=c&code=d&state=s1",
            "code=c&state=s1&error=x&error=y",
        ] {
            let u = Url::parse(&format!("http://127.0.0.1:5/callback?{q}")).unwrap();
            let err = check_redirect(&u, &flow).unwrap_err();
            assert_eq!(err.step, AuthStep::Redirect, "{q}");
            assert!(err.detail.contains("more than once"), "{q}: {err}");
        }
        assert_eq!(SINGLE_PARAMETERS.len(), 5);
    }

    #[test]
    fn request_line_parsing() {
        assert_eq!(
            parse_request_line("GET /callback?code=1 HTTP/1.1\r\nHost: x\r\n").as_deref(),
            Some("/callback?code=1")
        );
        assert_eq!(parse_request_line("POST /callback HTTP/1.1\r\n"), None);
        assert_eq!(parse_request_line("GET http://evil/ HTTP/1.1\r\n"), None);
    }

    #[tokio::test]
    async fn loopback_listener_accepts_the_matching_redirect() {
        let browser = LoopbackBrowser {
            opener: Arc::new(NoOpen),
            wait: Duration::from_secs(10),
        };
        let redirect = browser.redirect(None).await.unwrap();
        let uri = redirect.uri();
        assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with(CALLBACK_PATH));
        let waiter = tokio::spawn(async move {
            redirect
                .complete("https://as.example/authorize?state=s1", &any_issuer())
                .await
        });
        let client = reqwest::Client::new();
        // A stray request first: ignored with a 404.
        let stray = client
            .get(uri.replace(CALLBACK_PATH, "/favicon.ico"))
            .send()
            .await
            .unwrap();
        assert_eq!(stray.status(), 404);
        let ok = client
            .get(format!("{uri}?code=abc&state=s1"))
            .send()
            .await
            .unwrap();
        assert_eq!(ok.status(), 200);
        let got = waiter.await.unwrap().unwrap();
        assert!(got.callback.contains("code=abc"));
        assert_eq!(got.issuer, IssuerCheck::NotSent);
    }

    /// Requests without this login's `state` (a forged or stale redirect
    /// from another local program) are refused and do not end the sign-in;
    /// silent connections do not stall the real redirect; the wait is bounded.
    #[tokio::test]
    async fn loopback_listener_ignores_strays_and_serves_connections_concurrently() {
        let browser = LoopbackBrowser {
            opener: Arc::new(NoOpen),
            wait: Duration::from_secs(10),
        };
        let redirect = browser.redirect(None).await.unwrap();
        let uri = redirect.uri();
        let port: u16 = Url::parse(&uri).unwrap().port().unwrap();
        let waiter = tokio::spawn(async move {
            redirect
                .complete("https://as/authorize?state=s1", &any_issuer())
                .await
        });
        let client = reqwest::Client::new();
        for forged in [
            "?code=abc&state=evil",
            "?code=abc",
            "?error=access_denied&state=x",
        ] {
            let bad = client.get(format!("{uri}{forged}")).send().await.unwrap();
            assert_eq!(bad.status(), 400, "{forged}");
        }
        assert!(!waiter.is_finished(), "a stray request ended the sign-in");
        // Local clients that connect and say nothing.
        let mut silent = Vec::new();
        for _ in 0..5 {
            silent.push(
                tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .unwrap(),
            );
        }
        let started = std::time::Instant::now();
        let ok = client
            .get(format!("{uri}?code=real&state=s1"))
            .send()
            .await
            .unwrap();
        assert_eq!(ok.status(), 200);
        assert!(
            started.elapsed() < REDIRECT_READ_TIMEOUT,
            "the real redirect waited behind silent clients: {:?}",
            started.elapsed()
        );
        let got = waiter.await.unwrap().unwrap();
        assert!(got.callback.contains("code=real"), "{got:?}");

        let quick = LoopbackBrowser {
            opener: Arc::new(NoOpen),
            wait: Duration::from_millis(50),
        };
        let err = quick
            .redirect(None)
            .await
            .unwrap()
            .complete("https://as/authorize?state=s1", &any_issuer())
            .await
            .unwrap_err();
        assert_eq!(err.step, AuthStep::UserAuthorization);
    }

    /// An answer with this flow's state but another issuer ends the flow
    /// (fail closed) with the mix-up refused, and the browser is told so.
    #[tokio::test]
    async fn loopback_listener_refuses_an_answer_from_another_issuer() {
        let browser = LoopbackBrowser {
            opener: Arc::new(NoOpen),
            wait: Duration::from_secs(10),
        };
        let redirect = browser.redirect(None).await.unwrap();
        let uri = redirect.uri();
        let issuer = ExpectedIssuer {
            issuer: Some(HONEST.into()),
            required: true,
        };
        let waiter = tokio::spawn(async move {
            redirect
                .complete("https://as/authorize?state=s1", &issuer)
                .await
        });
        let page = reqwest::get(format!(
            "{uri}?code=abc&state=s1&iss=https%3A%2F%2Fas.hostile.example"
        ))
        .await
        .unwrap();
        assert_eq!(page.status(), 400);
        assert!(page.text().await.unwrap().contains("refused this sign-in"));
        let err = waiter.await.unwrap().unwrap_err();
        assert_eq!(err.step, AuthStep::ResponseIssuer);
        assert!(err.to_string().contains("as.hostile.example"), "{err}");
    }
}
