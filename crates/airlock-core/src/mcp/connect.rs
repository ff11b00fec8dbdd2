//! Opening a session: start the transport (a child process or Streamable
//! HTTP, with stored OAuth tokens), the handshake (2026-07-28 discovery with
//! a 2025-11-25 fallback), a sign-in on a 401, and the live session.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ProtocolVersion, ServerResult};
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::auth::AuthorizationManager;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::RoleClient;

use super::errors::{auth_challenge, error_chain, tail_suffix};
use super::SessionInfo;
use super::{stderr, AirlockClient, ConnectContext, ConnectError, OAuthContext, Session};
use crate::servers::{ProtocolChoice, Transport};

static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

type Running = RunningService<RoleClient, AirlockClient>;
/// One handshake attempt: timed out, failed, or a running service.
type Attempt = Result<Result<Running, ClientInitializeError>, tokio::time::error::Elapsed>;

/// The handshake for a protocol choice: discovery (2026-07-28), a plain
/// initialize (2025-11-25), or discovery with a fallback (automatic).
pub fn lifecycle(protocol: ProtocolChoice) -> ClientLifecycleMode {
    match protocol {
        ProtocolChoice::Auto => ClientLifecycleMode::Auto {
            preferred_versions: crate::about::PROTOCOL_REVISIONS.to_vec(),
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
        ProtocolChoice::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        ProtocolChoice::V2025_11_25 => ClientLifecycleMode::Initialize,
    }
}

/// Did the discovery probe get a success that is neither a discover nor an
/// initialize result (a legacy server answering unknown methods with `{}`)?
fn discover_misanswered(e: &ClientInitializeError) -> bool {
    matches!(
        e,
        ClientInitializeError::ExpectedInitResult(Some(r))
            if !matches!(r, ServerResult::DiscoverResult(_) | ServerResult::InitializeResult(_))
    )
}

/// What one connect attempt needs besides the transport.
struct Attempting<'a> {
    server: &'a str,
    client: AirlockClient,
    ctx: &'a ConnectContext,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl Attempting<'_> {
    fn tail(&self) -> String {
        tail_suffix(
            &self
                .stderr_tail
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .cloned()
                .collect::<Vec<_>>(),
        )
    }

    /// Start the transport and run the handshake once.
    async fn attempt(
        &self,
        transport: &Transport<String>,
        mode: &ClientLifecycleMode,
        auth: Option<AuthorizationManager>,
    ) -> Result<Attempt, ConnectError> {
        let timeout = self.ctx.connect_timeout;
        let client = self.client.clone();
        Ok(match transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let child = self.spawn_stdio(command, args, env, cwd.as_deref())?;
                tokio::time::timeout(timeout, client.serve_with_lifecycle(child, mode.clone()))
                    .await
            }
            Transport::Http { url, headers } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                config.custom_headers = http_headers(headers)?;
                // rmcp bounds what it reads over HTTP; the server's limit applies.
                config.max_sse_event_size = self.ctx.max_message_bytes;
                config.max_json_response_size = self.ctx.max_message_bytes;
                match auth {
                    Some(manager) => {
                        let t = StreamableHttpClientTransport::with_client(
                            rmcp::transport::auth::AuthClient::new(reqwest::Client::new(), manager),
                            config,
                        );
                        tokio::time::timeout(timeout, client.serve_with_lifecycle(t, mode.clone()))
                            .await
                    }
                    None => {
                        let t = StreamableHttpClientTransport::from_config(config);
                        tokio::time::timeout(timeout, client.serve_with_lifecycle(t, mode.clone()))
                            .await
                    }
                }
            }
        })
    }

    fn spawn_stdio(
        &self,
        command: &str,
        args: &[String],
        env: &std::collections::BTreeMap<String, String>,
        cwd: Option<&str>,
    ) -> Result<super::stdio::StdioTransport, ConnectError> {
        // A confined server starts through its room's command; the server's
        // own command and arguments are that command's last words.
        let mut cmd = match &self.ctx.wrapped {
            Some(w) => {
                let mut c = tokio::process::Command::new(&w.program);
                c.args(&w.args);
                c
            }
            None => {
                let mut c = tokio::process::Command::new(command);
                c.args(args);
                c
            }
        };
        // A minimal inherited environment, not all of Airlock's (which may
        // hold other programs' tokens), then what the configuration sets,
        // then what the room sets (its proxy, its launcher's cache).
        cmd.env_clear()
            .envs(super::inherited_env::inherited_env_for(
                &self.ctx.inherit_env,
                self.ctx.session_bus,
            ))
            .envs(env.iter())
            .kill_on_drop(true);
        if let Some(w) = &self.ctx.wrapped {
            cmd.envs(w.env.iter().map(|(k, v)| (k, v)));
        }
        super::server_process::prepare(&mut cmd);
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ConnectError::CommandNotFound {
                command: command.to_owned(),
            },
            _ => ConnectError::Spawn {
                command: command.to_owned(),
                detail: e.to_string(),
            },
        })?;
        if let Err(why) = super::server_process::adopt(&child) {
            super::log_line(
                &self.ctx.store,
                &self.ctx.events,
                &self.ctx.redactor,
                self.server,
                "airlock",
                "warning",
                &why,
            );
        }
        if let Some(pipe) = child.stderr.take() {
            stderr::spawn_reader(
                pipe,
                self.server.to_owned(),
                self.ctx.store.clone(),
                self.ctx.events.clone(),
                self.ctx.redactor.clone(),
                self.stderr_tail.clone(),
            );
        }
        // Messages over the server's limit are dropped as they stream by
        // (super::oversize); the server's log says so.
        let (store, events, redactor, server) = (
            self.ctx.store.clone(),
            self.ctx.events.clone(),
            self.ctx.redactor.clone(),
            self.server.to_owned(),
        );
        let on_drop = Box::new(move |what: String| {
            super::log_line(
                &store, &events, &redactor, &server, "airlock", "warning", &what,
            );
        });
        super::stdio::StdioTransport::new(child, self.ctx.max_message_bytes, self.server, on_drop)
            .map_err(|e| ConnectError::Spawn {
                command: command.to_owned(),
                detail: e.to_string(),
            })
    }

    /// A failed handshake as a readable reason, with the server's last stderr lines.
    async fn failure(&self, attempt: Attempt) -> Result<Running, ConnectError> {
        match attempt {
            Ok(Ok(running)) => Ok(running),
            Err(_) => Err(ConnectError::Timeout {
                secs: self.ctx.connect_timeout.as_secs(),
                tail: self.tail(),
            }),
            Ok(Err(e)) => {
                // Give the stderr reader a moment to catch the server's last words.
                tokio::time::sleep(Duration::from_millis(100)).await;
                Err(ConnectError::Handshake {
                    detail: handshake_detail(&e),
                    tail: self.tail(),
                })
            }
        }
    }
}

/// The configured headers, checked against HTTP's rules.
fn http_headers(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<
    std::collections::HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>,
    ConnectError,
> {
    let mut custom = std::collections::HashMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| ConnectError::Config(format!("header {k:?}: {e}")))?;
        let value = reqwest::header::HeaderValue::from_str(v).map_err(|_| {
            ConnectError::Config(format!(
                "header {k:?} has a value that is not valid in HTTP"
            ))
        })?;
        custom.insert(name, value);
    }
    Ok(custom)
}

/// The transport's own error carries the reason (refused, DNS, TLS, content type).
fn handshake_detail(e: &ClientInitializeError) -> String {
    match e {
        ClientInitializeError::TransportError { error, context } => {
            // The HTTP client's own error is not exposed as a `source`: unwrap it.
            let inner: &(dyn std::error::Error + 'static) = match error
                .error
                .downcast_ref::<StreamableHttpError<reqwest::Error>>()
            {
                Some(StreamableHttpError::Client(client)) => client,
                _ => error.error.as_ref(),
            };
            format!("{} ({context})", error_chain(inner))
        }
        other => error_chain(other),
    }
}

/// Stored tokens of an HTTP server, when the keychain has some that may be
/// used for it ([`crate::auth::stored_manager`]); else why not, which is
/// audited and told with the sign-in the server's 401 then asks for.
async fn stored_authorization(
    server: &str,
    transport: &Transport<String>,
    ctx: &ConnectContext,
) -> Result<Option<AuthorizationManager>, crate::auth::TokensNotUsed> {
    let (Transport::Http { url, .. }, Some(oauth)) = (transport, ctx.oauth.as_ref()) else {
        return Ok(None);
    };
    let store =
        crate::auth::KeychainCredentialStore::new(oauth.keychain.clone(), &oauth.instance, server);
    match crate::auth::stored_manager(url, store).await {
        Ok(Some(mut manager)) => {
            // A confidential client needs its secret to refresh.
            crate::auth::configure_registered_client(&mut manager, &oauth.identity, url);
            Ok(Some(manager))
        }
        Ok(None) => Ok(None),
        Err(why) => {
            if let Some(kind) = why.kind() {
                let _ = ctx.store.audit(
                    Some(server),
                    "oauth_tokens_not_used",
                    &serde_json::json!({"kind": kind, "reason": why.to_string()}),
                );
            }
            Err(why)
        }
    }
}

/// Sign in after a 401 (consent first), when the shell can run a login.
/// `not_used`: why the stored tokens were not sent, told with the consent
/// (or the error, when no sign-in can run here).
async fn sign_in_for(
    server: &str,
    url: &str,
    challenge: &str,
    oauth: &OAuthContext,
    allow_insecure_http: bool,
    not_used: Option<&crate::auth::TokensNotUsed>,
) -> Result<AuthorizationManager, ConnectError> {
    if crate::servers::plain_http_remote(url) && !allow_insecure_http {
        return Err(ConnectError::Config(
            "the server asks you to sign in over plain http:// to another computer, where the tokens would cross the network in the clear; use https, or opt in explicitly (`--allow-insecure-http`, or the window's form)".into(),
        ));
    }
    let Some(browser) = oauth.browser.as_ref() else {
        return Err(ConnectError::AuthorizationRequired {
            server: server.to_owned(),
            reason: not_used.map(|w| format!(" ({w})")).unwrap_or_default(),
        });
    };
    let store =
        crate::auth::KeychainCredentialStore::new(oauth.keychain.clone(), &oauth.instance, server)
            .for_resource(url);
    let mut gate = oauth.gate.clone();
    gate.reason = not_used.map(ToString::to_string);
    crate::auth::authorize(
        url,
        Some(challenge),
        &oauth.identity,
        browser.as_ref(),
        &gate,
        store,
    )
    .await
    .map_err(ConnectError::Authorization)
}

/// Open a session with a resolved server (secrets already fetched).
pub async fn connect(
    server: &str,
    transport: &Transport<String>,
    ctx: &ConnectContext,
) -> Result<Session, ConnectError> {
    let connection = NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed);
    let attempting = Attempting {
        server,
        client: AirlockClient::new(server, connection, ctx),
        ctx,
        stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
    };
    let mut mode = lifecycle(ctx.protocol);
    let (mut auth, not_used) = match stored_authorization(server, transport, ctx).await {
        Ok(manager) => (manager, None),
        Err(why) => (None, Some(why)),
    };
    let mut signed_in = false;
    let handshake = loop {
        let attempt = attempting.attempt(transport, &mode, auth.take()).await?;
        match &attempt {
            // Some 2025-11-25 servers answer every unknown method,
            // `server/discover` included, with an empty success instead of
            // an error: they are legacy too. Ask once more with `initialize`.
            Ok(Err(e))
                if matches!(mode, ClientLifecycleMode::Auto { .. }) && discover_misanswered(e) =>
            {
                mode = ClientLifecycleMode::Initialize;
            }
            // A 401: sign in once (consent first), then try again with the tokens.
            Ok(Err(e)) if !signed_in => {
                let (Some(challenge), Transport::Http { url, .. }, Some(oauth)) =
                    (auth_challenge(e), transport, ctx.oauth.as_ref())
                else {
                    break attempt;
                };
                signed_in = true;
                auth = Some(
                    sign_in_for(
                        server,
                        url,
                        &challenge,
                        oauth,
                        ctx.allow_insecure_http,
                        not_used.as_ref(),
                    )
                    .await?,
                );
            }
            _ => break attempt,
        }
    };
    let running = attempting.failure(handshake).await?;
    Ok(into_session(
        server,
        connection,
        running,
        ctx,
        attempting.stderr_tail,
        &attempting.client,
    ))
}

/// Open a session over an already connected byte stream (an in-process
/// peer in tests), with the given handshake.
#[cfg(feature = "test-support")]
pub async fn connect_io<T>(
    server: &str,
    io: T,
    mode: ClientLifecycleMode,
    ctx: &ConnectContext,
) -> Result<Session, ConnectError>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    let connection = NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed);
    let client = AirlockClient::new(server, connection, ctx);
    let handler = client.clone();
    // Read through the same bound as a child's stdout (super::oversize).
    let (read, write) = tokio::io::split(io);
    let (store, events, redactor, name) = (
        ctx.store.clone(),
        ctx.events.clone(),
        ctx.redactor.clone(),
        server.to_owned(),
    );
    let on_drop = Box::new(move |what: String| {
        super::log_line(
            &store, &events, &redactor, &name, "airlock", "warning", &what,
        );
    });
    let read = super::oversize::CappedLines::new(read, ctx.max_message_bytes, server, on_drop);
    let io = rmcp::transport::async_rw::AsyncRwTransport::new_client(read, write)
        .with_max_line_length(ctx.max_message_bytes.saturating_add(4096));
    let running = tokio::time::timeout(ctx.connect_timeout, client.serve_with_lifecycle(io, mode))
        .await
        .map_err(|_| ConnectError::Timeout {
            secs: ctx.connect_timeout.as_secs(),
            tail: String::new(),
        })?
        .map_err(|e| ConnectError::Handshake {
            detail: handshake_detail(&e),
            tail: String::new(),
        })?;
    Ok(into_session(
        server,
        connection,
        running,
        ctx,
        Arc::new(Mutex::new(VecDeque::new())),
        &handler,
    ))
}

/// Longest server instructions kept, in bytes (the rest is cut, marked).
pub const MAX_INSTRUCTIONS_BYTES: usize = 16 * 1024;

/// Server text, bounded and without control or bidi characters.
fn bounded(text: &str, max_chars: usize) -> String {
    crate::url_safety::neutralize_for_display(text, max_chars)
}

/// What the server said about itself in the handshake.
fn session_info(running: &Running) -> SessionInfo {
    running
        .peer()
        .peer_info()
        .map(|i| SessionInfo {
            protocol_version: i.protocol_version.to_string(),
            server_name: i.server_info.as_ref().map(|s| bounded(&s.name, 256)),
            server_version: i.server_info.as_ref().map(|s| bounded(&s.version, 256)),
            capabilities: serde_json::to_value(&i.capabilities).unwrap_or_default(),
            // Multi-line text the shells show as plain text: bounded, lines kept.
            instructions: i
                .instructions
                .as_deref()
                .map(|t| crate::store::truncate_text(t, MAX_INSTRUCTIONS_BYTES)),
        })
        .unwrap_or(SessionInfo {
            protocol_version: "unknown".into(),
            server_name: None,
            server_version: None,
            capabilities: serde_json::Value::Null,
            instructions: None,
        })
}

/// Keep the running service; mark the session closed when it ends.
fn into_session(
    server: &str,
    connection: u64,
    running: Running,
    ctx: &ConnectContext,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    client: &AirlockClient,
) -> Session {
    let info = session_info(&running);
    let peer = running.peer().clone();
    // A 2026-07-28 server sends its list changes and resource updates only
    // on a listen stream (opened at once when it offers list changes).
    let listener = super::list_changes::streams(&info.protocol_version).then(|| {
        let lists = super::list_changes::to_listen(&info.protocol_version, &info.capabilities);
        super::listen::Listener::start(peer.clone(), lists, client.clone())
    });
    let cancel = Mutex::new(Some(running.cancellation_token()));
    let closed = Arc::new(tokio::sync::Notify::new());
    let closed_flag = Arc::new(AtomicBool::new(false));
    {
        let closed = closed.clone();
        let closed_flag = closed_flag.clone();
        tokio::spawn(async move {
            let _ = running.waiting().await;
            closed_flag.store(true, Ordering::SeqCst);
            closed.notify_waiters();
        });
    }
    Session {
        server: server.to_owned(),
        connection,
        peer,
        info,
        redactor: ctx.redactor.clone(),
        cancel,
        closed,
        closed_flag,
        stderr_tail,
        progress: client.progress.clone(),
        listener,
    }
}
