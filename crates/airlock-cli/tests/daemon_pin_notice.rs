//! The daemon's notification about tool changes held for review (issue 25):
//! a real app (the official TypeScript SDK client) attached to `airlock
//! daemon` calls a tool of tests/peers/rug_pull_peer.py (official Python
//! SDK), which then rewrites two of its tools. One real dunst notification
//! says what changed and how to review it, with Review only when the Airlock
//! app is installed next to the CLI (never Approve); the decisions, made
//! with the CLI in another process, withdraw it.
//!
//! Needs a session bus (`scripts/with-session.sh`); when no notification
//! server owns `org.freedesktop.Notifications` there, the test starts its
//! own Xvfb and dunst (both installed by scripts/setup.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::gateway::{call, lines, ts_app, Daemon};
use common::notify::Notifier;
use common::*;
use serde_json::json;

/// `dbus-monitor` of the notification calls: Notify (its strings and
/// actions), the ids the server returns, CloseNotification.
struct Monitor {
    child: Child,
    log: PathBuf,
}

#[derive(Debug, Clone, Default)]
struct Shown {
    id: Option<u32>,
    summary: String,
    body: String,
    actions: Vec<String>,
}

/// The `string "..."` values of a dbus-monitor block, unescaped.
fn strings(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in block.split("string \"").skip(1) {
        let mut value = String::new();
        let mut chars = part.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => value.extend(chars.next()),
                '"' => break,
                c => value.push(c),
            }
        }
        out.push(value);
    }
    out
}

impl Monitor {
    fn start(dir: &Path) -> Monitor {
        let log = dir.join("dbus-monitor.txt");
        let child = Command::new("dbus-monitor")
            .args([
                "--session",
                "type='method_call',interface='org.freedesktop.Notifications'",
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

    /// Messages, one block each (a header line, then its arguments).
    fn blocks(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut blocks: Vec<String> = Vec::new();
        for line in text.lines() {
            // A string argument may span lines: only a header starts a block.
            let header = ["method call", "method return", "signal", "error"]
                .iter()
                .any(|h| line.starts_with(h));
            if header || blocks.is_empty() {
                blocks.push(String::new());
            }
            if let Some(b) = blocks.last_mut() {
                b.push_str(line);
                b.push('\n');
            }
        }
        blocks
    }

    fn field(head: &str, name: &str) -> Option<String> {
        head.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")).map(str::to_owned))
    }

    fn shown(&self) -> Vec<Shown> {
        let blocks = self.blocks();
        let mut calls = Vec::new();
        let mut ids = std::collections::HashMap::new();
        for b in &blocks {
            let (head, body) = b.split_once('\n').unwrap_or((b, ""));
            if head.starts_with("method call") && head.ends_with("member=Notify") {
                let open = body.find("array [").unwrap_or(body.len());
                let before = strings(&body[..open]);
                let close = body[open..].find("\n   ]").map_or(body.len(), |c| open + c);
                let key = (Self::field(head, "sender"), Self::field(head, "serial"));
                calls.push((key, before, strings(&body[open..close])));
            } else if head.starts_with("method return") {
                if let Some(id) = body
                    .trim()
                    .strip_prefix("uint32 ")
                    .and_then(|v| v.trim().parse::<u32>().ok())
                {
                    let key = (
                        Self::field(head, "destination"),
                        Self::field(head, "reply_serial"),
                    );
                    ids.insert(key, id);
                }
            }
        }
        calls
            .into_iter()
            .map(|(key, before, actions)| Shown {
                id: ids.get(&key).copied(),
                summary: before.get(2).cloned().unwrap_or_default(),
                body: before.get(3).cloned().unwrap_or_default(),
                actions,
            })
            .collect()
    }

    /// The ids of every CloseNotification call.
    fn closed(&self) -> Vec<u32> {
        self.blocks()
            .iter()
            .filter(|b| {
                b.lines()
                    .next()
                    .is_some_and(|h| h.ends_with("member=CloseNotification"))
            })
            .filter_map(|b| {
                b.lines()
                    .nth(1)?
                    .trim()
                    .strip_prefix("uint32 ")?
                    .trim()
                    .parse()
                    .ok()
            })
            .collect()
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_held_rug_pull_is_one_notification_saying_how_to_review_and_decisions_withdraw_it() {
    let sb = Sandbox::new();
    let _notifier = Notifier::ensure(sb.dir());
    let monitor = Monitor::start(sb.dir());
    let peer = peers_dir().join("rug_pull_peer.py");
    sb.run(&[
        "servers",
        "add",
        "weather",
        "--command",
        &s(&py()),
        "--",
        &s(&peer),
        "stdio",
    ])
    .ok();
    let daemon = Daemon::start(&sb, "decline", None);

    let out = ts_app(
        &sb,
        "some-app",
        Some("cursor"),
        &json!([
            call("weather__get_weather", json!({"city": "Paris"})),
            {"op": "wait_tool", "name": "weather__get_weather", "present": false, "timeout_ms": 20000},
        ]),
    )
    .run();
    let l = lines(&out);
    assert_eq!(text(&l[0]["result"]), "Sunny in Paris", "{l:?}");
    assert_eq!(l[1]["found"], true, "the changed tool is withdrawn: {l:?}");

    let n = wait_until("the notification", Duration::from_secs(20), || {
        monitor
            .shown()
            .into_iter()
            .find(|n| n.summary.starts_with("weather") && n.id.is_some())
    });
    assert_eq!(
        n.summary, "weather changed 2 tools since you approved them",
        "{n:?}"
    );
    assert!(n.body.contains("Held: "), "{n:?}");
    let beside = airlock_bin().with_file_name("airlock-desktop").is_file();
    if beside {
        assert_eq!(
            n.actions,
            ["review", "Review"],
            "Review opens the app: {n:?}"
        );
        assert!(
            n.body.ends_with("Your apps do not see them until you review them: Review opens Airlock on them, or run `airlock tools review weather`."),
            "{n:?}"
        );
    } else {
        assert!(n.actions.is_empty(), "no app to open: {n:?}");
        assert!(
            n.body.contains("run `airlock tools review weather`"),
            "{n:?}"
        );
    }
    std::thread::sleep(Duration::from_millis(1500));
    let about: Vec<Shown> = monitor
        .shown()
        .into_iter()
        .filter(|s| s.summary.starts_with("weather"))
        .collect();
    assert_eq!(about.len(), 1, "one notification per burst: {about:?}");
    assert!(
        daemon
            .log()
            .contains("weather: weather changed 2 tools since you approved them"),
        "{}",
        daemon.log()
    );

    // Decided with the CLI, another process: the notification goes.
    sb.run(&["tools", "reject", "weather", "get_weather"]).ok();
    // Longer than the daemon takes to see a decision made elsewhere.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        monitor.closed().is_empty(),
        "one change still waits: the notification stays"
    );
    let reviewed = sb.change_id("weather", "get_forecast");
    sb.run(&[
        "tools",
        "approve",
        "weather",
        "get_forecast",
        "--change",
        &reviewed,
    ])
    .ok();
    let id = n.id.expect("id");
    wait_until(
        "the notification withdrawn",
        Duration::from_secs(10),
        || monitor.closed().contains(&id).then_some(()),
    );
    assert_eq!(monitor.shown().len(), 1, "and no new one");
}
