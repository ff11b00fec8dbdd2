//! What a desktop notification says about changes held for review, for
//! every shell that shows one (the window, the daemon): which of a server's
//! waiting changes are new since its last notice (one notice per server per
//! burst, never one per tool), and the sentences that name them. Names the
//! server chose are defanged and bounded
//! ([`crate::url_safety::notice::notification_text`]). A notice never
//! offers Approve: approving needs the diff, which only a review shows.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use airlock_scan::{Finding, Severity};

use super::{ChangeKind, PinKind};
use crate::store::pins::ChangeRow;
use crate::url_safety::notice::notification_text;
use crate::Airlock;

/// A burst of changes (a server's tools and prompts re-listed, one change
/// after another) is noticed this long after its first event, as one.
pub const PIN_NOTICE_GAP: Duration = Duration::from_millis(750);
/// How often the follower reads the pin generation, to notice decisions
/// made in another process (`airlock tools approve` next to a daemon).
pub const PIN_GENERATION_POLL: Duration = Duration::from_secs(2);
/// Names listed in a notice about several changes, at most.
pub const MAX_NOTICE_NAMES: usize = 3;
/// Longest server, tool or prompt name in a notice, in characters.
pub const NOTICE_NAME_CHARS: usize = 48;
/// Longest finding sentence in a notice, in characters.
pub const NOTICE_DETAIL_CHARS: usize = 200;

/// The desktop app's argument that opens its review on a change
/// (`airlock-desktop --review ID`): what a daemon's Review action runs.
pub const DESKTOP_REVIEW_ARG: &str = "--review";

/// The change id after [`DESKTOP_REVIEW_ARG`] in a command line, if any.
pub fn review_arg<S: AsRef<str>>(args: impl IntoIterator<Item = S>) -> Option<i64> {
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        if a.as_ref() == DESKTOP_REVIEW_ARG {
            return args.next().and_then(|id| id.as_ref().parse().ok());
        }
    }
    None
}

/// One notice about a server's changes that wait for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinNotice {
    /// The server, as configured (to act on; show [`PinNotice::summary`]).
    pub server: String,
    /// The change a Review action opens: the first with something serious
    /// in it (the one the notice's "Held:" line is about), else the newest.
    pub change_id: i64,
    /// Changes new in this notice.
    pub count: usize,
    /// One line: "weather changed tool get_weather since you approved it".
    pub summary: String,
    /// Sentences for the body (the names when there are several, the first
    /// serious finding), without how to review: each shell says that.
    pub lines: Vec<String>,
}

/// What a shell does about a server's notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinNoticeEvent {
    /// Show this notice (it replaces the server's earlier one).
    Show(PinNotice),
    /// Nothing of `server` waits for review any more: withdraw its notice.
    Settled { server: String },
}

/// A name the server chose, as a notice shows it.
fn name(text: &str) -> String {
    notification_text(&airlock_scan::visible(text), NOTICE_NAME_CHARS)
}

fn change_kind(row: &ChangeRow) -> ChangeKind {
    ChangeKind::parse(&row.change).unwrap_or(ChangeKind::Changed)
}

fn item_kind(row: &ChangeRow) -> PinKind {
    PinKind::parse(&row.kind).unwrap_or(PinKind::Tool)
}

/// The first serious finding of `rows`, as a sentence, and its change.
fn first_serious(rows: &[&ChangeRow]) -> Option<(i64, String)> {
    rows.iter().find_map(|r| {
        serde_json::from_str::<Vec<Finding>>(&r.findings)
            .ok()?
            .into_iter()
            .find(|f| f.severity == Severity::Serious)
            .map(|f| (r.id, notification_text(&f.detail, NOTICE_DETAIL_CHARS)))
    })
}

/// "tools", "prompts" or "tools and prompts".
fn kinds_word(rows: &[&ChangeRow]) -> &'static str {
    let tools = rows.iter().any(|r| item_kind(r) == PinKind::Tool);
    let prompts = rows.iter().any(|r| item_kind(r) == PinKind::Prompt);
    match (tools, prompts) {
        (false, true) => "prompts",
        (true, true) => "tools and prompts",
        _ => "tools",
    }
}

fn what(change: ChangeKind) -> &'static str {
    match change {
        ChangeKind::FirstSight => "held at first sight",
        ChangeKind::Added => "added",
        ChangeKind::Changed => "changed",
        ChangeKind::Removed => "removed",
    }
}

/// The notice about `rows` (new changes of `server`, oldest first); `None`
/// when there are none.
pub fn notice_for(server: &str, rows: &[&ChangeRow]) -> Option<PinNotice> {
    let newest = rows.iter().map(|r| r.id).max()?;
    let s = name(server);
    let summary = match rows {
        [one] => {
            let (k, n) = (item_kind(one).as_str(), name(&one.name));
            match change_kind(one) {
                ChangeKind::Changed => format!("{s} changed {k} {n} since you approved it"),
                ChangeKind::Added => format!("{s} added {k} {n}, which waits for your approval"),
                ChangeKind::FirstSight => format!("{s}'s {k} {n} is held until you review it"),
                ChangeKind::Removed => format!("{s} no longer lists {k} {n}"),
            }
        }
        several => {
            let words = kinds_word(several);
            if several
                .iter()
                .all(|r| change_kind(r) == ChangeKind::Changed)
            {
                format!(
                    "{s} changed {} {words} since you approved them",
                    several.len()
                )
            } else {
                format!(
                    "{s}: {} changes of its {words} wait for your review",
                    several.len()
                )
            }
        }
    };
    let mut lines = Vec::new();
    if rows.len() > 1 {
        let mut names: Vec<String> = rows
            .iter()
            .take(MAX_NOTICE_NAMES)
            .map(|r| format!("{} ({})", name(&r.name), what(change_kind(r))))
            .collect();
        let rest = rows.len().saturating_sub(MAX_NOTICE_NAMES);
        if rest > 0 {
            names.push(format!("{rest} more"));
        }
        lines.push(format!("{}.", names.join(", ")));
    }
    let serious = first_serious(rows);
    if let Some((_, finding)) = &serious {
        lines.push(format!("Held: {}", finding.trim_end_matches('.')));
    }
    Some(PinNotice {
        server: server.to_owned(),
        change_id: serious.map_or(newest, |(id, _)| id),
        count: rows.len(),
        summary,
        lines,
    })
}

/// Which waiting changes each server was told about, so a notice names
/// only new ones. Holds the ids of changes that wait now, no others.
#[derive(Debug, Default)]
pub struct PinNoticeTracker {
    pub(crate) told: HashMap<String, HashSet<i64>>,
}

impl PinNoticeTracker {
    /// Start from the changes that wait now: they were there before this
    /// shell started (its badge shows them); only later ones are noticed.
    pub fn seeded(core: &Airlock) -> Self {
        let mut told: HashMap<String, HashSet<i64>> = HashMap::new();
        for change in core.pending_pin_change_heads(None).unwrap_or_default() {
            told.entry(change.server).or_default().insert(change.id);
        }
        Self { told }
    }

    /// `server`'s waiting changes are now `pending`: what to do about its
    /// notice. Forgets the changes no longer waiting.
    pub fn update(&mut self, server: &str, pending: &[ChangeRow]) -> Option<PinNoticeEvent> {
        let told = self.told.remove(server).unwrap_or_default();
        if pending.is_empty() {
            return (!told.is_empty()).then(|| PinNoticeEvent::Settled {
                server: server.to_owned(),
            });
        }
        let new: Vec<&ChangeRow> = pending.iter().filter(|r| !told.contains(&r.id)).collect();
        self.told
            .insert(server.to_owned(), pending.iter().map(|r| r.id).collect());
        notice_for(server, &new).map(PinNoticeEvent::Show)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, kind: &str, name: &str, change: &str, findings: &str) -> ChangeRow {
        ChangeRow {
            id,
            server: "weather".into(),
            kind: kind.into(),
            name: name.into(),
            change: change.into(),
            old_definition: None,
            new_definition: None,
            new_hash: format!("h{id}"),
            findings: findings.into(),
            state: "pending".into(),
            seen_at: id,
            decided_at: None,
        }
    }

    const SERIOUS: &str = r#"[{"kind":"invisible_character","severity":"warning","field":"description","excerpt":"x","detail":"An invisible character."},{"kind":"tag_character","severity":"serious","field":"description","excerpt":"x","detail":"Hidden text in Unicode tag characters: 'A'."}]"#;

    #[test]
    fn one_change_says_what_changed() {
        let r = row(7, "tool", "get_weather", "changed", "[]");
        let n = notice_for("weather", &[&r]).unwrap();
        assert_eq!(
            n.summary,
            "weather changed tool get_weather since you approved it"
        );
        assert!(n.lines.is_empty(), "{n:?}");
        assert_eq!((n.change_id, n.count), (7, 1));

        let r = row(8, "prompt", "greet", "added", "[]");
        assert_eq!(
            notice_for("weather", &[&r]).unwrap().summary,
            "weather added prompt greet, which waits for your approval"
        );
        let r = row(9, "tool", "get_weather", "first_sight", SERIOUS);
        let n = notice_for("weather", &[&r]).unwrap();
        assert_eq!(
            n.summary,
            "weather's tool get_weather is held until you review it"
        );
        assert_eq!(
            n.lines,
            vec!["Held: Hidden text in Unicode tag characters: 'A'".to_owned()]
        );
    }

    #[test]
    fn several_changes_are_one_notice_naming_a_few() {
        let rows: Vec<ChangeRow> = (1..=5)
            .map(|i| row(i, "tool", &format!("t{i}"), "changed", "[]"))
            .collect();
        let refs: Vec<&ChangeRow> = rows.iter().collect();
        let n = notice_for("weather", &refs).unwrap();
        assert_eq!(n.summary, "weather changed 5 tools since you approved them");
        assert_eq!(
            n.lines,
            vec!["t1 (changed), t2 (changed), t3 (changed), 2 more.".to_owned()]
        );
        assert_eq!(n.change_id, 5);

        let a = row(1, "tool", "t", "changed", "[]");
        let b = row(2, "prompt", "p", "added", SERIOUS);
        let n = notice_for("weather", &[&a, &b]).unwrap();
        assert_eq!(
            n.summary,
            "weather: 2 changes of its tools and prompts wait for your review"
        );
        assert_eq!(n.lines.len(), 2, "{n:?}");
        assert!(n.lines[1].starts_with("Held: Hidden text"), "{n:?}");
        // Review opens the change the "Held:" line is about.
        let c = row(3, "tool", "u", "changed", "[]");
        assert_eq!(notice_for("weather", &[&a, &b, &c]).unwrap().change_id, 2);
    }

    #[test]
    fn hostile_names_are_defanged_and_bounded() {
        let r = row(
            1,
            "tool",
            &format!("<b>x</b>\u{202E}https://evil.example/{}", "a".repeat(500)),
            "changed",
            "[]",
        );
        let n = notice_for("paypal.com", &[&r]).unwrap();
        assert!(!n.summary.contains('<'), "{}", n.summary);
        assert!(!n.summary.contains("://"), "{}", n.summary);
        assert!(!n.summary.contains('\u{202E}'), "{}", n.summary);
        assert!(
            n.summary.starts_with("paypal[.]com changed tool"),
            "{}",
            n.summary
        );
        assert!(
            n.summary.chars().count() < 2 * NOTICE_NAME_CHARS + 60,
            "{}",
            n.summary
        );
    }

    #[test]
    fn the_review_argument_names_a_change() {
        assert_eq!(review_arg(["airlock-desktop", "--review", "42"]), Some(42));
        assert_eq!(review_arg(["airlock-desktop", "--review"]), None);
        assert_eq!(review_arg(["airlock-desktop", "--review", "x"]), None);
        assert_eq!(review_arg(["airlock-desktop", "--hidden"]), None);
    }

    #[test]
    fn the_tracker_notices_only_new_changes_and_settles() {
        let mut t = PinNoticeTracker::default();
        let a = row(1, "tool", "a", "changed", "[]");
        let b = row(2, "tool", "b", "changed", "[]");
        let Some(PinNoticeEvent::Show(n)) = t.update("weather", std::slice::from_ref(&a)) else {
            panic!("a notice for the first change");
        };
        assert_eq!(n.count, 1);
        // The same change again (a decision elsewhere, a re-list): nothing.
        assert_eq!(t.update("weather", std::slice::from_ref(&a)), None);
        // A new one next to it: only it is noticed.
        let Some(PinNoticeEvent::Show(n)) = t.update("weather", &[a.clone(), b.clone()]) else {
            panic!("a notice for the second change");
        };
        assert_eq!((n.count, n.change_id), (1, 2));
        assert!(n.summary.contains(" b "), "{}", n.summary);
        // One decided: nothing to show, nothing to withdraw.
        assert_eq!(t.update("weather", std::slice::from_ref(&b)), None);
        // All decided: the notice goes.
        assert_eq!(
            t.update("weather", &[]),
            Some(PinNoticeEvent::Settled {
                server: "weather".into()
            })
        );
        assert!(t.told.is_empty());
        assert_eq!(t.update("weather", &[]), None);
    }

    /// The follower on a real core: a burst of changes of one server (its
    /// tools, then its prompts) is one notice; deciding them settles it.
    #[tokio::test]
    async fn a_burst_is_one_notice_and_decisions_settle_it() {
        use crate::pins::Decision;
        use crate::servers::{ServerInput, Transport};
        use crate::test_support::{open_core, RecordingOpener, ScriptedConsent};
        use serde_json::json;

        let (core, _dir) = open_core(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            Default::default(),
        );
        core.add_server(&ServerInput {
            name: "weather".into(),
            options: Default::default(),
            transport: Transport::Stdio {
                command: "weather-server".into(),
                args: Vec::new(),
                env: Default::default(),
                cwd: None,
            },
        })
        .unwrap();
        let tools = airlock_scan::ToolIndex::default();
        let list = |d: &str| {
            vec![
                json!({"name": "get_weather", "description": d, "inputSchema": {"type": "object"}}),
            ]
        };
        let prompts = |d: &str| vec![json!({"name": "greet", "description": d})];
        let limit = 64 * 1024;
        core.reconcile_pins("weather", PinKind::Tool, list("Weather."), &tools, limit)
            .unwrap();
        core.reconcile_pins("weather", PinKind::Prompt, prompts("Hello."), &tools, limit)
            .unwrap();

        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let follower = tokio::spawn(core.clone().follow_pin_notices(move |e| {
            let _ = tx.send(e);
        }));
        tokio::task::yield_now().await;
        // The burst: the tool and the prompt changed, one list after the other.
        core.reconcile_pins(
            "weather",
            PinKind::Tool,
            list("Weather.\u{200B}"),
            &tools,
            limit,
        )
        .unwrap();
        core.reconcile_pins("weather", PinKind::Prompt, prompts("Hi."), &tools, limit)
            .unwrap();
        let first = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        let PinNoticeEvent::Show(n) = first else {
            panic!("a notice, got {first:?}");
        };
        assert_eq!(n.count, 2, "{n:?}");
        assert_eq!(
            n.summary,
            "weather changed 2 tools and prompts since you approved them"
        );
        // Nothing else for this burst.
        assert!(
            tokio::time::timeout(PIN_NOTICE_GAP * 2, rx.recv())
                .await
                .is_err(),
            "one notice per burst"
        );
        // Both decided, the second in "another process" (the store only: no
        // event here, as for `airlock tools reject` next to a daemon): the
        // notice is withdrawn all the same, and no new one is shown.
        let open = core.pending_pin_changes(Some("weather")).unwrap();
        core.decide_pin_change(open[0].id, Decision::Reject)
            .unwrap();
        assert!(
            tokio::time::timeout(PIN_NOTICE_GAP * 2, rx.recv())
                .await
                .is_err(),
            "one change still waits: nothing to do"
        );
        let other = crate::store::Store::open_in(core.data_dir()).unwrap();
        assert!(other.decide_pin_change(open[1].id, "approved").unwrap());
        let settled = tokio::time::timeout(PIN_GENERATION_POLL * 3, rx.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            settled,
            PinNoticeEvent::Settled {
                server: "weather".into()
            }
        );
        follower.abort();
    }
}
