//! The lists the window and the CLI ask for, as `airlock-bench history`
//! times them.

use airlock_core::lifecycle::ElicitationState;
use airlock_core::store::{AuditQuery, ElicitationQuery, HistoryQuery, ToolCallOutcome};

use crate::gen::{word, NO_MATCH};

pub const PAGE: u32 = 50;
pub const DAY: i64 = 86_400_000;

/// One list the window or the CLI can ask for.
pub enum Case {
    Calls(HistoryQuery),
    Elicitations(ElicitationQuery),
    Audit(AuditQuery),
}

fn calls(f: impl FnOnce(&mut HistoryQuery)) -> Case {
    let mut q = HistoryQuery {
        limit: PAGE,
        ..Default::default()
    };
    f(&mut q);
    Case::Calls(q)
}

fn elicitations(f: impl FnOnce(&mut ElicitationQuery)) -> Case {
    let mut q = ElicitationQuery {
        limit: PAGE,
        ..Default::default()
    };
    f(&mut q);
    Case::Elicitations(q)
}

pub fn cases(now: i64) -> Vec<(String, Case)> {
    let mut list = filter_cases(now);
    list.extend(search_cases());
    list.extend(filtered_search_cases(now));
    list
}

/// The list with its filters, no search.
fn filter_cases(now: i64) -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    vec![
        ("first page".into(), calls(|_| ())),
        ("server git".into(), calls(|q| q.server = s("git"))),
        (
            "server stripe (3%)".into(),
            calls(|q| q.server = s("stripe")),
        ),
        (
            "outcome failed".into(),
            calls(|q| q.outcome = Some(ToolCallOutcome::Failed)),
        ),
        ("app cursor".into(), calls(|q| q.app = s("cursor"))),
        ("last 24 h".into(), calls(|q| q.since_ms = Some(now - DAY))),
        (
            "a week, a month ago".into(),
            calls(|q| {
                q.since_ms = Some(now - 37 * DAY);
                q.until_ms = Some(now - 30 * DAY);
            }),
        ),
        (
            "older than 60 days".into(),
            calls(|q| q.until_ms = Some(now - 60 * DAY)),
        ),
        (
            "server git + failed".into(),
            calls(|q| {
                q.server = s("git");
                q.outcome = Some(ToolCallOutcome::Failed);
            }),
        ),
        (
            "app cursor + stripe".into(),
            calls(|q| {
                q.app = s("cursor");
                q.server = s("stripe");
            }),
        ),
    ]
}

/// Searches, of 1, 2 and more characters.
fn search_cases() -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    let common = word(0);
    let nomatch_common = format!("{}{}", word(0), word(1));
    vec![
        (
            format!("search common '{common}'"),
            calls(|q| q.search = s(&common)),
        ),
        (
            format!("search rare '{}'", word(3999)),
            calls(|q| q.search = s(&word(3999))),
        ),
        (
            "search 'timed out' (error)".into(),
            calls(|q| q.search = s("timed out")),
        ),
        (
            format!("search no match '{NO_MATCH}'"),
            calls(|q| q.search = s(NO_MATCH)),
        ),
        (
            format!("search no match, common trigrams '{nomatch_common}'"),
            calls(|q| q.search = s(&nomatch_common)),
        ),
        (
            "search 2 chars 'qz' (none)".into(),
            calls(|q| q.search = s("qz")),
        ),
        ("search 2 chars 'ka'".into(), calls(|q| q.search = s("ka"))),
        (
            "search 1 char 'é' (none)".into(),
            calls(|q| q.search = s("é")),
        ),
        ("search 1 char 'x'".into(), calls(|q| q.search = s("x"))),
        (
            "search 2 chars '62' + failed".into(),
            calls(|q| {
                q.search = s("62");
                q.outcome = Some(ToolCallOutcome::Failed);
            }),
        ),
        (
            "search 2 chars 'qz' + server git".into(),
            calls(|q| {
                q.search = s("qz");
                q.server = s("git");
            }),
        ),
        (
            "search 1 char 'x' + stripe + failed".into(),
            calls(|q| {
                q.search = s("x");
                q.server = s("stripe");
                q.outcome = Some(ToolCallOutcome::Failed);
            }),
        ),
    ]
}

/// Searches with filters.
fn filtered_search_cases(now: i64) -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    let common = word(0);
    vec![
        (
            "search common + server git".into(),
            calls(|q| {
                q.search = s(&common);
                q.server = s("git");
            }),
        ),
        (
            "search rare + failed".into(),
            calls(|q| {
                q.search = s(&word(3999));
                q.outcome = Some(ToolCallOutcome::Failed);
            }),
        ),
        (
            "search common + app vscode + week".into(),
            calls(|q| {
                q.search = s(&common);
                q.app = s("vscode");
                q.since_ms = Some(now - 7 * DAY);
            }),
        ),
        (
            "search common + failed".into(),
            calls(|q| {
                q.search = s(&common);
                q.outcome = Some(ToolCallOutcome::Failed);
            }),
        ),
        (
            "search rare + app cursor".into(),
            calls(|q| {
                q.search = s(&word(3999));
                q.app = s("cursor");
            }),
        ),
        (
            "search common + a week, a month ago".into(),
            calls(|q| {
                q.search = s(&common);
                q.since_ms = Some(now - 37 * DAY);
                q.until_ms = Some(now - 30 * DAY);
            }),
        ),
        (
            "search rare + a week, a month ago".into(),
            calls(|q| {
                q.search = s(&word(3999));
                q.since_ms = Some(now - 37 * DAY);
                q.until_ms = Some(now - 30 * DAY);
            }),
        ),
        (
            "search 'timed out' + older than 60 days".into(),
            calls(|q| {
                q.search = s("timed out");
                q.until_ms = Some(now - 60 * DAY);
            }),
        ),
        (
            "search no match + server git".into(),
            calls(|q| {
                q.search = s(NO_MATCH);
                q.server = s("git");
            }),
        ),
    ]
}

fn audit(f: impl FnOnce(&mut AuditQuery)) -> Case {
    let mut q = AuditQuery {
        limit: 100,
        ..Default::default()
    };
    f(&mut q);
    Case::Audit(q)
}

/// The audit trail: before, the window read the newest 500 events (of one
/// server at most) and filtered those in memory; now one page of 100 with
/// every filter in SQL.
pub fn audit_cases() -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    vec![
        ("audit first page".into(), audit(|_| ())),
        ("audit server git".into(), audit(|q| q.server = s("git"))),
        (
            "audit kind connect".into(),
            audit(|q| q.kind = s("connect")),
        ),
        (
            format!("audit search '{}'", word(0)),
            audit(|q| q.search = s(&word(0))),
        ),
        (
            format!("audit search no match '{NO_MATCH}'"),
            audit(|q| q.search = s(NO_MATCH)),
        ),
        ("audit app cursor".into(), audit(|q| q.app = s("cursor"))),
        (
            "audit app vscode + kind connect".into(),
            audit(|q| {
                q.app = s("vscode");
                q.kind = s("connect");
            }),
        ),
        (
            format!("audit search rare '{}'", word(3999)),
            audit(|q| q.search = s(&word(3999))),
        ),
        (
            "audit search 2 chars 'qz' (none)".into(),
            audit(|q| q.search = s("qz")),
        ),
        (
            "audit search common + app vscode".into(),
            audit(|q| {
                q.search = s(&word(0));
                q.app = s("vscode");
            }),
        ),
    ]
}

pub fn elicitation_cases(now: i64) -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    vec![
        ("elicitations first page".into(), elicitations(|_| ())),
        (
            "elicitations server git".into(),
            elicitations(|q| q.server = s("git")),
        ),
        (
            "elicitations state declined".into(),
            elicitations(|q| q.state = Some(ElicitationState::Declined)),
        ),
        (
            "elicitations month ago".into(),
            elicitations(|q| {
                q.since_ms = Some(now - 37 * DAY);
                q.until_ms = Some(now - 30 * DAY);
            }),
        ),
        (
            "elicitations search domain 'stripe.com'".into(),
            elicitations(|q| q.search = s("stripe.com")),
        ),
        (
            "elicitations search message 'invoice 4242'".into(),
            elicitations(|q| q.search = s("invoice 4242")),
        ),
        (
            "elicitations search URL 'login.microsoftonline'".into(),
            elicitations(|q| q.search = s("login.microsoftonline")),
        ),
        (
            "elicitations search no match 'paypal'".into(),
            elicitations(|q| q.search = s("paypal")),
        ),
        (
            "elicitations search 'atlassian' + declined".into(),
            elicitations(|q| {
                q.search = s("atlassian");
                q.state = Some(ElicitationState::Declined);
            }),
        ),
    ]
}
