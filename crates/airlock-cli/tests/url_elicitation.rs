//! URL-mode elicitation end to end: consent, opening in the system browser
//! (xdg-open honouring $BROWSER), blocking, the -32042 error path with its
//! late/continue/loop-guard handling, completion notifications (2025-11-25),
//! InputRequiredResult retries (2026-07-28), the terminal prompt, and the
//! promise never to fetch the URL.
//!
//! Peers: server-everything speaks 2025-11-25 (`trigger-url-elicitation`,
//! never sends a completion). py-peer negotiates 2026-07-28 with Airlock; behind
//! `tests/common/legacy_stdio_proxy.py` it is a 2025-11-25 server that sends
//! `notifications/elicitation/complete` 0.5 s after an accepted elicitation.

mod common;

use std::time::Duration;

use common::*;
use serde_json::Value;

const TRIGGER: &str = "trigger-url-elicitation";

fn args(url: &str) -> String {
    serde_json::json!({ "url": url }).to_string()
}

fn newest(sb: &Sandbox) -> Value {
    sb.elicitations()
        .into_iter()
        .next()
        .expect("an elicitation was recorded")
}

fn id_of(record: &Value) -> i64 {
    record["id"].as_i64().expect("record id")
}

#[test]
fn accept_opens_the_system_browser_exactly_once() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let browser = BrowserRecorder::new(sb.dir());
    let url = "https://example.com/connect?x=1";
    let out = browser
        .apply(sb.cmd())
        .consent("accept")
        .open("system")
        .args([
            "--json",
            "call",
            "everything",
            TRIGGER,
            "--args",
            &args(url),
        ])
        .run();
    out.ok();
    assert_eq!(
        browser.wait_for(1),
        vec![url.to_string()],
        "opened once, unchanged"
    );

    // JSON mode streams each transition, then the result.
    let lines = out.json_lines();
    let states: Vec<&str> = lines
        .iter()
        .filter(|l| l["event"] == "elicitation")
        .map(|l| l["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["requested", "accepted", "opened"], "{out:?}");
    let result = lines.last().unwrap();
    assert_eq!(result["is_error"], false);
    assert!(
        result["result"]
            .to_string()
            .contains(r#"\"action\": \"accept\""#),
        "the server got accept: {out:?}"
    );

    let record = newest(&sb);
    assert_eq!(record["state"], "opened");
    assert_eq!(record["registrable_domain"], "example.com");
    assert_eq!(record["url"], url);
    assert_eq!(record["origin"], "request");
    assert_eq!(record["mode"], "url");
    assert_eq!(record["verdict"], "ok");
    assert_eq!(record["server"], "everything");
    assert!(
        record["elicitation_id"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "2025-11-25 request carries an elicitationId: {record:#}"
    );
    assert_eq!(
        sb.states_of(id_of(&record)),
        ["requested", "accepted", "opened"]
    );
    let requested = sb
        .audit()
        .into_iter()
        .find(|e| e["kind"] == "elicitation" && e["detail"]["state"] == "requested")
        .expect("requested audit event");
    assert_eq!(requested["detail"]["url"], url);
    assert_eq!(requested["detail"]["domain"], "example.com");
    assert_eq!(requested["server"], "everything");
}

#[test]
fn decline_and_cancel_open_nothing() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let browser = BrowserRecorder::new(sb.dir());
    for (consent, state) in [("decline", "declined"), ("cancel", "cancelled")] {
        let url = format!("https://example.com/{consent}");
        let out = browser
            .apply(sb.cmd())
            .consent(consent)
            .open("system")
            .args(["call", "everything", TRIGGER, "--args", &args(&url)])
            .run();
        out.ok();
        assert!(
            out.stdout.contains(&format!("\"action\": \"{consent}\"")),
            "the server got {consent}: {out:?}"
        );
        let record = newest(&sb);
        assert_eq!(record["url"], url.as_str());
        assert_eq!(record["state"], state);
        assert_eq!(sb.states_of(id_of(&record)), ["requested", state]);
    }
    assert!(
        browser.settle().is_empty(),
        "nothing opened: {:?}",
        browser.lines()
    );
}

#[test]
fn dangerous_urls_are_blocked_and_never_opened() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let browser = BrowserRecorder::new(sb.dir());
    for (url, reason) in [
        ("javascript:alert(1)", "scheme_not_allowed"),
        ("http://evil.example/", "insecure_scheme"),
        ("file:///etc/passwd", "scheme_not_allowed"),
    ] {
        let out = browser
            .apply(sb.cmd())
            .consent("accept")
            .open("system")
            .args(["call", "everything", TRIGGER, "--args", &args(url)])
            .run();
        out.ok();
        assert!(
            out.stdout.contains("\"action\": \"decline\""),
            "a blocked URL is answered decline, even with --consent accept: {out:?}"
        );
        let record = newest(&sb);
        assert_eq!(record["url"], url);
        assert_eq!(record["state"], "blocked", "{record:#}");
        assert_eq!(record["verdict"], "block");
        assert_eq!(sb.states_of(id_of(&record)), ["requested", "blocked"]);
        let blocked = sb
            .audit()
            .into_iter()
            .rev()
            .find(|e| e["detail"]["state"] == "blocked")
            .expect("blocked audit event");
        assert_eq!(blocked["detail"]["reason"], reason, "{url}");
    }
    assert!(
        browser.settle().is_empty(),
        "nothing opened: {:?}",
        browser.lines()
    );
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
        .args([
            "call",
            "everything",
            TRIGGER,
            "--args",
            &serde_json::json!({"url": url, "errorPath": true}).to_string(),
        ])
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
        .args([
            "call",
            "everything",
            TRIGGER,
            "--args",
            &serde_json::json!({"url": "https://example.com/err", "errorPath": true}).to_string(),
        ])
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
        .args(["call", "py", "needs_auth", "--args", &args(url)])
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
        .args([
            "--late-after",
            "30",
            "call",
            "py-legacy",
            "needs_auth",
            "--args",
            &args(url),
        ])
        .run();
    out.ok();
    assert_eq!(out.stdout.trim(), "authorized", "{out:?}");
    assert!(
        out.elapsed < Duration::from_secs(15),
        "did not wait for the late deadline: {out:?}"
    );

    let record = newest(&sb);
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
        .args(["call", "py-legacy", "connect_account", "--args", &args(url)])
        .run();
    out.ok();
    let text = out.stdout.trim();
    let id = text
        .strip_prefix("action=accept id=")
        .unwrap_or_else(|| panic!("accepted: {out:?}"));
    let record = newest(&sb);
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
        .args(["call", "py", "connect_account", "--args", &args(url)])
        .run();
    accept.ok();
    assert!(
        accept.stdout.trim().starts_with("action=accept id="),
        "the retry returned the real result: {accept:?}"
    );
    let record = newest(&sb);
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
            .args(["call", "py", "connect_account", "--args", &args(url)])
            .run();
        out.ok();
        assert!(
            out.stdout
                .trim()
                .starts_with(&format!("action={consent} id=")),
            "{out:?}"
        );
        let record = newest(&sb);
        assert_eq!(sb.states_of(id_of(&record)), ["requested", state]);
    }

    // -32042 on 2026-07-28: no completion notification exists, so the
    // accepted elicitation goes late, is continued, and the retry succeeds.
    let out = sb
        .cmd()
        .consent("accept")
        .open("none")
        .deadlines("1", "10")
        .args(["call", "py", "needs_auth", "--args", &args(url)])
        .run();
    out.ok();
    assert_eq!(out.stdout.trim(), "authorized", "{out:?}");
    let record = newest(&sb);
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

#[test]
fn terminal_prompt_defaults_to_decline_and_neutralises_server_text() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let browser = BrowserRecorder::new(sb.dir());
    let url = "https://accounts.example.co.uk/login?next=%2Fhome";
    let trigger = serde_json::json!({
        "url": url,
        "message": "Sign in \u{1b}[31mNOW\u{1b}[0m \u{202e}gnp.exe \u{7}"
    })
    .to_string();
    let ask = |input: &'static str| {
        browser
            .apply(sb.cmd())
            .consent("ask")
            .open("system")
            .args(["call", "everything", TRIGGER, "--args", &trigger])
            .stdin(input)
            .run()
    };

    // A bare Enter declines.
    let enter = ask("\n");
    enter.ok();
    assert!(
        enter.stdout.contains("\"action\": \"decline\""),
        "{enter:?}"
    );
    assert_eq!(newest(&sb)["state"], "declined");
    let err = &enter.stderr;
    assert!(
        err.contains("The server “everything” asks you to open a web page"),
        "{enter:?}"
    );
    assert!(
        err.contains("Domain:   >>> example.co.uk <<<"),
        "registrable domain highlighted: {enter:?}"
    );
    assert!(
        err.contains(&format!("Full URL: {url}")),
        "full URL shown: {enter:?}"
    );
    assert!(err.contains("[y]es / [N]o / [c]ancel"), "{enter:?}");
    assert!(
        err.contains(r"\u{1B}[31mNOW"),
        "escape shown as text: {enter:?}"
    );
    assert!(
        err.contains(r"\u{202E}gnp.exe"),
        "bidi override shown as text: {enter:?}"
    );
    assert!(
        !enter.stderr_bytes.contains(&0x1b),
        "no raw ESC byte reaches the terminal"
    );
    assert!(
        !enter.stderr_bytes.contains(&0x07),
        "no raw BEL byte reaches the terminal"
    );
    assert!(
        !err.contains('\u{202e}'),
        "no raw U+202E reaches the terminal"
    );
    assert!(
        browser.settle().is_empty(),
        "Enter opened something: {:?}",
        browser.lines()
    );

    // Anything else that is not yes also declines; EOF and `c` cancel.
    let other = ask("sure\n");
    other.ok();
    assert_eq!(newest(&sb)["state"], "declined");
    let eof = ask("");
    eof.ok();
    assert!(eof.stdout.contains("\"action\": \"cancel\""), "{eof:?}");
    assert_eq!(newest(&sb)["state"], "cancelled");
    let c = ask("c\n");
    c.ok();
    assert_eq!(newest(&sb)["state"], "cancelled");
    assert!(
        browser.settle().is_empty(),
        "nothing opened yet: {:?}",
        browser.lines()
    );

    // y opens.
    let yes = ask("y\n");
    yes.ok();
    assert!(yes.stdout.contains("\"action\": \"accept\""), "{yes:?}");
    assert_eq!(newest(&sb)["state"], "opened");
    assert_eq!(browser.wait_for(1), vec![url.to_string()]);
}

/// The manual controls when a completion is late: Enter continues (retry),
/// `c` cancels the original call.
#[test]
fn terminal_continue_and_cancel_when_completion_is_late() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let trigger =
        serde_json::json!({"url": "https://example.com/err", "errorPath": true}).to_string();
    let run = |input: &'static str| {
        sb.cmd()
            .consent("ask")
            .open("none")
            .deadlines("1", "20")
            .args(["call", "everything", TRIGGER, "--args", &trigger])
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
        .args([
            "--late-after",
            "1",
            "call",
            "everything",
            TRIGGER,
            "--args",
            &trigger,
        ])
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

/// `--json` streams one line per transition; the record embedded in a line
/// must be the record as of that transition, not a later one.
#[test]
fn json_event_lines_are_consistent() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let out = sb
        .cmd()
        .consent("accept")
        .open("none")
        .args([
            "--json",
            "call",
            "everything",
            TRIGGER,
            "--args",
            &args("https://example.com/x"),
        ])
        .run();
    out.ok();
    for line in out
        .json_lines()
        .iter()
        .filter(|l| l["event"] == "elicitation")
    {
        assert_eq!(
            line["state"], line["elicitation"]["state"],
            "event line contradicts itself: {line}"
        );
    }
}

/// If the system browser cannot be started (xdg-open finds no browser and
/// exits 3), the user must be told and the record must not say `opened`.
#[test]
fn a_browser_that_cannot_open_is_reported() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let out = sb
        .cmd()
        .env("BROWSER", "false")
        .env("XDG_CURRENT_DESKTOP", "X-Generic")
        .consent("accept")
        .open("system")
        .args([
            "call",
            "everything",
            TRIGGER,
            "--args",
            &args("https://example.com/x"),
        ])
        .run();
    std::thread::sleep(Duration::from_millis(500));
    let record = newest(&sb);
    assert_eq!(
        record["state"], "open_failed",
        "xdg-open failed but the record says otherwise: {record:#} {out:?}"
    );
}

/// A -32042 elicitation accepted at the terminal prompt, which then stays
/// silent for `hold`; late after 1 s, given up after 2 s.
fn accepted_then_silent(sb: &Sandbox, hold: Duration) -> Out {
    sb.cmd()
        .consent("ask")
        .open("none")
        .deadlines("1", "2")
        .args([
            "call",
            "everything",
            TRIGGER,
            "--args",
            &serde_json::json!({"url": "https://example.com/err", "errorPath": true}).to_string(),
        ])
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
    assert_eq!(newest(&sb)["state"], "expired");
    assert!(
        out.elapsed < Duration::from_secs(7),
        "exited about 2 s after the deadline, not when stdin closed: {out:?}"
    );
}

/// Airlock never fetches the URL itself: not before consent, not after a
/// decline, not after an accept (opening is the browser's job).
#[test]
fn the_url_is_never_fetched_by_airlock() {
    let listener = CountingListener::start(None);
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let url = format!("http://127.0.0.1:{}/x", listener.port);
    let call = |consent: &str, open: &str, stdin: &'static str| {
        sb.cmd()
            .consent(consent)
            .open(open)
            .args(["call", "everything", TRIGGER, "--args", &args(&url)])
            .stdin(stdin)
            .run()
    };

    let asked = call("ask", "none", "\n");
    asked.ok();
    for code in [
        "not_https",
        "ip_literal",
        "local_address",
        "non_default_port",
    ] {
        assert!(
            asked.stderr.contains(&format!("({code})")),
            "warning {code} shown: {asked:?}"
        );
    }
    assert!(
        asked.stderr.contains("Domain:   >>> 127.0.0.1 <<<"),
        "{asked:?}"
    );
    call("decline", "none", "").ok();
    let accepted = call("accept", "none", "");
    accepted.ok();
    assert!(
        accepted.stdout.contains("\"action\": \"accept\""),
        "http to loopback is allowed: {accepted:?}"
    );
    let printed = call("accept", "print", "");
    printed.ok();
    assert!(
        printed.stdout.lines().any(|l| l == url),
        "--open print prints the URL for the user: {printed:?}"
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        listener.connections(),
        0,
        "Airlock connected to the URL: {:?}",
        listener.requests()
    );
    let states: Vec<String> = sb
        .elicitations()
        .iter()
        .map(|r| r["state"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(states, ["opened", "opened", "declined", "declined"]);
    let warned = &sb.elicitations()[0];
    assert_eq!(warned["verdict"], "warn");
    assert_eq!(
        warned["warnings"],
        serde_json::json!([
            "not_https",
            "ip_literal",
            "local_address",
            "non_default_port"
        ])
    );
}

#[test]
fn url_check_verdicts() {
    let sb = Sandbox::new();
    // (url, extra flag, verdict, warnings that must be present, block reason, registrable domain, normalised url)
    type Case = (
        &'static str,
        Option<&'static str>,
        &'static str,
        &'static [&'static str],
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
    );
    let cases: &[Case] = &[
        (
            "https://example.com/",
            None,
            "ok",
            &[],
            None,
            Some("example.com"),
            Some("https://example.com/"),
        ),
        (
            "https://xn--pple-43d.com/login",
            None,
            "warn",
            &["punycode"],
            None,
            Some("xn--pple-43d.com"),
            None,
        ),
        (
            "https://\u{430}pple.com/",
            None,
            "warn",
            &["punycode"],
            None,
            Some("xn--pple-43d.com"),
            Some("https://xn--pple-43d.com/"),
        ),
        (
            "http://2130706433/",
            None,
            "warn",
            &["not_https", "ip_literal", "local_address"],
            None,
            Some("127.0.0.1"),
            Some("http://127.0.0.1/"),
        ),
        (
            "http://2130706433/",
            Some("--no-http-loopback"),
            "block",
            &["ip_literal"],
            Some("insecure_scheme"),
            None,
            None,
        ),
        (
            "https://2130706433/",
            None,
            "warn",
            &["ip_literal", "local_address"],
            None,
            Some("127.0.0.1"),
            None,
        ),
        (
            "https://accounts.google.com@evil.example/",
            None,
            "warn",
            &["userinfo"],
            None,
            Some("evil.example"),
            None,
        ),
        (
            "https://accounts.google.com.evil.example/x",
            None,
            "ok",
            &[],
            None,
            Some("evil.example"),
            None,
        ),
        (
            "javascript:alert(1)",
            None,
            "block",
            &[],
            Some("scheme_not_allowed"),
            None,
            None,
        ),
        (
            "data:text/html,hi",
            None,
            "block",
            &[],
            Some("scheme_not_allowed"),
            None,
            None,
        ),
        (
            "http://evil.example/",
            None,
            "block",
            &["not_https"],
            Some("insecure_scheme"),
            Some("evil.example"),
            None,
        ),
        (
            "not a url",
            None,
            "block",
            &[],
            Some("unparseable"),
            None,
            None,
        ),
    ];
    for (url, flag, verdict, warnings, block, domain, normalised) in cases {
        let mut cmd = sb.cmd().args(["--json", "url-check"]);
        if let Some(f) = flag {
            cmd = cmd.arg(f);
        }
        let out = cmd.arg(url).run();
        let expected_code = if *verdict == "block" { 1 } else { 0 };
        out.expect_code(expected_code);
        let r = out.json();
        assert_eq!(r["verdict"], *verdict, "{url}: {out:?}");
        let got: Vec<&str> = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        for w in *warnings {
            assert!(got.contains(w), "{url}: warning {w} expected in {got:?}");
        }
        if warnings.is_empty() && *verdict == "ok" {
            assert!(got.is_empty(), "{url}: {got:?}");
        }
        match block {
            Some(b) => assert_eq!(r["block_reason"], *b, "{url}"),
            None => assert!(r["block_reason"].is_null(), "{url}: {r:#}"),
        }
        if let Some(d) = domain {
            assert_eq!(r["registrable_domain"], *d, "{url}");
        }
        if let Some(n) = normalised {
            assert_eq!(r["url"], *n, "{url}");
        }
    }

    // The text form leads with the verdict and the highlighted domain.
    let text = sb.run(&["url-check", "https://accounts.google.com.evil.example/x"]);
    text.ok();
    assert!(text.stdout.starts_with("Verdict:  ok"), "{text:?}");
    assert!(
        text.stdout.contains("Domain:   >>> evil.example <<<"),
        "{text:?}"
    );
    let blocked = sb.run(&["url-check", "javascript:alert(1)"]);
    blocked.expect_code(1);
    assert!(blocked.stdout.contains("BLOCKED:"), "{blocked:?}");
    assert!(
        blocked.stdout.contains("(scheme_not_allowed)"),
        "{blocked:?}"
    );

    // url-check works offline and never touches the data dir.
    assert!(!sb.data.exists(), "url-check created the data dir");
}
