//! Airlock in front of other apps, end to end: real apps (the official
//! TypeScript and Python SDK clients, tests/peers/gateway_client.*) attach
//! with `airlock gateway --stdio` to `airlock daemon`, which serves
//! server-everything and py-peer as one MCP server.
//!
//! The apps declare no elicitation capability: every URL elicitation is
//! Airlock's (the daemon's scripted consent; `BROWSER` records what opens),
//! and the app gets the tool's real result or a tool error saying why.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::gateway::*;
use common::*;
use serde_json::json;

fn both_servers(sb: &Sandbox) {
    sb.add_everything("everything");
    sb.add_py("py", &[]);
}

// ----- tests -----

#[test]
fn typescript_and_python_apps_list_and_call_the_aggregated_tools() {
    let sb = Sandbox::new();
    both_servers(&sb);
    let daemon = Daemon::start(&sb, "accept", None);

    let ops = json!([
        {"op": "info"},
        {"op": "tools"},
        call("everything__echo", json!({"message": "hi from ts"})),
        call("py__add", json!({"a": 2, "b": 40})),
        call("nope__nothing", json!({})),
        {"op": "prompts"},
        {"op": "resources"},
        {"op": "read", "uri": "peer://greeting"},
        {"op": "prompt", "name": "py__greet", "arguments": {"name": "Ada"}},
    ]);
    let ts = lines(&ts_app(&sb, "ts-app", Some("ts-tests"), &ops).run());
    assert_eq!(ts[0]["server"], "airlock-gateway", "{ts:?}");
    let instructions = ts[0]["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("<server>__<name>"), "{instructions}");
    let tools = tool_names(&ts[1]);
    for t in [
        "everything__echo",
        "everything__get-sum",
        "py__add",
        "py__connect_account",
    ] {
        assert!(tools.contains(&t.to_owned()), "{t} missing from {tools:?}");
    }
    assert_eq!(text(&ts[2]["result"]), "Echo: hi from ts", "{:?}", ts[2]);
    assert_eq!(text(&ts[3]["result"]), "42", "{:?}", ts[3]);
    assert_eq!(ts[4]["error"]["code"], -32602, "{:?}", ts[4]);
    assert!(ts[5]["prompts"]
        .as_array()
        .unwrap()
        .contains(&json!("py__greet")));
    assert!(ts[6]["resources"]
        .as_array()
        .unwrap()
        .contains(&json!("peer://greeting")));
    assert_eq!(
        ts[7]["result"]["contents"][0]["text"], "Hello from py-peer",
        "{:?}",
        ts[7]
    );
    assert!(ts[8]["result"].to_string().contains("Ada"), "{:?}", ts[8]);

    let py_ops = json!([
        {"op": "info"},
        {"op": "tools"},
        call("py__echo", json!({"message": "hi from python"})),
        call("everything__get-sum", json!({"a": 1, "b": 2})),
    ]);
    let py = lines(&py_app(&sb, "py-app", None, &py_ops).run());
    assert_eq!(py[0]["protocol"], "2026-07-28", "{py:?}");
    assert_eq!(tool_names(&py[1]), tools, "both apps see the same list");
    assert_eq!(text(&py[2]["result"]), "hi from python", "{:?}", py[2]);
    assert!(text(&py[3]["result"]).contains('3'), "{:?}", py[3]);
    // The app talks to Airlock: the server's own identity is not passed on.
    assert!(py[2]["result"].get("_meta").is_none(), "{:?}", py[2]);

    // History names the app: --app, else the app's own name.
    let ts_calls = sb.history(&["--app", "ts-tests"]);
    assert_eq!(ts_calls.len(), 2, "{ts_calls:?}");
    assert!(ts_calls
        .iter()
        .any(|c| c["tool"] == "add" && c["server"] == "py"));
    let py_calls = sb.history(&["--app", "py-app"]);
    assert_eq!(py_calls.len(), 2, "{py_calls:?}");
    assert_eq!(sb.history(&[]).len(), 4);
    drop(daemon);
}

#[test]
fn url_elicitations_are_fulfilled_by_airlock_for_an_app_that_declared_none() {
    let sb = Sandbox::new();
    both_servers(&sb);
    let browser = BrowserRecorder::new(sb.dir());
    let daemon = Daemon::start(&sb, "accept", Some(&browser));

    // server-everything (2025-11-25): the request path, then -32042.
    let ops = json!([
        call("everything__trigger-url-elicitation", json!({"url": "https://example.com/request-path", "elicitationId": "rp-1"})),
        {"op": "sleep", "ms": 500},
        call("everything__trigger-url-elicitation", json!({"url": "https://example.com/error-path", "elicitationId": "ep-1", "errorPath": true})),
    ]);
    let ts = lines(&ts_app(&sb, "ts-app", Some("ts"), &ops).run());
    let first = &ts[0]["result"];
    assert_ne!(first["isError"], true, "{first:?}");
    assert!(text(first).contains("rp-1"), "{first:?}");
    assert!(text(first).contains("accept"), "{first:?}");
    let second = &ts[2]["result"];
    assert_ne!(second["isError"], true, "{second:?}");
    assert!(text(second).contains("ep-1"), "{second:?}");
    // The error path: -32042 names a prerequisite page; Airlock opens it,
    // retries the call, and the retry asks for the page itself.
    assert_eq!(
        browser.wait_for(3),
        [
            "https://example.com/request-path",
            "https://modelcontextprotocol.io/",
            "https://example.com/error-path"
        ],
        "exactly one open per elicitation"
    );

    // py-peer: the request path (elicitation/create, or InputRequiredResult
    // on 2026-07-28) and -32042 with a completion.
    let ops = json!([
        call(
            "py__connect_account",
            json!({"url": "https://example.com/connect"})
        ),
        call(
            "py__needs_auth",
            json!({"url": "https://example.com/authorize"})
        ),
    ]);
    let py = lines(&py_app(&sb, "py-app", None, &ops).run());
    assert!(
        text(&py[0]["result"]).starts_with("action=accept"),
        "{:?}",
        py[0]
    );
    assert_eq!(text(&py[1]["result"]), "authorized", "{:?}", py[1]);
    let opened = browser.wait_for(5);
    assert_eq!(
        opened[3..],
        [
            "https://example.com/connect",
            "https://example.com/authorize"
        ]
    );

    // Each is Airlock's record, in its history.
    let records = sb.elicitations();
    assert_eq!(records.len(), 5, "{records:?}");
    drop(daemon);
}

#[test]
fn a_declined_elicitation_is_a_clear_tool_error_and_nothing_opens() {
    let sb = Sandbox::new();
    both_servers(&sb);
    let browser = BrowserRecorder::new(sb.dir());
    let daemon = Daemon::start(&sb, "decline", Some(&browser));
    let ops = json!([
        call(
            "everything__trigger-url-elicitation",
            json!({"url": "https://example.com/error-path", "elicitationId": "ep-2", "errorPath": true})
        ),
        call(
            "py__needs_auth",
            json!({"url": "https://example.com/authorize"})
        ),
        call(
            "py__connect_account",
            json!({"url": "https://example.com/connect"})
        ),
    ]);
    let ts = lines(&ts_app(&sb, "ts-app", Some("ts"), &ops).run());
    for r in &ts[..2] {
        let result = &r["result"];
        assert_eq!(result["isError"], true, "{r:?}");
        let t = text(result);
        assert!(t.starts_with("Airlock: "), "{t}");
        assert!(t.contains("declined"), "{t}");
        assert!(t.contains("not retried"), "{t}");
    }
    // On the request path the server hears "decline" and answers itself.
    assert!(
        text(&ts[2]["result"]).starts_with("action=decline"),
        "{:?}",
        ts[2]
    );
    assert!(browser.settle().is_empty(), "nothing may open");
    drop(daemon);
}

#[test]
fn consent_ask_without_a_window_refuses_and_says_to_open_airlock() {
    let sb = Sandbox::new();
    sb.add_py("py", &[]);
    let browser = BrowserRecorder::new(sb.dir());
    let daemon = Daemon::start(&sb, "ask", Some(&browser));
    let ops = json!([call(
        "py__needs_auth",
        json!({"url": "https://example.com/authorize"})
    )]);
    let ts = lines(&ts_app(&sb, "ts-app", None, &ops).run());
    assert_eq!(ts[0]["result"]["isError"], true, "{ts:?}");
    assert!(browser.settle().is_empty());
    let log = daemon.log();
    assert!(log.contains("open Airlock to approve"), "{log}");
    let records = sb.elicitations();
    assert_eq!(records[0]["state"], "declined", "{records:?}");
    drop(daemon);
}

#[test]
fn apps_attached_at_once_share_one_host_and_one_set_of_server_processes() {
    let sb = Sandbox::new();
    let spawns = sb.peer_out().join("spawns.txt");
    sb.add_py(
        "py",
        &[&format!("AIRLOCK_PEER_SPAWN_LOG={}", spawns.display())],
    );
    // No host runs: both shims race to start one; one wins, both attach to it.
    let ops = json!([
        call("py__echo", json!({"message": "one"})),
        {"op": "sleep", "ms": 1500},
        call("py__echo", json!({"message": "two"})),
    ]);
    let apps: Vec<_> = ["first", "second"]
        .into_iter()
        .map(|name| {
            let cmd = ts_app(&sb, name, Some(name), &ops);
            std::thread::spawn(move || cmd.run())
        })
        .collect();
    let outs: Vec<Out> = apps.into_iter().map(|h| h.join().expect("app")).collect();
    let pid = host_pid(&sb).expect("a host runs");
    for out in &outs {
        let v = lines(out);
        assert_eq!(text(&v[0]["result"]), "one", "{out:?}");
        assert_eq!(text(&v[2]["result"]), "two", "{out:?}");
    }
    let spawned = std::fs::read_to_string(&spawns).unwrap_or_default();
    assert_eq!(
        spawned.lines().count(),
        1,
        "one py-peer process for both apps: {spawned}"
    );
    // The host started by the shim is still there for the next app.
    let third = lines(
        &ts_app(
            &sb,
            "third",
            None,
            &json!([call("py__echo", json!({"message": "3"}))]),
        )
        .run(),
    );
    assert_eq!(text(&third[0]["result"]), "3");
    assert_eq!(host_pid(&sb), Some(pid));
    assert_eq!(std::fs::read_to_string(&spawns).unwrap().lines().count(), 1);
    let log = std::fs::read_to_string(sb.data.join("gateway.log")).unwrap_or_default();
    assert!(log.contains("serving"), "{log}");
    stop(pid);
    assert!(process_is_dead(pid));
}

#[test]
fn one_host_per_data_dir_with_a_private_socket() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let mode = std::fs::metadata(socket(&sb))
        .expect("socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    let second = sb.run(&["daemon"]);
    second.expect_code(1);
    assert!(
        second.stderr.contains("already running")
            && second.stderr.contains(&daemon.pid().to_string()),
        "{second:?}"
    );

    // Killed without cleaning up: its socket is stale, and a new host takes over.
    let pid = daemon.pid();
    let _ = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status();
    assert!(wait_for_exit(pid, Duration::from_secs(5)));
    assert!(socket(&sb).exists());
    drop(daemon);
    let again = Daemon::start(&sb, "accept", None);
    let v = lines(
        &ts_app(
            &sb,
            "app",
            None,
            &json!([call("everything__echo", json!({"message": "back"}))]),
        )
        .run(),
    );
    assert_eq!(text(&v[0]["result"]), "Echo: back");
    drop(again);
    assert!(!socket(&sb).exists(), "a clean stop removes the socket");
}

/// A server that adds a tool and says so (`notifications/tools/list_changed`
/// on 2025-11-25, a `subscriptions/listen` stream on 2026-07-28): the app
/// hears list_changed, sees `<server>__<new tool>` and can call it (the
/// servers' changes are set to notify only here; held changes are the rug
/// pull tests'). A server that floods the notice costs the app a few
/// list_changed, not thousands, and the host keeps answering.
#[test]
fn a_server_that_adds_a_tool_is_listed_again_on_both_revisions() {
    let sb = Sandbox::new();
    let (py, server) = (s(&py()), s(&py_server()));
    for (name, protocol) in [("new", "2026-07-28"), ("old", "2025-11-25")] {
        sb.run(&[
            "servers",
            "add",
            name,
            "--protocol",
            protocol,
            "--pins",
            "notify",
            "--command",
            &py,
            "--",
            &server,
            "stdio",
        ])
        .ok();
    }
    let daemon = Daemon::start(&sb, "accept", None);
    for server in ["new", "old"] {
        let fresh = format!("{server}__fresh_tool");
        let ops = json!([
            {"op": "tools"},
            call(&format!("{server}__grow"), json!({"name": "fresh_tool"})),
            {"op": "wait_list_changed", "timeout_ms": 20000},
            {"op": "tools"},
            call(&fresh, json!({})),
            // The flood: 2,000 notices in a row.
            call(&format!("{server}__churn"), json!({"times": 2000})),
            {"op": "sleep", "ms": 3000},
            {"op": "list_changes"},
            call(&format!("{server}__echo"), json!({"message": "still here"})),
        ]);
        let out = ts_app(&sb, "watcher", None, &ops).run();
        let v = lines(&out);
        assert!(!tool_names(&v[0]).contains(&fresh), "{server}: {out:?}");
        assert_eq!(
            text(&v[1]["result"]),
            "added fresh_tool",
            "{server}: {out:?}"
        );
        assert_eq!(v[2]["changed"], true, "{server}: {out:?}");
        assert!(tool_names(&v[3]).contains(&fresh), "{server}: {out:?}");
        assert_eq!(
            text(&v[4]["result"]),
            "I am fresh_tool",
            "{server}: {out:?}"
        );
        assert_eq!(text(&v[5]["result"]), "sent 2000", "{server}: {out:?}");
        let heard = v[7]["count"].as_u64().unwrap_or(u64::MAX);
        assert!(
            (1..=10).contains(&heard),
            "{server}: 2,001 notices became {heard} list_changed at the app"
        );
        assert_eq!(text(&v[8]["result"]), "still here", "{server}: {out:?}");
    }
    drop(daemon);
}

#[test]
fn list_changed_reaches_the_app_when_a_server_is_added() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    // The app says when it listens (a file), so the change cannot come first.
    let ready = sb.dir().join("watcher-ready");
    // server-everything says its tools changed once right after it
    // connects (it adds some after the handshake): wait for py's.
    let ops = json!([
        {"op": "tools"},
        {"op": "touch", "path": ready},
        {"op": "wait_tool", "name": "py__echo", "timeout_ms": 20000},
        {"op": "tools"},
        call("py__echo", json!({"message": "new server"})),
    ]);
    let app = {
        let cmd = ts_app(&sb, "watcher", None, &ops);
        std::thread::spawn(move || cmd.run())
    };
    wait_until("the app listens", Duration::from_secs(30), || {
        ready.exists().then_some(())
    });
    sb.add_py("py", &[]);
    let out = app.join().expect("app");
    let v = lines(&out);
    assert!(!tool_names(&v[0]).iter().any(|t| t.starts_with("py__")));
    assert_eq!(v[2]["found"], true, "{out:?}");
    assert_eq!(v[2]["changed"], true, "announced by list_changed: {out:?}");
    assert!(
        tool_names(&v[3]).contains(&"py__echo".to_owned()),
        "{out:?}"
    );
    assert_eq!(text(&v[4]["result"]), "new server");

    // Paused by another airlock process: its tools go away.
    std::fs::remove_file(&ready).ok();
    let ops = json!([
        {"op": "touch", "path": ready},
        {"op": "wait_tool", "name": "py__echo", "present": false, "timeout_ms": 20000},
        {"op": "tools"},
        call("py__echo", json!({"message": "x"})),
    ]);
    let app = {
        let cmd = ts_app(&sb, "watcher", None, &ops);
        std::thread::spawn(move || cmd.run())
    };
    wait_until("the app listens", Duration::from_secs(30), || {
        ready.exists().then_some(())
    });
    sb.run(&["servers", "pause", "py"]).ok();
    let out = app.join().expect("app");
    let v = lines(&out);
    assert_eq!(v[1]["found"], true, "{out:?}");
    assert_eq!(v[1]["changed"], true, "announced by list_changed: {out:?}");
    assert!(
        !tool_names(&v[2]).iter().any(|t| t.starts_with("py__")),
        "{out:?}"
    );
    assert_eq!(v[3]["error"]["code"], -32602, "{out:?}");
    drop(daemon);
}

/// Send raw bytes through the shim, then read what comes back (JSON lines).
#[test]
fn the_shim_without_a_host_and_without_starting_one_says_so() {
    let sb = Sandbox::new();
    let out = sb.run(&["gateway", "--stdio", "--no-start"]);
    out.expect_code(1);
    assert!(out.stderr.contains("no host"), "{out:?}");
    assert!(!Path::new(&socket(&sb)).exists());
}

/// Issue 34, item 6: a project's checked-in MCP config that runs the shim
/// with `--consent accept --open system` must not decide, for the host
/// every app shares, that URLs open without asking. The shim refuses the
/// flags, says why, and starts no host; the next app's shim starts one with
/// the person's default (ask; here no one can be asked, so it declines),
/// and the other app's URL elicitation opens nothing.
#[test]
fn an_apps_consent_flags_do_not_set_consent_for_the_shared_host() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let browser = BrowserRecorder::new(sb.dir());
    let trigger = |id: &str| {
        call(
            "everything__trigger-url-elicitation",
            json!({"url": format!("https://example.com/{id}"), "elicitationId": id}),
        )
    };

    // The project's app: its config passes the person's settings.
    let project = browser
        .apply(
            Cmd::new("node")
                .arg(peers_dir().join("gateway_client.mjs"))
                .args(["--name", "project-app", "--ops"])
                .arg(json!([{"op": "tools"}]).to_string())
                .arg("--")
                .args(shim_argv(
                    &sb,
                    Some("project-app"),
                    &["--consent", "accept", "--open", "system"],
                )),
        )
        .timeout(Duration::from_secs(60))
        .run();
    assert_ne!(
        project.code,
        Some(0),
        "the app's shim is refused: {project:?}"
    );
    assert!(
        project
            .stderr
            .contains("gateway --stdio does not take --consent or --open")
            && project.stderr.contains("not an app's"),
        "the app's log says why: {project:?}"
    );
    assert_eq!(
        host_pid(&sb),
        None,
        "no host was started with the app's flags"
    );

    // The same refusal, whichever flag and wherever it is written.
    let direct = sb.run(&["gateway", "--stdio", "--open", "print"]);
    direct.expect_code(2);
    assert!(direct.stderr.contains("does not take --open"), "{direct:?}");

    // Another app (its own config, no such flags): its URL elicitation is
    // asked about, never opened because a project said so.
    let other = browser
        .apply(ts_app(
            &sb,
            "other-app",
            Some("other-app"),
            &json!([trigger("other-1")]),
        ))
        .run();
    let v = lines(&other);
    let result = &v[0]["result"];
    assert!(
        !text(result).contains("\"action\": \"accept\""),
        "the server did not hear accept: {result:?}"
    );
    assert!(
        browser.settle().is_empty(),
        "nothing opened without asking: {:?}",
        browser.lines()
    );
    let record = sb.newest_elicitation();
    assert_eq!(record["url"], "https://example.com/other-1");
    assert_ne!(record["state"], "opened", "{record:#}");
    if let Some(pid) = host_pid(&sb) {
        stop(pid);
    }
}

/// Issue 34, item 8: a data folder someone opened up (0755) is made
/// private again at the next start, said on stderr and in the audit
/// trail; the shim does not attach to a socket another user owns (here a
/// listener chowned to `nobody`, which needs root: the test says so and
/// checks the folder alone otherwise).
#[test]
fn an_opened_data_folder_is_made_private_and_the_shim_refuses_another_users_socket() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(&sb.data).unwrap();
    std::fs::set_permissions(&sb.data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = sb.run(&["servers", "list"]);
    out.ok();
    let mode = std::fs::metadata(&sb.data).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "made private again");
    assert!(out.stderr.contains("made private again (0700)"), "{out:?}");
    assert!(
        sb.audit()
            .iter()
            .any(|e| e["kind"] == "data_dir_made_private"),
        "audited"
    );
    // Private already: nothing to say the next time.
    let again = sb.run(&["servers", "list"]);
    assert!(!again.stderr.contains("made private"), "{again:?}");

    // Another user's socket where the host's would be.
    let listener = std::os::unix::net::UnixListener::bind(socket(&sb)).unwrap();
    listener.set_nonblocking(true).unwrap();
    const NOBODY: u32 = 65534;
    if let Err(e) = std::os::unix::fs::chown(socket(&sb), Some(NOBODY), None) {
        eprintln!("not root ({e}): the socket's owner check is left to the unit test");
        return;
    }
    let shim = sb.run(&["gateway", "--stdio", "--no-start"]);
    shim.expect_code(1);
    assert!(
        shim.stderr.contains("is not your socket") && shim.stderr.contains("uid 65534"),
        "{shim:?}"
    );
    assert!(listener.accept().is_err(), "the shim never connected to it");
}
