//! URL-mode elicitation on the request path, end to end: consent, opening
//! in the system browser (xdg-open honouring $BROWSER), blocking, the
//! `--json` event lines, a browser that cannot start, the terminal prompt,
//! and the promise never to fetch the URL. The -32042 error path, late
//! elicitations and retries are in url_elicitation_late.rs.
//!
//! Peer: server-everything, which speaks 2025-11-25 (`trigger-url-elicitation`,
//! never sends a completion).

mod common;

use std::time::Duration;

use common::*;

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
        .arg("--json")
        .call("everything", URL_TRIGGER, &url_args(url))
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

    let record = sb.newest_elicitation();
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
            .call("everything", URL_TRIGGER, &url_args(&url))
            .run();
        out.ok();
        assert!(
            out.stdout.contains(&format!("\"action\": \"{consent}\"")),
            "the server got {consent}: {out:?}"
        );
        let record = sb.newest_elicitation();
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
            .call("everything", URL_TRIGGER, &url_args(url))
            .run();
        out.ok();
        assert!(
            out.stdout.contains("\"action\": \"decline\""),
            "a blocked URL is answered decline, even with --consent accept: {out:?}"
        );
        let record = sb.newest_elicitation();
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
            .call("everything", URL_TRIGGER, &trigger)
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
    assert_eq!(sb.newest_elicitation()["state"], "declined");
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
    assert!(
        err.contains("[y]es, open it / [N]o, don't open"),
        "{enter:?}"
    );
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
    assert_eq!(sb.newest_elicitation()["state"], "declined");
    let eof = ask("");
    eof.ok();
    assert!(eof.stdout.contains("\"action\": \"cancel\""), "{eof:?}");
    assert_eq!(sb.newest_elicitation()["state"], "cancelled");
    let c = ask("c\n");
    c.ok();
    assert_eq!(sb.newest_elicitation()["state"], "cancelled");
    assert!(
        browser.settle().is_empty(),
        "nothing opened yet: {:?}",
        browser.lines()
    );

    // y opens.
    let yes = ask("y\n");
    yes.ok();
    assert!(yes.stdout.contains("\"action\": \"accept\""), "{yes:?}");
    assert_eq!(sb.newest_elicitation()["state"], "opened");
    assert_eq!(browser.wait_for(1), vec![url.to_string()]);
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
        .arg("--json")
        .call(
            "everything",
            URL_TRIGGER,
            &url_args("https://example.com/x"),
        )
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
        .call(
            "everything",
            URL_TRIGGER,
            &url_args("https://example.com/x"),
        )
        .run();
    std::thread::sleep(Duration::from_millis(500));
    let record = sb.newest_elicitation();
    assert_eq!(
        record["state"], "open_failed",
        "xdg-open failed but the record says otherwise: {record:#} {out:?}"
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
            .call("everything", URL_TRIGGER, &url_args(&url))
            .stdin(stdin)
            .run()
    };

    let asked = call("ask", "none", "\n");
    asked.ok();
    // A page on this computer: one neutral line, not four warnings.
    assert!(
        asked.stderr.contains("(this_computer)"),
        "the page is said to be on this computer: {asked:?}"
    );
    for code in [
        "not_https",
        "ip_literal",
        "local_address",
        "non_default_port",
    ] {
        assert!(
            !asked.stderr.contains(&format!("({code})")),
            "no warning {code} for a page on this computer: {asked:?}"
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
