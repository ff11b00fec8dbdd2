//! The gateway under bad input, end to end: malformed and oversized
//! messages, unknown tools and floods from one app get JSON-RPC errors and
//! break nothing for the others; the hello, the number of apps and the
//! calls in flight per app are bounded. Real apps and servers as in
//! gateway.rs; hostile bytes are written to the socket or the shim by hand.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use common::gateway::*;
use common::*;
use serde_json::{json, Value};

/// One app's session of raw lines: `input`, then stdin stays open `hold`
/// (for the answers), then closes.
fn raw_session(sb: &Sandbox, input: Vec<u8>, hold: Duration) -> Vec<Value> {
    let out = sb
        .cmd()
        // `--client`: the older spelling of `--app`, still in app configs
        // that an older `airlock clients connect` wrote.
        .args(["gateway", "--stdio", "--client", "raw"])
        .stdin(input)
        .hold_stdin(hold)
        .timeout(Duration::from_secs(30))
        .run();
    out.ok();
    out.stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn by_id(replies: &[Value], id: i64) -> &Value {
    replies
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no reply to id {id}: {replies:?}"))
}

#[test]
fn bad_input_from_one_app_gets_errors_and_breaks_nothing_for_others() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);

    let mut input = Vec::new();
    let mut send = |v: Value| {
        input.extend_from_slice(v.to_string().as_bytes());
        input.push(b'\n');
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}),
    );
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": 5}}));
    send(json!({"jsonrpc": "2.0", "id": 4, "method": "no/such/method", "params": {}}));
    send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"cursor": "garbage"}}),
    );
    input.extend_from_slice(b"this is not json\n");
    // One line over the size limit (4 MiB): dropped, the session goes on.
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"everything__echo\",\"arguments\":{\"message\":\"");
    input.extend(std::iter::repeat_n(b'x', 5 * 1024 * 1024));
    input.extend_from_slice(b"\"}}}\n");
    let mut send = |v: Value| {
        input.extend_from_slice(v.to_string().as_bytes());
        input.push(b'\n');
    };
    send(
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "everything__echo", "arguments": {"message": "still here"}}}),
    );
    let replies = raw_session(&sb, input, Duration::from_secs(3));
    assert!(by_id(&replies, 1)["result"]["serverInfo"]["name"] == "airlock-gateway");
    assert_eq!(by_id(&replies, 2)["error"]["code"], -32602);
    assert!(by_id(&replies, 3).get("error").is_some());
    assert_eq!(by_id(&replies, 4)["error"]["code"], -32601);
    assert_eq!(by_id(&replies, 5)["error"]["code"], -32602);
    assert!(
        !replies.iter().any(|r| r["id"] == 6),
        "the oversized call ran"
    );
    assert_eq!(
        text(&by_id(&replies, 7)["result"]),
        "Echo: still here",
        "{replies:?}"
    );

    // Not a hello: refused with a reason, nothing else.
    let mut raw = UnixStream::connect(socket(&sb)).expect("connect");
    raw.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n")
        .unwrap();
    let mut answer = String::new();
    BufReader::new(&raw).read_line(&mut answer).unwrap();
    let answer: Value = serde_json::from_str(&answer).expect("a JSON refusal");
    assert!(
        answer["error"]
            .as_str()
            .unwrap_or_default()
            .contains("airlock gateway --stdio"),
        "{answer}"
    );
    // A bad app name is refused by the shim itself.
    let bad = sb.run(&["gateway", "--stdio", "--app", "a/b"]);
    bad.expect_code(2);

    // Another app is unaffected.
    let v = lines(
        &ts_app(
            &sb,
            "other",
            None,
            &json!([call("everything__echo", json!({"message": "fine"}))]),
        )
        .run(),
    );
    assert_eq!(text(&v[0]["result"]), "Echo: fine");
    drop(daemon);
}

/// Say hello on a raw connection; the host's one-line answer.
fn hello(sb: &Sandbox, line: &[u8]) -> (UnixStream, Value) {
    let mut raw = UnixStream::connect(socket(sb)).expect("connect");
    raw.write_all(line).expect("write hello");
    raw.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = String::new();
    BufReader::new(&raw)
        .read_line(&mut answer)
        .expect("the host answers");
    let answer = serde_json::from_str(&answer).unwrap_or(Value::Null);
    (raw, answer)
}

#[test]
fn the_hello_and_the_number_of_apps_are_bounded() {
    let sb = Sandbox::new();
    let daemon = Daemon::start(&sb, "accept", None);
    // A hello over 4 KiB (no newline in sight) is refused, not buffered.
    let (_, answer) = hello(&sb, &vec![b'{'; 5000]);
    assert!(answer["error"].is_string(), "{answer}");
    // Silence: refused after the hello time-out (5 s).
    let started = std::time::Instant::now();
    let (_, answer) = hello(&sb, b"");
    assert!(
        answer["error"]
            .as_str()
            .unwrap_or_default()
            .contains("no hello"),
        "{answer}"
    );
    assert!(started.elapsed() >= Duration::from_secs(4));

    // 64 apps at once (limits::MAX_APPS); the 65th is told why.
    let ok = b"{\"airlock_gateway\":1,\"client\":\"many\"}\n";
    let attached: Vec<UnixStream> = (0..64)
        .map(|i| {
            let (s, answer) = hello(&sb, ok);
            assert_eq!(answer["ok"], true, "app {i}: {answer}");
            s
        })
        .collect();
    let (_, answer) = hello(&sb, ok);
    assert!(
        answer["error"]
            .as_str()
            .unwrap_or_default()
            .contains("too many apps"),
        "{answer}"
    );
    drop(attached);
    // Their places are free again.
    let again = wait_until("a place for one more app", Duration::from_secs(10), || {
        let (s, answer) = hello(&sb, ok);
        (answer["ok"] == true).then_some(s)
    });
    drop(again);
    drop(daemon);
}

#[test]
fn calls_in_flight_per_app_are_bounded() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let mut input = Vec::new();
    let mut send = |v: Value| {
        input.extend_from_slice(v.to_string().as_bytes());
        input.push(b'\n');
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // limits::MAX_CALLS_IN_FLIGHT_PER_APP is 32: the 33rd is refused.
    for id in 1..=33 {
        send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "everything__trigger-long-running-operation", "arguments": {"duration": 2, "steps": 1}}}),
        );
    }
    // The 32 calls take 2 s each once started: time enough on a loaded machine.
    let replies = raw_session(&sb, input, Duration::from_secs(12));
    let refused: Vec<&Value> = replies
        .iter()
        .filter(|r| {
            r["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("too many calls in flight"))
        })
        .collect();
    assert_eq!(refused.len(), 1, "{replies:?}");
    let done = replies
        .iter()
        .filter(|r| r["result"]["content"].is_array())
        .count();
    assert_eq!(done, 32, "{replies:?}");
    drop(daemon);
}

/// The largest resident set a process has had (VmHWM), in MB.
fn peak_rss_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

/// A server answers with 1 GB (issue 25, item 3): the host never holds it
/// (its peak memory stays far below), the call fails with an error naming
/// the limit, the same server's next call works, and another app's calls
/// to another server go on meanwhile.
#[test]
fn a_one_gigabyte_result_is_refused_without_being_held() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    sb.run(&[
        "servers",
        "add",
        "huge",
        "--command",
        &s(&py()),
        "--",
        &s(&peers_dir().join("huge_result.py")),
    ])
    .ok();
    let daemon = Daemon::start(&sb, "accept", None);
    let big = json!([
        {"op": "call", "name": "huge__huge", "arguments": {"megabytes": 1024}, "timeout_ms": 120000},
        {"op": "call", "name": "huge__small", "arguments": {}},
    ]);
    let echo = |i: usize| json!({"op": "call", "name": "everything__echo", "arguments": {"message": format!("m{i}")}});
    let others: Vec<Value> = (0..40)
        .map(echo)
        .chain([json!({"op": "sleep", "ms": 100})])
        .collect();
    let (v, o) = std::thread::scope(|scope| {
        let b = scope.spawn(|| lines(&ts_app(&sb, "big-app", Some("big-app"), &big).run()));
        std::thread::sleep(Duration::from_millis(500));
        let o = lines(&ts_app(&sb, "other-app", Some("other-app"), &Value::Array(others)).run());
        (b.join().unwrap(), o)
    });
    let refused = &v[0]["result"];
    assert_eq!(refused["isError"], true, "{v:?}");
    let why = text(refused);
    assert!(
        why.contains("limit of 16777216 bytes") && why.contains("--max-message-bytes"),
        "{why}"
    );
    assert_eq!(text(&v[1]["result"]), "small", "{v:?}");
    let echoed = o
        .iter()
        .filter(|r| text(&r["result"]).starts_with("Echo: m"))
        .count();
    assert_eq!(echoed, 40, "{o:?}");
    let peak = peak_rss_mb(daemon.pid());
    eprintln!("airlock daemon peak RSS with a 1 GB answer: {peak} MB");
    assert!(peak > 0 && peak < 300, "peak RSS {peak} MB");
    assert!(sb.run(&["logs", "huge"]).stdout.contains("dropped unread"));
    drop(daemon);
}
