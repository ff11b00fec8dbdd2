//! A server the user pauses is disconnected and asks nothing until resumed;
//! the pause is remembered across processes. Real server-everything.

mod common;

use common::*;

#[test]
fn a_paused_server_is_not_connected_until_resumed() {
    let sb = Sandbox::new();
    sb.add_everything("noisy");
    sb.run(&["call", "noisy", "echo", "--args", r#"{"message":"before"}"#])
        .ok();
    let paused = sb.run(&["servers", "pause", "noisy"]);
    paused.ok();
    assert!(paused.stdout.contains("paused noisy"), "{paused:?}");
    // Remembered: a new process refuses to connect it, and says how to resume.
    let call = sb.run(&["call", "noisy", "echo", "--args", r#"{"message":"while"}"#]);
    call.expect_code(1);
    assert!(
        call.stderr.contains("is paused") && call.stderr.contains("servers resume"),
        "{call:?}"
    );
    let show = sb.run(&["--json", "servers", "show", "noisy"]).ok().json();
    assert_eq!(show["paused"], true);
    let text = sb.run(&["servers", "show", "noisy"]);
    assert!(text.stdout.contains("paused:    yes"), "{text:?}");
    let audit = sb.audit();
    assert!(
        audit.iter().any(|e| e["kind"] == "server_paused"),
        "{audit:?}"
    );

    sb.run(&["servers", "resume", "noisy"]).ok();
    let after = sb.run(&["call", "noisy", "echo", "--args", r#"{"message":"after"}"#]);
    after.ok();
    assert!(after.stdout.contains("after"), "{after:?}");
    // The refused call is in history as failed, with the reason.
    let history = sb.history(&[]);
    assert!(
        history.iter().any(|h| h["outcome"] == "failed"
            && h["error"].as_str().is_some_and(|e| e.contains("paused"))),
        "{history:#?}"
    );
    // Unknown servers are a usage error.
    sb.run(&["servers", "pause", "nope"]).expect_code(2);
}
