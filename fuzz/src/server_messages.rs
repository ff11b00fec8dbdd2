//! Server messages through a real rmcp session: the fuzzer plays a stdio
//! MCP server and writes JSON-RPC lines into Airlock's client side over an
//! in-memory pipe, as a server's stdout would.
//!
//! Input: lines. An optional first line starting with `#` sets the scene,
//! with words in any order (unknown words are ignored):
//!
//! - the handshake: `init` (a valid `initialize` result, 2025-11-25, the
//!   default), `init-old` (2025-06-18), `discover` (2026-07-28
//!   `server/discover`), `auto` (discovery refused with -32601, then
//!   `initialize`: the legacy fallback), `raw` (the first message line is
//!   the `initialize` result itself, as sent);
//! - what Airlock does meanwhile: `tool` (a tools/call, the default),
//!   `tools`, `prompts`, `resources` (the bounded list calls), `prompt`,
//!   `resource`, `idle`;
//! - the person: `accept` (default), `decline`, `cancel` for URLs;
//!   `form-decline` (forms are accepted with their defaults otherwise);
//!   `give-up` (Cancel when a page is late; Continue otherwise).
//!
//! Every other line is written to Airlock as is, after `$ID` is replaced by
//! the id of the newest request Airlock sent that has no answer yet (so a
//! line can answer Airlock's tools/call, list or retry). A line that is a
//! request waits for Airlock's answer; at the end a `ping` makes sure every
//! line was read, then the server hangs up.
//!
//! Properties: no panic anywhere (Airlock's tasks included); the person is
//! only asked about URLs that may be opened, with plain bounded text, and
//! re-inspecting what is shown gives the same domain; only URLs the person
//! accepted are opened, exactly as shown; forms shown are bounded and plain;
//! Airlock writes only JSON; every call and the handshake end within
//! [`HANG_LIMIT`] once the server has hung up.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_core::elicitation::{BrokerSettings, ConsentDecision, ContinueDecision};
use airlock_core::status::ConnStatus;
use airlock_core::test_support::open_core;
use airlock_core::Airlock;
use rmcp::model::{
    DiscoverResult, Implementation, InitializeResult, ProtocolVersion, ServerCapabilities,
};
use rmcp::service::ClientLifecycleMode;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::{timeout, Instant};

mod person;
use person::Person;

/// Message lines taken from one input, at most.
pub const MAX_LINES: usize = 64;
/// The longest Airlock may take to answer one request, or to send the
/// request a `$ID` line answers, before the harness goes on without it.
pub const WAIT: Duration = Duration::from_millis(500);
/// A wait also ends when Airlock has written nothing for this long: it is
/// then waiting itself (for the server, a timer or the person).
pub const IDLE: Duration = Duration::from_millis(10);
/// All such waits of one input together, at most.
pub const WAIT_BUDGET: Duration = Duration::from_secs(3);
/// Once the server has hung up, every Airlock task of the input must end
/// within this (the broker's own deadlines are set to 1 and 2 s below).
pub const HANG_LIMIT: Duration = Duration::from_secs(8);
/// The server's name in Airlock.
const SERVER: &str = "fuzz";

/// `AIRLOCK_FUZZ_TRACE=1`: print every line both ways on stderr (to see
/// what an input does; the fuzzer runs without it).
fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("AIRLOCK_FUZZ_TRACE").is_some_and(|v| v == "1"))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Handshake {
    Init,
    InitOld,
    Discover,
    Auto,
    Raw,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Call {
    Idle,
    Tool,
    Tools,
    Prompts,
    Resources,
    Prompt,
    Resource,
}

struct Script<'a> {
    handshake: Handshake,
    call: Call,
    url: ConsentDecision,
    late: ContinueDecision,
    accept_forms: bool,
    lines: Vec<&'a [u8]>,
}

fn script(data: &[u8]) -> Script<'_> {
    let mut s = Script {
        handshake: Handshake::Init,
        call: Call::Tool,
        url: ConsentDecision::Accept,
        late: ContinueDecision::Continue,
        accept_forms: true,
        lines: Vec::new(),
    };
    let mut lines = data.split(|b| *b == b'\n').peekable();
    if let Some(header) = lines.next_if(|l| l.first() == Some(&b'#')) {
        for word in String::from_utf8_lossy(header).split_whitespace() {
            match word {
                "init" => s.handshake = Handshake::Init,
                "init-old" => s.handshake = Handshake::InitOld,
                "discover" => s.handshake = Handshake::Discover,
                "auto" => s.handshake = Handshake::Auto,
                "raw" => s.handshake = Handshake::Raw,
                "idle" => s.call = Call::Idle,
                "tool" => s.call = Call::Tool,
                "tools" => s.call = Call::Tools,
                "prompts" => s.call = Call::Prompts,
                "resources" => s.call = Call::Resources,
                "prompt" => s.call = Call::Prompt,
                "resource" => s.call = Call::Resource,
                "accept" => s.url = ConsentDecision::Accept,
                "decline" => s.url = ConsentDecision::Decline,
                "cancel" => s.url = ConsentDecision::Cancel,
                "form-decline" => s.accept_forms = false,
                "give-up" => s.late = ContinueDecision::Cancel,
                _ => {}
            }
        }
    }
    s.lines = lines
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(MAX_LINES)
        .collect();
    s
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What Airlock wrote, as the server reads it.
#[derive(Default)]
struct Seen {
    /// Ids (as JSON text) of Airlock's requests with no answer yet, oldest first.
    pending: VecDeque<(String, String)>,
    /// Ids (as JSON text) of the answers Airlock gave to the server's requests.
    answered: Vec<String>,
    /// Lines that were not JSON.
    garbage: Vec<String>,
}

struct Wire {
    seen: Mutex<Seen>,
    changed: Notify,
}

impl Wire {
    /// Wait until `ready` holds (or the wait or the budget runs out).
    async fn wait_for<T>(
        &self,
        budget: &mut Duration,
        mut ready: impl FnMut(&mut Seen) -> Option<T>,
    ) -> Option<T> {
        let limit = WAIT.min(*budget);
        let start = Instant::now();
        let found = timeout(limit, async {
            loop {
                let changed = self.changed.notified();
                if let Some(t) = ready(&mut lock(&self.seen)) {
                    return Some(t);
                }
                if timeout(IDLE, changed).await.is_err() {
                    return None;
                }
            }
        })
        .await
        .ok()
        .flatten();
        *budget = budget.saturating_sub(start.elapsed());
        found
    }

    /// The newest pending request of Airlock whose method is `method` (any
    /// method but the handshake's for `None`), taken off the list.
    fn take(seen: &mut Seen, method: Option<&str>) -> Option<String> {
        let at = seen.pending.iter().rposition(|(_, m)| match method {
            Some(want) => m == want,
            None => m != "initialize" && m != "server/discover",
        })?;
        seen.pending.remove(at).map(|(id, _)| id)
    }
}

/// Read Airlock's lines until the pipe closes.
async fn read_airlock(rd: tokio::io::ReadHalf<tokio::io::DuplexStream>, wire: Arc<Wire>) {
    let mut lines = BufReader::new(rd).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if tracing() {
            eprintln!("airlock> {line}");
        }
        {
            let mut seen = lock(&wire.seen);
            match serde_json::from_str::<Value>(&line) {
                Ok(msg) => {
                    let id = msg.get("id").map(Value::to_string);
                    match (id, msg.get("method").and_then(Value::as_str)) {
                        (Some(id), Some(method)) => seen.pending.push_back((id, method.to_owned())),
                        (Some(id), None) => seen.answered.push(id),
                        _ => {}
                    }
                }
                Err(_) => seen.garbage.push(line),
            }
        }
        wire.changed.notify_waiters();
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder()
        .enable_tools()
        .enable_prompts()
        .enable_resources()
        .build()
}

fn init_result(version: ProtocolVersion) -> Value {
    let init = InitializeResult::new(capabilities())
        .with_protocol_version(version)
        .with_server_info(Implementation::new("fuzz-server", "1.0.0"));
    serde_json::to_value(init).unwrap_or_default()
}

fn discover_result() -> Value {
    let d = DiscoverResult::new(vec![ProtocolVersion::V_2026_07_28], capabilities())
        .with_server_info(Implementation::new("fuzz-server", "1.0.0"));
    serde_json::to_value(d).unwrap_or_default()
}

/// The server's end of the pipe.
struct Server {
    wr: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    wire: Arc<Wire>,
    budget: Duration,
}

impl Server {
    async fn write(&mut self, line: &[u8]) {
        if tracing() {
            eprintln!("server> {}", String::from_utf8_lossy(line));
        }
        // A write fails only once Airlock has closed its end; the rest of
        // the input then goes nowhere, as with a real pipe.
        let _ = self.wr.write_all(line).await;
        let _ = self.wr.write_all(b"\n").await;
        let _ = self.wr.flush().await;
    }

    /// Wait for Airlock's request `method` and answer it with `result`
    /// (a JSON value, or raw text for `raw`).
    async fn answer(&mut self, method: Option<&str>, result: &[u8]) -> bool {
        let Some(id) = self
            .wire
            .clone()
            .wait_for(&mut self.budget, |s| Wire::take(s, method))
            .await
        else {
            return false;
        };
        let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#).into_bytes();
        line.extend_from_slice(result);
        line.push(b'}');
        self.write(&line).await;
        true
    }

    async fn handshake(&mut self, h: Handshake, lines: &mut VecDeque<&[u8]>) {
        match h {
            Handshake::Init | Handshake::InitOld => {
                let version = if h == Handshake::Init {
                    ProtocolVersion::V_2025_11_25
                } else {
                    ProtocolVersion::V_2025_06_18
                };
                let result = init_result(version).to_string();
                self.answer(Some("initialize"), result.as_bytes()).await;
            }
            Handshake::Discover => {
                let result = discover_result().to_string();
                self.answer(Some("server/discover"), result.as_bytes())
                    .await;
            }
            Handshake::Auto => {
                let wire = self.wire.clone();
                if let Some(id) = wire
                    .wait_for(&mut self.budget, |s| Wire::take(s, Some("server/discover")))
                    .await
                {
                    let refusal = json!({"code": -32601, "message": "Method not found"});
                    let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{refusal}}}"#);
                    self.write(line.as_bytes()).await;
                }
                let result = init_result(ProtocolVersion::V_2025_11_25).to_string();
                self.answer(Some("initialize"), result.as_bytes()).await;
            }
            Handshake::Raw => {
                let result = lines.pop_front().unwrap_or(b"{}");
                self.answer(Some("initialize"), result).await;
            }
        }
    }

    /// Write one message line; a request waits for Airlock's answer.
    async fn message(&mut self, line: &[u8]) {
        let line = if contains(line, b"$ID") {
            let wire = self.wire.clone();
            let id = wire
                .wait_for(&mut self.budget, |s| Wire::take(s, None))
                .await
                .unwrap_or_else(|| "0".to_owned());
            replace(line, b"$ID", id.as_bytes())
        } else {
            line.to_vec()
        };
        self.write(&line).await;
        let request_id = serde_json::from_slice::<Value>(&line).ok().and_then(|m| {
            m.get("method")?;
            m.get("id").map(Value::to_string)
        });
        match request_id {
            Some(id) => {
                let wire = self.wire.clone();
                wire.wait_for(&mut self.budget, |s| s.answered.contains(&id).then_some(()))
                    .await;
            }
            None => {
                for _ in 0..8 {
                    tokio::task::yield_now().await;
                }
            }
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn replace(hay: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len() + with.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

fn lifecycle(h: Handshake) -> ClientLifecycleMode {
    match h {
        Handshake::Discover => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        Handshake::Auto => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
        _ => ClientLifecycleMode::Initialize,
    }
}

/// What Airlock does while the server talks.
fn start_call(core: &Arc<Airlock>, call: Call) -> JoinHandle<()> {
    let core = core.clone();
    tokio::spawn(async move {
        let args = json!({"q": "fuzz"}).as_object().cloned();
        let outcome = match call {
            Call::Idle => Ok(()),
            Call::Tool => core.call_tool(SERVER, "fuzz-tool", args).await.map(drop),
            Call::Tools => core.list_tools(SERVER).await.map(drop),
            Call::Prompts => core.list_prompts(SERVER).await.map(drop),
            Call::Resources => core.list_resources(SERVER).await.map(drop),
            Call::Prompt => core.get_prompt(SERVER, "fuzz-prompt", None).await.map(drop),
            Call::Resource => core.read_resource(SERVER, "file:///fuzz").await.map(drop),
        };
        if let Err(e) = outcome {
            // Error text is shown to the person: plain, whatever the server sent.
            let _ = e.to_string();
        }
    })
}

/// Wait for a task of Airlock's to end, within the hang limit.
async fn must_end(what: &str, task: JoinHandle<()>) {
    match timeout(HANG_LIMIT, task).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Ok(Err(_)) => {}
        Err(_) => panic!("hang: {what} still running {HANG_LIMIT:?} after the server hung up"),
    }
}

async fn session(script: Script<'_>) {
    let person = Arc::new(Person {
        url: script.url,
        late: script.late,
        accept_forms: script.accept_forms,
        accepted: Mutex::default(),
        violations: Mutex::default(),
    });
    let settings = BrokerSettings {
        late_after: Duration::from_secs(1),
        give_up_after: Duration::from_secs(2),
        ..BrokerSettings::default()
    };
    let (core, _dir) = open_core(person.clone(), person.clone(), settings);

    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (rd, wr) = tokio::io::split(server_io);
    let wire = Arc::new(Wire {
        seen: Mutex::default(),
        changed: Notify::new(),
    });
    let reader = tokio::spawn(read_airlock(rd, wire.clone()));
    let connecting = {
        let core = core.clone();
        let mode = lifecycle(script.handshake);
        tokio::spawn(async move {
            if let Err(e) = core.connect_in_process(SERVER, client_io, mode).await {
                let _ = e.to_string();
            }
        })
    };
    let mut server = Server {
        wr,
        wire: wire.clone(),
        budget: WAIT_BUDGET,
    };
    let mut lines: VecDeque<&[u8]> = script.lines.into_iter().collect();
    server.handshake(script.handshake, &mut lines).await;
    // A handshake that neither ends nor fails in time (a `raw` result it
    // waits past) is left to the hang check after the server hangs up.
    let connected = wait_task(&connecting, 4 * IDLE).await
        && matches!(core.status(SERVER), ConnStatus::Ready { .. });
    let call = connected.then(|| start_call(&core, script.call));
    for line in lines {
        server.message(line).await;
    }
    // Every line has been read once the ping is answered.
    server
        .message(br#"{"jsonrpc":"2.0","id":"airlock-fuzz-ping","method":"ping"}"#)
        .await;
    // Let Airlock finish what the lines started (an answer to its call may
    // start a consent, a retry...) while it keeps writing.
    if let Some(call) = &call {
        let start = Instant::now();
        while !call.is_finished() && start.elapsed() < WAIT.min(server.budget) {
            let changed = wire.changed.notified();
            if timeout(IDLE, changed).await.is_err() {
                break;
            }
        }
    }

    // The server hangs up.
    let Server { wr, .. } = server;
    drop(wr);
    reader.abort();
    let _ = reader.await;
    must_end("the handshake", connecting).await;
    if let Some(call) = call {
        must_end("Airlock's call", call).await;
    }
    core.close();

    let seen = lock(&wire.seen);
    assert!(
        seen.garbage.is_empty(),
        "Airlock wrote non-JSON: {:?}",
        seen.garbage
    );
    let violations = lock(&person.violations);
    assert!(violations.is_empty(), "broken promises: {violations:#?}");
}

/// Wait up to `limit` for a task to finish; true when it did.
async fn wait_task(task: &JoinHandle<()>, limit: Duration) -> bool {
    let start = Instant::now();
    while !task.is_finished() {
        if start.elapsed() >= limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    true
}

pub fn run(data: &[u8]) {
    let script = script(data);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime for the harness");
    runtime.block_on(session(script));
}
