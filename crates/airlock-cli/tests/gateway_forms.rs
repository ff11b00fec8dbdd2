//! Forms through the gateway, end to end: a form a server asks goes to the
//! app whose request raised it when that app can show it (the TypeScript SDK
//! app as a 2025-11-25 request, the Python SDK app as 2026-07-28 rounds),
//! during tool calls, prompts/get and resources/read; the app's answer is
//! checked against the form; another app cannot answer it; an app that
//! declares no forms gets Airlock's own consent. Apps, servers and daemon as
//! in gateway.rs.

mod common;

use std::time::Duration;

use common::gateway::*;
use common::*;
use serde_json::{json, Value};

/// The TypeScript app declaring form elicitation, answering every form
/// with `answer` as its content.
fn ts_form_app(sb: &Sandbox, answer: &Value, ops: &Value) -> Cmd {
    Cmd::new("node")
        .arg(peers_dir().join("gateway_client.mjs"))
        .args(["--name", "form-app", "--elicitation", "form"])
        .args(["--form-answer", &answer.to_string()])
        .args(["--ops", &ops.to_string(), "--"])
        .args(shim_argv(sb, Some("form-app"), &[]))
        .timeout(Duration::from_secs(90))
}

/// The Python SDK app (2026-07-28) declaring form elicitation, answering
/// every form with `answer`.
fn py_form_app(sb: &Sandbox, answer: &Value, ops: &Value) -> Cmd {
    Cmd::new(py())
        .arg(peers_dir().join("gateway_client.py"))
        .args(["--name", "py-form-app", "--elicitation", "form"])
        .args(["--form-answer", &answer.to_string()])
        .args(["--ops", &ops.to_string(), "--"])
        .args(shim_argv(sb, Some("py-form-app"), &[]))
        .timeout(Duration::from_secs(90))
}

/// A 2026-07-28 app has no server-to-client requests: a form reaches it as
/// its call's answer (an InputRequiredResult round, which the Python SDK
/// answers and retries by itself), and its answer is checked the same way.
#[test]
fn a_form_reaches_a_2026_app_in_rounds_and_its_answer_is_checked() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let ops = json!([
        {"op": "info"},
        call("everything__trigger-elicitation-request", json!({})),
        {"op": "elicitations"},
    ]);
    let good = json!({"name": "Ada", "check": true, "email": "ada@example.com", "integer": 7});
    let out = py_form_app(&sb, &good, &ops).run();
    let v = lines(&out);
    assert_eq!(v[0]["protocol"], "2026-07-28", "{out:?}");
    let t = text(&v[1]["result"]);
    assert!(
        t.contains("Name: Ada") && t.contains("Favorite Integer: 7"),
        "{out:?}"
    );
    let asked = &v[2]["elicitations"];
    assert_eq!(asked.as_array().map(Vec::len), Some(1), "{out:?}");
    assert_eq!(asked[0]["mode"], "form", "{asked}");
    assert_eq!(asked[0]["requestedSchema"]["required"], json!(["name"]));
    let record = &sb.elicitations()[0];
    assert_eq!(record["state"], "accepted", "{record}");
    assert_eq!(record["app"], "py-form-app", "{record}");

    // An answer that does not fit the form never reaches the server.
    let bad = json!({"name": "Ada", "integer": 500});
    let v = lines(&py_form_app(&sb, &bad, &ops).run());
    let t = text(&v[1]["result"]);
    assert!(t.contains("declined") && !t.contains("500"), "{t}");
    assert_eq!(sb.elicitations()[0]["state"], "declined");
    drop(daemon);
}

#[test]
fn a_form_goes_to_the_app_that_can_show_it_and_its_answer_is_checked() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let ops = json!([
        call("everything__trigger-elicitation-request", json!({})),
        {"op": "elicitations"},
    ]);

    // The app fills the form: the server gets its answer.
    let good = json!({"name": "Ada", "check": true, "email": "ada@example.com", "integer": 7});
    let v = lines(&ts_form_app(&sb, &good, &ops).run());
    let t = text(&v[0]["result"]);
    assert!(t.contains("User provided the requested information"), "{t}");
    assert!(
        t.contains("Name: Ada") && t.contains("Favorite Integer: 7"),
        "{t}"
    );
    let asked = &v[1]["elicitations"][0];
    assert_eq!(asked["mode"], "form", "{asked}");
    assert!(asked["message"]
        .as_str()
        .unwrap_or_default()
        .contains("Please provide inputs"));
    // Rebuilt from Airlock's parsed form: every field, titled options kept.
    let props = &asked["requestedSchema"]["properties"];
    assert_eq!(props.as_object().map(|p| p.len()), Some(13), "{asked}");
    assert_eq!(
        props["titledSingleSelectEnum"]["oneOf"][1]["title"],
        "Green Lantern"
    );
    assert_eq!(asked["requestedSchema"]["required"], json!(["name"]));
    let record = &sb.elicitations()[0];
    assert_eq!(record["mode"], "form");
    assert_eq!(record["state"], "accepted", "{record}");

    // An answer that does not fit the form never reaches the server.
    let bad = json!({"name": "Ada", "integer": 500});
    let v = lines(&ts_form_app(&sb, &bad, &ops).run());
    let t = text(&v[0]["result"]);
    assert!(t.contains("declined"), "{t}");
    assert!(!t.contains("500"), "{t}");
    let record = &sb.elicitations()[0];
    assert_eq!(record["state"], "declined", "{record}");

    // An app that declared no forms: Airlock's own consent answers (the
    // scripted accept fills defaults; `name` has none, so it declines).
    let v = lines(&ts_app(&sb, "plain", None, &ops).run());
    assert!(text(&v[0]["result"]).contains("declined"), "{v:?}");
    assert_eq!(sb.elicitations().len(), 3);
    drop(daemon);
}

/// An app declaring forms ([`ts_form_app`], [`py_form_app`]).
type FormApp = fn(&Sandbox, &Value, &Value) -> Cmd;

/// py-peer as server `py`, speaking `protocol` with Airlock.
fn add_py_on(sb: &Sandbox, protocol: &str) {
    let (py, server) = (s(&py()), s(&py_server()));
    sb.run(&[
        "servers",
        "add",
        "py",
        "--protocol",
        protocol,
        "--command",
        &py,
        "--",
        &server,
        "stdio",
    ])
    .ok();
}

/// The text of a prompt's first message, or of a resource's first contents.
fn said(v: &Value) -> String {
    let r = &v["result"];
    r["messages"][0]["content"]["text"]
        .as_str()
        .or_else(|| r["contents"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// Forms a server asks during an app's prompts/get and resources/read reach
/// that app like a tool call's do, whichever revision the server and the
/// app speak (py-peer's `introduce` prompt and `peer://profile/{who}`
/// template ask one first): a request to the TypeScript app (2025-11-25), a
/// round of the request to the Python app (2026-07-28). The answer is
/// checked; an app that declares no forms gets Airlock's own.
#[test]
fn forms_during_prompts_and_resource_reads_reach_the_app_on_both_revisions() {
    let ops = json!([
        {"op": "prompt", "name": "py__introduce"},
        {"op": "read", "uri": "peer://profile/ada"},
        {"op": "elicitations"},
    ]);
    let good = json!({"name": "Ada", "age": 36});
    let bad = json!({"name": "Ada", "age": 500});
    for protocol in ["2026-07-28", "2025-11-25"] {
        let sb = Sandbox::new();
        add_py_on(&sb, protocol);
        let daemon = Daemon::start(&sb, "accept", None);
        let apps: [(&str, FormApp); 2] = [("form-app", ts_form_app), ("py-form-app", py_form_app)];
        for (client, app) in apps {
            let out = app(&sb, &good, &ops).run();
            let v = lines(&out);
            let at = format!("{client} with a {protocol} server: {out:?}");
            assert_eq!(said(&v[0]), "Please introduce Ada, aged 36.", "{at}");
            assert_eq!(said(&v[1]), "ada: Ada (36)", "{at}");
            let asked = v[2]["elicitations"].as_array().expect("elicitations");
            assert_eq!(asked.len(), 2, "{at}");
            // Which server asks is said first, in Airlock's words.
            assert_eq!(asked[0]["message"], "py asks: Who should be introduced?");
            assert_eq!(asked[1]["message"], "py asks: Fill in the profile of ada");
            assert_eq!(
                asked[1]["requestedSchema"]["required"],
                json!(["name", "age"])
            );
            let records = sb.elicitations();
            for r in &records[..2] {
                assert_eq!(r["mode"], "form", "{r}");
                assert_eq!(r["state"], "accepted", "{r}");
                assert_eq!(r["app"], client, "{r}");
            }

            // An answer outside the form never reaches the server: declined.
            let out = app(&sb, &bad, &ops).run();
            let v = lines(&out);
            assert_eq!(
                said(&v[0]),
                "No introduction: the form was decline.",
                "{out:?}"
            );
            assert_eq!(said(&v[1]), "no profile: the form was decline", "{out:?}");
            assert_eq!(v[2]["elicitations"].as_array().map(Vec::len), Some(2));
            let records = sb.elicitations();
            assert!(
                records[..2].iter().all(|r| r["state"] == "declined"),
                "{records:?}"
            );
        }

        // An app that declared no forms: Airlock's consent answers (the
        // scripted accept fills defaults; the fields have none: declined).
        let out = ts_app(
            &sb,
            "plain",
            Some("plain"),
            &json!([
                {"op": "prompt", "name": "py__introduce"},
                {"op": "read", "uri": "peer://profile/ada"},
            ]),
        )
        .run();
        let v = lines(&out);
        assert_eq!(
            said(&v[0]),
            "No introduction: the form was decline.",
            "{out:?}"
        );
        assert_eq!(said(&v[1]), "no profile: the form was decline", "{out:?}");
        let records = sb.elicitations();
        assert_eq!(records.len(), 10, "{records:?}");
        assert!(records[..2]
            .iter()
            .all(|r| r["app"] == "plain" && r["state"] == "declined"));
        drop(daemon);
    }
}

/// A form's requestState is the app's own: another app that got hold of it
/// cannot answer the form (nor resume anything else with it), and its try
/// does not end the request; the app it was given to answers it once.
#[test]
fn another_app_cannot_answer_a_form_given_to_a_2026_app() {
    let sb = Sandbox::new();
    sb.add_py("py", &[]);
    let daemon = Daemon::start(&sb, "accept", None);
    let state = sb.dir().join("state");
    let (a_ready, b_done) = (sb.dir().join("a-ready"), sb.dir().join("b-done"));
    let owner_ops = json!([
        {"op": "prompt_round", "name": "py__introduce", "state_file": state},
        {"op": "touch", "path": a_ready},
        {"op": "wait_file", "path": b_done, "timeout_ms": 60000},
        {"op": "prompt_retry", "name": "py__introduce", "state_file": state, "answer": {"name": "Ada", "age": 36}},
        {"op": "prompt_retry", "name": "py__introduce", "state_file": state, "answer": {"name": "Ada", "age": 37}},
    ]);
    let owner = {
        let cmd = py_form_app(&sb, &json!({}), &owner_ops);
        std::thread::spawn(move || cmd.run())
    };
    let stolen = json!({"form": {"action": "accept", "content": {"name": "Mallory", "age": 1}}});
    let thief_ops = json!([
        {"op": "wait_file", "path": a_ready, "timeout_ms": 60000},
        {"op": "prompt", "name": "py__introduce", "state_file": state, "input_responses": stolen},
        {"op": "read", "uri": "peer://profile/x", "state_file": state, "input_responses": stolen},
        {"op": "call", "name": "py__echo", "arguments": {"message": "x"}, "state_file": state, "input_responses": stolen},
        {"op": "touch", "path": b_done},
    ]);
    let thief = lines(&ts_form_app(&sb, &json!({}), &thief_ops).run());
    for tried in &thief[1..4] {
        assert_eq!(tried["error"]["code"], -32602, "{thief:?}");
        let why = tried["error"]["message"].as_str().unwrap_or_default();
        assert!(why.contains("requestState is unknown"), "{why}");
    }
    let out = owner.join().expect("owner app");
    let v = lines(&out);
    let form = &v[0]["input_required"]["inputRequests"]["form"]["params"];
    assert_eq!(
        form["message"], "py asks: Who should be introduced?",
        "{out:?}"
    );
    assert_eq!(said(&v[3]), "Please introduce Ada, aged 36.", "{out:?}");
    // Used once.
    assert_eq!(v[4]["error"]["code"], -32602, "{out:?}");
    let records = sb.elicitations();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["state"], "accepted");
    assert_eq!(records[0]["app"], "py-form-app");
    assert!(!format!("{thief:?}{out:?}").contains("Mallory, aged"));
    drop(daemon);
}

/// While two apps have requests in flight on one server, a form it asks
/// goes to the app whose request raised it when the protocol says which
/// (a 2026-07-28 input round of that request), and to neither when it does
/// not (a 2025-11-25 request-path form): then Airlock's consent answers it.
/// A hostile server cannot steer one app's form to another by timing it.
#[test]
fn a_form_while_two_apps_wait_on_one_server_goes_only_where_it_belongs() {
    for (protocol, goes_to_b) in [("2026-07-28", true), ("2025-11-25", false)] {
        let sb = Sandbox::new();
        sb.run(&[
            "servers",
            "add",
            "py",
            "--protocol",
            protocol,
            "--command",
            &s(&py()),
            "--",
            &s(&py_server()),
            "stdio",
        ])
        .ok();
        let daemon = Daemon::start(&sb, "accept", None);
        let (a_ready, b_done) = (sb.dir().join("a-ready"), sb.dir().join("b-done"));
        // A shows its form and its user never answers: its prompt stays in flight.
        let waiting_ops = json!([
            {"op": "start", "key": "p", "prompt": "py__introduce"},
            {"op": "sleep", "ms": 1500},
            {"op": "elicitations"},
            {"op": "touch", "path": a_ready},
            {"op": "wait_file", "path": b_done, "timeout_ms": 60000},
        ]);
        let waiting = {
            let cmd = Cmd::new("node")
                .arg(peers_dir().join("gateway_client.mjs"))
                .args(["--name", "waiting-app", "--elicitation", "form-hang"])
                .args(["--ops", &waiting_ops.to_string(), "--"])
                .args(shim_argv(&sb, Some("waiting-app"), &[]))
                .timeout(Duration::from_secs(90));
            std::thread::spawn(move || cmd.run())
        };
        let ops = json!([
            {"op": "wait_file", "path": a_ready, "timeout_ms": 60000},
            {"op": "read", "uri": "peer://profile/b"},
            {"op": "elicitations"},
            {"op": "touch", "path": b_done},
        ]);
        let good = json!({"name": "Bea", "age": 30});
        let v = lines(&ts_form_app(&sb, &good, &ops).run());
        let out = waiting.join().expect("waiting app");
        let w = lines(&out);
        assert_eq!(
            w[2]["elicitations"].as_array().map(Vec::len),
            Some(1),
            "{protocol}: A was asked its own form: {out:?}"
        );
        let b = sb
            .elicitations()
            .into_iter()
            .find(|r| {
                r["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("profile of b"))
            })
            .unwrap_or_else(|| panic!("{protocol}: B's form record: {:?}", sb.elicitations()));
        if goes_to_b {
            assert_eq!(b["app"], "form-app", "{protocol}: {b}");
            assert_eq!(said(&v[1]), "b: Bea (30)", "{protocol}: {v:?}");
            let asked = v[2]["elicitations"].as_array().cloned().unwrap_or_default();
            assert_eq!(
                asked.len(),
                1,
                "{protocol}: B was asked its own form: {v:?}"
            );
            assert_eq!(asked[0]["message"], "py asks: Fill in the profile of b");
            assert_eq!(b["state"], "accepted", "{protocol}: {b}");
        } else {
            assert_eq!(
                said(&v[1]),
                "no profile: the form was decline",
                "{protocol}: {v:?}"
            );
            assert_eq!(
                v[2]["elicitations"],
                json!([]),
                "{protocol}: B was not asked: {v:?}"
            );
            assert_eq!(b["state"], "declined", "{protocol}: Airlock's consent: {b}");
            // Airlock's consent was told who might have asked.
            let who = b["app"].as_str().unwrap_or_default();
            assert!(who.starts_with("one of: "), "{protocol}: {b}");
        }
        drop(daemon);
    }
}
