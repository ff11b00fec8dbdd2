//! Broken servers and broken config files: clear errors, the right exit code,
//! bounded time and memory, and nothing already stored is lost.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

/// Everything `servers list --json` and `servers show --json` say, to compare before/after.
fn snapshot(sb: &Sandbox) -> Vec<Value> {
    sb.servers()
}

#[test]
fn command_that_does_not_exist_is_reported_as_not_found() {
    let sb = Sandbox::new();
    let cmd = format!("/nonexistent/airlock-test-{}", random_hex());
    sb.run(&["servers", "add", "ghost", "--command", &cmd]).ok();

    let conn = sb.run(&["connect", "ghost"]);
    conn.expect_code(1);
    assert!(conn.stderr.contains("not found"), "{conn:?}");
    assert!(conn.stderr.contains(&cmd), "names the command: {conn:?}");
    assert!(conn.elapsed < Duration::from_secs(5), "{conn:?}");

    let json = sb.run(&["--json", "connect", "ghost"]);
    json.expect_code(1);
    assert_eq!(json.json()["error"]["code"], "connect_failed", "{json:?}");

    let call = sb.run(&["call", "ghost", "echo"]);
    call.expect_code(1);
    let calls = sb.history(&[]);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["outcome"], "failed");
    assert!(
        calls[0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("not found"),
        "{calls:#?}"
    );
    assert!(
        sb.log_texts("ghost")
            .iter()
            .any(|t| t.contains("connection failed") && t.contains("not found")),
        "the failure is in the server log"
    );
}

#[test]
fn server_that_exits_at_once_shows_its_stderr() {
    let sb = Sandbox::new();
    sb.run(&[
        "servers",
        "add",
        "crash",
        "--command",
        "python3",
        "--",
        &s(&bad_server()),
        "exit",
    ])
    .ok();
    let conn = sb.run(&["connect", "crash"]);
    conn.expect_code(1);
    assert!(
        conn.stderr.contains("boom"),
        "error quotes the server's stderr: {conn:?}"
    );
    assert!(conn.elapsed < Duration::from_secs(10), "{conn:?}");
    let logs = sb.log_texts("crash");
    assert!(
        logs.iter().any(|t| t == "boom"),
        "stderr line in the log: {logs:?}"
    );
}

#[test]
fn http_url_with_nothing_listening() {
    let sb = Sandbox::new();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    sb.add_url("refused", &url);
    let conn = sb.run(&["connect", "refused"]);
    conn.expect_code(1);
    assert!(
        conn.stderr.contains("cannot connect to \"refused\""),
        "{conn:?}"
    );
    assert!(
        conn.stderr.contains(&format!("127.0.0.1:{port}")),
        "names the address: {conn:?}"
    );
    assert!(
        conn.elapsed < Duration::from_secs(10),
        "fails fast: {conn:?}"
    );
}

/// What a user reads when nothing listens: the reason (connection refused),
/// in words, not the SDK's internal type names.
#[test]
fn http_connection_refused_message_is_readable() {
    let sb = Sandbox::new();
    let port = free_port();
    sb.add_url("local", &format!("http://127.0.0.1:{port}/mcp"));
    let conn = sb.run(&["connect", "local"]);
    conn.expect_code(1);
    assert!(
        conn.stderr.to_lowercase().contains("connection refused"),
        "says the connection was refused: {conn:?}"
    );
    assert!(
        !conn.stderr.contains("rmcp::"),
        "no internal type names: {conn:?}"
    );
}

#[test]
fn http_endpoint_that_answers_html() {
    let peer = start_bad_html();
    let sb = Sandbox::new();
    sb.add_url("html", &peer.url);
    let conn = sb.run(&["connect", "html"]);
    conn.expect_code(1);
    assert!(
        conn.stderr.contains("text/html"),
        "says what came back: {conn:?}"
    );
    assert!(conn.elapsed < Duration::from_secs(10), "{conn:?}");
}

fn bad_stdio_times_out(mode: &str) -> Out {
    let sb = Sandbox::new();
    let pidfile = sb.dir().join("pid");
    sb.run(&[
        "servers",
        "add",
        mode,
        // Unconfined: the test reads the server's PID from outside, which
        // a room's PID namespace would hide (tests/rooms.rs confines).
        "--no-sandbox",
        "--command",
        "sh",
        "--",
        "-c",
        &format!(
            "echo $$ > '{}'; exec python3 '{}' {mode}",
            pidfile.display(),
            bad_server().display()
        ),
    ])
    .ok();
    sb.run(&[
        "servers",
        "add",
        "keep",
        "--url",
        "https://keep.example/mcp",
    ])
    .ok();
    let before = snapshot(&sb);
    let out = sb
        .cmd()
        .args(["--connect-timeout", "3", "connect", mode])
        .timeout(Duration::from_secs(30))
        .run();
    out.expect_code(1);
    assert!(
        out.stderr
            .contains("did not finish the MCP handshake within 3 s"),
        "names the handshake and the time-out: {out:?}"
    );
    assert!(
        out.elapsed >= Duration::from_secs(3) && out.elapsed < Duration::from_secs(10),
        "gives up after about 3 s: {out:?}"
    );
    // The server process does not outlive Airlock.
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    wait_until(
        "the bad server to be stopped",
        Duration::from_secs(5),
        || process_is_dead(pid).then_some(()),
    );
    assert_eq!(snapshot(&sb), before, "nothing stored was lost");
    out
}

#[test]
fn garbage_output_fails_the_handshake_in_time() {
    bad_stdio_times_out("garbage");
}

#[test]
fn silent_server_fails_the_handshake_in_time() {
    bad_stdio_times_out("silent");
}

#[test]
fn fifty_megabyte_line_fails_in_time_with_bounded_memory() {
    let out = bad_stdio_times_out("hugeline");
    let peak = out.peak_rss_kb.expect("peak RSS measured (Linux /proc)");
    assert!(
        peak < 200 * 1024,
        "Airlock's memory stays bounded while a server sends a 50 MB line: peak {peak} KiB {out:?}"
    );
}

#[test]
fn config_file_with_a_syntax_error() {
    let sb = Sandbox::new();
    sb.add_url("keep", "https://keep.example/mcp");
    let before = snapshot(&sb);
    let file = sb.write(
        "claude_desktop_config.json",
        "{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}\n",
    );
    let out = sb.run(&["servers", "import", &s(&file)]);
    out.expect_code(2);
    assert!(out.stderr.contains("not valid JSON"), "{out:?}");
    assert!(
        out.stderr.contains("line 1 column"),
        "points at the place: {out:?}"
    );
    assert!(
        out.stderr.contains("claude_desktop_config.json"),
        "names the file: {out:?}"
    );
    let json = sb.run(&["--json", "servers", "import", &s(&file)]);
    json.expect_code(2);
    assert_eq!(json.json()["error"]["code"], "bad_usage", "{json:?}");
    assert_eq!(snapshot(&sb), before);

    let missing = sb.run(&["servers", "import", &s(&sb.dir().join("nope.json"))]);
    missing.expect_code(2);
    assert!(missing.stderr.contains("cannot read"), "{missing:?}");
    let neither = sb.write("other.json", r#"{"something": {}}"#);
    let out = sb.run(&["servers", "import", &s(&neither)]);
    out.expect_code(2);
    assert!(out.stderr.contains("mcpServers"), "{out:?}");
    assert_eq!(snapshot(&sb), before);
}

#[test]
fn config_file_with_an_unknown_field() {
    let sb = Sandbox::new();
    sb.add_url("keep", "https://keep.example/mcp");
    let before = snapshot(&sb);
    let file = sb.write(
        "claude_desktop_config.json",
        &json!({"mcpServers": {"fine": {"command": "node"}, "typo": {"comand": "node", "args": ["x.js"]}}}).to_string(),
    );
    let out = sb.run(&["servers", "import", &s(&file)]);
    out.expect_code(2);
    assert!(
        out.stderr.contains("unknown field `comand`"),
        "names the field: {out:?}"
    );
    assert!(out.stderr.contains("\"typo\""), "names the server: {out:?}");
    assert!(
        out.stderr.contains("`command`"),
        "lists the known fields: {out:?}"
    );
    assert_eq!(
        snapshot(&sb),
        before,
        "the valid server `fine` is not imported alone either"
    );

    let sse = sb.write(
        "mcp.json",
        r#"{"servers": {"old": {"type": "sse", "url": "https://x.example/sse"}}}"#,
    );
    let out = sb.run(&["servers", "import", &s(&sse)]);
    out.expect_code(2);
    assert!(out.stderr.contains("legacy HTTP+SSE"), "{out:?}");
    assert_eq!(snapshot(&sb), before);
}

#[test]
fn import_is_all_or_nothing() {
    let sb = Sandbox::new();
    sb.add_url("keep", "https://keep.example/mcp");
    let before = snapshot(&sb);
    let file = sb.write(
        "claude_desktop_config.json",
        &json!({"mcpServers": {"new-one": {"command": "node"}, "keep": {"command": "other"}}})
            .to_string(),
    );
    let out = sb.run(&["servers", "import", &s(&file)]);
    out.expect_code(2);
    assert!(out.stderr.contains("\"keep\" already exists"), "{out:?}");
    assert_eq!(
        snapshot(&sb),
        before,
        "new-one is not half-imported and keep is unchanged"
    );
}

#[test]
fn failures_lose_nothing_and_do_not_break_other_servers() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    sb.add_url("remote", "https://remote.example/mcp");
    sb.run(&[
        "servers",
        "add",
        "crash",
        "--command",
        "python3",
        "--",
        &s(&bad_server()),
        "exit",
    ])
    .ok();
    sb.run(&[
        "servers",
        "add",
        "ghost",
        "--command",
        "/nonexistent/airlock-ghost",
    ])
    .ok();
    let port = free_port();
    sb.add_url("refused", &format!("http://127.0.0.1:{port}/mcp"));
    let before = snapshot(&sb);
    assert_eq!(before.len(), 5);

    let bad = sb.write("bad.json", "{");
    let attempts: [&[&str]; 8] = [
        &["connect", "crash"],
        &["call", "ghost", "echo"],
        &["tools", "refused"],
        &["call", "crash", "echo", "--args", r#"{"message":"x"}"#],
        &["servers", "add", "everything", "--command", "other"],
        &["servers", "edit", "remote", "--url", "not a url"],
        &["servers", "remove", "nope"],
        &["servers", "import", bad.to_str().unwrap()],
    ];
    for a in attempts {
        let f = sb.run(a);
        assert_ne!(f.code(), 0, "{f:?}");
        assert_eq!(snapshot(&sb), before, "after {}", f.cmdline);
    }

    // The healthy server still works, in the same data dir, after all that.
    let call = sb.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message":"still here"}"#,
    ]);
    call.ok();
    assert_eq!(call.stdout.trim(), "Echo: still here");
    let ok = sb.history(&["--outcome", "ok"]);
    assert_eq!(ok.len(), 1);
    assert_eq!(ok[0]["server"], "everything");
    assert_eq!(
        sb.history(&["--outcome", "failed"]).len(),
        2,
        "the two failed calls are recorded"
    );
}

/// A stdio server does not outlive Airlock, even when Airlock is killed
/// (SIGKILL runs no destructors).
#[test]
fn a_killed_airlock_takes_its_stdio_servers_down() {
    let sb = Sandbox::new();
    let pidfile = sb.dir().join("pid");
    sb.run(&[
        "servers",
        "add",
        "silent",
        // The PID as the host sees it (a confined server: below).
        "--no-sandbox",
        "--command",
        "sh",
        "--",
        "-c",
        &format!(
            "echo $$ > '{}'; exec python3 '{}' silent",
            pidfile.display(),
            bad_server().display()
        ),
    ])
    .ok();
    let mut airlock = std::process::Command::new(airlock_bin())
        .arg("--data-dir")
        .arg(&sb.data)
        .args(["--connect-timeout", "60", "connect", "silent"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("airlock starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let server_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
        {
            break pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let proc_dir = std::path::PathBuf::from(format!("/proc/{server_pid}"));
    assert!(proc_dir.exists(), "the server runs while Airlock does");
    airlock.kill().expect("SIGKILL airlock");
    let _ = airlock.wait();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    // Gone, or a zombie nobody reaps in this container: either way not running.
    while proc_dir.exists()
        && !std::fs::read_to_string(proc_dir.join("stat"))
            .map(|s| s.contains(") Z "))
            .unwrap_or(true)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the stdio server outlived Airlock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Deadlines and time-outs are checked against the same bounds as the
/// desktop's settings (airlock_core::limits): out of bounds is a usage error
/// that says which flag and why, and nothing runs.
#[test]
fn out_of_bounds_deadlines_are_refused_with_the_reason() {
    let sb = Sandbox::new();
    for (args, says) in [
        (
            vec!["--late-after", "0"],
            "late after must be between 1 and 3600",
        ),
        (
            vec!["--give-up-after", "90000"],
            "give up after must be between",
        ),
        (
            vec!["--late-after", "60", "--give-up-after", "30"],
            "must be at least late after",
        ),
        (
            vec!["--connect-timeout", "0"],
            "connect timeout must be between",
        ),
    ] {
        let mut all = args.clone();
        all.extend(["servers", "list"]);
        let out = sb.run(&all);
        out.expect_code(2);
        assert!(out.stderr.contains(says), "{args:?}: {out:?}");
    }
    assert!(!sb.data.exists(), "a refused run created the data dir");
}

/// The same for a confined server: bubblewrap's whole room ends with the
/// Airlock that started it (found by a marker in its environment, which
/// bubblewrap, the helper and the server all carry, since the server's own
/// PID is the room's; the silent server must really be running: it does
/// not stop on its own).
#[test]
fn a_killed_airlock_takes_its_confined_servers_down() {
    let sb = Sandbox::new();
    let marker = format!("room-marker-{}", random_hex());
    sb.run(&[
        "servers",
        "add",
        "silent",
        "--env",
        &format!("AIRLOCK_ROOM_MARKER={marker}"),
        "--command",
        &s(&py()),
        "--",
        &s(&bad_server()),
        "silent",
    ])
    .ok();
    let mut airlock = std::process::Command::new(airlock_bin())
        .arg("--data-dir")
        .arg(&sb.data)
        .args(["--connect-timeout", "60", "connect", "silent"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("airlock starts");
    let with_marker = || -> Vec<u32> {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|c| contains_bytes(&c, marker.as_bytes()))
                    && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .is_ok_and(|s| s.contains(") Z "))
            })
            .collect()
    };
    // Until the server itself runs (its own command line starts with the
    // interpreter), not only bubblewrap setting the room up: a bubblewrap
    // killed halfway through its own setup is bubblewrap's race, not this.
    let server_runs = || {
        with_marker().into_iter().any(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                c.split(|b| *b == 0)
                    .next()
                    .is_some_and(|argv0| argv0.ends_with(b"python") || argv0.ends_with(b"python3"))
            })
        })
    };
    let running = wait_until(
        "the confined server to start",
        Duration::from_secs(20),
        || {
            let p = with_marker();
            (p.len() >= 2 && server_runs()).then_some(p)
        },
    );
    assert!(
        running.len() >= 2,
        "bubblewrap, its helper and the server: {running:?}"
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        server_runs(),
        "the silent server keeps running until Airlock goes"
    );
    airlock.kill().expect("SIGKILL airlock");
    let _ = airlock.wait();
    wait_until(
        "the room to end with Airlock",
        Duration::from_secs(10),
        || with_marker().is_empty().then_some(()),
    );
}
