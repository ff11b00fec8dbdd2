//! Form-mode elicitation end to end: the real `airlock` binary answering
//! forms from real servers, scripted (`--consent accept|decline|cancel`:
//! the server's defaults, validated) and typed into the terminal form (piped
//! stdin), on both protocol revisions, plus schemas outside the subset.
//!
//! Peers: server-everything (`trigger-elicitation-request`: a form with every
//! schema type, `name` required without a default; 2025-11-25 request path)
//! and `tests/forms_peer.py` (official Python SDK; `ask(schema)` sends the
//! raw schema it is given and returns the answer as JSON). Airlock talks
//! 2026-07-28 to forms-peer (the form rides an `InputRequiredResult`); behind
//! `tests/common/legacy_stdio_proxy.py` forms-peer is a 2025-11-25 server
//! (an `elicitation/create` request during the call).

mod common;

use std::path::PathBuf;

use common::*;
use serde_json::{json, Value};

const TRIGGER: &str = "trigger-elicitation-request";

fn forms_peer() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/forms_peer.py");
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// forms-peer over stdio: `modern` speaks 2026-07-28 with Airlock,
/// `legacy` goes through the 2025-11-25-only proxy.
fn add_forms_peers(sb: &Sandbox) {
    sb.run(&[
        "servers",
        "add",
        "modern",
        "--command",
        &s(&py()),
        "--",
        &s(&forms_peer()),
        "stdio",
    ])
    .ok();
    sb.run(&[
        "servers",
        "add",
        "legacy",
        "--command",
        "python3",
        "--",
        &s(&legacy_proxy()),
        &s(&py()),
        &s(&forms_peer()),
        "stdio",
    ])
    .ok();
}

fn ask_args(schema: &Value) -> String {
    json!({ "schema": schema.to_string() }).to_string()
}

/// server-everything's `Raw result: {...}`: what Airlock sent.
fn raw_result(text: &str) -> Value {
    let at = text.find("Raw result:").expect("a raw result") + "Raw result:".len();
    serde_json::from_str(text[at..].trim()).expect("raw result JSON")
}

/// `--json call` -> (every JSON line, the tool result of the last one).
fn json_call(out: &Out) -> (Vec<Value>, Value) {
    let lines = out.json_lines();
    let last = lines.last().expect("a result line").clone();
    (lines, last["result"].clone())
}

/// A form with every type of the subset, every field with a default.
fn every_type_with_defaults() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50, "default": "Ada"},
            "email": {"type": "string", "format": "email", "default": "ada@example.org"},
            "site": {"type": "string", "format": "uri", "default": "https://example.org/ada"},
            "born": {"type": "string", "format": "date", "default": "1815-12-10"},
            "at": {"type": "string", "format": "date-time", "default": "2025-01-02T03:04:05Z"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 36},
            "score": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.75},
            "agree": {"type": "boolean", "default": false},
            "color": {"type": "string", "enum": ["red", "green"], "default": "green"},
            "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}], "default": "h2"},
            "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cat", "Dog"], "default": "p1"},
            "tools": {"type": "array", "items": {"type": "string", "enum": ["saw", "drill", "hammer"]}, "minItems": 1, "maxItems": 2, "default": ["drill", "saw"]},
            "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2", "title": "Cod"}]}, "default": ["f2"]}
        },
        "required": ["name", "age", "agree"]
    })
}

fn defaults_of(schema: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for (k, v) in schema["properties"].as_object().unwrap() {
        if let Some(d) = v.get("default") {
            out.insert(k.clone(), d.clone());
        }
    }
    Value::Object(out)
}

#[test]
fn consent_accept_sends_the_defaults_of_every_type_on_both_protocols() {
    let sb = Sandbox::new();
    add_forms_peers(&sb);
    let schema = every_type_with_defaults();
    for (server, origin) in [("modern", "input_required"), ("legacy", "request")] {
        let out = sb
            .cmd()
            .consent("accept")
            .arg("--json")
            .call(server, "ask", &ask_args(&schema))
            .run();
        out.ok();
        let (lines, result) = json_call(&out);
        let answer: Value = serde_json::from_str(&text(&result)).expect("peer JSON");
        assert_eq!(
            answer,
            json!({"action": "accept", "content": defaults_of(&schema)}),
            "{server}: every value round-trips unchanged: {out:?}"
        );

        // --json: the request and the answer are JSON lines too.
        let request = lines
            .iter()
            .find(|l| l["event"] == "form_request")
            .unwrap_or_else(|| panic!("form_request line: {out:?}"));
        assert_eq!(request["request"]["server"], server);
        assert_eq!(request["request"]["origin"], origin);
        let fields = request["request"]["schema"]["fields"].as_array().unwrap();
        assert_eq!(fields.len(), 13);
        let kinds: Vec<&str> = fields
            .iter()
            .map(|f| f["kind"]["type"].as_str().unwrap())
            .collect();
        for k in [
            "string",
            "number",
            "boolean",
            "single_select",
            "multi_select",
        ] {
            assert!(kinds.contains(&k), "{server}: {k} in {kinds:?}");
        }
        let answer_line = lines
            .iter()
            .find(|l| l["event"] == "form_answer")
            .expect("form_answer line");
        assert_eq!(answer_line["answer"]["action"], "accept");
        assert_eq!(answer_line["answer"]["content"], defaults_of(&schema));

        let record = sb.newest_elicitation();
        assert_eq!(record["mode"], "form");
        assert_eq!(record["origin"], origin);
        assert_eq!(record["state"], "accepted");
        assert!(record["url"].is_null());
        assert_eq!(sb.states_of(id_of(&record)), ["requested", "accepted"]);
    }
}

#[test]
fn consent_accept_declines_when_a_required_field_has_no_default() {
    // server-everything's form requires `name` and gives it no default: the
    // defaults do not fill the form, so `--consent accept` cannot accept it.
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let out = sb
        .cmd()
        .consent("accept")
        .args(["--json", "call", "everything", TRIGGER])
        .run();
    out.ok();
    let (lines, result) = json_call(&out);
    assert_eq!(raw_result(&text(&result)), json!({"action": "decline"}));
    let request = lines
        .iter()
        .find(|l| l["event"] == "form_request")
        .expect("form_request line");
    let fields = request["request"]["schema"]["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 13, "every field of the form is shown");
    assert_eq!(fields[0]["name"], "name", "in the server's order");
    assert_eq!(fields[0]["required"], true);
    let record = sb.newest_elicitation();
    assert_eq!(
        (record["mode"].as_str(), record["state"].as_str()),
        (Some("form"), Some("declined"))
    );

    for (mode, action) in [("decline", "decline"), ("cancel", "cancel")] {
        let out = sb
            .cmd()
            .consent(mode)
            .args(["call", "everything", TRIGGER])
            .run();
        out.ok();
        assert_eq!(raw_result(&out.stdout)["action"], action, "{out:?}");
    }
}

/// What to type for server-everything's 13 fields, with three invalid
/// answers that are asked again, then accept.
const TYPED: &str = "Ada Lovelace\n\
maybe\ny\n\
\n\
ada@example\nada@example.org\n\
https://ada.example.org\n\
1815-12-10\n\
101\n7\n\
2.5\n\
3\n\
Piano, 5\n\
Wonder Woman\n\
2,3\n\
Dogs\n\
a\n";

#[test]
fn terminal_form_round_trips_every_type_and_asks_again_on_invalid_input() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let out = sb
        .cmd()
        .args(["call", "everything", TRIGGER])
        .stdin(TYPED)
        .run();
    out.ok();
    assert_eq!(
        raw_result(&out.stdout),
        json!({"action": "accept", "content": {
            "name": "Ada Lovelace",
            "check": true,
            "firstLine": "It was a dark and stormy night.",
            "email": "ada@example.org",
            "homepage": "https://ada.example.org",
            "birthdate": "1815-12-10",
            "integer": 7,
            "number": 2.5,
            "untitledSingleSelectEnum": "Joey",
            "untitledMultipleSelectEnum": ["Piano", "Bass"],
            "titledSingleSelectEnum": "hero-3",
            "titledMultipleSelectEnum": ["fish-2", "fish-3"],
            "legacyTitledEnum": "pet-2"
        }}),
        "{out:?}"
    );
    let err = &out.stderr;
    // The form: server, message, each field with title, name, description,
    // constraints, options and default.
    for shown in [
        "── The server “everything” asks you to fill in a form ──",
        "Why:      Please provide inputs for the following fields:",
        "[1/13] String (name)  *required",
        "Your full, legal name",
        "[7/13] Integer (integer)",
        "whole number; from 1 to 100",
        "default: 42 (press Enter to take it)",
        "3) Wonder Woman [hero-3]",
        "default: Cats [pet-1] (press Enter to take it)",
        "choose 1 to 3 of 5",
        "text; an email address, like name@example.com",
        "You are about to send to everything:",
        "Titled Multiple Select Enum: Salmon [fish-2], Trout [fish-3]",
        "Send it? [a]ccept / [D]ecline / [c]ancel:",
    ] {
        assert!(err.contains(shown), "stderr lacks {shown:?}: {out:?}");
    }
    // Each invalid answer was refused with the reason, and asked again.
    for (refused, prompt) in [
        ("✗ Boolean: must be y (yes) or n (no); try again.", "Boolean (y/n)> "),
        (
            "✗ String with email format: must be an email address, like name@example.com; try again.",
            "String with email format (text)> ",
        ),
        ("✗ Integer: must be from 1 to 100; try again.", "Integer (whole number)> "),
    ] {
        assert!(err.contains(refused), "stderr lacks {refused:?}: {out:?}");
        assert_eq!(err.matches(prompt).count(), 2, "{prompt:?} asked twice: {out:?}");
    }
    assert_eq!(sb.newest_elicitation()["state"], "accepted");
    // Only JSON-free plain output on stdout, the form on stderr.
    assert!(!out.stdout.contains("Send it?"));
}

#[test]
fn terminal_form_declines_on_enter_and_cancels_at_end_of_input() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    // A name, Enter for every other field, then Enter at "Send it?".
    let mut typed = String::from("Ada\n");
    typed.push_str(&"\n".repeat(12));
    typed.push('\n');
    let out = sb
        .cmd()
        .args(["call", "everything", TRIGGER])
        .stdin(typed)
        .run();
    out.ok();
    assert_eq!(
        raw_result(&out.stdout),
        json!({"action": "decline"}),
        "{out:?}"
    );
    assert_eq!(sb.newest_elicitation()["state"], "declined");

    // Input ends halfway through the form: cancel, nothing half-filled is sent.
    let out = sb
        .cmd()
        .args(["call", "everything", TRIGGER])
        .stdin("Ada\ny\n")
        .run();
    out.ok();
    assert_eq!(
        raw_result(&out.stdout),
        json!({"action": "cancel"}),
        "{out:?}"
    );
    assert_eq!(sb.newest_elicitation()["state"], "cancelled");

    // A required field without a default is asked again on Enter.
    let out = sb
        .cmd()
        .args(["call", "everything", TRIGGER])
        .stdin("\n")
        .run();
    out.ok();
    assert!(
        out.stderr
            .contains("✗ String: is required: type a value; try again."),
        "{out:?}"
    );
}

#[test]
fn secret_looking_fields_carry_a_warning_and_values_stay_out_of_the_records() {
    let sb = Sandbox::new();
    add_forms_peers(&sb);
    let schema = json!({"type": "object", "properties": {
        "nick": {"type": "string", "title": "Nickname"},
        "password": {"type": "string", "title": "Password", "description": "Your account password"}
    }, "required": ["password"]});
    let out = sb
        .cmd()
        .call("legacy", "ask", &ask_args(&schema))
        .stdin("bob\nhunter2-canary\na\n")
        .run();
    out.ok();
    assert!(
        out.stderr.contains(
            "Warning:  This field looks like it asks for a secret: servers must use URL mode for secrets; Airlock does not protect what you type here."
        ),
        "{out:?}"
    );
    assert_eq!(
        out.stderr
            .matches("looks like it asks for a secret")
            .count(),
        1,
        "only the password field: {out:?}"
    );
    let answer: Value = serde_json::from_str(out.stdout.trim()).expect("peer JSON");
    assert_eq!(
        answer,
        json!({"action": "accept", "content": {"nick": "bob", "password": "hunter2-canary"}})
    );
    // The audit names the fields, never what was typed into them.
    let audit = sb.audit();
    let requested = audit
        .iter()
        .find(|e| e["kind"] == "elicitation" && e["detail"]["state"] == "requested")
        .expect("requested");
    assert_eq!(
        requested["detail"]["secret_looking_fields"],
        json!(["password"])
    );
    let accepted = audit
        .iter()
        .find(|e| e["kind"] == "elicitation" && e["detail"]["state"] == "accepted")
        .expect("accepted");
    assert_eq!(
        accepted["detail"]["fields_sent"],
        json!(["nick", "password"])
    );
    let records = serde_json::to_string(&(sb.audit(), sb.elicitations())).unwrap();
    assert!(!records.contains("hunter2-canary"), "{records}");
}

#[test]
fn a_schema_outside_the_subset_is_refused_with_invalid_params() {
    let sb = Sandbox::new();
    add_forms_peers(&sb);
    let nested = json!({"type": "object", "properties": {
        "address": {"type": "object", "properties": {"street": {"type": "string"}}}}});
    let many: Vec<String> = (0..300).map(|i| format!("o{i}")).collect();
    let too_many =
        json!({"type": "object", "properties": {"pick": {"type": "string", "enum": many}}});

    // 2025-11-25: the server's request gets -32602 with the reason.
    for (schema, reason) in [
        (&nested, "property `address` is a nested object"),
        (
            &too_many,
            "property `pick` has 300 options; Airlock shows at most 256",
        ),
    ] {
        let out = sb
            .cmd()
            .consent("accept")
            .call("legacy", "ask", &ask_args(schema))
            .run();
        out.ok();
        let text = out.stdout.trim();
        assert!(text.starts_with("error -32602: "), "{out:?}");
        assert!(text.contains(reason), "{out:?}");
        let record = sb.newest_elicitation();
        assert_eq!(record["state"], "invalid_schema");
        assert_eq!(
            sb.states_of(id_of(&record)),
            ["requested", "invalid_schema"]
        );
        assert!(
            sb.log_texts("legacy")
                .iter()
                .any(|l| l.contains("answered -32602") && l.contains(reason)),
            "a log line says why"
        );
    }

    // 2026-07-28: an input request has no error channel: the call stops and says why.
    let out = sb
        .cmd()
        .consent("accept")
        .call("modern", "ask", &ask_args(&too_many))
        .run();
    out.expect_code(1);
    assert!(
        out.stderr
            .contains("the server asked for a form Airlock cannot show")
            && out.stderr.contains("300 options"),
        "{out:?}"
    );
    assert_eq!(sb.newest_elicitation()["state"], "invalid_schema");
}

#[test]
fn a_form_the_sdk_cannot_type_is_still_shown_on_the_request_path() {
    // `items` without `type: "string"` is valid JSON Schema the SDK's typed
    // model rejects; Airlock reads the raw request instead of answering -32601.
    let sb = Sandbox::new();
    add_forms_peers(&sb);
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "default": ["b"]},
        "ok": {"type": "boolean", "default": true}
    }});
    let out = sb
        .cmd()
        .consent("accept")
        .call("legacy", "ask", &ask_args(&schema))
        .run();
    out.ok();
    let answer: Value = serde_json::from_str(out.stdout.trim()).expect("peer JSON");
    assert_eq!(
        answer,
        json!({"action": "accept", "content": {"ok": true, "tags": ["b"]}})
    );
}

/// 2025-11-25 request path: a URL elicitation without `url` or `elicitationId`,
/// or in a mode Airlock did not declare, is answered -32602 and never reaches
/// the user or the browser.
#[test]
fn an_invalid_url_elicitation_is_answered_with_invalid_params() {
    let sb = Sandbox::new();
    add_forms_peers(&sb);
    for (args, what) in [
        (json!({"drop": "url"}), "without url"),
        (json!({"drop": "elicitation_id"}), "without elicitationId"),
        (json!({"mode": "telepathy"}), "in an undeclared mode"),
    ] {
        let out = sb
            .cmd()
            .consent("accept")
            .open("print")
            .call("legacy", "ask_url_raw", &args.to_string())
            .run();
        out.ok();
        let text = out.stdout.trim();
        assert!(
            text.starts_with("error -32602: "),
            "a URL elicitation {what} must get -32602: {out:?}"
        );
        assert!(
            !text.contains("https://example.com/x\n") && !out.stdout.contains("\nhttps://"),
            "nothing was opened: {out:?}"
        );
    }
}
