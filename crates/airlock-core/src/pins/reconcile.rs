//! What apps see of one server's tools (or prompts) after its list came
//! in: each definition compared with its pin, changes recorded, held ones
//! withdrawn with the reason their calls are refused, every served one
//! cleaned of hidden characters (see the module docs of [`crate::pins`]).

use airlock_scan::{Finding, Severity};
use serde_json::Value;

use super::{ChangeKind, PinKind};

/// Names listed at most in one audit event about first-sight pins.
pub(crate) const MAX_NAMES_PER_AUDIT: usize = 200;
/// Longest item name shown in a reason, in characters.
const MAX_NAME_CHARS: usize = 80;

/// A definition the apps do not see, and why its calls are refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The item's own name on the server (as listed).
    pub name: String,
    /// Plain text for the app (and its model) and the user.
    pub why: String,
}

/// One server's list after reconciling: what is served, what is held.
#[derive(Debug, Default)]
pub struct Reconciled {
    /// `(own name as listed, definition cleaned of hidden characters)`.
    pub served: Vec<(String, Value)>,
    pub held: Vec<Held>,
    /// Changes recorded now that wait for the user.
    pub new_pending: usize,
}

/// The scanner's findings on a definition of `kind`.
pub(crate) fn scan(kind: PinKind, item: &Value, ctx: &airlock_scan::Context<'_>) -> Vec<Finding> {
    match kind {
        PinKind::Tool => airlock_scan::scan_tool(item, ctx),
        PinKind::Prompt => airlock_scan::scan_prompt(item, ctx),
    }
}

/// A name a server chose, as a reason shows it: hidden characters visible, bounded.
pub(crate) fn shown(name: &str) -> String {
    let v = airlock_scan::visible(name);
    if v.chars().count() <= MAX_NAME_CHARS {
        v
    } else {
        v.chars().take(MAX_NAME_CHARS).chain(['…']).collect()
    }
}

fn review_hint(server: &str) -> String {
    format!(
        "review it in Airlock (`airlock tools review {}`)",
        shown(server)
    )
}

/// Why a definition is held, in words.
pub(crate) fn why(
    server: &str,
    kind: PinKind,
    name: &str,
    change: ChangeKind,
    findings: &[Finding],
) -> String {
    let (s, k, n) = (shown(server), kind.as_str(), shown(name));
    match change {
        ChangeKind::Changed => format!(
            "{s} changed {k} {n} since you approved it; {}",
            review_hint(server)
        ),
        ChangeKind::Added => format!(
            "{s} added {k} {n}, which waits for your approval; {}",
            review_hint(server)
        ),
        ChangeKind::FirstSight => {
            let what = findings
                .iter()
                .find(|f| f.severity == Severity::Serious)
                .map_or_else(|| "something serious".to_owned(), |f| f.detail.clone());
            format!("{s}'s {k} {n} is held: {what}; {}", review_hint(server))
        }
        ChangeKind::Removed => format!("{s} no longer lists {k} {n}"),
    }
}

pub(crate) fn findings_json(findings: &[Finding]) -> String {
    serde_json::to_string(findings).unwrap_or_else(|_| "[]".to_owned())
}

/// One item as listed: its own name, canonical text and hash, findings.
pub(crate) struct Seen {
    pub(crate) name: String,
    pub(crate) text: String,
    pub(crate) hash: String,
    pub(crate) findings: Vec<Finding>,
    pub(crate) serious: bool,
    pub(crate) cleaned: Value,
}
