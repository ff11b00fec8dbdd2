//! The gateway in a test's (or a bench's) process: an Airlock core (temporary data
//! dir, in-memory keychain named as a fake, a scripted consent), the host's
//! [`Gateway`] over it, servers written on the official Rust SDK's server
//! side ([`Server`], which a test makes hostile on cue) attached through
//! in-memory pipes, and apps on the SDK's client side ([`App`]) attached
//! the same way. No Node, no Python, no processes: the gateway's logic.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::routing::forms::HostConsent;
use crate::{Gateway, HostOptions};
use airlock_core::elicitation::{BrokerSettings, ConsentDecision, ContinueDecision};
use airlock_core::secrets::Keychain;
use airlock_core::test_support::{InMemoryKeychain, RecordingOpener, ScriptedConsent};
use airlock_core::{Airlock, AirlockOptions};
use rmcp::model::*;
use rmcp::service::{
    ClientLifecycleMode, NotificationContext, Peer, RequestContext, RoleClient, RoleServer,
    RunningService, SubscriptionContext, SubscriptionSink,
};
use rmcp::{ClientHandler, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// JSON into one of the SDK's types (test data).
pub fn from<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("test data fits the SDK's type")
}

/// A tool named `name` described as `description`, taking an object.
pub fn tool(name: &str, description: &str) -> Tool {
    from(json!({"name": name, "description": description, "inputSchema": {"type": "object"}}))
}

/// The first text of a tool result.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .unwrap_or_default()
}

/// A server's state, changed by the test while it runs.
#[derive(Default)]
pub struct PeerState {
    pub tools: Vec<Tool>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub instructions: Option<String>,
    /// How long each `tools/list` takes.
    pub list_delay: Duration,
    /// `resources/subscribe` never answers.
    pub subscribe_hangs: bool,
    /// Declares these experimental capabilities (`{"claude/channel": {}}`:
    /// Claude Code's channels, a server pushing text into the session).
    pub experimental: Option<ExperimentalCapabilities>,
    /// Its sessions (2025-11-25) and listen streams (2026-07-28), to tell
    /// of list changes.
    peers: Vec<Peer<RoleServer>>,
    sinks: Vec<SubscriptionSink>,
}

/// A server on the official SDK's server side whose lists and behaviour
/// the test changes while it runs (a hostile one, when the test wants).
#[derive(Clone, Default)]
pub struct Server {
    pub state: Arc<Mutex<PeerState>>,
    pub lists: Arc<AtomicUsize>,
}

impl Server {
    pub fn with_tools(tools: Vec<Tool>) -> Self {
        let p = Self::default();
        p.state.lock().unwrap().tools = tools;
        p
    }

    pub fn set(&self, change: impl FnOnce(&mut PeerState)) {
        change(&mut self.state.lock().unwrap());
    }

    /// Tell Airlock the tools changed (each session or stream it has).
    pub async fn tools_changed(&self) {
        let (peers, sinks) = {
            let s = self.state.lock().unwrap();
            (s.peers.clone(), s.sinks.clone())
        };
        for p in peers {
            let _ = p.notify_tool_list_changed().await;
        }
        for s in sinks {
            let _ = s.notify_tool_list_changed().await;
        }
    }

    /// Tell Airlock a resource was updated.
    pub async fn updated(&self, uri: &str) {
        let peers = self.state.lock().unwrap().peers.clone();
        for p in peers {
            let _ = p
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.to_owned()))
                .await;
        }
    }

    /// Send a log line on each session.
    #[allow(deprecated)]
    pub async fn log(&self, text: &str) {
        let peers = self.state.lock().unwrap().peers.clone();
        for p in peers {
            let _ = p
                .notify_logging_message(LoggingMessageNotificationParam::new(
                    LoggingLevel::Info,
                    Value::String(text.to_owned()),
                ))
                .await;
        }
    }

    fn remember(&self, peer: &Peer<RoleServer>) {
        let mut s = self.state.lock().unwrap();
        if !s.peers.iter().any(|p| p.is_transport_closed()) || s.peers.is_empty() {
            s.peers.push(peer.clone());
        }
    }
}

#[allow(deprecated)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_logging()
            .build();
        let mut caps = caps;
        caps.experimental = self.state.lock().unwrap().experimental.clone();
        let mut config = ServerConfig::new(caps);
        if let Some(i) = &self.state.lock().unwrap().instructions {
            config = config.with_instructions(i.clone());
        }
        config
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.remember(&context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.remember(&context.peer);
        self.lists.fetch_add(1, Ordering::SeqCst);
        let (delay, tools) = {
            let s = self.state.lock().unwrap();
            (s.list_delay, s.tools.clone())
        };
        tokio::time::sleep(delay).await;
        Ok(ListToolsResult::with_all_items(tools))
    }

    /// What a tool does is in its name (the test's server lists the names):
    /// `talk` logs `lines` lines, `ask` asks a form and says the answer,
    /// `sample` sends `times` sampling requests at once and counts the
    /// answers, `slow` takes `ms`, `link` links the resource `uri`, `push`
    /// sends the notification `method` with `{"content": message}` then
    /// logs "pushed" and waits 500 ms; any other echoes `message`.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.remember(&context.peer);
        let args = request.arguments.clone().unwrap_or_default();
        let number = |k: &str| args.get(k).and_then(Value::as_u64).unwrap_or(1);
        let word = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let text = match request.name.as_ref() {
            "talk" => {
                for i in 0..number("lines") {
                    let _ = context
                        .peer
                        .notify_logging_message(LoggingMessageNotificationParam::new(
                            LoggingLevel::Info,
                            Value::String(format!("{} line {i}", word("message"))),
                        ))
                        .await;
                }
                "talked".to_owned()
            }
            "ask" => {
                let form: ElicitRequestParams = from(json!({
                    "mode": "form",
                    "message": "Your name?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
                }));
                match context.peer.create_elicitation(form).await {
                    Ok(r) => format!(
                        "{:?} {}",
                        r.action,
                        r.content.map(|c| c.to_string()).unwrap_or_default()
                    ),
                    Err(e) => format!("no form: {e}"),
                }
            }
            "sample" => {
                let asks = (0..number("times")).map(|_| {
                    let peer = context.peer.clone();
                    async move {
                        let params: CreateMessageRequestParams = from(json!({
                            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                            "maxTokens": 5,
                        }));
                        peer.create_message(params).await.is_ok()
                    }
                });
                let answers = futures::future::join_all(asks).await;
                let ok = answers.iter().filter(|a| **a).count();
                format!("{ok} answered, {} refused", answers.len() - ok)
            }
            "push" => {
                let pushed = CustomNotification::new(
                    word("method"),
                    Some(json!({"content": word("message"), "meta": {"chat_id": "1"}})),
                );
                let _ = context
                    .peer
                    .send_notification(ServerNotification::CustomNotification(pushed))
                    .await;
                let _ = context
                    .peer
                    .notify_logging_message(LoggingMessageNotificationParam::new(
                        LoggingLevel::Info,
                        Value::String("pushed".into()),
                    ))
                    .await;
                // A log line goes to the app whose call is in flight: the
                // call stays open until the gateway has routed it.
                tokio::time::sleep(Duration::from_millis(500)).await;
                "pushed".to_owned()
            }
            "big" => "x".repeat(usize::try_from(number("bytes")).unwrap_or(0)),
            "slow" => {
                tokio::time::sleep(Duration::from_millis(number("ms"))).await;
                "slept".to_owned()
            }
            "hidden" => {
                // Hidden characters in every text a result carries.
                let hidden = format!("{}\u{200B}\u{E0041}\u{202E}\u{1b}[31m!", word("message"));
                let result: CallToolResult = from(json!({
                    "content": [
                        {"type": "text", "text": hidden},
                        {"type": "resource", "resource": {"uri": "demo://hidden", "text": hidden}},
                    ],
                    "structuredContent": {"note": hidden},
                }));
                return Ok(CallToolResponse::Complete(result));
            }
            "link" => {
                let link: ContentBlock = from(json!({
                    "type": "resource_link", "uri": word("uri"), "name": "linked",
                }));
                return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                    link,
                ])));
            }
            other => format!("{other}: {}", word("message")),
        };
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(text),
        ])))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(
            self.state.lock().unwrap().resources.clone(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            self.state.lock().unwrap().templates.clone(),
        ))
    }

    /// A URI starting `slow://` sends three progress reports first.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if let (true, Some(token)) = (
            request.uri.starts_with("slow://"),
            context.meta.get_progress_token(),
        ) {
            for step in 1..=3 {
                let mut p = ProgressNotificationParam::new(token.clone(), f64::from(step));
                p.total = Some(3.0);
                let _ = context.peer.notify_progress(p).await;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        // A URI starting `hidden://` is read with hidden characters.
        let extra = if request.uri.starts_with("hidden://") {
            "\u{200B}\u{E0041}\u{202E}"
        } else {
            ""
        };
        let contents: ResourceContents = from(json!({
            "uri": request.uri,
            "text": format!("read from {}{extra}", self.name()),
        }));
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
            vec![contents],
        )))
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.remember(&context.peer);
        if self.state.lock().unwrap().subscribe_hangs {
            std::future::pending::<()>().await;
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.state
            .lock()
            .unwrap()
            .sinks
            .push(context.sink().clone());
        context.cancelled().await;
        Ok(())
    }
}

impl Server {
    /// What this server calls itself in read results (its first tool's
    /// name stands in: tests give each server distinct tools).
    fn name(&self) -> String {
        self.state
            .lock()
            .unwrap()
            .tools
            .first()
            .map(|t| t.name.to_string())
            .unwrap_or_else(|| "a server".into())
    }
}

/// Log lines an app got: `(logger, text)`.
pub type Logs = Arc<Mutex<Vec<(Option<String>, String)>>>;

/// An app on the SDK's client side that records what the gateway sends it.
#[derive(Clone, Default)]
pub struct App {
    pub list_changes: Arc<AtomicUsize>,
    /// Progress reports received: `(token, progress)`.
    pub progress: Arc<Mutex<Vec<(ProgressToken, f64)>>>,
    /// Sampling requests being answered now, and the most at once.
    pub sampling_now: Arc<AtomicUsize>,
    pub sampling_most: Arc<AtomicUsize>,
    /// Declares sampling and answers each after this long.
    pub sampling: Option<Duration>,
    pub logs: Logs,
    pub forms: Arc<Mutex<Vec<String>>>,
    /// Declares form elicitation and answers each with this.
    pub form_answer: Option<Value>,
    /// Notifications outside the protocol's own (vendor ones): `method params`.
    pub custom: Arc<Mutex<Vec<String>>>,
    /// Declares these experimental capabilities (Claude Code declares
    /// `claude/channel` when it listens to channels).
    pub experimental: Option<ExperimentalCapabilities>,
}

#[allow(deprecated)]
impl ClientHandler for App {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        if self.form_answer.is_some() {
            caps.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        if self.sampling.is_some() {
            caps.sampling = Some(Default::default());
        }
        caps.experimental = self.experimental.clone();
        ClientConfig::new(caps, Implementation::new("test-app", "1.0"))
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let now = self.sampling_now.fetch_add(1, Ordering::SeqCst) + 1;
        self.sampling_most.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(self.sampling.unwrap_or_default()).await;
        self.sampling_now.fetch_sub(1, Ordering::SeqCst);
        Ok(from(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "hello"},
            "model": "test-model",
        })))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push((params.progress_token, params.progress));
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        let params = notification.params.unwrap_or_default();
        self.custom
            .lock()
            .unwrap()
            .push(format!("{} {params}", notification.method));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changes.fetch_add(1, Ordering::SeqCst);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let text = match params.data {
            Value::String(s) => s,
            other => other.to_string(),
        };
        self.logs.lock().unwrap().push((params.logger, text));
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.forms.lock().unwrap().push(message.clone());
        }
        match &self.form_answer {
            Some(content) => {
                Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content.clone()))
            }
            None => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }
}

/// The gateway and its core, in this process.
pub struct Harness {
    pub core: Arc<Airlock>,
    pub gateway: Arc<Gateway>,
    pub consent: Arc<ScriptedConsent>,
    pub opener: Arc<RecordingOpener>,
    stop: CancellationToken,
    dir: Option<tempfile::TempDir>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Harness {
    /// Stop this host and keep its data dir, to open another on it.
    pub fn keep_dir(mut self) -> tempfile::TempDir {
        self.core.close();
        self.dir.take().expect("the data dir")
    }
}

impl Harness {
    /// A fresh core (accepting URL consent; forms declined unless a test
    /// scripts them) and a gateway over it.
    pub async fn new() -> Self {
        Self::with_consent(ScriptedConsent::new(
            ConsentDecision::Accept,
            ContinueDecision::Continue,
        ))
        .await
    }

    pub async fn with_consent(consent: Arc<ScriptedConsent>) -> Self {
        Self::in_dir(tempfile::tempdir().expect("a temporary data dir"), consent).await
    }

    /// A core on `dir` (an earlier harness's, to see what it kept).
    pub async fn in_dir(dir: tempfile::TempDir, consent: Arc<ScriptedConsent>) -> Self {
        let opener = RecordingOpener::new();
        let (host_consent, router) = HostConsent::wrap(consent.clone());
        let mut opts = AirlockOptions::new(dir.path().to_owned(), host_consent, opener.clone());
        opts.keychain = Keychain::with_store(InMemoryKeychain::default());
        opts.broker = BrokerSettings::default();
        opts.app_requests = Some(router.clone());
        let core = Airlock::open(opts).expect("open the core");
        let options = HostOptions {
            router: Some(router),
            ..HostOptions::default()
        };
        let gateway = Gateway::start(core.clone(), &options);
        Self {
            core,
            gateway,
            consent,
            opener,
            stop: CancellationToken::new(),
            dir: Some(dir),
        }
    }

    /// Attach `peer` as the server `name` (2025-11-25, or 2026-07-28 with
    /// `discover`), and wait until the catalog serves it (or 10 s).
    pub async fn server(&self, name: &str, peer: Server, discover: bool) {
        let limit = airlock_core::servers::ServerOptions::default().message_limit();
        self.server_limited(name, peer, discover, limit).await;
    }

    /// [`Harness::server`] reading messages of at most `limit` bytes from it.
    pub async fn server_limited(&self, name: &str, peer: Server, discover: bool, limit: usize) {
        let (app_name, server) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = peer.serve(server).await {
                let _ = running.waiting().await;
            }
        });
        let mode = if discover {
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            }
        } else {
            ClientLifecycleMode::Initialize
        };
        self.core
            .connect_in_process_with(name, app_name, mode, limit)
            .await
            .expect("the server connects");
        self.until(Duration::from_secs(10), || {
            self.gateway
                .catalog
                .view()
                .servers
                .iter()
                .any(|s| s == name)
        })
        .await;
    }

    /// Attach an app named `app_name` (2025-11-25).
    pub async fn app(&self, app_name: &str, app: App) -> RunningService<RoleClient, App> {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(theirs);
        let gateway = self.gateway.clone();
        let (app_name, stop) = (app_name.to_owned(), self.stop.clone());
        tokio::spawn(async move {
            crate::host::serve_app(gateway, read, write, Some(app_name), stop).await;
        });
        app.serve(ours).await.expect("the app attaches")
    }

    /// Wait until `ok` (checked every 20 ms), at most `within`.
    pub async fn until(&self, within: Duration, ok: impl Fn() -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        while tokio::time::Instant::now() < deadline {
            if ok() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        ok()
    }
}

/// The names an app sees in `tools/list` now.
pub async fn tool_names(app: &RunningService<RoleClient, App>) -> Vec<String> {
    app.peer()
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// Call `name` with `args` through the gateway.
pub async fn call_with(
    app: &RunningService<RoleClient, App>,
    name: &str,
    args: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = Some(from(args));
    app.peer().call_tool(params).await
}

/// Call `name` with `{"message": message}` through the gateway.
pub async fn call(
    app: &RunningService<RoleClient, App>,
    name: &str,
    message: &str,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = Some(from(json!({"message": message})));
    app.peer().call_tool(params).await
}
