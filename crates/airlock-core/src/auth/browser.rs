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

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use url::Url;

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
    /// Send the user to `authorization_url`; return the full redirect URL
    /// (with `code`, `state`, maybe `iss`) once its `state` matched.
    async fn complete(self: Box<Self>, authorization_url: &str) -> Result<String, AuthFlowError>;
}

/// The `state` parameter of an authorization URL.
pub fn state_of(authorization_url: &str) -> Option<String> {
    Url::parse(authorization_url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
    })
}

/// Check a redirect back from the authorization server: an `error` there
/// (the user declined, the server refused) or a `state` that is not ours
/// (a forged or stale redirect) fails the flow.
pub fn check_redirect(redirect_url: &Url, expected_state: &str) -> Result<(), AuthFlowError> {
    let get = |name: &str| {
        redirect_url
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    if let Some(error) = get("error") {
        let description = get("error_description").unwrap_or_default();
        return Err(AuthFlowError::new(
            AuthStep::UserAuthorization,
            format!("the authorization server answered {error:?} {description}"),
        ));
    }
    match get("state") {
        Some(s) if constant_time_eq(s.as_bytes(), expected_state.as_bytes()) => {}
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
    if get("code").is_none() {
        return Err(AuthFlowError::new(
            AuthStep::Redirect,
            "the redirect carried no authorization `code`",
        ));
    }
    Ok(())
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
const FAILED_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Airlock</title><p>Airlock: authorization failed. Return to Airlock for details.";

#[async_trait::async_trait]
impl Redirect for LoopbackRedirect {
    fn uri(&self) -> String {
        self.uri.clone()
    }

    async fn complete(self: Box<Self>, authorization_url: &str) -> Result<String, AuthFlowError> {
        let expected = state_of(authorization_url).ok_or_else(|| {
            AuthFlowError::new(
                AuthStep::UserAuthorization,
                "the authorization URL has no `state`",
            )
        })?;
        self.opener.open(authorization_url).map_err(|e| {
            AuthFlowError::new(
                AuthStep::UserAuthorization,
                format!(
                    "cannot open the browser ({e}); open this URL yourself: {authorization_url}"
                ),
            )
        })?;
        let base = Url::parse(&self.uri)
            .map_err(|e| AuthFlowError::new(AuthStep::Redirect, e.to_string()))?;
        let accept = async {
            loop {
                let (mut stream, _) = self.listener.accept().await.map_err(|e| {
                    AuthFlowError::new(AuthStep::Redirect, format!("loopback listener failed: {e}"))
                })?;
                let target = match read_request_target(&mut stream).await {
                    Some(t) => t,
                    None => continue,
                };
                let url = match base.join(&target) {
                    Ok(u) if u.path() == CALLBACK_PATH => u,
                    _ => {
                        let _ = respond(&mut stream, "404 Not Found", "not found").await;
                        continue;
                    }
                };
                let verdict = check_redirect(&url, &expected);
                let page = if verdict.is_ok() {
                    DONE_PAGE
                } else {
                    FAILED_PAGE
                };
                let status = if verdict.is_ok() {
                    "200 OK"
                } else {
                    "400 Bad Request"
                };
                let _ = respond(&mut stream, status, page).await;
                return verdict.map(|()| url.to_string());
            }
        };
        match tokio::time::timeout(self.wait, accept).await {
            Ok(r) => r,
            Err(_) => Err(AuthFlowError::new(
                AuthStep::UserAuthorization,
                format!(
                    "no answer from the browser within {} s",
                    self.wait.as_secs()
                ),
            )),
        }
    }
}

/// The request target (`/callback?...`) of an HTTP/1 request line.
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(2).any(|w| w == b"\r\n") && buf.len() < 8192 {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
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

    async fn complete(self: Box<Self>, authorization_url: &str) -> Result<String, AuthFlowError> {
        let step = |d: String| AuthFlowError::new(AuthStep::UserAuthorization, d);
        let expected = state_of(authorization_url)
            .ok_or_else(|| step("the authorization URL has no `state`".into()))?;
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
            if next.as_str().starts_with(&self.uri) {
                check_redirect(&next, &expected)?;
                return Ok(next.to_string());
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

    #[test]
    fn state_is_checked() {
        let ok = Url::parse("http://127.0.0.1:5/callback?code=c&state=abc").unwrap();
        assert!(check_redirect(&ok, "abc").is_ok());
        let bad = check_redirect(&ok, "abd").unwrap_err();
        assert_eq!(bad.step, AuthStep::Redirect);
        let none = Url::parse("http://127.0.0.1:5/callback?code=c").unwrap();
        assert_eq!(
            check_redirect(&none, "abc").unwrap_err().step,
            AuthStep::Redirect
        );
        let denied =
            Url::parse("http://127.0.0.1:5/callback?error=access_denied&state=abc").unwrap();
        assert_eq!(
            check_redirect(&denied, "abc").unwrap_err().step,
            AuthStep::UserAuthorization
        );
        assert_eq!(
            state_of("https://as/authorize?a=1&state=x%20y").as_deref(),
            Some("x y")
        );
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
                .complete("https://as.example/authorize?state=s1")
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
        assert!(got.contains("code=abc"));
    }

    #[tokio::test]
    async fn loopback_listener_rejects_a_wrong_state_and_times_out() {
        let browser = LoopbackBrowser {
            opener: Arc::new(NoOpen),
            wait: Duration::from_secs(10),
        };
        let redirect = browser.redirect(None).await.unwrap();
        let uri = redirect.uri();
        let waiter =
            tokio::spawn(async move { redirect.complete("https://as/authorize?state=s1").await });
        let bad = reqwest::Client::new()
            .get(format!("{uri}?code=abc&state=evil"))
            .send()
            .await
            .unwrap();
        assert_eq!(bad.status(), 400);
        assert_eq!(waiter.await.unwrap().unwrap_err().step, AuthStep::Redirect);

        let quick = LoopbackBrowser {
            opener: Arc::new(NoOpen),
            wait: Duration::from_millis(50),
        };
        let err = quick
            .redirect(None)
            .await
            .unwrap()
            .complete("https://as/authorize?state=s1")
            .await
            .unwrap_err();
        assert_eq!(err.step, AuthStep::UserAuthorization);
    }
}
