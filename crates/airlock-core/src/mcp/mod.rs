//! MCP sessions over the official Rust SDK (`rmcp`): stdio and Streamable
//! HTTP, 2025-11-25 (initialize) and 2026-07-28 (discovery) chosen per server.

mod stderr;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[allow(deprecated)]
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, CustomRequest, CustomResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ErrorData,
    FormElicitationCapability, Implementation, ProtocolVersion, ServerResult,
    UrlElicitationCapability,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, NotificationContext, Peer,
    RequestContext, RoleClient, RunningServiceCancellationToken,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use serde::Serialize;
use tokio::sync::broadcast;

use crate::elicitation::{Broker, ConsentDecision, FormAnswer, Origin};
use crate::events::CoreEvent;
use crate::secrets::Redactor;
use crate::servers::Transport;
use crate::store::Store;

pub use stderr::STDERR_TAIL_LINES;

/// How long the handshake (initialize or discovery) may take.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The method of the 2025-11-25 completion notification.
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

/// Live status of a server connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ConnStatus {
    Disconnected,
    Connecting,
    Ready {
        protocol_version: String,
    },
    Failed {
        reason: String,
    },
    Reconnecting {
        attempt: u32,
        retry_in_ms: u64,
        reason: String,
    },
    /// The server needs MCP authorization (OAuth) and has no usable
    /// tokens, or the last sign-in did not finish (`reason` says why).
    SignInRequired {
        reason: String,
    },
    /// The user accepted the sign-in page; Airlock waits for the browser's
    /// redirect back from `domain`.
    SigningIn {
        domain: String,
    },
}

/// What the server told us about itself.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionInfo {
    pub protocol_version: String,
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    pub capabilities: serde_json::Value,
    pub instructions: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("command `{command}` was not found; check that it is installed and on PATH")]
    CommandNotFound { command: String },
    #[error("cannot start `{command}`: {detail}")]
    Spawn { command: String, detail: String },
    #[error("the server did not finish the MCP handshake within {secs} s{tail}")]
    Timeout { secs: u64, tail: String },
    #[error("the MCP handshake failed: {detail}{tail}")]
    Handshake { detail: String, tail: String },
    #[error("invalid server configuration: {0}")]
    Config(String),
    #[error(
        "the server requires you to sign in (MCP authorization, OAuth): use Sign in in the window, or `airlock login {server}`"
    )]
    AuthorizationRequired { server: String },
    #[error(transparent)]
    Authorization(crate::auth::AuthFlowError),
}

fn tail_suffix(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("; last stderr: {}", lines.join(" | "))
    }
}

/// A readable reason: the innermost causes, without the SDK's type names.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        let text = strip_type_names(&err.to_string());
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = err.source();
    }
    if parts.is_empty() {
        "the transport failed".into()
    } else {
        parts.join(": ")
    }
}

/// Remove `[rmcp::...<...>]`-style generic type names from an SDK message.
fn strip_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if depth == 0 && c == '[' && text.contains("::") {
            // Skip a bracketed type path such as `[rmcp::transport::Worker<..>]`.
            let rest: String = chars.clone().take(6).collect();
            if rest.starts_with("rmcp::") || rest.starts_with("reqwes") {
                depth = 1;
                continue;
            }
        }
        if depth > 0 {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            continue;
        }
        out.push(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Run a question to the user until the server's request is cancelled (the
/// server cancelled it, or the connection ended): then the question is
/// dropped, which closes its dialog and records it as connection_lost.
async fn until_cancelled<T>(
    ct: &tokio_util::sync::CancellationToken,
    question: impl std::future::Future<Output = T>,
) -> Result<T, ErrorData> {
    tokio::select! {
        answer = question => Ok(answer),
        _ = ct.cancelled() => Err(ErrorData::internal_error(
            "the request was cancelled before the user answered",
            None,
        )),
    }
}

/// The client side of one connection: answers server requests and notifications.
#[derive(Clone)]
pub struct AirlockClient {
    server: String,
    connection: u64,
    broker: Arc<Broker>,
    store: Arc<Store>,
    events: broadcast::Sender<CoreEvent>,
    redactor: Arc<Redactor>,
}

pub fn client_info() -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(
        ElicitationCapability::new()
            .with_form(FormElicitationCapability::default())
            .with_url(UrlElicitationCapability::default()),
    );
    let mut config = ClientConfig::new(
        capabilities,
        Implementation::new("airlock", env!("CARGO_PKG_VERSION")),
    );
    // What a plain `initialize` offers (the legacy retry in `connect`); the
    // discovery handshake negotiates its own version.
    config.protocol_version = ProtocolVersion::V_2025_11_25;
    config
}

/// Store and broadcast one log line of a server (redacted, bounded).
pub(crate) fn log_line(
    store: &Store,
    events: &broadcast::Sender<CoreEvent>,
    redactor: &Redactor,
    server: &str,
    source: &str,
    level: &str,
    text: &str,
) {
    let text = redactor.redact(text);
    let text = crate::store::truncate_text(&text, crate::store::MAX_LOG_LINE_BYTES);
    let _ = store.append_log(server, source, level, &text);
    let _ = events.send(CoreEvent::Log {
        server: server.to_owned(),
        source: source.to_owned(),
        level: level.to_owned(),
        text,
    });
}

impl AirlockClient {
    fn log(&self, source: &str, level: &str, text: &str) {
        log_line(
            &self.store,
            &self.events,
            &self.redactor,
            &self.server,
            source,
            level,
            text,
        );
    }
}

impl ClientHandler for AirlockClient {
    fn get_info(&self) -> ClientConfig {
        client_info()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match request {
            ElicitRequestParams::UrlElicitationParams {
                message,
                url,
                elicitation_id,
                ..
            } => {
                let legacy = context
                    .peer
                    .peer_info()
                    .is_some_and(|i| i.protocol_version < ProtocolVersion::V_2026_07_28);
                if url.trim().is_empty() {
                    self.log(
                        "airlock",
                        "warning",
                        "URL elicitation without `url` answered -32602",
                    );
                    return Err(ErrorData::invalid_params(
                        "URL elicitation needs `url`",
                        None,
                    ));
                }
                if legacy && elicitation_id.trim().is_empty() {
                    self.log(
                        "airlock",
                        "warning",
                        "URL elicitation without `elicitationId` answered -32602",
                    );
                    return Err(ErrorData::invalid_params(
                        "URL elicitation needs `elicitationId` (protocol 2025-11-25)",
                        None,
                    ));
                }
                let id = (!elicitation_id.is_empty()).then_some(elicitation_id.as_str());
                let outcome = until_cancelled(
                    &context.ct,
                    self.broker.handle_url(
                        &self.server,
                        self.connection,
                        &message,
                        &url,
                        id,
                        Origin::Request,
                    ),
                )
                .await?;
                Ok(ElicitResult::new(match outcome.decision {
                    ConsentDecision::Accept => ElicitationAction::Accept,
                    ConsentDecision::Decline => ElicitationAction::Decline,
                    ConsentDecision::Cancel => ElicitationAction::Cancel,
                }))
            }
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                let order = requested_schema.property_order.clone();
                let schema_json =
                    serde_json::to_value(&requested_schema).unwrap_or(serde_json::Value::Null);
                match until_cancelled(
                    &context.ct,
                    self.broker.handle_form(
                        &self.server,
                        self.connection,
                        &message,
                        &schema_json,
                        order.as_deref(),
                        Origin::Request,
                    ),
                )
                .await?
                {
                    Ok(outcome) => Ok(match outcome.answer {
                        FormAnswer::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
                            .with_content(serde_json::Value::Object(content)),
                        FormAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
                        FormAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
                    }),
                    Err(e) => {
                        self.log(
                            "airlock",
                            "warning",
                            &format!("form elicitation answered -32602: {e}"),
                        );
                        Err(ErrorData::invalid_params(
                            format!(
                                "requestedSchema is outside the form subset Airlock supports: {e}"
                            ),
                            None,
                        ))
                    }
                }
            }
            _ => {
                self.log(
                    "airlock",
                    "warning",
                    "elicitation in an unknown mode answered -32602",
                );
                Err(ErrorData::invalid_params(
                    "unknown elicitation mode; Airlock supports form and url",
                    None,
                ))
            }
        }
    }

    /// An `elicitation/create` the SDK could not type lands here (its schema
    /// types are narrower than the spec in places, and a schema outside the
    /// subset does not parse at all). Read the raw params so the server gets
    /// a form when Airlock can show one, and -32602 with the reason otherwise,
    /// never -32601 for a method we support.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "elicitation/create" {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ));
        }
        let params = request.params.unwrap_or(serde_json::Value::Null);
        let mode = params
            .get("mode")
            .and_then(|m| m.as_str())
            .unwrap_or("form");
        let invalid = |text: String| {
            self.log(
                "airlock",
                "warning",
                &format!("elicitation answered -32602: {text}"),
            );
            Err(ErrorData::invalid_params(text, None))
        };
        if mode != "form" {
            return invalid(format!(
                "malformed `{}` elicitation: Airlock supports form and url (url needs `url`, and `elicitationId` on 2025-11-25)",
                crate::url_safety::neutralize_for_display(mode, 40)
            ));
        }
        let Some(message) = params.get("message").and_then(|m| m.as_str()) else {
            return invalid("form elicitation needs a `message` string".into());
        };
        let schema = params
            .get("requestedSchema")
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        match until_cancelled(
            &context.ct,
            self.broker.handle_form(
                &self.server,
                self.connection,
                message,
                &schema,
                None,
                Origin::Request,
            ),
        )
        .await?
        {
            Ok(outcome) => Ok(CustomResult::new(outcome.result_json())),
            Err(e) => invalid(format!(
                "requestedSchema is outside the form subset Airlock supports: {e}"
            )),
        }
    }

    // Logging is deprecated in 2026-07-28 but 2025-11-25 servers still send it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".into());
        let text = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let text = match &params.logger {
            Some(logger) => format!("[{logger}] {text}"),
            None => text,
        };
        self.log("notification", &level, &text);
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == ELICITATION_COMPLETE {
            let id = notification
                .params
                .as_ref()
                .and_then(|p| p.get("elicitationId"))
                .and_then(|v| v.as_str());
            match id {
                Some(id) => {
                    self.broker.complete(&self.server, self.connection, id);
                }
                None => self.log(
                    "airlock",
                    "warning",
                    "elicitation completion without an elicitationId ignored",
                ),
            }
        }
    }
}

/// An open MCP session with one server.
pub struct Session {
    pub server: String,
    pub connection: u64,
    pub peer: Peer<RoleClient>,
    pub info: SessionInfo,
    /// Masks this server's secrets in anything stored from it.
    pub redactor: Arc<Redactor>,
    cancel: Mutex<Option<RunningServiceCancellationToken>>,
    closed: Arc<tokio::sync::Notify>,
    closed_flag: Arc<std::sync::atomic::AtomicBool>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl Session {
    pub fn is_closed(&self) -> bool {
        self.closed_flag.load(Ordering::SeqCst)
    }

    /// Wait until the transport closes (server exit, network loss, disconnect).
    pub async fn closed(&self) {
        let notified = self.closed.notified();
        if self.is_closed() {
            return;
        }
        notified.await;
    }

    pub fn close(&self) {
        if let Some(c) = self.cancel.lock().unwrap_or_else(|e| e.into_inner()).take() {
            c.cancel();
        }
    }

    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}

pub struct ConnectContext {
    pub store: Arc<Store>,
    pub broker: Arc<Broker>,
    pub events: broadcast::Sender<CoreEvent>,
    pub redactor: Arc<Redactor>,
    pub connect_timeout: Duration,
    /// OAuth for Streamable HTTP servers; `None` sends no tokens.
    pub oauth: Option<OAuthContext>,
}

/// What a connect needs for MCP authorization: where tokens live and,
/// when the shell can run a login, how to reach the browser.
#[derive(Clone)]
pub struct OAuthContext {
    pub keychain: crate::secrets::Keychain,
    pub instance: String,
    pub identity: crate::auth::ClientIdentity,
    /// Run the authorization on a 401 during connect; `None`: fail with a
    /// hint to log in (`airlock login <server>`).
    pub browser: Option<Arc<dyn crate::auth::Browser>>,
    /// Consent and cancellation of a sign-in started by this connect.
    pub gate: crate::auth::SignInGate,
}

/// The `WWW-Authenticate` challenge of a request refused with 403
/// `insufficient_scope` (step-up), anywhere in the error's chain.
pub fn insufficient_scope_challenge(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(StreamableHttpError::InsufficientScope(s)) =
            err.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            return Some(s.www_authenticate_header.clone());
        }
        if let Some(d) = err.downcast_ref::<rmcp::transport::DynamicTransportError>() {
            if let Some(StreamableHttpError::InsufficientScope(s)) = d
                .error
                .downcast_ref::<StreamableHttpError<reqwest::Error>>()
            {
                return Some(s.www_authenticate_header.clone());
            }
        }
        cur = err.source();
    }
    None
}

/// The `WWW-Authenticate` challenge of a handshake that failed with 401.
fn auth_challenge(e: &ClientInitializeError) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match e {
        ClientInitializeError::TransportError { error, .. } => match error
            .error
            .downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            Some(StreamableHttpError::AuthRequired(a)) => Some(a.www_authenticate_header.clone()),
            _ => None,
        },
        _ => None,
    }
}
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: crate::about::PROTOCOL_REVISIONS.to_vec(),
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
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

/// Open a session with a resolved server (secrets already fetched).
pub async fn connect(
    server: &str,
    transport: &Transport<String>,
    ctx: &ConnectContext,
) -> Result<Session, ConnectError> {
    let connection = NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed);
    let client = AirlockClient {
        server: server.to_owned(),
        connection,
        broker: ctx.broker.clone(),
        store: ctx.store.clone(),
        events: ctx.events.clone(),
        redactor: ctx.redactor.clone(),
    };
    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    let tail = || -> String {
        tail_suffix(
            &stderr_tail
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .cloned()
                .collect::<Vec<_>>(),
        )
    };
    let timeout = ctx.connect_timeout;
    let mut mode = lifecycle();
    // Stored tokens, when the keychain has some for this server.
    let mut auth_manager = match (transport, ctx.oauth.as_ref()) {
        (Transport::Http { url, .. }, Some(oauth)) => {
            let store = crate::auth::KeychainCredentialStore::new(
                oauth.keychain.clone(),
                &oauth.instance,
                server,
            );
            let probe = store.clone();
            let stored = tokio::task::spawn_blocking(move || probe.load_blocking()).await;
            // No keychain or nothing stored: connect without a token.
            if matches!(stored, Ok(Ok(Some(_)))) {
                crate::auth::manager_with_store(url, store)
                    .await
                    .ok()
                    .map(|(mut m, _)| {
                        // A confidential client needs its secret to refresh.
                        crate::auth::configure_registered_client(&mut m, &oauth.identity, url);
                        m
                    })
            } else {
                None
            }
        }
        _ => None,
    };
    let mut authorized = false;
    let handshake = loop {
        let attempt = match transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).envs(env.iter()).kill_on_drop(true);
                stop_with_parent(&mut cmd);
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                let (child, stderr_pipe) = TokioChildProcess::builder(cmd)
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::NotFound => ConnectError::CommandNotFound {
                            command: command.clone(),
                        },
                        _ => ConnectError::Spawn {
                            command: command.clone(),
                            detail: e.to_string(),
                        },
                    })?;
                if let Some(pipe) = stderr_pipe {
                    stderr::spawn_reader(
                        pipe,
                        server.to_owned(),
                        ctx.store.clone(),
                        ctx.events.clone(),
                        ctx.redactor.clone(),
                        stderr_tail.clone(),
                    );
                }
                tokio::time::timeout(
                    timeout,
                    client.clone().serve_with_lifecycle(child, mode.clone()),
                )
                .await
            }
            Transport::Http { url, headers } => {
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
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                config.custom_headers = custom;
                if let Some(manager) = auth_manager.take() {
                    let transport = StreamableHttpClientTransport::with_client(
                        rmcp::transport::auth::AuthClient::new(reqwest::Client::new(), manager),
                        config,
                    );
                    tokio::time::timeout(
                        timeout,
                        client.clone().serve_with_lifecycle(transport, mode.clone()),
                    )
                    .await
                } else {
                    let transport = StreamableHttpClientTransport::from_config(config);
                    tokio::time::timeout(
                        timeout,
                        client.clone().serve_with_lifecycle(transport, mode.clone()),
                    )
                    .await
                }
            }
        };
        // Some 2025-11-25 servers answer every unknown method, `server/discover`
        // included, with an empty success instead of an error: they are legacy
        // too. Ask once more with `initialize` alone.
        match &attempt {
            Ok(Err(e))
                if matches!(mode, ClientLifecycleMode::Auto { .. }) && discover_misanswered(e) =>
            {
                mode = ClientLifecycleMode::Initialize;
            }
            Ok(Err(e)) if !authorized => {
                let (Some(challenge), Transport::Http { url, .. }, Some(oauth)) =
                    (auth_challenge(e), transport, ctx.oauth.as_ref())
                else {
                    break attempt;
                };
                let Some(browser) = oauth.browser.as_ref() else {
                    return Err(ConnectError::AuthorizationRequired {
                        server: server.to_owned(),
                    });
                };
                authorized = true;
                let store = crate::auth::KeychainCredentialStore::new(
                    oauth.keychain.clone(),
                    &oauth.instance,
                    server,
                );
                let manager = crate::auth::authorize(
                    url,
                    Some(&challenge),
                    &oauth.identity,
                    browser.as_ref(),
                    &oauth.gate,
                    store,
                )
                .await
                .map_err(ConnectError::Authorization)?;
                auth_manager = Some(manager);
            }
            _ => break attempt,
        }
    };
    let running = match handshake {
        Err(_) => {
            return Err(ConnectError::Timeout {
                secs: timeout.as_secs(),
                tail: tail(),
            })
        }
        Ok(Err(e)) => {
            // Give the stderr reader a moment to catch the server's last words.
            tokio::time::sleep(Duration::from_millis(100)).await;
            let detail = match &e {
                // The transport's own error carries the reason (refused, DNS, TLS, content type).
                ClientInitializeError::TransportError { error, context } => {
                    use rmcp::transport::streamable_http_client::StreamableHttpError;
                    // The HTTP client's own error is not exposed as a `source`: unwrap it.
                    let inner: &(dyn std::error::Error + 'static) = match error
                        .error
                        .downcast_ref::<StreamableHttpError<
                        reqwest::Error,
                    >>() {
                        Some(StreamableHttpError::Client(client)) => client,
                        _ => error.error.as_ref(),
                    };
                    format!("{} ({context})", error_chain(inner))
                }
                other => error_chain(other),
            };
            return Err(ConnectError::Handshake {
                detail,
                tail: tail(),
            });
        }
        Ok(Ok(running)) => running,
    };
    let peer = running.peer().clone();
    let info = peer
        .peer_info()
        .map(|i| SessionInfo {
            protocol_version: i.protocol_version.to_string(),
            server_name: i.server_info.as_ref().map(|s| s.name.clone()),
            server_version: i.server_info.as_ref().map(|s| s.version.clone()),
            capabilities: serde_json::to_value(&i.capabilities).unwrap_or_default(),
            instructions: i.instructions.clone(),
        })
        .unwrap_or(SessionInfo {
            protocol_version: "unknown".into(),
            server_name: None,
            server_version: None,
            capabilities: serde_json::Value::Null,
            instructions: None,
        });
    let cancel = Mutex::new(Some(running.cancellation_token()));
    let closed = Arc::new(tokio::sync::Notify::new());
    let closed_flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let closed = closed.clone();
        let closed_flag = closed_flag.clone();
        tokio::spawn(async move {
            let _ = running.waiting().await;
            closed_flag.store(true, Ordering::SeqCst);
            closed.notify_waiters();
        });
    }
    Ok(Session {
        server: server.to_owned(),
        connection,
        peer,
        info,
        redactor: ctx.redactor.clone(),
        cancel,
        closed,
        closed_flag,
        stderr_tail,
    })
}

/// A stdio server must not outlive Airlock, even when Airlock is killed or
/// exits without running destructors (`kill_on_drop` only covers drops).
#[cfg(target_os = "linux")]
fn stop_with_parent(cmd: &mut tokio::process::Command) {
    // SAFETY: the closure runs in the forked child before exec and only calls
    // prctl, which is async-signal-safe; it touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn stop_with_parent(_cmd: &mut tokio::process::Command) {}

/// Headers that the transport owns; a user may not set them.
pub const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "content-type",
];

pub fn header_is_reserved(name: &str) -> bool {
    RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str())
}
