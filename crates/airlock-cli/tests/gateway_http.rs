//! The gateway over Streamable HTTP and per-client profiles, end to end:
//! `airlock daemon --http-port 0` with server-everything and py-peer behind
//! it; the official TypeScript and Python SDK clients attach over HTTP with
//! the tokens `airlock clients add NAME --token` printed, or over stdio
//! with `--client NAME`. Hostile requests (no token, a wrong one, a web
//! page's Origin, a rebinding Host, another client's session, a bind to the
//! network) are sent by hand and must fail. Tokens live in the keychain:
//! run inside scripts/with-session.sh.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::gateway::{call, shim_argv, tool_names};
use common::*;
use serde_json::{json, Value};

/// `airlock daemon --http-port 0`; its port read from its log.
struct Daemon {
    guard: ChildGuard,
    log: PathBuf,
    port: u16,
}

impl Daemon {
    fn start(sb: &Sandbox) -> Daemon {
        let log = sb.dir().join(format!("daemon-{}.log", random_hex()));
        let guard = sb
            .cmd()
            .consent("decline")
            .open("none")
            .args(["--connect-timeout", "60", "daemon"])
            .args(["--http-port", "0"])
            .spawn_daemon(std::fs::File::create(&log).expect("daemon log"));
        let port = wait_until("the daemon's HTTP port", Duration::from_secs(20), || {
            let text = std::fs::read_to_string(&log).ok()?;
            let at = text.find("http://127.0.0.1:")? + "http://127.0.0.1:".len();
            text[at..].split('/').next()?.parse().ok()
        });
        Daemon { guard, log, port }
    }

    /// Wait until these servers are served. (On a loaded machine a Python
    /// server can start slower than rmcp's 10 s discover probe, fail its
    /// first connect, and be tried again by the host 60 s later.)
    fn wait_served(&self, servers: &[&str]) {
        wait_until("servers served", Duration::from_secs(150), || {
            let log = self.log();
            servers
                .iter()
                .all(|s| log.contains(&format!("{s}: ready, served")))
                .then_some(())
        });
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.guard.pid().to_string()])
            .status();
    }
}

/// `airlock clients add NAME --token`: the token it printed (once).
fn add_client_with_token(sb: &Sandbox, name: &str) -> String {
    let out = sb.run(&["--json", "apps", "add", name, "--token"]);
    out.ok();
    let token = out.json()["token"].as_str().expect("token").to_owned();
    assert!(
        token.starts_with("airlock_gw_") && token.len() > 60,
        "{token}"
    );
    token
}

/// An SDK app (`node` or `python`) running `ops` against `target` (a URL,
/// or the stdio shim's argv).
fn app(kind: &str, name: &str, ops: &Value, target: &[String], token: Option<&str>) -> Out {
    let cmd = if kind == "node" {
        Cmd::new("node").arg(peers_dir().join("gateway_client.mjs"))
    } else {
        Cmd::new(py()).arg(peers_dir().join("gateway_client.py"))
    };
    let mut cmd = cmd
        .args(["--name", name, "--ops", &ops.to_string(), "--"])
        .args(target)
        .timeout(Duration::from_secs(90));
    if let Some(t) = token {
        cmd = cmd.env("AIRLOCK_GATEWAY_TOKEN", t);
    }
    cmd.run()
}

/// One raw HTTP/1.1 request; the status code, the headers and the body.
fn raw(port: u16, headers: &[(&str, &str)], body: &Value) -> (u16, String, String) {
    let body = body.to_string();
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(req.as_bytes()).unwrap();
    let mut got = Vec::new();
    // An SSE answer stays open: read until the JSON-RPC reply has come.
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
        let t = String::from_utf8_lossy(&got);
        if t.contains("\"jsonrpc\"") && (t.contains("\"result\"") || t.contains("\"error\"")) {
            break;
        }
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_owned())
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
}

// ----- tests -----

#[test]
fn typescript_and_python_apps_list_and_call_over_http_with_their_tokens() {
    require_keychain();
    let sb = Sandbox::new();
    sb.add_everything("everything");
    sb.add_py("py", &[]);
    let ts_token = add_client_with_token(&sb, "ts-http");
    let py_token = add_client_with_token(&sb, "py-http");
    let daemon = Daemon::start(&sb);
    daemon.wait_served(&["everything", "py"]);
    let ops = json!([
        {"op": "tools"},
        call("everything__echo", json!({"message": "over http"})),
        call("py__add", json!({"a": 2, "b": 40})),
    ]);
    for (kind, token) in [("node", &ts_token), ("python", &py_token)] {
        let out = app(kind, kind, &ops, &[daemon.url()], Some(token));
        out.ok();
        let v = out.json_lines();
        let tools = tool_names(&v[0]);
        assert!(
            tools.contains(&"everything__echo".to_owned()),
            "{kind}: {v:?}"
        );
        assert!(
            tools.contains(&"py__add".to_owned()),
            "{kind}: {v:?} {}",
            daemon.log()
        );
        assert_eq!(text(&v[1]["result"]), "Echo: over http", "{kind}: {v:?}");
        assert_eq!(text(&v[2]["result"]), "42", "{kind}: {v:?}");
    }
    // History names the client the token belongs to (not the app's own name).
    assert_eq!(sb.history(&["--app", "ts-http"]).len(), 2);
    assert_eq!(sb.history(&["--app", "py-http"]).len(), 2);
    // The tokens are nowhere in the data dir or the log.
    let log = daemon.log();
    for t in [&ts_token, &py_token] {
        assert!(!log.contains(t.as_str()));
        for (path, bytes) in read_all_files(&sb.data) {
            assert!(
                !contains_bytes(&bytes, t.as_bytes()),
                "token in {}",
                path.display()
            );
        }
    }
}

#[test]
fn missing_or_wrong_tokens_foreign_origins_hosts_and_other_clients_sessions_are_refused() {
    require_keychain();
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let token = add_client_with_token(&sb, "good");
    let other = add_client_with_token(&sb, "other");
    let daemon = Daemon::start(&sb);
    let port = daemon.port;
    let bearer = format!("Bearer {token}");
    let init = initialize();

    let (status, head, _) = raw(port, &[], &init);
    assert_eq!(status, 401, "{head}");
    assert!(head.contains("www-authenticate: bearer"), "{head}");
    // The last character changed (to one it is not: a token ending in 0 once
    // made this "wrong" token the right one).
    let last = if token.ends_with('0') { '1' } else { '0' };
    let wrong = format!("Bearer {}{last}", &token[..token.len() - 1]);
    assert_ne!(wrong, bearer);
    assert_eq!(raw(port, &[("authorization", &wrong)], &init).0, 401);
    assert_eq!(
        raw(port, &[("authorization", "Basic Z29vZDpnb29k")], &init).0,
        401
    );
    // A web page in the user's browser (its Origin), or one that rebinds its
    // own domain to 127.0.0.1 (its Host), is refused even with a good token.
    for origin in ["https://evil.example", "null", "http://127.0.0.1:1"] {
        let (status, _, body) = raw(
            port,
            &[("authorization", &bearer), ("origin", origin)],
            &init,
        );
        assert_eq!(status, 403, "{origin}: {body}");
        assert!(body.contains("Origin"), "{body}");
    }
    let (status, _, body) = raw(
        port,
        &[
            ("authorization", &bearer),
            ("host", &format!("evil.example:{port}")),
        ],
        &init,
    );
    assert_eq!(status, 403, "{body}");
    // The app's own requests (no Origin, or this endpoint's own) pass.
    let own = format!("http://127.0.0.1:{port}");
    let (status, head, body) = raw(port, &[("authorization", &bearer), ("origin", &own)], &init);
    assert_eq!(status, 200, "{head}{body}");
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .trim()
        .to_owned();
    // Another client's token cannot use this session.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (_, _, body) = raw(
        port,
        &[
            ("authorization", &format!("Bearer {other}")),
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        &list,
    );
    assert!(body.contains("belongs to another app"), "{body}");
    assert!(!body.contains("everything__echo"), "{body}");
    // An SDK app with a wrong token fails to connect, and says so.
    let out = app(
        "node",
        "bad",
        &json!([{"op": "tools"}]),
        &[daemon.url()],
        Some("airlock_gw_nope"),
    );
    assert_ne!(out.code(), 0, "{out:?}");
    assert!(sb.history(&[]).is_empty());
}

#[test]
fn the_http_endpoint_never_binds_to_the_network() {
    let sb = Sandbox::new();
    for addr in ["0.0.0.0", "192.168.1.10", "::"] {
        let out = sb.run(&["daemon", "--http-port", "0", "--http-bind", addr]);
        out.expect_code(2);
        assert!(out.stderr.contains("loopback"), "{out:?}");
        assert!(!sb.data.join("gateway.sock").exists());
    }
}

#[test]
fn two_apps_at_once_with_different_profiles_see_different_tools() {
    require_keychain();
    let sb = Sandbox::new();
    sb.add_everything("everything");
    sb.add_py("py", &[]);
    // "editor" (stdio) sees only server-everything; "chat" (HTTP) only py's add.
    sb.run(&["apps", "add", "editor"]).ok();
    sb.run(&["apps", "profile", "editor", "--server", "everything"])
        .ok();
    let token = add_client_with_token(&sb, "chat");
    sb.run(&[
        "apps", "profile", "chat", "--server", "py", "--tool", "py/add",
    ])
    .ok();
    let shown = sb.run(&["apps", "show", "chat"]);
    shown.ok();
    assert!(
        shown.stdout.contains("servers: py; only tools py: add"),
        "{shown:?}"
    );
    let daemon = Daemon::start(&sb);
    daemon.wait_served(&["everything", "py"]);
    let ops = json!([
        {"op": "info"},
        {"op": "tools"},
        call("everything__echo", json!({"message": "hi"})),
        call("py__add", json!({"a": 1, "b": 1})),
        call("py__echo", json!({"message": "hi"})),
    ]);
    let shim = shim_argv(&sb, Some("editor"), &[]);
    let (editor, chat) = std::thread::scope(|scope| {
        let e = scope.spawn(|| app("node", "editor-app", &ops, &shim, None));
        let c = scope.spawn(|| app("python", "chat-app", &ops, &[daemon.url()], Some(&token)));
        (e.join().unwrap(), c.join().unwrap())
    });
    let e = editor.json_lines();
    let c = chat.json_lines();
    // The instructions name only the servers the profile shows.
    let e_instr = e[0]["instructions"].as_str().unwrap_or_default();
    let c_instr = c[0]["instructions"].as_str().unwrap_or_default();
    assert!(e_instr.contains("## Server \"everything\""), "{e_instr}");
    assert!(c_instr.contains("<server>__<name>"), "{c_instr}");
    assert!(!c_instr.contains("## Server \"everything\""), "{c_instr}");
    let e_tools = tool_names(&e[1]);
    assert!(
        e_tools.iter().all(|t| t.starts_with("everything__")),
        "{e_tools:?}"
    );
    assert!(e_tools.contains(&"everything__echo".to_owned()));
    assert_eq!(
        tool_names(&c[1]),
        vec!["py__add".to_owned()],
        "{c:?} {}",
        daemon.log()
    );
    // What a profile hides cannot be called either (the same error as a
    // tool that does not exist).
    assert_eq!(text(&e[2]["result"]), "Echo: hi", "{e:?}");
    assert!(
        e[3]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("unknown tool"),
        "{e:?}"
    );
    assert!(c[2]["error"].to_string().contains("unknown tool"), "{c:?}");
    assert_eq!(text(&c[3]["result"]), "2", "{c:?}");
    assert!(c[4]["error"].to_string().contains("unknown tool"), "{c:?}");
    assert_eq!(sb.history(&["--app", "editor"]).len(), 1);
    assert_eq!(sb.history(&["--app", "chat"]).len(), 1);
    // Removing a client removes its token: the app is refused at once.
    sb.run(&["apps", "remove", "chat"]).ok();
    let out = app(
        "node",
        "chat-app",
        &json!([{"op": "tools"}]),
        &[daemon.url()],
        Some(&token),
    );
    assert_ne!(out.code(), 0, "{out:?}");
    drop(daemon);
}

#[test]
fn a_call_the_app_cancels_stops_and_still_leaves_a_history_row() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb);
    daemon.wait_served(&["everything"]);
    let shim = shim_argv(&sb, Some("quitter"), &[]);
    let ops = json!([
        {"op": "call", "name": "everything__trigger-long-running-operation",
         "arguments": {"duration": 30, "steps": 3}, "abort_after_ms": 1500},
        call("everything__echo", json!({"message": "still here"})),
    ]);
    let t0 = std::time::Instant::now();
    let v = app("node", "quitter", &ops, &shim, None).json_lines();
    assert!(
        t0.elapsed() < Duration::from_secs(25),
        "the cancelled call was waited for"
    );
    assert!(v[0]["error"].is_object(), "{v:?}");
    assert_eq!(text(&v[1]["result"]), "Echo: still here", "{v:?}");
    common::gateway::assert_cancelled_row(&sb, "quitter", "trigger-long-running-operation");
}

#[test]
fn a_resource_update_reaches_an_app_over_http() {
    require_keychain();
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let token = add_client_with_token(&sb, "http-sub");
    let daemon = Daemon::start(&sb);
    daemon.wait_served(&["everything"]);
    let uri = "demo://resource/static/document/architecture.md";
    let ops = json!([
        {"op": "subscribe", "uri": uri},
        call("everything__toggle-subscriber-updates", json!({})),
        {"op": "wait_updated", "uri": uri, "timeout_ms": 9000},
    ]);
    let out = app("node", "http-sub", &ops, &[daemon.url()], Some(&token));
    out.ok();
    let v = out.json_lines();
    assert!(v[0].get("error").is_none(), "{v:?}");
    assert_eq!(v[2]["updated"], true, "{v:?}");
}

/// Over Streamable HTTP on 2026-07-28 (each request stands alone), a form
/// still reaches the app in rounds: the retry that answers it is matched by
/// its requestState and the client its token names.
#[test]
fn a_form_reaches_a_2026_app_over_http_in_rounds() {
    require_keychain();
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let token = add_client_with_token(&sb, "py-form-http");
    let daemon = Daemon::start(&sb);
    daemon.wait_served(&["everything"]);
    let ops = json!([
        {"op": "info"},
        call("everything__trigger-elicitation-request", json!({})),
        {"op": "elicitations"},
    ]);
    let answer = json!({"name": "Grace", "integer": 3});
    let out = Cmd::new(py())
        .arg(peers_dir().join("gateway_client.py"))
        .args(["--name", "py-form-http", "--elicitation", "form"])
        .args(["--form-answer", &answer.to_string()])
        .args(["--ops", &ops.to_string(), "--", &daemon.url()])
        .env("AIRLOCK_GATEWAY_TOKEN", &token)
        .timeout(Duration::from_secs(90))
        .run();
    out.ok();
    let v = out.json_lines();
    assert_eq!(v[0]["protocol"], "2026-07-28", "{v:?}");
    let t = text(&v[1]["result"]);
    assert!(t.contains("Name: Grace"), "{v:?} {}", daemon.log());
    assert_eq!(
        v[2]["elicitations"].as_array().map(Vec::len),
        Some(1),
        "{v:?}"
    );
    let record = &sb.elicitations()[0];
    assert_eq!(record["state"], "accepted", "{record}");
    assert_eq!(record["app"], "py-form-http", "{record}");
}

/// A client that learned another client's session id (from a log, a
/// screen, a shared config) takes it over with its own good token in a real
/// TypeScript SDK app: its GET stream, its requests and its DELETE are all
/// refused before rmcp sees them, and the owner's session goes on.
#[test]
fn another_clients_session_id_on_get_post_and_delete_is_refused_and_the_owner_goes_on() {
    require_keychain();
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let owner_token = add_client_with_token(&sb, "owner");
    let thief_token = add_client_with_token(&sb, "thief");
    let daemon = Daemon::start(&sb);
    daemon.wait_served(&["everything"]);
    let sid_file = sb.dir().join("owner-session");
    let go = sb.dir().join("go-on");
    let owner_ops = json!([
        {"op": "session", "path": s(&sid_file)},
        {"op": "wait_file", "path": s(&go), "timeout_ms": 60000},
        call("everything__echo", json!({"message": "still mine"})),
    ]);
    let (owner, thief, sid) = std::thread::scope(|scope| {
        let owner = scope.spawn(|| {
            app(
                "node",
                "owner-app",
                &owner_ops,
                &[daemon.url()],
                Some(&owner_token),
            )
        });
        let sid = wait_until("the owner's session id", Duration::from_secs(60), || {
            std::fs::read_to_string(&sid_file)
                .ok()
                .filter(|t| !t.is_empty())
        });
        let thief_ops = json!([{"op": "open_stream"}, {"op": "tools"}, {"op": "terminate"}]);
        let thief = Cmd::new("node")
            .arg(peers_dir().join("gateway_client.mjs"))
            .args(["--name", "thief-app", "--session-id", &sid])
            .args(["--ops", &thief_ops.to_string(), "--", &daemon.url()])
            .env("AIRLOCK_GATEWAY_TOKEN", &thief_token)
            .timeout(Duration::from_secs(90))
            .run();
        std::fs::write(&go, "").expect("go-on file");
        (owner.join().unwrap(), thief, sid)
    });
    let t = thief.json_lines();
    assert_eq!(t[0]["error"]["code"], 403, "GET: {t:?}");
    assert_eq!(t[1]["error"]["code"], 403, "POST: {t:?}");
    assert!(
        t[1]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("belongs to another app"),
        "{t:?}"
    );
    assert_eq!(t[2]["error"]["code"], 403, "DELETE: {t:?}");
    owner.ok();
    let o = owner.json_lines();
    assert_eq!(o[0]["session"], sid.as_str());
    assert_eq!(
        text(&o[2]["result"]),
        "Echo: still mine",
        "{o:?} {}",
        daemon.log()
    );
    let log = daemon.log();
    for (n, method) in [(1, "GET"), (2, "POST"), (3, "DELETE")] {
        assert!(
            log.contains(&format!(
                "refused a {method} from app \"thief\" on another app's session ({n} so far)"
            )),
            "{log}"
        );
    }
    assert!(!log.contains(&sid), "the session id is not logged");
    assert!(sb.history(&["--app", "thief"]).is_empty());
}
