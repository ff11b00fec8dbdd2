//! What crosses the gateway during a call, end to end: real apps (the
//! official TypeScript SDK client, tests/peers/gateway_client.mjs) attach
//! with `airlock gateway --stdio` to `airlock daemon`, in front of
//! server-everything and py-calls (tests/peers/py_calls.py, on the official
//! Python SDK): progress, cancellation.

mod common;

use std::time::Duration;

use common::gateway::*;
use common::*;
use serde_json::{json, Value};

fn progress_of(v: &Value) -> Vec<Value> {
    v["progress"].as_array().cloned().unwrap_or_default()
}

#[test]
fn progress_reaches_the_app_with_its_token_then_the_result() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let long = "everything__trigger-long-running-operation";
    let ops = json!([
        {"op": "call", "name": long, "arguments": {"duration": 1.5, "steps": 5}, "progress": true},
        // Without a progressToken the same call gets no progress, and works.
        {"op": "call", "name": long, "arguments": {"duration": 0.4, "steps": 2}},
    ]);
    let v = lines(&ts_app(&sb, "progress-app", Some("progress"), &ops).run());
    // The SDK hands a report to onprogress only when it carries the app's token.
    let reports = progress_of(&v[0]);
    assert!(reports.len() >= 3, "{v:?}");
    let values: Vec<f64> = reports
        .iter()
        .map(|r| r["progress"].as_f64().unwrap())
        .collect();
    assert!(
        values.windows(2).all(|w| w[0] < w[1]),
        "increasing: {values:?}"
    );
    assert!(reports.iter().all(|r| r["total"] == 5), "{reports:?}");
    assert!(
        text(&v[0]["result"]).contains("Long running operation completed"),
        "{v:?}"
    );
    // Each report came before the result.
    let done = v[0]["done_at_ms"].as_f64().unwrap();
    assert!(reports.iter().all(|r| r["at_ms"].as_f64().unwrap() <= done));
    assert!(text(&v[1]["result"]).contains("Steps: 2"), "{v:?}");
    assert!(v[1].get("progress").is_none());
    let rows = sb.history(&["--app", "progress"]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["outcome"] == "ok"), "{rows:?}");
    drop(daemon);
}

#[test]
fn a_server_flooding_progress_is_coalesced_checked_and_bounded() {
    let sb = Sandbox::new();
    add_py_calls(&sb, "calls", &[]);
    let daemon = Daemon::start(&sb, "accept", None);
    let ops = json!([
        {"op": "call", "name": "calls__flood_progress", "arguments": {"count": 3000}, "progress": true},
    ]);
    let t0 = std::time::Instant::now();
    let v = lines(&ts_app(&sb, "flood-app", None, &ops).run());
    let elapsed_ms = t0.elapsed().as_millis() as f64;
    assert_eq!(text(&v[0]["result"]), "flooded 3000", "{v:?}");
    let reports = progress_of(&v[0]);
    assert!(!reports.is_empty(), "{v:?}");
    // At most one report per 50 ms of the whole run (plus the first).
    assert!(
        (reports.len() as f64) <= elapsed_ms / 50.0 + 1.0 && reports.len() < 3000,
        "{} reports in {elapsed_ms} ms",
        reports.len()
    );
    let values: Vec<f64> = reports
        .iter()
        .map(|r| r["progress"].as_f64().unwrap())
        .collect();
    assert!(
        values.windows(2).all(|w| w[0] < w[1]),
        "backwards steps dropped: {values:?}"
    );
    for r in &reports {
        let m = r["message"].as_str().unwrap_or_default();
        assert!(!m.contains('\u{1b}'), "escape passed on: {m:?}");
        assert!(m.chars().count() <= 501, "{} chars", m.chars().count());
    }
    drop(daemon);
}

#[test]
fn an_app_cancelling_a_call_cancels_it_at_the_server_and_history_says_so() {
    let sb = Sandbox::new();
    let events_file = add_py_calls(&sb, "calls", &[]);
    let daemon = Daemon::start(&sb, "accept", None);
    let ops = json!([
        {"op": "call", "name": "calls__wait_for_cancel", "arguments": {"seconds": 30}, "abort_after_ms": 2000},
        {"op": "call", "name": "calls__flood_progress", "arguments": {"count": 1}},
    ]);
    let t0 = std::time::Instant::now();
    let v = lines(&ts_app(&sb, "cancel-app", Some("canceller"), &ops).run());
    assert!(
        t0.elapsed() < Duration::from_secs(25),
        "the cancelled call was waited for"
    );
    assert!(v[0]["error"].is_object(), "{v:?}");
    // The session goes on.
    assert_eq!(text(&v[1]["result"]), "flooded 1", "{v:?}");
    // The server got notifications/cancelled for Airlock's request.
    wait_until("the server saw the cancel", Duration::from_secs(10), || {
        events(&events_file)
            .contains(&"cancelled wait_for_cancel".to_owned())
            .then_some(())
    });
    assert!(!events(&events_file).contains(&"finished wait_for_cancel".to_owned()));
    common::gateway::assert_cancelled_row(&sb, "canceller", "wait_for_cancel");
    drop(daemon);
}

/// The TypeScript SDK app with extra flags (`--sampling TEXT`, `--roots ...`).
fn ts_app_with(sb: &Sandbox, name: &str, flags: &[&str], ops: &Value) -> Cmd {
    Cmd::new("node")
        .arg(peers_dir().join("gateway_client.mjs"))
        .args(["--name", name, "--ops", &ops.to_string()])
        .args(flags)
        .arg("--")
        .args(shim_argv(sb, Some(name), &[]))
        .timeout(Duration::from_secs(90))
}

#[test]
fn sampling_and_roots_go_to_the_app_whose_call_asked_if_it_declared_them() {
    let sb = Sandbox::new();
    // 2025-11-25: server-to-client requests during the call.
    add_py_calls(&sb, "calls", &["--protocol", "2025-11-25"]);
    let daemon = Daemon::start(&sb, "accept", None);
    let ops = json!([
        call("calls__ask_model", json!({"prompt": "what is six times seven?"})),
        call("calls__show_roots", json!({})),
        {"op": "samplings"},
    ]);
    let flags = [
        "--sampling",
        "forty-two",
        "--roots",
        "file:///home/ada/project,https://example.com/not-a-folder,file:///tmp/notes",
    ];
    let v = lines(&ts_app_with(&sb, "model-app", &flags, &ops).run());
    assert_eq!(
        text(&v[0]["result"]),
        "model said: forty-two (model test-model)",
        "{v:?}"
    );
    // Only file:// roots pass.
    assert_eq!(
        text(&v[1]["result"]),
        "file:///home/ada/project\nfile:///tmp/notes",
        "{v:?}"
    );
    let asked = v[2]["samplings"].as_array().expect("samplings");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        asked[0]["messages"][0]["content"]["text"], "what is six times seven?",
        "{asked:?}"
    );

    // An app that declared neither: the server gets a clear error, and no roots.
    let ops = json!([
        call("calls__ask_model", json!({"prompt": "anyone?"})),
        call("calls__show_roots", json!({})),
    ]);
    let v = lines(&ts_app_with(&sb, "plain-app", &[], &ops).run());
    assert_eq!(v[0]["result"]["isError"], true, "{v:?}");
    assert!(
        text(&v[0]["result"]).contains("does not offer sampling"),
        "{v:?}"
    );
    assert_eq!(text(&v[1]["result"]), "no roots", "{v:?}");
    drop(daemon);
}

#[test]
fn a_sampling_request_the_server_withdraws_is_cancelled_at_the_app() {
    let sb = Sandbox::new();
    let events_file = add_py_calls(&sb, "calls", &["--protocol", "2025-11-25"]);
    let daemon = Daemon::start(&sb, "accept", None);
    // The app's model never answers; the server gives up after 2 s (the
    // Python SDK then sends notifications/cancelled for its request).
    let ops = json!([
        call("calls__ask_model_briefly", json!({"prompt": "slow question", "seconds": 2})),
        {"op": "samplings", "timeout_ms": 10000},
    ]);
    let v = lines(&ts_app_with(&sb, "slow-model-app", &["--sampling-hang"], &ops).run());
    assert_eq!(
        text(&v[0]["result"]),
        "gave up waiting for the model",
        "{v:?}"
    );
    assert!(events(&events_file).contains(&"gave up on the model".to_owned()));
    let asked = v[1]["samplings"].as_array().expect("samplings");
    assert_eq!(asked.len(), 1, "the app was asked once: {v:?}");
    // The app heard that the request was withdrawn (its model can stop).
    let cancelled = v[1]["cancelled"].as_array().expect("cancelled");
    assert_eq!(cancelled.len(), 1, "the app was told: {v:?}");
    assert!(
        cancelled[0]
            .as_str()
            .unwrap_or_default()
            .contains("withdrew"),
        "{v:?}"
    );
    drop(daemon);
}

#[test]
fn a_form_the_server_withdraws_is_cancelled_at_the_app_and_recorded() {
    let sb = Sandbox::new();
    let events_file = add_py_calls(&sb, "calls", &["--protocol", "2025-11-25"]);
    let daemon = Daemon::start(&sb, "ask", None);
    // The app shows the form and its user never answers; the server gives up.
    let ops = json!([
        call("calls__ask_form_briefly", json!({"seconds": 2})),
        {"op": "elicitations", "timeout_ms": 10000},
    ]);
    let flags = ["--elicitation", "form-hang"];
    let v = lines(&ts_app_with(&sb, "form-app", &flags, &ops).run());
    assert_eq!(
        text(&v[0]["result"]),
        "gave up waiting for the form",
        "{v:?}"
    );
    assert!(events(&events_file).contains(&"gave up on the form".to_owned()));
    assert_eq!(
        v[1]["elicitations"].as_array().map(Vec::len),
        Some(1),
        "{v:?}"
    );
    // The app heard that the form was withdrawn (its form can close).
    let cancelled = v[1]["cancelled"].as_array().expect("cancelled");
    assert_eq!(cancelled.len(), 1, "the app was told: {v:?}");
    let record = &sb.elicitations()[0];
    assert_eq!(record["mode"], "form");
    // Ended unanswered because the server withdrew it (not a lost
    // connection): history says so, in plain words on the command line.
    assert_eq!(record["state"], "withdrawn", "{record}");
    let plain = sb.run(&["elicitations"]).ok().stdout.clone();
    assert!(plain.contains("withdrawn"), "{plain}");
    drop(daemon);
}

#[test]
fn server_logs_reach_the_apps_that_set_a_level_bounded_and_rate_limited() {
    let sb = Sandbox::new();
    // 2025-11-25: the server logs without a per-request opt-in.
    add_py_calls(&sb, "calls", &["--protocol", "2025-11-25"]);
    let daemon = Daemon::start(&sb, "accept", None);
    let noisy = "hello\u{1b}[2J";
    let listener = json!([
        {"op": "set_level", "level": "info"},
        call("calls__log_lines", json!({"count": 400, "text": noisy})),
        {"op": "sleep", "ms": 1500},
        {"op": "logs"},
    ]);
    let t0 = std::time::Instant::now();
    let v = lines(&ts_app_with(&sb, "log-app", &[], &listener).run());
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(text(&v[1]["result"]), "logged 400", "{v:?}");
    let logs = v[3]["logs"].as_array().expect("logs");
    assert!(!logs.is_empty(), "{v:?}");
    // A burst of 50, then 20 a second: far fewer than the 400 sent.
    assert!(
        (logs.len() as f64) <= 50.0 + 20.0 * secs + 1.0,
        "{} lines in {secs} s",
        logs.len()
    );
    for l in logs {
        assert_eq!(l["logger"], "calls", "{l}");
        assert_eq!(l["level"], "info", "{l}");
        let data = l["data"].as_str().expect("text");
        assert!(data.contains("hello"), "{data}");
        assert!(!data.contains('\u{1b}'), "escape passed on: {data:?}");
    }
    // An app that set no level gets none; one that asked for errors only gets none.
    for ops in [
        json!([call("calls__log_lines", json!({"count": 5, "text": "quiet"})), {"op": "sleep", "ms": 500}, {"op": "logs"}]),
        json!([{"op": "set_level", "level": "error"}, call("calls__log_lines", json!({"count": 5, "text": "quiet"})), {"op": "sleep", "ms": 500}, {"op": "logs"}]),
    ] {
        let v = lines(&ts_app_with(&sb, "quiet-app", &[], &ops).run());
        let logs = v.last().unwrap()["logs"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(logs.is_empty(), "{logs:?}");
    }
    drop(daemon);
}

#[test]
fn resource_templates_are_aggregated_and_completions_reach_the_right_server() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    add_py_calls(&sb, "calls", &[]);
    let daemon = Daemon::start(&sb, "accept", None);
    let template = "demo://resource/dynamic/text/{resourceId}";
    let ops = json!([
        {"op": "templates"},
        // A URI no listed resource has, read through the template it fits.
        {"op": "read", "uri": "demo://resource/dynamic/text/1"},
        {"op": "complete", "ref": {"type": "ref/prompt", "name": "everything__completable-prompt"},
         "argument": {"name": "department", "value": "Eng"}},
        {"op": "complete", "ref": {"type": "ref/prompt", "name": "everything__completable-prompt"},
         "argument": {"name": "name", "value": ""}, "context": {"arguments": {"department": "Sales"}}},
        {"op": "complete", "ref": {"type": "ref/resource", "uri": template},
         "argument": {"name": "resourceId", "value": "1"}},
        {"op": "complete", "ref": {"type": "ref/prompt", "name": "completable-prompt"},
         "argument": {"name": "department", "value": "E"}},
        {"op": "read", "uri": "nothing://here/1"},
    ]);
    let v = lines(&ts_app(&sb, "lists-app", Some("lists"), &ops).run());
    let templates = v[0]["templates"].as_array().expect("templates");
    assert!(templates.contains(&json!(template)), "{templates:?}");
    let read = &v[1]["result"]["contents"][0];
    assert_eq!(read["uri"], "demo://resource/dynamic/text/1", "{v:?}");
    assert!(
        read["text"].as_str().unwrap_or_default().contains('1'),
        "{v:?}"
    );
    assert_eq!(
        v[2]["result"]["completion"]["values"],
        json!(["Engineering"]),
        "{v:?}"
    );
    assert_eq!(
        v[3]["result"]["completion"]["values"],
        json!(["David", "Eve", "Frank"]),
        "{v:?}"
    );
    assert!(v[4]["result"]["completion"]["values"].is_array(), "{v:?}");
    // The server's own prompt name is not served: only the aggregated one.
    assert_eq!(v[5]["error"]["code"], -32602, "{v:?}");
    assert!(v[6]["error"].is_object(), "{v:?}");

    // A profile without the server hides its templates and completions.
    sb.run(&["apps", "add", "narrow"]).ok();
    sb.run(&["apps", "profile", "narrow", "--server", "calls"])
        .ok();
    let ops = json!([
        {"op": "templates"},
        {"op": "complete", "ref": {"type": "ref/prompt", "name": "everything__completable-prompt"},
         "argument": {"name": "department", "value": "Eng"}},
        {"op": "read", "uri": "demo://resource/dynamic/text/1"},
    ]);
    let v = lines(&ts_app(&sb, "narrow-app", Some("narrow"), &ops).run());
    assert!(!v[0]["templates"].to_string().contains("demo://"), "{v:?}");
    assert_eq!(v[1]["error"]["code"], -32602, "{v:?}");
    assert!(v[2]["error"].is_object(), "{v:?}");
    drop(daemon);
}
