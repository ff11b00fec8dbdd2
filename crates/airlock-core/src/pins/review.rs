//! What the user reviews: each change of a pinned definition with both
//! versions side by side (hidden characters made visible, so an invisible
//! instruction shows as what it is) and the scanner's findings; and the
//! decisions: approve (the new definition is pinned and served) or reject
//! (it stays withdrawn; the same version is not asked about again).

use serde::Serialize;
use serde_json::Value;

use super::{ChangeKind, ChangeState, PinKind};
use crate::store::pins::ChangeRow;

/// Lines of a definition shown in a review, at most.
pub const MAX_REVIEW_LINES: usize = 2000;

/// The user's answer to a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Approve,
    Reject,
}

/// One line of the side-by-side view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DiffLine {
    /// `same`, `removed` (only on the left), `added` (only on the right).
    pub tag: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// One change, as a person reviews it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PinChange {
    pub id: i64,
    pub server: String,
    pub kind: PinKind,
    /// The item's name, hidden characters made visible.
    pub name: String,
    pub change: ChangeKind,
    pub state: ChangeState,
    /// Side by side: the approved definition and the new one, as pretty
    /// JSON with every hidden character made visible.
    pub diff: Vec<DiffLine>,
    pub findings: Vec<airlock_scan::Finding>,
    pub seen_at: i64,
    pub decided_at: Option<i64>,
}

/// Every string in `value` (keys too) made visible.
fn visible_json(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(airlock_scan::visible(s)),
        Value::Array(items) => Value::Array(items.iter().map(visible_json).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (airlock_scan::visible(k), visible_json(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A stored definition as lines a person reads.
fn lines(definition: Option<&str>) -> Vec<String> {
    let Some(text) = definition else {
        return Vec::new();
    };
    let pretty = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&visible_json(&v)).ok())
        .unwrap_or_else(|| airlock_scan::visible(text));
    pretty
        .lines()
        .take(MAX_REVIEW_LINES)
        .map(str::to_owned)
        .collect()
}

/// Side by side, line by line.
fn diff(old: &[String], new: &[String]) -> Vec<DiffLine> {
    let old_refs: Vec<&str> = old.iter().map(String::as_str).collect();
    let new_refs: Vec<&str> = new.iter().map(String::as_str).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old_refs, &new_refs);
    let mut out = Vec::new();
    for op in ops {
        for change in op.iter_changes(&old_refs, &new_refs) {
            let text = change.value().to_owned();
            out.push(match change.tag() {
                similar::ChangeTag::Equal => DiffLine {
                    tag: "same".into(),
                    old: Some(text.clone()),
                    new: Some(text),
                },
                similar::ChangeTag::Delete => DiffLine {
                    tag: "removed".into(),
                    old: Some(text),
                    new: None,
                },
                similar::ChangeTag::Insert => DiffLine {
                    tag: "added".into(),
                    old: None,
                    new: Some(text),
                },
            });
        }
    }
    out
}

impl PinChange {
    pub(crate) fn from_row(row: ChangeRow) -> Self {
        let (old, new) = (
            lines(row.old_definition.as_deref()),
            lines(row.new_definition.as_deref()),
        );
        Self {
            id: row.id,
            kind: PinKind::parse(&row.kind).unwrap_or(PinKind::Tool),
            name: airlock_scan::visible(&row.name),
            change: ChangeKind::parse(&row.change).unwrap_or(ChangeKind::Changed),
            state: ChangeState::parse(&row.state).unwrap_or(ChangeState::Pending),
            diff: diff(&old, &new),
            findings: serde_json::from_str(&row.findings).unwrap_or_default(),
            seen_at: row.seen_at,
            decided_at: row.decided_at,
            server: row.server,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_show_in_the_diff() {
        let old = r#"{"description":"Get the weather.","name":"weather"}"#;
        let new = "{\"description\":\"Get the weather.\u{200B}\u{E0041}\",\"name\":\"weather\"}";
        let d = diff(&lines(Some(old)), &lines(Some(new)));
        let added: Vec<&DiffLine> = d.iter().filter(|l| l.tag == "added").collect();
        let removed: Vec<&DiffLine> = d.iter().filter(|l| l.tag == "removed").collect();
        assert_eq!(added.len(), 1, "{d:#?}");
        assert_eq!(removed.len(), 1, "{d:#?}");
        let shown = added[0].new.as_deref().unwrap();
        assert!(
            !shown.contains('\u{200B}') && !shown.contains('\u{E0041}'),
            "{shown}"
        );
        assert!(shown.contains("U+200B"), "{shown}");
        assert!(d
            .iter()
            .any(|l| l.tag == "same" && l.old.as_deref() == Some("  \"name\": \"weather\"")));
    }

    #[test]
    fn an_added_definition_has_only_a_right_side() {
        let d = diff(&[], &lines(Some(r#"{"name":"x"}"#)));
        assert!(d.iter().all(|l| l.tag == "added" && l.old.is_none()));
    }
}
