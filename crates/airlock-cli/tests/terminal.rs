//! The terminal consent prompt with real peers: one question on screen at a
//! time, each answer reaching the question it was typed for; the domain as
//! the last line before the question, however long the URL; what the user's
//! history says about the domain; and typed-ahead discarded on a real
//! terminal (tmux).
//!
//! Peers: server-everything (`trigger-url-elicitation`, 2025-11-25, never
//! completes) and `tests/terminal_peer.py` (official Python SDK) behind
//! `tests/common/legacy_stdio_proxy.py`, so that Airlock talks 2025-11-25 to
//! it: two `elicitation/create` requests at once, -32042 listing two URLs,
//! and a -32042 whose completion comes while the "are you done?" question is
//! open, followed by a URL request in the same call.

mod common;

use std::path::PathBuf;
use std::thread::sleep;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};

const QUESTION: &str = "Open it in your browser? [y]es, open it / [N]o, don't open: ";
/// The question as capture-pane shows it (trailing blanks trimmed).
const QUESTION_ON_SCREEN: &str = "Open it in your browser? [y]es, open it / [N]o, don't open:";
const WAITING: &str = "Still waiting for";

fn terminal_peer() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/terminal_peer.py");
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// terminal-peer as a 2025-11-25 server (through the legacy proxy).
fn add_terminal_peer(sb: &Sandbox, name: &str, env: &[&str]) {
    let mut args: Vec<String> = vec!["servers".into(), "add".into(), name.into()];
    for e in env {
        args.push("--env".into());
        args.push((*e).into());
    }
    args.extend([
        "--command".into(),
        "python3".into(),
        "--".into(),
        s(&legacy_proxy()),
        s(&py()),
        s(&terminal_peer()),
        "stdio".into(),
    ]);
    sb.cmd().args(&args).run().ok();
}

/// `--consent ask --open none call SERVER TOOL --args JSON`, plus `extra` flags first.
fn ask_call(sb: &Sandbox, extra: &[&str], server: &str, tool: &str, args: &Value) -> Cmd {
    sb.cmd()
        .consent("ask")
        .open("none")
        .args(extra)
        .call(server, tool, &args.to_string())
}

/// The lines printed before the `n`th question (0-based), back to the
/// previous question: one question's block.
fn block(stderr: &str, n: usize) -> Vec<String> {
    let parts: Vec<&str> = stderr.split(QUESTION).collect();
    assert!(
        parts.len() > n + 1,
        "fewer than {} questions in:\n{}",
        n + 1,
        clip(stderr)
    );
    parts[n].lines().map(str::to_owned).collect()
}

fn last_line(lines: &[String]) -> &str {
    lines.last().map(String::as_str).unwrap_or_default()
}

/// Each elicitation, oldest first: its domain and the states it went
/// through while its run lasted (the audit trail). A record its run left
/// open (opened, late) is marked `interrupted` when the next `airlock`
/// starts; that last step is not this run's and is left out.
fn journeys(sb: &Sandbox) -> Vec<(String, Vec<String>)> {
    sb.elicitations()
        .iter()
        .rev()
        .map(|r| {
            let mut states = sb.states_of(id_of(r));
            // How an opened page's wait ends when Airlock itself exits:
            // `interrupted`, or `connection_lost` when the server's
            // connection closes first (a race of the exit, seen under load).
            let n = states.len();
            let ends_at_exit = match states.last().map(String::as_str) {
                Some("interrupted") => true,
                Some("connection_lost") => n >= 2 && states[n - 2] == "opened",
                _ => false,
            };
            if ends_at_exit {
                states.pop();
            }
            (
                r["registrable_domain"].as_str().unwrap_or("?").to_owned(),
                states,
            )
        })
        .collect()
}

fn journey(domain: &str, states: &[&str]) -> (String, Vec<String>) {
    (
        domain.to_owned(),
        states.iter().map(|s| (*s).to_owned()).collect(),
    )
}

const OPENED: &[&str] = &["requested", "accepted", "opened"];
const DECLINED: &[&str] = &["requested", "declined"];

fn long_url() -> String {
    format!(
        "https://login.example.co.uk/{}?next=%2Fhome",
        "a".repeat(7000)
    )
}

// ----- (a) the domain is the last line before the question -----

#[test]
fn the_domain_is_the_last_line_before_the_question_even_for_a_7000_character_url() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let url = long_url();
    assert!(url.len() > 7000);
    let out = ask_call(&sb, &[], "everything", URL_TRIGGER, &json!({ "url": url }))
        .stdin("\n")
        .run();
    out.ok();
    assert!(out.stdout.contains("\"action\": \"decline\""), "{out:?}");
    let lines = block(&out.stderr, 0);
    assert_eq!(
        last_line(&lines),
        "Domain:   >>> example.co.uk <<<",
        "{out:?}"
    );
    // Heading, why, the full URL, host, history, then the domain.
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line {prefix:?} in {out:?}"))
    };
    let order = [
        at("── The server “everything” asks you to open a web page ──"),
        at("Why:      "),
        at(&format!("Full URL: {url}")),
        at("Host:     login.example.co.uk"),
        at("Seen:     first time this server sends you to this domain"),
        at("Domain:   >>> example.co.uk <<<"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}: {out:?}");
    assert_eq!(order[5], lines.len() - 1);
}

/// The same on a real 80x24 terminal: the URL wraps over ~90 rows, and the
/// rows on screen at the question still end with the domain.
#[test]
fn on_a_real_terminal_the_domain_stays_on_screen_above_the_question() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let url = long_url();
    let term = Tmux::start(
        sb.dir(),
        ask_call(&sb, &[], "everything", URL_TRIGGER, &json!({ "url": url })),
        80,
        24,
    );
    term.wait_for(QUESTION_ON_SCREEN, 1);
    let screen = term.screen();
    let rows: Vec<&str> = screen
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let n = rows.len();
    assert!(n >= 3, "{screen}");
    assert_eq!(rows[n - 1], QUESTION_ON_SCREEN, "{screen}");
    assert_eq!(rows[n - 2], "Domain:   >>> example.co.uk <<<", "{screen}");
    assert_eq!(
        rows[n - 3],
        "Seen:     first time this server sends you to this domain",
        "{screen}"
    );
    term.send_keys(&["n", "Enter"]);
    assert_eq!(term.wait_exit(), 0, "{}", term.history());
    assert_eq!(sb.newest_elicitation()["state"], "declined");
}

// ----- (b) one question at a time -----

/// Two `elicitation/create` requests sent at the same moment: the second
/// waits until the first is answered, and each answer goes to its own question.
#[test]
fn two_requests_at_once_are_asked_one_after_the_other() {
    let sb = Sandbox::new();
    add_terminal_peer(&sb, "peer", &[]);
    let args =
        json!({"url_a": "https://first.example.org/a", "url_b": "https://second.example.net/b"});
    let mut live = ask_call(&sb, &[], "peer", "two_at_once", &args).spawn();

    live.wait_for(QUESTION, 1);
    // Both requests are in Airlock by now; only one question is shown.
    sleep(Duration::from_millis(1500));
    let err = live.stderr();
    assert_eq!(err.matches(QUESTION).count(), 1, "{}", clip(&err));
    assert_eq!(
        err.matches("asks you to open a web page").count(),
        1,
        "the second question must wait: {}",
        clip(&err)
    );
    assert!(err.trim_end().ends_with(QUESTION.trim_end()), "{err}");
    live.send("y\n");
    live.wait_for(QUESTION, 2);
    live.send("n\n");
    let out = live.finish();
    out.ok();

    let (first, second) = (block(&out.stderr, 0), block(&out.stderr, 1));
    for b in [&first, &second] {
        let heading = b
            .iter()
            .filter(|l| l.contains("asks you to open a web page"))
            .count();
        assert_eq!(heading, 1, "one heading per question: {out:?}");
    }
    let first_domain = last_line(&first).to_owned();
    let second_domain = last_line(&second).to_owned();
    let (a, b) = (
        "Domain:   >>> example.org <<<",
        "Domain:   >>> example.net <<<",
    );
    let expected = if first_domain == a {
        assert_eq!(second_domain, b, "{out:?}");
        "a=accept b=decline"
    } else {
        assert_eq!(
            (first_domain.as_str(), second_domain.as_str()),
            (b, a),
            "{out:?}"
        );
        "a=decline b=accept"
    };
    assert_eq!(
        out.stdout.trim(),
        expected,
        "y went to the first question, n to the second: {out:?}"
    );
    let mut got = journeys(&sb);
    got.sort();
    let (accepted, declined) = if expected.starts_with("a=accept") {
        ("example.org", "example.net")
    } else {
        ("example.net", "example.org")
    };
    let mut want = vec![journey(accepted, OPENED), journey(declined, DECLINED)];
    want.sort();
    assert_eq!(got, want);
}

/// A -32042 listing two URLs: asked in order, each piped answer to its own
/// question (y for the first, n for the second).
#[test]
fn a_required_error_listing_two_urls_asks_each_in_turn() {
    let sb = Sandbox::new();
    // No completion before Airlock has exited (the first page stays opened).
    add_terminal_peer(&sb, "peer", &["AIRLOCK_PEER_COMPLETE_DELAY=10"]);
    let args =
        json!({"url_a": "https://first.example.org/a", "url_b": "https://second.example.net/b"});
    let out = ask_call(&sb, &[], "peer", "required_two", &args)
        .stdin("y\nn\n")
        .run();
    out.expect_code(1);
    assert!(out.stderr.contains("declined"), "{out:?}");
    assert_eq!(
        last_line(&block(&out.stderr, 0)),
        "Domain:   >>> example.org <<<"
    );
    assert_eq!(
        last_line(&block(&out.stderr, 1)),
        "Domain:   >>> example.net <<<"
    );
    assert_eq!(
        journeys(&sb),
        [
            journey("example.org", OPENED),
            journey("example.net", DECLINED)
        ]
    );

    // Both accepted: both opened, completed, and the retry succeeds.
    let sb = Sandbox::new();
    add_terminal_peer(&sb, "peer", &[]);
    let out = ask_call(&sb, &[], "peer", "required_two", &args)
        .stdin("y\ny\n")
        .run();
    out.ok();
    assert_eq!(out.stdout.trim(), "done", "{out:?}");
    assert_eq!(out.stderr.matches(QUESTION).count(), 2, "{out:?}");
}

// ----- (c) a dropped question leaves nothing behind -----

/// The "are you done?" question is open when the completion arrives: it is
/// withdrawn, and the next line typed answers the next question (the URL the
/// retried call asks for), not the withdrawn one.
#[test]
fn a_continue_question_dropped_by_a_completion_does_not_swallow_the_next_line() {
    let sb = Sandbox::new();
    add_terminal_peer(&sb, "peer", &["AIRLOCK_PEER_COMPLETE_DELAY=3"]);
    let args = json!({"auth_url": "https://auth.example.org/authorize", "url": "https://app.example.net/connect"});
    let mut live = ask_call(
        &sb,
        &["--late-after", "1", "--give-up-after", "30"],
        "peer",
        "auth_then_connect",
        &args,
    )
    .spawn();
    live.wait_for(QUESTION, 1);
    live.send("y\n");
    live.wait_for(&format!("{WAITING} example.org"), 1);
    // The completion (3 s after the call) ends the wait; the retry asks again.
    let err = live.wait_for(QUESTION, 2);
    assert_eq!(
        last_line(&block(&err, 1)),
        "Domain:   >>> example.net <<<",
        "{err}"
    );
    live.send("y\n");
    let out = live.finish();
    out.ok();
    assert_eq!(
        out.stdout.trim(),
        "action=accept",
        "the line typed for the second question answered it: {out:?}"
    );
    assert!(
        out.stderr
            .contains("(this question was withdrawn; it needs no answer any more)"),
        "{out:?}"
    );
    assert_eq!(
        journeys(&sb),
        [
            journey(
                "example.org",
                &["requested", "accepted", "opened", "late", "completed"]
            ),
            journey("example.net", OPENED)
        ]
    );
}

// ----- (d) familiarity -----

#[test]
fn the_prompt_says_whether_the_server_sent_you_there_before_and_warns_of_look_alikes() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let ask = |url: &str, answer: &'static str| {
        let out = ask_call(&sb, &[], "everything", URL_TRIGGER, &json!({ "url": url }))
            .stdin(answer)
            .run();
        out.ok();
        block(&out.stderr, 0)
    };

    let first = ask("https://example.com/", "y\n");
    let n = first.len();
    assert_eq!(
        first[n - 2],
        "Seen:     first time this server sends you to this domain",
        "{first:#?}"
    );
    assert!(
        !first.iter().any(|l| l.contains("looks like")),
        "{first:#?}"
    );

    let today = &first_seen_date(&sb);
    let second = ask("https://www.example.com/other", "y\n");
    let n = second.len();
    assert_eq!(
        second[n - 2],
        format!("Seen:     this server sent you here once before, on {today}"),
        "{second:#?}"
    );
    assert_eq!(second[n - 1], "Domain:   >>> example.com <<<");

    let third = ask("https://example.com/third", "n\n");
    assert_eq!(
        third[third.len() - 2],
        format!("Seen:     this server sent you here 2 times before, first on {today}"),
        "{third:#?}"
    );

    // A first-time domain one letter away from one opened before.
    let look_alike = ask("https://examp1e.com/login", "n\n");
    let n = look_alike.len();
    assert_eq!(look_alike[n - 1], "Domain:   >>> examp1e.com <<<");
    assert!(
        look_alike[n - 2]
            .starts_with("DANGER:   This domain looks like example.com, which you opened before."),
        "the look-alike warning is right above the domain: {look_alike:#?}"
    );
    assert_eq!(
        look_alike[n - 3],
        "Seen:     first time this server sends you to this domain"
    );
    assert_eq!(sb.newest_elicitation()["state"], "declined");
}

/// The UTC date on which the newest elicitation was recorded.
fn first_seen_date(sb: &Sandbox) -> String {
    let record = sb.newest_elicitation();
    let at = record["created_at"]
        .as_i64()
        .unwrap_or_else(|| panic!("no creation time in {record:#}"));
    // Days since the epoch to a civil date (as the CLI prints it).
    let days = at.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

// ----- (e) typed-ahead on a real terminal -----

/// In tmux (a real terminal): `y` typed before the question appears does
/// not answer it, nor does `c` typed before the "are you done?" question;
/// nothing opens until `y` is typed at the question on screen.
#[test]
fn on_a_real_terminal_lines_typed_before_the_question_are_discarded() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let browser = BrowserRecorder::new(sb.dir());
    let args = json!({"url": "https://example.com/err", "errorPath": true});
    let cmd = browser
        .apply(sb.cmd())
        .consent("ask")
        .open("system")
        .deadlines("3", "60")
        .call("everything", URL_TRIGGER, &args.to_string());
    let term = Tmux::start(sb.dir(), cmd, 120, 40);
    // Typed at once, long before the question (the server is still starting).
    term.send_keys(&["y", "Enter"]);

    term.wait_for(QUESTION_ON_SCREEN, 1);
    sleep(Duration::from_millis(1500));
    let history = term.history();
    assert!(
        history.contains("(ignored 1 line typed before the question below was shown)"),
        "{history}"
    );
    assert_eq!(
        last_nonempty(&term.screen()),
        QUESTION_ON_SCREEN,
        "the question still waits: {history}"
    );
    assert!(
        browser.lines().is_empty(),
        "typed-ahead opened {:?}",
        browser.lines()
    );

    // Answered at the question: the prerequisite opens.
    term.send_keys(&["y", "Enter"]);
    assert_eq!(browser.wait_for(1), ["https://modelcontextprotocol.io/"]);
    // `c` typed before the "are you done?" question (3 s late) is ignored too.
    term.send_keys(&["c", "Enter"]);
    term.wait_for(WAITING, 1);
    sleep(Duration::from_millis(1500));
    let history = term.history();
    assert_eq!(
        history
            .matches("(ignored 1 line typed before the question below was shown)")
            .count(),
        2,
        "{history}"
    );
    assert!(!history.contains("cancelled"), "{history}");
    assert!(
        last_nonempty(&term.screen()).starts_with(WAITING),
        "still waiting: {history}"
    );

    // Enter: done; the retried call asks for its own URL, declined here.
    term.send_keys(&["Enter"]);
    term.wait_for(QUESTION_ON_SCREEN, 2);
    term.send_keys(&["n", "Enter"]);
    let code = term.wait_exit();
    let history = term.history();
    assert_eq!(code, 0, "{history}");
    assert_eq!(browser.settle(), ["https://modelcontextprotocol.io/"]);
    assert_eq!(
        journeys(&sb),
        [
            journey(
                "modelcontextprotocol.io",
                &["requested", "accepted", "opened", "late", "continued"]
            ),
            journey("example.com", DECLINED)
        ]
    );
}

fn last_nonempty(screen: &str) -> String {
    screen
        .lines()
        .map(str::trim_end)
        .rfind(|l| !l.is_empty())
        .unwrap_or_default()
        .to_owned()
}
