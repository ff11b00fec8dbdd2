//! End-to-end tests: spawn the built `airlock-demo-server`, talk to it with
//! the rmcp client over stdio, and press the page's button with a plain HTTP
//! request, the way a browser would.

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    CustomNotification, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, InputRequest,
    InputRequiredResult, InputResponses, ProtocolVersion, UrlElicitationCapability,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RequestContext, RoleClient,
    RunningService, ServiceError,
};
use rmcp::transport::TokioChildProcess;
use rmcp::ClientHandler;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Command;
use tokio::sync::mpsc;

const BIN: &str = env!("CARGO_BIN_EXE_airlock-demo-server");
const WAIT: Duration = Duration::from_secs(20);
const CONNECTED: &str = "Demo account connected";
const DATA: &str = "Your private demo data: 42 records";

/// A URL elicitation as the client received it.
#[derive(Debug, Clone)]
struct Asked {
    message: String,
    url: String,
    elicitation_id: String,
}

/// The test's MCP client: answers every URL elicitation with `answer` and
/// reports what it saw on channels.
#[derive(Clone)]
struct TestClient {
    version: ProtocolVersion,
    answer: Arc<Mutex<ElicitationAction>>,
    /// Press the page's button before answering (2026-07-28 auto rounds).
    press: Arc<AtomicBool>,
    asked: mpsc::UnboundedSender<Asked>,
    completed: mpsc::UnboundedSender<String>,
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::default())
                .with_url(UrlElicitationCapability::default()),
        );
        ClientConfig::new(capabilities, Implementation::new("demo-test", "0"))
            .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } = request
        else {
            return Err(ErrorData::invalid_params("only URL mode expected", None));
        };
        if self.press.load(Ordering::SeqCst) {
            assert_eq!(press(&url).await.status, 200);
        }
        let _ = self.asked.send(Asked {
            message,
            url,
            elicitation_id,
        });
        let action = self
            .answer
            .lock()
            .map(|a| a.clone())
            .unwrap_or(ElicitationAction::Decline);
        Ok(ElicitResult::new(action))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == "notifications/elicitation/complete" {
            let id = notification
                .params
                .as_ref()
                .and_then(|p| p.get("elicitationId"))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned();
            let _ = self.completed.send(id);
        }
    }
}

struct Demo {
    client: RunningService<RoleClient, TestClient>,
    base: String,
    answer: Arc<Mutex<ElicitationAction>>,
    press: Arc<AtomicBool>,
    asked: mpsc::UnboundedReceiver<Asked>,
    completed: mpsc::UnboundedReceiver<String>,
}

impl Demo {
    async fn start(lifecycle: ClientLifecycleMode, env: &[(&str, &str)]) -> Demo {
        let mut cmd = Command::new(BIN);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn airlock-demo-server");
        let mut stderr = BufReader::new(stderr.expect("stderr is piped"));
        let mut first = String::new();
        tokio::time::timeout(WAIT, stderr.read_line(&mut first))
            .await
            .expect("ready line in time")
            .expect("read stderr");
        let base = first
            .trim()
            .strip_prefix("airlock-demo ready ")
            .unwrap_or_else(|| panic!("unexpected first stderr line {first:?}"))
            .to_owned();
        assert!(base.starts_with("http://127.0.0.1:"), "{base}");
        // Keep draining stderr so the child never blocks on it.
        tokio::spawn(async move {
            let mut sink = Vec::new();
            let _ = stderr.read_to_end(&mut sink).await;
        });

        let version = match &lifecycle {
            ClientLifecycleMode::Initialize => ProtocolVersion::V_2025_11_25,
            _ => ProtocolVersion::V_2026_07_28,
        };
        let answer = Arc::new(Mutex::new(ElicitationAction::Accept));
        let (asked_tx, asked) = mpsc::unbounded_channel();
        let (completed_tx, completed) = mpsc::unbounded_channel();
        let press = Arc::new(AtomicBool::new(false));
        let handler = TestClient {
            version,
            answer: answer.clone(),
            press: press.clone(),
            asked: asked_tx,
            completed: completed_tx,
        };
        let client = tokio::time::timeout(WAIT, handler.serve_with_lifecycle(transport, lifecycle))
            .await
            .expect("handshake in time")
            .expect("handshake");
        Demo {
            client,
            base,
            answer,
            press,
            asked,
            completed,
        }
    }

    async fn legacy() -> Demo {
        Self::start(ClientLifecycleMode::Initialize, &[]).await
    }

    async fn modern() -> Demo {
        Self::start(
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            &[],
        )
        .await
    }

    fn answer(&self, action: ElicitationAction) {
        if let Ok(mut a) = self.answer.lock() {
            *a = action;
        }
    }

    fn press_in_handler(&self, on: bool) {
        self.press.store(on, Ordering::SeqCst);
    }

    fn protocol(&self) -> String {
        self.client
            .peer_info()
            .map(|i| i.protocol_version.to_string())
            .unwrap_or_default()
    }

    async fn call_once(
        &self,
        tool: &str,
        state: Option<String>,
        responses: Option<InputResponses>,
    ) -> Result<CallToolResponse, ServiceError> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.request_state = state;
        params.input_responses = responses;
        tokio::time::timeout(WAIT, self.client.peer().call_tool_once(params))
            .await
            .expect("tool call in time")
    }

    async fn next_asked(&mut self) -> Asked {
        tokio::time::timeout(WAIT, self.asked.recv())
            .await
            .expect("elicitation in time")
            .expect("client alive")
    }

    async fn next_completed(&mut self) -> String {
        tokio::time::timeout(WAIT, self.completed.recv())
            .await
            .expect("completion notification in time")
            .expect("client alive")
    }
}

fn complete(response: CallToolResponse) -> CallToolResult {
    match response {
        CallToolResponse::Complete(r) => r,
        other => panic!("expected a final result, got {other:?}"),
    }
}

fn input_required(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(r) => r,
        other => panic!("expected an InputRequiredResult, got {other:?}"),
    }
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The one URL input request of an `InputRequiredResult`: (message, url).
fn url_request(ir: &InputRequiredResult) -> (String, String) {
    let requests = ir.input_requests.as_ref().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{requests:?}");
    match requests.get("url") {
        Some(InputRequest::Elicitation(e)) => match &e.params {
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                (message.clone(), url.clone())
            }
            other => panic!("expected URL mode, got {other:?}"),
        },
        other => panic!("expected an elicitation under \"url\", got {other:?}"),
    }
}

fn responses(action: &str) -> Option<InputResponses> {
    let mut r = InputResponses::new();
    r.insert("url".into(), serde_json::json!({ "action": action }));
    Some(r)
}

struct HttpReply {
    status: u16,
    body: String,
}

/// One HTTP/1.1 request over a plain TCP stream. `url` is absolute
/// (`http://127.0.0.1:PORT/path?query`).
async fn http(method: &str, url: &str, extra_headers: &str) -> HttpReply {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(authority)
        .await
        .expect("connect to page");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\n{extra_headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut raw))
        .await
        .expect("reply in time")
        .expect("read reply");
    let raw = String::from_utf8(raw).expect("utf-8 reply");
    let (head, body) = raw.split_once("\r\n\r\n").expect("head and body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    HttpReply {
        status,
        body: body.to_owned(),
    }
}

/// Press the page's button: the form POSTs to `/complete` with the same query.
async fn press(page_url: &str) -> HttpReply {
    http("POST", &page_url.replacen("/connect?", "/complete?", 1), "").await
}

fn id_of(url: &str) -> String {
    url.split_once("id=")
        .map(|(_, rest)| rest.split('&').next().unwrap_or_default().to_owned())
        .expect("id in URL")
}

#[tokio::test]
async fn request_path_completes_when_the_page_button_is_pressed() {
    let mut demo = Demo::legacy().await;
    assert_eq!(demo.protocol(), "2025-11-25");
    let peer = demo.client.peer().clone();
    let call = tokio::spawn(async move {
        peer.call_tool_once(CallToolRequestParams::new("connect_demo_account"))
            .await
    });

    let asked = demo.next_asked().await;
    assert_eq!(asked.message, "Connect your demo account");
    assert_eq!(
        asked.url,
        format!("{}/connect?id={}", demo.base, asked.elicitation_id)
    );
    assert!(!asked.elicitation_id.is_empty());

    let page = http("GET", &asked.url, "").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Connect demo account"), "{}", page.body);
    assert!(
        page.body.contains(&format!(
            "<form method=\"post\" action=\"/complete?id={}\">",
            asked.elicitation_id
        )),
        "{}",
        page.body
    );
    assert!(!page.body.contains("<script"));

    // The call waits for the button, not just for the consent.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !call.is_finished(),
        "answered before the button was pressed"
    );

    let pressed = press(&asked.url).await;
    assert_eq!(pressed.status, 200);
    assert!(pressed.body.contains("Demo account connected"));
    assert_eq!(demo.next_completed().await, asked.elicitation_id);

    let result = complete(
        tokio::time::timeout(WAIT, call)
            .await
            .expect("result in time")
            .expect("task")
            .expect("tool call"),
    );
    assert_eq!(text(&result), CONNECTED);
    assert_ne!(result.is_error, Some(true));

    // Pressing again is harmless and sends nothing more.
    assert_eq!(press(&asked.url).await.status, 200);
    assert!(demo.completed.try_recv().is_err());
}

#[tokio::test]
async fn request_path_reports_a_decline() {
    let mut demo = Demo::legacy().await;
    demo.answer(ElicitationAction::Decline);
    let result = complete(
        demo.call_once("connect_demo_account", None, None)
            .await
            .expect("tool call"),
    );
    assert_eq!(text(&result), "Not connected: declined");
    assert_eq!(result.is_error, Some(true));
    // The declined flow is gone: its page no longer offers a button.
    let asked = demo.next_asked().await;
    assert_eq!(http("GET", &asked.url, "").await.status, 404);
}

#[tokio::test]
async fn error_path_fails_with_32042_until_the_page_is_completed() {
    let mut demo = Demo::legacy().await;
    let err = match demo.call_once("fetch_private_data", None, None).await {
        Err(ServiceError::McpError(e)) => e,
        other => panic!("expected -32042, got {other:?}"),
    };
    assert_eq!(err.code.0, -32042);
    assert_eq!(err.message, "This request requires more information.");
    let data = err.data.expect("error data");
    let list = data["elicitations"].as_array().expect("elicitations list");
    assert_eq!(list.len(), 1);
    let item = &list[0];
    assert_eq!(item["mode"], "url");
    assert_eq!(item["message"], "Authorize access to your demo data");
    let id = item["elicitationId"]
        .as_str()
        .expect("elicitationId")
        .to_owned();
    let url = item["url"].as_str().expect("url").to_owned();
    assert_eq!(url, format!("{}/connect?id={id}", demo.base));
    // No elicitation/create on this path.
    assert!(demo.asked.try_recv().is_err());

    // A retry before the button still needs the same elicitation.
    match demo.call_once("fetch_private_data", None, None).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32042);
            assert_eq!(
                e.data.expect("data")["elicitations"][0]["elicitationId"],
                id
            );
        }
        other => panic!("expected -32042 again, got {other:?}"),
    }

    let page = http("GET", &url, "").await;
    assert!(page.body.contains("Authorize access to your demo data"));
    assert_eq!(press(&url).await.status, 200);
    assert_eq!(demo.next_completed().await, id);

    let result = complete(
        demo.call_once("fetch_private_data", None, None)
            .await
            .expect("retry succeeds"),
    );
    assert_eq!(text(&result), DATA);
}

#[tokio::test]
async fn never_completes_has_a_page_without_a_working_button() {
    let mut demo = Demo::legacy().await;
    let err = match demo.call_once("never_completes", None, None).await {
        Err(ServiceError::McpError(e)) => e,
        other => panic!("expected -32042, got {other:?}"),
    };
    assert_eq!(err.code.0, -32042);
    let data = err.data.expect("data");
    let url = data["elicitations"][0]["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let id = data["elicitations"][0]["elicitationId"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_eq!(url, format!("{}/connect?id={id}&never=1", demo.base));

    // Until its page was opened, a new call gets the same elicitation again.
    match demo.call_once("never_completes", None, None).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32042);
            assert_eq!(
                e.data.expect("data")["elicitations"][0]["elicitationId"],
                id
            );
        }
        other => panic!("expected -32042 again, got {other:?}"),
    }

    let page = http("GET", &url, "").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("This flow never finishes"),
        "{}",
        page.body
    );
    assert!(page.body.contains("<button type=\"button\" disabled>"));
    assert!(
        !page.body.contains("<form"),
        "no working button: {}",
        page.body
    );

    // Even a hand-made POST cannot complete it, and no notification follows.
    assert_eq!(press(&url).await.status, 409);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(demo.completed.try_recv().is_err());

    // The retry after the client's Continue goes on without a completion.
    let result = complete(
        demo.call_once("never_completes", None, None)
            .await
            .expect("retry"),
    );
    assert!(text(&result).starts_with("Continued without a completion"));
}

#[tokio::test]
async fn input_required_rounds_on_2026_07_28() {
    let mut demo = Demo::modern().await;

    // connect_demo_account: input_required until the button, then the result.
    let ir = input_required(
        demo.call_once("connect_demo_account", None, None)
            .await
            .expect("first round"),
    );
    let (message, url) = url_request(&ir);
    assert_eq!(message, "Connect your demo account");
    let state = ir.request_state.clone().expect("requestState");
    assert_eq!(url, format!("{}/connect?id={state}", demo.base));

    let again = input_required(
        demo.call_once(
            "connect_demo_account",
            Some(state.clone()),
            responses("accept"),
        )
        .await
        .expect("early retry"),
    );
    assert_eq!(again.request_state.as_deref(), Some(state.as_str()));
    assert_eq!(url_request(&again).1, url);

    assert_eq!(press(&url).await.status, 200);
    let done = complete(
        demo.call_once("connect_demo_account", Some(state), responses("accept"))
            .await
            .expect("retry"),
    );
    assert_eq!(text(&done), CONNECTED);
    // 2026-07-28 has no completion notification.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(demo.completed.try_recv().is_err());

    // A decline ends the flow.
    let ir = input_required(
        demo.call_once("connect_demo_account", None, None)
            .await
            .expect("first round"),
    );
    let declined = complete(
        demo.call_once(
            "connect_demo_account",
            ir.request_state,
            responses("decline"),
        )
        .await
        .expect("retry"),
    );
    assert_eq!(text(&declined), "Not connected: declined");
    assert_eq!(declined.is_error, Some(true));

    // fetch_private_data: no -32042 on this revision.
    let ir = input_required(
        demo.call_once("fetch_private_data", None, None)
            .await
            .expect("first round"),
    );
    let (message, url) = url_request(&ir);
    assert_eq!(message, "Authorize access to your demo data");
    assert_eq!(press(&url).await.status, 200);
    let data = complete(
        demo.call_once("fetch_private_data", ir.request_state, responses("accept"))
            .await
            .expect("retry"),
    );
    assert_eq!(text(&data), DATA);

    // never_completes: the page never finishes; continuing is the way on.
    let ir = input_required(
        demo.call_once("never_completes", None, None)
            .await
            .expect("first round"),
    );
    let (_, url) = url_request(&ir);
    assert!(url.ends_with("&never=1"), "{url}");
    assert!(http("GET", &url, "")
        .await
        .body
        .contains("This flow never finishes"));
    let continued = complete(
        demo.call_once("never_completes", ir.request_state, responses("accept"))
            .await
            .expect("retry"),
    );
    assert!(text(&continued).starts_with("Continued without a completion"));

    // No server-to-client requests on this revision.
    assert!(demo.asked.try_recv().is_err());
}

#[tokio::test]
async fn rmcp_client_drives_the_2026_rounds_by_itself() {
    // `call_tool` answers each input request through the handler and retries.
    // This handler presses the button before it answers, like a user who
    // finishes in the browser and then says "done".
    let mut demo = Demo::modern().await;
    demo.press_in_handler(true);
    let result = tokio::time::timeout(
        WAIT,
        demo.client
            .call_tool(CallToolRequestParams::new("connect_demo_account")),
    )
    .await
    .expect("in time")
    .expect("tool call");
    assert_eq!(text(&result), CONNECTED);
    let asked = demo.next_asked().await;
    assert_eq!(asked.message, "Connect your demo account");
    // 2026-07-28 has no elicitationId; rmcp models its absence as "".
    assert_eq!(asked.elicitation_id, "");
    assert!(demo.asked.try_recv().is_err(), "one round was enough");
}

#[tokio::test]
async fn server_identity_and_echo() {
    let demo = Demo::legacy().await;
    let info = demo.client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("airlock-demo")
    );
    let instructions = info.instructions.clone().unwrap_or_default();
    for tool in [
        "connect_demo_account",
        "fetch_private_data",
        "never_completes",
    ] {
        assert!(instructions.contains(tool), "{instructions}");
    }
    let tools = demo.client.peer().list_all_tools().await.expect("tools");
    let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "connect_demo_account",
            "echo",
            "fetch_private_data",
            "never_completes"
        ]
    );
    let mut params = CallToolRequestParams::new("echo");
    params.arguments = serde_json::json!({"message": "hello"}).as_object().cloned();
    let result = demo.client.peer().call_tool(params).await.expect("echo");
    assert_eq!(text(&result), "hello");
}

#[tokio::test]
async fn pinned_protocol_and_fixed_port_from_the_environment() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("addr").port()
    };
    let port_s = port.to_string();
    let demo = Demo::start(
        // What Airlock asks for.
        ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
        &[
            ("AIRLOCK_DEMO_PROTOCOL", "2025-11-25"),
            ("AIRLOCK_DEMO_PORT", port_s.as_str()),
        ],
    )
    .await;
    assert_eq!(demo.base, format!("http://127.0.0.1:{port}"));
    assert_eq!(demo.protocol(), "2025-11-25");
}

#[tokio::test]
async fn the_page_server_refuses_what_it_does_not_serve() {
    let demo = Demo::legacy().await;
    let base = demo.base.clone();
    // Unknown ids, odd ids (never echoed raw), wrong methods and paths.
    let unknown = http("GET", &format!("{base}/connect?id=deadbeef"), "").await;
    assert_eq!(unknown.status, 404);
    assert!(unknown.body.contains("Unknown or expired link"));
    let odd = http("GET", &format!("{base}/connect?id=%3Cscript%3E"), "").await;
    assert_eq!(odd.status, 404);
    assert!(!odd.body.contains("<script>"));
    assert_eq!(
        press(&format!("{base}/connect?id=deadbeef")).await.status,
        404
    );
    assert_eq!(
        http("GET", &format!("{base}/complete?id=x"), "")
            .await
            .status,
        405
    );
    assert_eq!(http("GET", &format!("{base}/nope"), "").await.status, 404);
    assert_eq!(http("GET", &format!("{base}/"), "").await.status, 200);

    // DNS rebinding and cross-site form posts are refused.
    let err = match demo.call_once("fetch_private_data", None, None).await {
        Err(ServiceError::McpError(e)) => e,
        other => panic!("expected -32042, got {other:?}"),
    };
    let url = err.data.expect("data")["elicitations"][0]["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let id = id_of(&url);
    let complete_url = url.replacen("/connect?", "/complete?", 1);
    let foreign = http("POST", &complete_url, "Origin: https://evil.example\r\n").await;
    assert_eq!(foreign.status, 403);
    let mut rebound = TcpStream::connect(base.trim_start_matches("http://"))
        .await
        .expect("connect");
    rebound
        .write_all(
            format!(
                "GET /connect?id={id} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .expect("send");
    let mut raw = String::new();
    rebound.read_to_string(&mut raw).await.expect("read");
    assert!(raw.starts_with("HTTP/1.1 421 "), "{raw}");
    // The flow is still open after both refusals.
    assert!(http("GET", &url, "").await.body.contains("<form"));
}
