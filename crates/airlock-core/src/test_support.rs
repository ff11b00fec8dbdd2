//! Test doubles shared by the core's and the CLI's tests (feature
//! `test-support`), each named for what it is: a scripted consent port, a
//! recording opener, an in-memory keychain, and an in-process rmcp server.
//! Tests that need the real parts (the OS keychain, real MCP servers, the
//! system browser) keep using those.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ServerHandler;
use tokio::sync::Notify;

use crate::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, FormAnswer, FormConsentRequest, Opener,
    UrlConsentRequest,
};
use crate::secrets::{SecretError, SecretStore, SecretValue};

/// A consent port that answers from a script and remembers what it was
/// asked. Each answer list is used in order; when it runs out, the default
/// answer is given. With [`ScriptedConsent::hold`], URL questions and forms
/// wait until [`ScriptedConsent::release`] (a person who has not answered yet).
pub struct ScriptedConsent {
    urls: Mutex<VecDeque<ConsentDecision>>,
    default_url: ConsentDecision,
    continues: Mutex<VecDeque<ContinueDecision>>,
    default_continue: ContinueDecision,
    forms: Mutex<VecDeque<FormAnswer>>,
    held: std::sync::atomic::AtomicBool,
    release: Notify,
    /// Every URL question, in order.
    pub asked: Mutex<Vec<UrlConsentRequest>>,
    /// Every "still waiting" question, in order (record ids).
    pub asked_continue: Mutex<Vec<i64>>,
    /// Every form, in order.
    pub asked_forms: Mutex<Vec<FormConsentRequest>>,
}

impl ScriptedConsent {
    /// Always `url` for URLs, `cont` when late, decline for forms.
    pub fn new(url: ConsentDecision, cont: ContinueDecision) -> Arc<Self> {
        Arc::new(Self {
            urls: Mutex::default(),
            default_url: url,
            continues: Mutex::default(),
            default_continue: cont,
            forms: Mutex::default(),
            held: false.into(),
            release: Notify::new(),
            asked: Mutex::default(),
            asked_continue: Mutex::default(),
            asked_forms: Mutex::default(),
        })
    }

    /// Accept every URL and continue when late.
    pub fn accepting() -> Arc<Self> {
        Self::new(ConsentDecision::Accept, ContinueDecision::Continue)
    }

    /// Answer the next URL questions with these, in order.
    pub fn then_urls(self: &Arc<Self>, answers: &[ConsentDecision]) -> Arc<Self> {
        lock(&self.urls).extend(answers.iter().copied());
        self.clone()
    }

    /// Answer the next "still waiting" questions with these, in order.
    pub fn then_continues(self: &Arc<Self>, answers: &[ContinueDecision]) -> Arc<Self> {
        lock(&self.continues).extend(answers.iter().copied());
        self.clone()
    }

    /// Answer the next forms with these, in order (then decline).
    pub fn then_forms(self: &Arc<Self>, answers: Vec<FormAnswer>) -> Arc<Self> {
        lock(&self.forms).extend(answers);
        self.clone()
    }

    /// URL questions and forms wait until [`ScriptedConsent::release`].
    pub fn hold(self: &Arc<Self>) -> Arc<Self> {
        self.held.store(true, std::sync::atomic::Ordering::SeqCst);
        self.clone()
    }

    /// Let every waiting URL question and form be answered.
    pub fn release(&self) {
        self.held.store(false, std::sync::atomic::Ordering::SeqCst);
        self.release.notify_waiters();
    }

    pub fn url_questions(&self) -> usize {
        lock(&self.asked).len()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Consent for ScriptedConsent {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        lock(&self.asked).push(request.clone());
        Box::pin(async move {
            let released = self.release.notified();
            if self.held.load(std::sync::atomic::Ordering::SeqCst) {
                released.await;
            }
            lock(&self.urls).pop_front().unwrap_or(self.default_url)
        })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        lock(&self.asked_continue).push(request.record_id);
        let answer = lock(&self.continues)
            .pop_front()
            .unwrap_or(self.default_continue);
        Box::pin(async move { answer })
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        lock(&self.asked_forms).push(request.clone());
        Box::pin(async move {
            let released = self.release.notified();
            if self.held.load(std::sync::atomic::Ordering::SeqCst) {
                released.await;
            }
            lock(&self.forms).pop_front().unwrap_or(FormAnswer::Decline)
        })
    }
}

/// An opener that records the URLs it was given and opens nothing; with
/// `failing`, it reports that no browser could take them.
#[derive(Default)]
pub struct RecordingOpener {
    pub opened: Mutex<Vec<String>>,
    pub failing: bool,
}

impl RecordingOpener {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn urls(&self) -> Vec<String> {
        lock(&self.opened).clone()
    }
}

impl Opener for RecordingOpener {
    fn open(&self, url: &str) -> Result<(), String> {
        lock(&self.opened).push(url.to_owned());
        if self.failing {
            Err("the recording opener was told to fail".into())
        } else {
            Ok(())
        }
    }
}

/// A keychain in memory, for tests that do not exercise the OS keychain.
#[derive(Debug, Default)]
pub struct InMemoryKeychain {
    values: Mutex<HashMap<String, String>>,
}

impl InMemoryKeychain {
    /// The references stored now.
    pub fn references(&self) -> Vec<String> {
        lock(&self.values).keys().cloned().collect()
    }
}

impl SecretStore for InMemoryKeychain {
    fn set(&self, reference: &str, value: &SecretValue) -> Result<(), SecretError> {
        lock(&self.values).insert(reference.to_owned(), value.expose().to_owned());
        Ok(())
    }

    fn get(&self, reference: &str) -> Result<SecretValue, SecretError> {
        lock(&self.values)
            .get(reference)
            .map(SecretValue::new)
            .ok_or_else(|| SecretError::Missing {
                reference: reference.to_owned(),
            })
    }

    fn delete(&self, reference: &str) -> Result<(), SecretError> {
        lock(&self.values).remove(reference);
        Ok(())
    }
}

/// An Airlock in a fresh temporary data dir with these ports, an in-memory
/// keychain and these broker settings. Keep the directory while it runs.
pub fn open_core(
    consent: Arc<dyn Consent>,
    opener: Arc<dyn Opener>,
    broker: crate::elicitation::BrokerSettings,
) -> (Arc<crate::Airlock>, tempfile::TempDir) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("a temporary data dir for the test: {e}"),
    };
    let mut opts = crate::AirlockOptions::new(dir.path().to_owned(), consent, opener);
    opts.keychain = crate::secrets::Keychain::with_store(InMemoryKeychain::default());
    opts.broker = broker;
    match crate::Airlock::open(opts) {
        Ok(core) => (core, dir),
        Err(e) => panic!("open Airlock in {}: {e}", dir.path().display()),
    }
}

/// A store and a broker on it, in a fresh temporary dir, with the events
/// channel's receiver.
pub fn open_broker(
    consent: Arc<dyn Consent>,
    opener: Arc<dyn Opener>,
    settings: crate::elicitation::BrokerSettings,
) -> (
    Arc<crate::elicitation::Broker>,
    Arc<crate::store::Store>,
    tempfile::TempDir,
) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("a temporary data dir for the test: {e}"),
    };
    let store = match crate::store::Store::open_in(dir.path()) {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("open the store: {e}"),
    };
    let (tx, _) = tokio::sync::broadcast::channel(crate::events::EVENT_CHANNEL_CAPACITY);
    let broker = Arc::new(crate::elicitation::Broker::new(
        store.clone(),
        consent,
        opener,
        tx,
        settings,
    ));
    (broker, store, dir)
}

/// What a scripted tool does when called.
pub type ToolFn = Arc<
    dyn Fn(
            CallToolRequestParams,
            RequestContext<RoleServer>,
        ) -> BoxFuture<'static, Result<CallToolResponse, ErrorData>>
        + Send
        + Sync,
>;

/// An rmcp server in this process whose tools are closures: the real SDK's
/// server side, for tests that need a peer to send elicitations, errors or
/// slow answers on cue. Serve it with [`InProcessServer::serve`].
#[derive(Clone, Default)]
pub struct InProcessServer {
    tools: Vec<(Tool, ToolFn)>,
}

impl InProcessServer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a tool named `name` taking any object.
    pub fn tool<F, Fut>(mut self, name: &str, run: F) -> Self
    where
        F: Fn(CallToolRequestParams, RequestContext<RoleServer>) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'static,
    {
        let schema = serde_json::json!({"type": "object"});
        let schema = match schema {
            serde_json::Value::Object(m) => Arc::new(m),
            _ => Arc::default(),
        };
        let tool = Tool::new(name.to_owned(), format!("test tool {name}"), schema);
        let run: ToolFn = Arc::new(move |p, c| Box::pin(run(p, c)));
        self.tools.push((tool, run));
        self
    }

    /// Serve on one end of an in-memory pipe; returns the other end for
    /// [`crate::Airlock::connect_in_process`].
    pub fn serve(self) -> tokio::io::DuplexStream {
        let (client, server) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = rmcp::ServiceExt::serve(self, server).await {
                let _ = running.waiting().await;
            }
        });
        client
    }
}

/// A tool result with one text block.
pub fn text_result(text: &str) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![
        rmcp::model::ContentBlock::text(text),
    ]))
}

impl ServerHandler for InProcessServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::default();
        config.capabilities = ServerCapabilities::builder().enable_tools().build();
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(|(t, _)| t.clone()).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let run = self
            .tools
            .iter()
            .find(|(t, _)| t.name == request.name)
            .map(|(_, run)| run.clone());
        match run {
            Some(run) => run(request, context).await,
            None => Err(ErrorData::invalid_params("no such tool", None)),
        }
    }
}
