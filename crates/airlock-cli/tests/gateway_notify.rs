//! The daemon's consent through desktop notifications (issues 12 and 13):
//! a real app (the official TypeScript SDK client) attached with `airlock
//! gateway --stdio --client claude-code` to `airlock daemon --consent ask
//! --open system` calls py-peer's tools, whose URL elicitations raise a
//! real dunst notification naming the app, the server and the domain. The
//! test clicks like a user would (the notification server's
//! `ActionInvoked` signal, what dunst emits on a click) and watches the
//! browser recorder, the app's result and Airlock's history.
//!
//! Needs a session bus (`scripts/with-session.sh`); when no notification
//! server owns `org.freedesktop.Notifications` there, the test starts its
//! own Xvfb and dunst (both installed by scripts/setup.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::gateway::{call, ts_app, Daemon};
use common::notify::Notifier;
use common::*;
use serde_json::{json, Value};

/// One test at a time: they share the session's notification server, and
/// each reads every notification shown.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Every Notify call and its reply on the session bus (`dbus-monitor`).
struct Monitor {
    child: Child,
    log: PathBuf,
}

/// One notification as sent: its id, summary, body and action ids/labels.
#[derive(Debug, Clone)]
struct Shown {
    id: Option<u32>,
    summary: String,
    body: String,
    actions: Vec<String>,
}

fn quoted_strings(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("string \"") {
        let after = &rest[start + 8..];
        let mut value = String::new();
        let mut chars = after.char_indices();
        let mut end = after.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        value.push(n);
                    }
                }
                '"' => {
                    end = i + 1;
                    break;
                }
                c => value.push(c),
            }
        }
        out.push(value);
        rest = &after[end..];
    }
    out
}

impl Monitor {
    fn start(dir: &Path) -> Monitor {
        let log = dir.join("dbus-monitor.txt");
        let child = Command::new("dbus-monitor")
            .args([
                "--session",
                "type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
                "type='method_return',sender='org.freedesktop.Notifications'",
            ])
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log).expect("monitor log"))
            .stderr(Stdio::null())
            .spawn()
            .expect("start dbus-monitor");
        std::thread::sleep(Duration::from_millis(300));
        Monitor { child, log }
    }

    fn shown(&self) -> Vec<Shown> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut blocks: Vec<String> = Vec::new();
        for line in text.lines() {
            let header = ["method call", "method return", "signal", "error"]
                .iter()
                .any(|h| line.starts_with(h));
            if header || blocks.is_empty() {
                blocks.push(String::new());
            }
            let last = blocks.last_mut().expect("a block");
            last.push_str(line);
            last.push('\n');
        }
        let field = |head: &str, name: &str| -> Option<String> {
            head.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{name}=")).map(str::to_owned))
        };
        let mut calls = Vec::new();
        let mut replies = std::collections::HashMap::new();
        for b in &blocks {
            let (head, body) = b.split_once('\n').unwrap_or((b, ""));
            if head.starts_with("method call") && head.ends_with("member=Notify") {
                let open = body.find("array [").unwrap_or(body.len());
                let close = body[open..].find("\n   ]").map_or(body.len(), |c| open + c);
                let before = quoted_strings(&body[..open]);
                let actions = quoted_strings(&body[open..close]);
                let key = (field(head, "sender"), field(head, "serial"));
                calls.push((key, before, actions));
            } else if head.starts_with("method return") {
                let id = body
                    .trim()
                    .strip_prefix("uint32 ")
                    .and_then(|v| v.trim().parse::<u32>().ok());
                if let Some(id) = id {
                    replies.insert(
                        (field(head, "destination"), field(head, "reply_serial")),
                        id,
                    );
                }
            }
        }
        calls
            .into_iter()
            .map(|(key, before, actions)| Shown {
                id: replies.get(&key).copied(),
                summary: before.get(2).cloned().unwrap_or_default(),
                body: before.get(3).cloned().unwrap_or_default(),
                actions,
            })
            .collect()
    }

    /// The first notification whose summary contains `text`, once it has its id.
    fn wait_for(&self, text: &str) -> Shown {
        wait_until(
            &format!("a notification saying {text:?}"),
            Duration::from_secs(20),
            || {
                self.shown()
                    .into_iter()
                    .find(|n| n.summary.contains(text) && n.id.is_some())
            },
        )
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What dunst emits when the user clicks an action button.
fn click(id: u32, action: &str) {
    let ok = Command::new("gdbus")
        .args([
            "emit",
            "--session",
            "--object-path",
            "/org/freedesktop/Notifications",
            "--signal",
            "org.freedesktop.Notifications.ActionInvoked",
            &format!("uint32 {id}"),
            &format!("'{action}'"),
        ])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "gdbus emit ActionInvoked");
}

/// `airlock daemon --consent ask --open system`, late after 2 s, given up
/// after 30 s, opening in `browser`.
fn ask_daemon(sb: &Sandbox, browser: &BrowserRecorder) -> Daemon {
    let cmd = sb
        .cmd()
        .consent("ask")
        .open("system")
        .deadlines("2", "30")
        .arg("daemon");
    Daemon::spawn(sb, browser.apply(cmd))
}

/// The TypeScript SDK app, attached as `client`, calling `tool`, in the
/// background: its JSON lines when it ends.
fn app_calls(
    sb: &Sandbox,
    client: &str,
    tool: &str,
    arguments: Value,
) -> std::thread::JoinHandle<Out> {
    let cmd = ts_app(
        sb,
        "some-app",
        Some(client),
        &json!([call(tool, arguments)]),
    );
    std::thread::spawn(move || cmd.run())
}

fn result_of(out: &Out) -> Value {
    out.ok();
    let lines = out.json_lines();
    lines
        .first()
        .cloned()
        .unwrap_or_else(|| panic!("no output: {out:?}"))["result"]
        .clone()
}

#[test]
fn the_daemon_asks_in_a_notification_that_names_the_app_and_open_opens_once() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let _notifier = Notifier::ensure(sb.dir());
    let monitor = Monitor::start(sb.dir());
    sb.add_py("github", &[]);
    let browser = BrowserRecorder::new(sb.dir());
    let daemon = ask_daemon(&sb, &browser);

    // -32042 (error path): the client is the call's own.
    let app = app_calls(
        &sb,
        "claude-code",
        "github__needs_auth",
        json!({"url": "https://example.com/authorize"}),
    );
    let n = monitor.wait_for("Claude Code");
    assert_eq!(
        n.summary, "Claude Code → github asks you to open example.com",
        "{n:?}"
    );
    assert_eq!(
        n.actions,
        ["open", "Open example.com", "decline", "Don't open"],
        "{n:?}"
    );
    assert!(
        !n.body.contains("/authorize"),
        "no URL in a notification: {n:?}"
    );
    assert!(
        browser.settle().is_empty(),
        "nothing opens before the click"
    );
    click(n.id.expect("id"), "open");
    // py-peer on 2026-07-28 sends no completion notification: after the
    // late deadline the daemon asks whether the browser step is done.
    let late = monitor.wait_for("Still waiting for example.com");
    assert!(
        late.body
            .starts_with("Claude Code → github has not heard back yet"),
        "{late:?}"
    );
    assert_eq!(
        late.actions,
        ["continue", "Continue", "cancel", "Cancel"],
        "{late:?}"
    );
    click(late.id.expect("id"), "continue");
    let out = app.join().expect("app thread");
    let result = result_of(&out);
    assert_ne!(result["isError"], true, "{result:?}");
    assert_eq!(text(&result), "authorized", "{result:?}");
    let records = sb.elicitations();
    assert_eq!(records[0]["app"], "claude-code", "{records:?}");
    assert_eq!(
        sb.states_of(records[0]["id"].as_i64().expect("id")),
        ["requested", "accepted", "opened", "late", "continued"],
        "{records:?}"
    );
    assert_eq!(
        browser.wait_for(1),
        ["https://example.com/authorize"],
        "exactly one open"
    );

    // History and `elicitations --json` name the app.
    let table = sb.run(&["elicitations"]).ok().stdout.clone();
    assert!(table.contains("[claude-code] github"), "{table}");
    let requested = sb
        .audit()
        .into_iter()
        .find(|e| e["kind"] == "elicitation" && e["detail"]["state"] == "requested")
        .expect("requested audit event");
    // The stored detail keeps its key, `client` (older rows say it too).
    assert_eq!(
        requested["detail"]["client"], "claude-code",
        "{requested:?}"
    );
    drop(daemon);
}

#[test]
fn decline_in_the_notification_is_a_clear_tool_error_and_nothing_opens() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let _notifier = Notifier::ensure(sb.dir());
    let monitor = Monitor::start(sb.dir());
    sb.add_py("github", &[]);
    let browser = BrowserRecorder::new(sb.dir());
    let daemon = ask_daemon(&sb, &browser);

    // The request path (elicitation/create during the call): the app is
    // the one whose call is in flight on the server's connection.
    let app = app_calls(
        &sb,
        "cursor",
        "github__connect_account",
        json!({"url": "https://example.org/connect"}),
    );
    let n = monitor.wait_for("Cursor");
    assert_eq!(
        n.summary, "Cursor → github asks you to open example.org",
        "{n:?}"
    );
    click(n.id.expect("id"), "decline");
    let out = app.join().expect("app thread");
    let result = result_of(&out);
    assert!(text(&result).contains("action=decline"), "{result:?}");
    assert!(browser.settle().is_empty(), "nothing opened");

    // A warned URL (an IP address instead of a domain): no Open to click; it is
    // declined at once and the notification says to review it in Airlock.
    let app = app_calls(
        &sb,
        "claude-code",
        "github__needs_auth",
        json!({"url": "https://93.184.216.34/authorize"}),
    );
    let out = app.join().expect("app thread");
    let result = result_of(&out);
    assert_eq!(result["isError"], true, "{result:?}");
    assert!(text(&result).contains("declined"), "{result:?}");
    let n = monitor.wait_for("Claude Code");
    assert!(n.actions.is_empty(), "no Open on a warned page: {n:?}");
    assert!(n.body.starts_with("Review in Airlock"), "{n:?}");
    assert!(browser.settle().is_empty(), "nothing opened");

    let records = sb.elicitations();
    let clients: Vec<&Value> = records.iter().map(|r| &r["app"]).collect();
    assert_eq!(
        clients,
        [&json!("claude-code"), &json!("cursor")],
        "{records:?}"
    );
    assert!(
        records.iter().all(|r| r["state"] == "declined"),
        "{records:?}"
    );
    let log = daemon.log();
    assert!(
        log.contains("asking for consent in desktop notifications"),
        "{log}"
    );
    drop(daemon);
}

/// A confined server reaching for a host its room does not list (issue
/// 33), through an app attached to the daemon: the daemon asks in a
/// notification naming the server, the domain and the port, with Allow
/// once / Always / Deny; Always is kept in the server's room. A raw IP gets
/// a notification without buttons and is denied (it needs the window).
#[test]
fn the_daemon_asks_about_a_host_in_a_notification_and_always_is_kept() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let _notifier = Notifier::ensure(sb.dir());
    let monitor = Monitor::start(sb.dir());
    sb.run(&[
        "servers",
        "add",
        "esc",
        "--command",
        &s(&py()),
        "--",
        &s(&peers_dir().join("escape_server.py")),
        "stdio",
    ])
    .ok();
    let browser = BrowserRecorder::new(sb.dir());
    let daemon = ask_daemon(&sb, &browser);

    let app = app_calls(
        &sb,
        "claude-code",
        "esc__http_get",
        json!({"url": "https://api.example.com/v1"}),
    );
    let n = monitor.wait_for("wants to reach");
    assert_eq!(
        n.summary, "esc wants to reach example.com (port 443)",
        "{n:?}"
    );
    assert_eq!(
        n.actions,
        [
            "open",
            "Allow once",
            "always",
            "Always for this server",
            "decline",
            "Deny"
        ],
        "{n:?}"
    );
    click(n.id.expect("id"), "always");
    // The host does not resolve here (no network): the call ends either way.
    let _ = app.join().expect("app thread");
    let room = sb.run(&["--json", "servers", "sandbox", "esc"]).ok().json();
    assert_eq!(
        room["settings"]["hosts"],
        json!([{"host": "api.example.com", "port": 443, "source": "asked"}]),
        "{room}"
    );

    // An IP address: told, not asked; denied.
    let app = app_calls(
        &sb,
        "claude-code",
        "esc__http_get",
        json!({"url": "http://127.0.0.1:9/"}),
    );
    let n = monitor.wait_for("(port 9)");
    assert_eq!(n.summary, "esc wants to reach 127.0.0.1 (port 9)", "{n:?}");
    assert!(n.actions.is_empty(), "no one-click answer for an IP: {n:?}");
    assert!(n.body.contains("Review in Airlock"), "{n:?}");
    let out = app.join().expect("app thread");
    assert!(
        out.stdout.contains("403"),
        "denied: the server got the proxy's refusal: {out:?}"
    );
    let decisions: Vec<String> = sb
        .audit()
        .iter()
        .filter(|e| e["kind"] == "sandbox_host")
        .map(|e| e["detail"]["decision"].as_str().unwrap_or("?").to_owned())
        .collect();
    assert_eq!(decisions, ["always", "deny"]);
    drop(daemon);
}
