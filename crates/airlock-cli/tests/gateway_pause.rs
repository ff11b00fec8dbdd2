//! Pausing a client (issue 13): a real app (the official TypeScript SDK
//! client, tests/peers/gateway_client.mjs) attached with
//! `airlock gateway --stdio --client cursor` to `airlock daemon` gets
//! "paused in Airlock" for its calls while paused, nothing reaches the
//! server (py-peer's log tool logs nothing), history records the refusal,
//! and resuming lets its calls through again.

mod common;

use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::gateway::ts_app;
use common::*;
use serde_json::{json, Value};

/// `airlock daemon`, stopped with SIGTERM when dropped.
struct Daemon(ChildGuard);

impl Daemon {
    fn start(sb: &Sandbox) -> Daemon {
        let d = Daemon(
            sb.cmd()
                .consent("decline")
                .arg("daemon")
                .spawn_daemon(Stdio::null()),
        );
        wait_until("the daemon's socket", Duration::from_secs(20), || {
            UnixStream::connect(sb.data.join("gateway.sock")).ok()
        });
        d
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.pid().to_string()])
            .status();
        let pid = self.0.pid();
        wait_until("the daemon to stop", Duration::from_secs(5), || {
            process_is_dead(pid).then_some(())
        });
    }
}

/// The TypeScript SDK app as `client`, running `ops`; one JSON value per op.
fn app(sb: &Sandbox, client: &str, ops: &Value) -> Vec<Value> {
    let out = ts_app(sb, "cursor-like", Some(client), ops).run();
    out.ok();
    out.json_lines()
}

fn logged(sb: &Sandbox, needle: &str) -> bool {
    sb.run(&["logs", "py"]).ok().stdout.contains(needle)
}

#[test]
fn a_paused_client_is_refused_recorded_and_resumed() {
    let sb = Sandbox::new();
    sb.add_py("py", &[]);
    let _daemon = Daemon::start(&sb);
    let log =
        |t: &str| json!({"op": "call", "name": "py__log_something", "arguments": {"text": t}});

    let before = app(&sb, "cursor", &json!([log("before-pause-1f3a")]));
    assert_eq!(text(&before[0]["result"]), "logged", "{before:?}");
    wait_until("the first log line", Duration::from_secs(10), || {
        logged(&sb, "before-pause-1f3a").then_some(())
    });

    // Paused: the CLI says so, and the app's next calls are refused.
    let out = sb.run(&["apps", "pause", "cursor"]);
    out.ok();
    let list = sb.run(&["apps", "list"]);
    let row = list
        .stdout
        .lines()
        .find(|l| l.starts_with("cursor"))
        .unwrap_or_default()
        .to_owned();
    assert!(row.contains("paused"), "{list:?}");
    let shown = sb.run(&["--json", "apps", "show", "cursor"]).ok().json();
    assert_eq!(shown["paused"], true, "{shown:?}");

    let paused = app(
        &sb,
        "cursor",
        &json!([log("while-paused-9c2e"), {"op": "read", "uri": "peer://greeting"}, {"op": "tools"}, {"op": "subscribe", "uri": "peer://greeting"}]),
    );
    assert_eq!(paused[0]["result"]["isError"], true, "{paused:?}");
    assert!(
        text(&paused[0]["result"]).contains("paused in Airlock"),
        "{paused:?}"
    );
    let read_error = paused[1]["error"]["message"].as_str().unwrap_or_default();
    assert!(read_error.contains("paused in Airlock"), "{paused:?}");
    let subscribe_error = paused[3]["error"]["message"].as_str().unwrap_or_default();
    assert!(subscribe_error.contains("paused in Airlock"), "{paused:?}");
    // It still sees its tools (so it can say why), it just cannot call them.
    assert!(
        paused[2]["tools"].to_string().contains("py__log_something"),
        "{paused:?}"
    );
    // Another app is not affected.
    let other = app(&sb, "zed", &json!([log("other-app-77aa")]));
    assert_eq!(text(&other[0]["result"]), "logged", "{other:?}");
    wait_until("the other app's log line", Duration::from_secs(10), || {
        logged(&sb, "other-app-77aa").then_some(())
    });
    assert!(
        !logged(&sb, "while-paused-9c2e"),
        "a paused call reached the server"
    );

    // History records the refusal under the client.
    let calls = sb.history(&["--app", "cursor"]);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0]["outcome"], "failed", "{calls:?}");
    assert!(calls[0]["error"]
        .as_str()
        .unwrap_or_default()
        .contains("paused in Airlock"));
    assert_eq!(calls[0]["tool"], "log_something");
    assert_eq!(calls[1]["outcome"], "ok");

    // Resumed: calls go through again.
    sb.run(&["apps", "resume", "cursor"]).ok();
    let shown = sb.run(&["--json", "apps", "show", "cursor"]).ok().json();
    assert_eq!(shown["paused"], false, "{shown:?}");
    let after = app(&sb, "cursor", &json!([log("after-resume-4b7d")]));
    assert_eq!(text(&after[0]["result"]), "logged", "{after:?}");
    wait_until("the log line after resume", Duration::from_secs(10), || {
        logged(&sb, "after-resume-4b7d").then_some(())
    });
    let kinds: Vec<String> = sb
        .audit()
        .iter()
        .filter_map(|e| e["kind"].as_str().map(str::to_owned))
        .collect();
    assert!(
        kinds.contains(&"client_paused".to_owned()) && kinds.contains(&"client_resumed".to_owned()),
        "{kinds:?}"
    );
    // A bad name is refused.
    sb.run(&["apps", "pause", "bad\nname"]).expect_code(2);
}
