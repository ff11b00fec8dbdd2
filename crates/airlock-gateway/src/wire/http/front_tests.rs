//! The front's session checks, caps and time bounds, in process: rmcp's
//! real Streamable HTTP service and session manager behind [`Front`], with
//! a small server of our own (`Slow`: one tool that takes a while) in
//! place of the gateway's catalog. Requests are built by hand, as a hostile
//! app would send them; time bounds run on tokio's paused clock.

use std::sync::atomic::AtomicUsize;

use http_body_util::BodyExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::SessionManager;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

/// A server whose one tool, `slow`, answers "done" after [`SLOW`] unless
/// cancelled first (then it counts the cancel).
#[derive(Clone, Default)]
struct Slow {
    cancelled: Arc<AtomicUsize>,
}

const SLOW: Duration = Duration::from_millis(400);

/// `bound` less `by`: the last moment before a bound.
fn just_before(bound: Duration, by: Duration) -> Duration {
    bound.saturating_sub(by)
}

impl ServerHandler for Slow {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        tokio::select! {
            () = tokio::time::sleep(SLOW) => Ok(CallToolResponse::Complete(
                CallToolResult::success(vec![ContentBlock::text("done")]),
            )),
            () = context.ct.cancelled() => {
                self.cancelled.fetch_add(1, Ordering::SeqCst);
                Err(ErrorData::internal_error("cancelled", None))
            }
        }
    }
}

fn front(server: Slow) -> Front<Slow> {
    Front::new(
        move || Ok(server.clone()),
        mcp_config(8123, &CancellationToken::new()),
        HTTP_BODY_STALL_TIMEOUT,
    )
}

fn request(
    method: http::Method,
    session: Option<&str>,
    body: Option<Value>,
) -> Request<Full<Bytes>> {
    let mut b = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", "127.0.0.1:8123")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        b = b.header("mcp-session-id", s);
    }
    let body = body.map(|v| v.to_string()).unwrap_or_default();
    b.body(Full::new(Bytes::from(body))).unwrap()
}

fn post(session: Option<&str>, body: Value) -> Request<Full<Bytes>> {
    request(http::Method::POST, session, Some(body))
}

/// The whole body as text (SSE events or a refusal).
async fn text(response: Response<Body>) -> String {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Initialize as `app`: the session id.
async fn initialize<S: ServerHandler + Send + 'static>(front: &Front<S>, app: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": app, "version": "0"}}});
    let response = front.serve(app.to_owned(), post(None, init)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(text(response).await.contains("\"result\""));
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = front.serve(app.to_owned(), post(Some(&id), done)).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    id
}

async fn ping<S: ServerHandler + Send + 'static>(
    front: &Front<S>,
    app: &str,
    session: &str,
) -> (StatusCode, String) {
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let response = front.serve(app.to_owned(), post(Some(session), ping)).await;
    (response.status(), text(response).await)
}

#[tokio::test]
async fn another_clients_session_is_refused_on_every_method_and_nothing_reaches_rmcp() {
    let server = Slow::default();
    let front = front(server.clone());
    let a = initialize(&front, "a").await;
    // A's call is running on its session...
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                      "params": {"name": "slow", "arguments": {}}});
    let running = front.serve("a".into(), post(Some(&a), call)).await;
    assert_eq!(running.status(), StatusCode::OK);
    // ...while B, with its own good token, names A's session every way.
    let tries = [
        post(
            Some(&a),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ),
        post(
            Some(&a),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 5, "reason": "mine now"}}),
        ),
        post(Some(&a), json!({"jsonrpc": "2.0", "id": 0, "result": {}})),
        request(http::Method::GET, Some(&a), None),
        request(http::Method::DELETE, Some(&a), None),
    ];
    for req in tries {
        let method = req.method().clone();
        let response = front.serve("b".into(), req).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{method}");
        assert_eq!(response.headers()["connection"], "close");
        let body = text(response).await;
        assert!(body.contains("belongs to another app"), "{method}: {body}");
    }
    // A's call was not cancelled, its session not closed.
    let got = text(running).await;
    assert!(got.contains("done"), "{got}");
    assert_eq!(server.cancelled.load(Ordering::SeqCst), 0);
    let (status, body) = ping(&front, "a", &a).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // A's own cancel does reach its call (the check is per app, not a wall).
    let call = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                      "params": {"name": "slow", "arguments": {}}});
    let running = front.serve("a".into(), post(Some(&a), call)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 6}});
    let response = front.serve("a".into(), post(Some(&a), cancel)).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    tokio::time::timeout(Duration::from_secs(5), async {
        while server.cancelled.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("A's own cancel reached its call");
    drop(running);
    // A's DELETE ends it; the book forgets it and its id is unknown after.
    let response = front
        .serve("a".into(), request(http::Method::DELETE, Some(&a), None))
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(front.sessions.book.len(), 0);
    let (status, body) = ping(&front, "a", &a).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body.contains("no such session"), "{body}");
}

#[tokio::test]
async fn made_up_and_doubled_session_ids_are_refused() {
    let front = front(Slow::default());
    let a = initialize(&front, "a").await;
    let (status, _) = ping(&front, "a", "00000000-0000-4000-8000-000000000000").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Two ids: the check and rmcp might read different ones.
    let mut req = post(
        Some(&a),
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    );
    req.headers_mut()
        .append("mcp-session-id", http::HeaderValue::from_static("other"));
    assert_eq!(
        front.serve("a".into(), req).await.status(),
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn one_clients_sessions_are_capped_and_other_clients_are_not_affected() {
    let front = front(Slow::default());
    let mut mine = Vec::new();
    for _ in 0..MAX_HTTP_SESSIONS_PER_CLIENT {
        mine.push(initialize(&front, "greedy").await);
    }
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "greedy", "version": "0"}}});
    let response = front.serve("greedy".into(), post(None, init.clone())).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(!response.headers().contains_key("mcp-session-id"));
    let body = text(response).await;
    assert!(
        body.contains(&format!(
            "has {MAX_HTTP_SESSIONS_PER_CLIENT} HTTP sessions open"
        )) && body.contains("left idle for 30 minutes"),
        "{body}"
    );
    assert_eq!(
        front.sessions.book.count("greedy"),
        MAX_HTTP_SESSIONS_PER_CLIENT
    );
    // Another app still gets its session.
    let other = initialize(&front, "polite").await;
    assert_eq!(ping(&front, "polite", &other).await.0, StatusCode::OK);
    // One closed: room for one more.
    let response = front
        .serve(
            "greedy".into(),
            request(http::Method::DELETE, Some(&mine[0]), None),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    initialize(&front, "greedy").await;
}

#[tokio::test]
async fn sessions_of_all_clients_are_capped() {
    let front = front(Slow::default());
    let apps = MAX_HTTP_SESSIONS / MAX_HTTP_SESSIONS_PER_CLIENT;
    for c in 0..apps {
        for _ in 0..MAX_HTTP_SESSIONS_PER_CLIENT {
            initialize(&front, &format!("c{c}")).await;
        }
    }
    assert_eq!(front.sessions.book.len(), MAX_HTTP_SESSIONS);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "late", "version": "0"}}});
    let response = front.serve("late".into(), post(None, init)).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(text(response).await.contains("too many HTTP sessions"));
}

#[tokio::test]
async fn one_clients_requests_in_flight_are_capped() {
    let front = front(Slow::default());
    let sessions = [initialize(&front, "a").await, initialize(&front, "a").await];
    // Open GET streams (each holds a connection for as long as it is open).
    let mut streams = Vec::new();
    for i in 0..MAX_HTTP_REQUESTS_PER_CLIENT {
        let response = front
            .serve(
                "a".into(),
                request(http::Method::GET, Some(&sessions[i % 2]), None),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        streams.push(response);
    }
    let (status, body) = ping(&front, "a", &sessions[0]).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert!(
        body.contains("requests in flight or streams open"),
        "{body}"
    );
    let b = initialize(&front, "b").await;
    assert_eq!(ping(&front, "b", &b).await.0, StatusCode::OK);
    drop(streams.pop());
    assert_eq!(ping(&front, "a", &sessions[0]).await.0, StatusCode::OK);
}

#[tokio::test(start_paused = true)]
async fn a_session_idle_for_the_bound_is_closed_and_one_with_an_open_stream_is_not() {
    let front = front(Slow::default());
    let stop = CancellationToken::new();
    tokio::spawn(sessions::reap(
        front.sessions.clone(),
        SESSION_IDLE_TIMEOUT,
        SESSION_IDLE_CHECK,
        stop.clone(),
    ));
    let idle = initialize(&front, "a").await;
    let streaming = initialize(&front, "a").await;
    let stream = front
        .serve(
            "a".into(),
            request(http::Method::GET, Some(&streaming), None),
        )
        .await;
    assert_eq!(stream.status(), StatusCode::OK);
    let has = |id: &str| {
        let id = id.to_owned();
        let sessions = front.sessions.clone();
        async move { sessions.has_session(&id.into()).await.unwrap() }
    };
    // Just under the bound: both still there (the reaper has looked at
    // multiples of SESSION_IDLE_CHECK up to here).
    tokio::time::sleep(just_before(SESSION_IDLE_TIMEOUT, Duration::from_secs(1))).await;
    assert!(has(&idle).await);
    // Past the bound and one look: the idle one is closed, its id unknown.
    tokio::time::sleep(SESSION_IDLE_CHECK + Duration::from_secs(1)).await;
    assert!(!has(&idle).await, "closed in rmcp too");
    assert_eq!(ping(&front, "a", &idle).await.0, StatusCode::NOT_FOUND);
    // The one with its GET stream open lives on, however long.
    tokio::time::sleep(SESSION_IDLE_TIMEOUT * 3).await;
    assert!(has(&streaming).await);
    // Its stream closed, it goes idle, and goes in its turn.
    drop(stream);
    tokio::time::sleep(just_before(SESSION_IDLE_TIMEOUT, Duration::from_secs(1))).await;
    assert!(has(&streaming).await);
    tokio::time::sleep(SESSION_IDLE_CHECK + Duration::from_secs(1)).await;
    assert!(!has(&streaming).await);
    assert_eq!(front.sessions.book.len(), 0);
    stop.cancel();
}

#[tokio::test(start_paused = true)]
async fn a_request_keeps_its_session_from_going_idle() {
    let front = front(Slow::default());
    let a = initialize(&front, "a").await;
    let t0 = tokio::time::Instant::now();
    tokio::time::sleep(just_before(SESSION_IDLE_TIMEOUT, Duration::from_secs(1))).await;
    assert_eq!(ping(&front, "a", &a).await.0, StatusCode::OK);
    // Idle is counted from the ping's end, not from the session's start.
    let later = t0 + SESSION_IDLE_TIMEOUT + Duration::from_secs(1);
    assert!(front
        .sessions
        .book
        .take_idle(later, SESSION_IDLE_TIMEOUT)
        .is_empty());
    let gone = front.sessions.book.take_idle(
        tokio::time::Instant::now() + SESSION_IDLE_TIMEOUT,
        SESSION_IDLE_TIMEOUT,
    );
    assert_eq!(gone.len(), 1);
}

/// `front` served over one in-memory connection as app "a".
fn connect(front: Arc<Front<Slow>>, idle: Duration) -> tokio::io::DuplexStream {
    let (app, server) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let service = hyper::service::service_fn(move |req| {
            let front = front.clone();
            async move { Ok::<_, Infallible>(front.serve("a".into(), req).await) }
        });
        serve_connection(server, service, idle, &CancellationToken::new()).await;
    });
    app
}

/// Read until the connection closes (within an hour): what came, and when
/// it closed.
async fn read_to_close(io: &mut tokio::io::DuplexStream) -> (String, tokio::time::Instant) {
    let mut got = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(3600), io.read_to_end(&mut got)).await;
    assert!(closed.is_ok(), "the connection was not closed");
    (
        String::from_utf8_lossy(&got).into_owned(),
        tokio::time::Instant::now(),
    )
}

#[tokio::test(start_paused = true)]
async fn a_connection_that_sends_nothing_is_closed_at_the_idle_bound() {
    let front = Arc::new(front(Slow::default()));
    let t0 = tokio::time::Instant::now();
    let mut io = connect(front, HTTP_IDLE_TIMEOUT);
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(
        just_before(HTTP_IDLE_TIMEOUT, Duration::from_millis(1)),
        io.read(&mut byte),
    )
    .await;
    assert!(early.is_err(), "still open just before the bound");
    let (_, closed) = read_to_close(&mut io).await;
    assert!(closed - t0 >= HTTP_IDLE_TIMEOUT);
    assert!(closed - t0 < HTTP_IDLE_TIMEOUT + Duration::from_secs(1));
}

#[tokio::test(start_paused = true)]
async fn a_kept_alive_connection_idle_between_requests_is_closed_at_the_bound() {
    let front = Arc::new(front(Slow::default()));
    let mut io = connect(front, HTTP_IDLE_TIMEOUT);
    // A request the front refuses at once (no such session) but answers.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:8123\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{ping}",
        ping.len()
    );
    io.write_all(head.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = io.read(&mut buf).await.unwrap();
    let t0 = tokio::time::Instant::now();
    let answer = String::from_utf8_lossy(&buf[..n]);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    // Not closed for being refused (this one was rmcp's 400, not ours).
    let early = tokio::time::timeout(
        just_before(HTTP_IDLE_TIMEOUT, Duration::from_millis(1)),
        io.read(&mut buf),
    )
    .await;
    assert!(early.is_err(), "kept alive just before the bound");
    let (_, closed) = read_to_close(&mut io).await;
    assert!(closed - t0 >= HTTP_IDLE_TIMEOUT);
    assert!(closed - t0 < HTTP_IDLE_TIMEOUT + Duration::from_secs(1));
}

#[tokio::test(start_paused = true)]
async fn a_request_body_that_stalls_fails_at_the_bound() {
    let front = Arc::new(front(Slow::default()));
    let mut io = connect(front, HTTP_IDLE_TIMEOUT);
    // 10 of the 100 bytes it announces, then nothing.
    let head = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:8123\r\ncontent-type: application/json\r\n\
                accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\"";
    io.write_all(head.as_bytes()).await.unwrap();
    let t0 = tokio::time::Instant::now();
    let mut buf = vec![0u8; 4096];
    let early = tokio::time::timeout(
        just_before(HTTP_BODY_STALL_TIMEOUT, Duration::from_millis(1)),
        io.read(&mut buf),
    )
    .await;
    assert!(early.is_err(), "still waiting just before the bound");
    let (answer, closed) = read_to_close(&mut io).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("no byte of the request body for 30 s"),
        "{answer}"
    );
    assert!(closed - t0 >= HTTP_BODY_STALL_TIMEOUT);
    assert!(closed - t0 < HTTP_BODY_STALL_TIMEOUT + Duration::from_secs(1));
}
