//! URL-mode elicitation that must finish before a call can go on, end to
//! end: the -32042 error path with its late/continue/loop-guard/expiry
//! handling, completion notifications (2025-11-25), InputRequiredResult
//! retries (2026-07-28), and the terminal's controls while a completion is
//! late. The request path is in url_elicitation.rs.
//!
//! Peers: server-everything speaks 2025-11-25 (`trigger-url-elicitation`,
//! never sends a completion). py-peer negotiates 2026-07-28 with Airlock; behind
//! `tests/common/legacy_stdio_proxy.py` it is a 2025-11-25 server that sends
//! `notifications/elicitation/complete` 0.5 s after an accepted elicitation.

mod common;

use std::time::Duration;

use common::*;

/// server-everything's error path: -32042 names a prerequisite URL
/// (https://modelcontextprotocol.io); the retry asks for `url`.
fn error_path(url: &str) -> String {
    serde_json::json!({"url": url, "errorPath": true}).to_string()
}

/// server-everything's error path: -32042 names a prerequisite URL
/// (https://modelcontextprotocol.io) and never sends a completion. With
/// --late-after 1 the elicitation goes late, FixedConsent continues, the call
/// is retried once, and the retry takes the request path for the real URL.
#[test]
fn error_path_goes_late_then_continues_and_retries() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let url = "https://example.com/err";
    let out = sb
        .cmd()
        .consent("accept")
        .open("none")
        .deadlines("1", "5")
        .call("everything", URL_TRIGGER, &error_path(url))
        .run();
    out.ok();
    assert!(
        out.stdout
            .contains("User completed the URL elicitation flow"),
        "{out:?}"
    );
    assert!(
        out.elapsed >= Duration::from_secs(1),
        "waited for the late deadline: {out:?}"
    );

    let records = sb.elicitations();
    assert_eq!(records.len(), 2, "{records:#?}");
    let (retry, prerequisite) = (&records[0], &records[1]);
    assert_eq!(prerequisite["origin"], "required_error");
    assert_eq!(prerequisite["url"], "https://modelcontextprotocol.io/");
    assert_eq!(
        prerequisite["registrable_domain"],
        "modelcontextprotocol.io"
    );
    assert!(prerequisite["elicitation_id"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    assert_eq!(prerequisite["state"], "continued");
    assert_eq!(
        sb.states_of(id_of(prerequisite)),
        ["requested", "accepted", "opened", "late", "continued"]
    );
    assert_eq!(retry["origin"], "request");
    assert_eq!(retry["url"], url);
    assert_eq!(
        sb.states_of(id_of(retry)),
        ["requested", "accepted", "opened"]
    );

    let calls = sb.history(&[]);
    assert_eq!(
        calls.len(),
        1,
        "one call in history, however many rounds: {calls:#?}"
    );
    assert_eq!(calls[0]["outcome"], "ok");
}
#[test]
fn error_path_declined_is_not_retried() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let out = sb
        .cmd()
        .consent("decline")
        .call(
            "everything",
            URL_TRIGGER,
            &error_path("https://example.com/err"),
        )
        .run();
    out.expect_code(1);
    assert!(out.stderr.contains("declined"), "{out:?}");
    assert!(out.stderr.contains("not retried"), "{out:?}");
    let records = sb.elicitations();
    assert_eq!(
        records.len(),
        1,
        "no retry, no second elicitation: {records:#?}"
    );
    assert_eq!(records[0]["state"], "declined");
    let calls = sb.history(&[]);
    assert_eq!(calls[0]["outcome"], "failed");
}
/// py-peer's needs_auth with completions switched off asks for the same URL
/// again after every retry: the loop guard stops it.
#[test]
fn loop_guard_stops_a_server_that_asks_for_the_same_url_again() {
    let sb = Sandbox::new();
    sb.add_py("py", &["AIRLOCK_PEER_COMPLETE_DELAY=-1"]);
    let url = "https://example.com/auth";
    let out = sb
        .cmd()
        .consent("accept")
        .open("none")
        .deadlines("1", "5")
        .call("py", "needs_auth", &url_args(url))
        .run();
    out.expect_code(1);
    assert!(out.stderr.contains("same page"), "{out:?}");
    // Never the address in the error (it may reach an app through the
    // gateway); the record below keeps it.
    assert!(!out.stderr.contains(url), "{out:?}");
    assert!(out.elapsed < Duration::from_secs(15), "{out:?}");

    let records = sb.elicitations();
    assert_eq!(
        records.len(),
        1,
        "the repeated URL is not offered again: {records:#?}"
    );
    assert_eq!(records[0]["origin"], "required_error");
    assert_eq!(records[0]["url"], url, "the record keeps the address");
    assert_eq!(
        sb.states_of(id_of(&records[0])),
        ["requested", "accepted", "opened", "late", "continued"]
    );
    let calls = sb.history(&[]);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["outcome"], "failed");
    assert!(calls[0]["error"]
        .as_str()
        .unwrap_or_default()
        .contains("same page"));
}
/// 2025-11-25 with a completion notification: py-peer behind the legacy proxy.
#[test]
fn completion_notification_finishes_the_error_path_on_2025_11_25() {
    let sb = Sandbox::new();
    sb.add_py_legacy("py-legacy", &[]);
    let conn = sb.run(&["--json", "connect", "py-legacy"]);
    conn.ok();
    assert_eq!(
        conn.json()["info"]["protocol_version"],
        "2025-11-25",
        "{conn:?}"
    );

    let url = "https://example.com/auth";
    let out = sb
        .cmd()
        .consent("accept")
        .open("none")
        .args(["--late-after", "30"])
        .call("py-legacy", "needs_auth", &url_args(url))
        .run();
    out.ok();
    assert_eq!(out.stdout.trim(), "authorized", "{out:?}");
    assert!(
        out.elapsed < Duration::from_secs(15),
        "did not wait for the late deadline: {out:?}"
    );

    let record = sb.newest_elicitation();
    assert_eq!(record["origin"], "required_error");
    assert_eq!(record["url"], url);
    assert_eq!(record["state"], "completed");
    assert_eq!(
        sb.states_of(id_of(&record)),
        ["requested", "accepted", "opened", "completed"]
    );
    let completed = sb
        .audit()
        .into_iter()
        .find(|e| e["detail"]["state"] == "completed")
        .expect("completed audit event");
    assert_eq!(completed["detail"]["by"], "notification");

    // The request path on 2025-11-25 carries the server's elicitationId.
    let out = sb
        .cmd()
        .consent("accept")
        .open("none")
        .call("py-legacy", "connect_account", &url_args(url))
        .run();
    out.ok();
    let text = out.stdout.trim();
    let id = text
        .strip_prefix("action=accept id=")
        .unwrap_or_else(|| panic!("accepted: {out:?}"));
    let record = sb.newest_elicitation();
    assert_eq!(record["origin"], "request");
    assert_eq!(record["elicitation_id"], id);
    assert!(
        record["state"] == "opened" || record["state"] == "completed",
        "{record:#}"
    );
}
/// py-peer spoken to directly: Airlock and py-peer agree on 2026-07-28, where
/// the elicitation rides an InputRequiredResult and the call is retried.
#[test]
fn input_required_result_is_answered_and_retried_on_2026_07_28() {
    let sb = Sandbox::new();
    sb.add_py("py", &[]);
    let conn = sb.run(&["--json", "connect", "py"]);
    conn.ok();
    let rev = conn.json()["info"]["protocol_version"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        rev, "2026-07-28",
        "py-peer and Airlock both prefer 2026-07-28 (the 2025-11-25 paths are tested through the legacy proxy)"
    );
    let url = "https://example.com/connect";

    let accept = sb
        .cmd()
        .consent("accept")
        .open("none")
        .call("py", "connect_account", &url_args(url))
        .run();
    accept.ok();
    assert!(
        accept.stdout.trim().starts_with("action=accept id="),
        "the retry returned the real result: {accept:?}"
    );
    let record = sb.newest_elicitation();
    assert_eq!(record["origin"], "input_required");
    assert!(
        record["elicitation_id"].is_null(),
        "no elicitationId in 2026-07-28: {record:#}"
    );
    assert_eq!(
        sb.states_of(id_of(&record)),
        ["requested", "accepted", "opened", "continued"]
    );

    for (consent, state) in [("decline", "declined"), ("cancel", "cancelled")] {
        let out = sb
            .cmd()
            .consent(consent)
            .call("py", "connect_account", &url_args(url))
            .run();
        out.ok();
        assert!(
            out.stdout
                .trim()
                .starts_with(&format!("action={consent} id=")),
            "{out:?}"
        );
        let record = sb.newest_elicitation();
        assert_eq!(sb.states_of(id_of(&record)), ["requested", state]);
    }

    // -32042 on 2026-07-28: no completion notification exists, so the
    // accepted elicitation goes late, is continued, and the retry succeeds.
    let out = sb
        .cmd()
        .consent("accept")
        .open("none")
        .deadlines("1", "10")
        .call("py", "needs_auth", &url_args(url))
        .run();
    out.ok();
    assert_eq!(out.stdout.trim(), "authorized", "{out:?}");
    let record = sb.newest_elicitation();
    assert_eq!(record["origin"], "required_error");
    assert_eq!(
        sb.states_of(id_of(&record)),
        ["requested", "accepted", "opened", "late", "continued"]
    );
    let calls = sb.history(&["--server", "py"]);
    let outcomes: Vec<&str> = calls
        .iter()
        .map(|c| c["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["ok", "ok", "ok", "ok"]);
}
/// The manual controls when a completion is late: Enter continues (retry),
/// `c` cancels the original call.
#[test]
fn terminal_continue_and_cancel_when_completion_is_late() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let trigger = error_path("https://example.com/err");
    let run = |input: &'static str| {
        sb.cmd()
            .consent("ask")
            .open("none")
            .deadlines("1", "20")
            .call("everything", URL_TRIGGER, &trigger)
            .stdin(input)
            .run()
    };

    // y (open the prerequisite), Enter (done), y (open the retry's URL).
    let cont = run("y\n\ny\n");
    cont.ok();
    assert!(
        cont.stderr
            .contains("Still waiting for modelcontextprotocol.io."),
        "{cont:?}"
    );
    assert!(
        cont.stdout
            .contains("User completed the URL elicitation flow"),
        "{cont:?}"
    );
    let records = sb.elicitations();
    assert_eq!(
        sb.states_of(id_of(&records[1])),
        ["requested", "accepted", "opened", "late", "continued"]
    );
    assert_eq!(records[0]["state"], "opened");

    let sb2 = Sandbox::new();
    sb2.add_everything("everything");
    let cancel = sb2
        .cmd()
        .consent("ask")
        .open("none")
        .args(["--late-after", "1"])
        .call("everything", URL_TRIGGER, &trigger)
        .stdin("y\nc\n")
        .run();
    cancel.expect_code(1);
    assert!(
        cancel.stderr.contains("cancelled while waiting"),
        "{cancel:?}"
    );
    let records = sb2.elicitations();
    assert_eq!(records.len(), 1, "not retried: {records:#?}");
    assert_eq!(
        sb2.states_of(id_of(&records[0])),
        ["requested", "accepted", "opened", "late", "cancelled"]
    );
}
/// A -32042 elicitation accepted at the terminal prompt, which then stays
/// silent for `hold`; late after 1 s, given up after 2 s.
fn accepted_then_silent(sb: &Sandbox, hold: Duration) -> Out {
    sb.cmd()
        .consent("ask")
        .open("none")
        .deadlines("1", "2")
        .call(
            "everything",
            URL_TRIGGER,
            &error_path("https://example.com/err"),
        )
        .stdin("y\n")
        .hold_stdin(hold)
        .run()
}
/// Nobody answers the "are you done?" prompt and no completion comes: after
/// --give-up-after the elicitation expires and the call fails, not retried.
#[test]
fn an_unanswered_late_elicitation_expires_at_the_deadline() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    // Keep the terminal silent past the deadline (see the test below for
    // why it is not held much longer).
    let out = accepted_then_silent(&sb, Duration::from_secs(6));
    out.expect_code(1);
    assert!(out.stderr.contains("no completion within 2 s"), "{out:?}");
    assert!(out.elapsed >= Duration::from_secs(2), "{out:?}");
    let records = sb.elicitations();
    assert_eq!(records.len(), 1, "not retried: {records:#?}");
    assert_eq!(
        sb.states_of(id_of(&records[0])),
        ["requested", "accepted", "opened", "late", "expired"]
    );
    assert_eq!(sb.history(&[])[0]["outcome"], "failed");
}
/// When Airlock gives up waiting for a completion it reports the error and
/// exits; it must not keep the user's terminal until they press Enter.
#[test]
fn giving_up_exits_without_waiting_for_the_terminal() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let out = accepted_then_silent(&sb, Duration::from_secs(12));
    out.expect_code(1);
    assert!(out.stderr.contains("no completion within 2 s"), "{out:?}");
    assert_eq!(sb.newest_elicitation()["state"], "expired");
    assert!(
        out.elapsed < Duration::from_secs(7),
        "exited about 2 s after the deadline, not when stdin closed: {out:?}"
    );
}
