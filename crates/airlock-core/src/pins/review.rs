//! What the user reviews: each change of a pinned definition with both
//! versions side by side (hidden characters made visible, so an invisible
//! instruction shows as what it is) and the scanner's findings; and the
//! decisions: approve (the new definition is pinned and served) or reject
//! (it stays withdrawn; the same version is not asked about again).

use serde::Serialize;
use serde_json::Value;

use super::{ChangeKind, ChangeState, PinKind};
use crate::store::pins::ChangeRow;
use crate::{Airlock, CoreError, CoreResult};

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
    fn from_row(row: ChangeRow) -> Self {
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

impl Airlock {
    /// Changes waiting for the user (`server`: of that one), oldest first.
    pub fn pending_pin_changes(&self, server: Option<&str>) -> CoreResult<Vec<PinChange>> {
        Ok(self
            .store
            .pending_pin_changes(server)?
            .into_iter()
            .map(PinChange::from_row)
            .collect())
    }

    /// How many changes wait for the user, per server.
    pub fn pending_pin_counts(&self) -> CoreResult<Vec<(String, usize)>> {
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for c in self.store.pending_pin_changes(None)? {
            *counts.entry(c.server).or_default() += 1;
        }
        Ok(counts.into_iter().collect())
    }

    /// The newest changes of `server`, decided or not.
    pub fn recent_pin_changes(&self, server: &str, limit: u32) -> CoreResult<Vec<PinChange>> {
        Ok(self
            .store
            .recent_pin_changes(server, limit.min(1000))?
            .into_iter()
            .map(PinChange::from_row)
            .collect())
    }

    /// A number that changes with every decision (in any process): a host
    /// compares it to know when to apply decisions made elsewhere.
    pub fn pin_generation(&self) -> CoreResult<i64> {
        Ok(self.store.pin_generation()?)
    }

    /// Approve or reject the open change `id`. Approve pins the new
    /// definition (a removal: forgets the pin); reject keeps it withdrawn.
    pub fn decide_pin_change(&self, id: i64, decision: Decision) -> CoreResult<PinChange> {
        let row = self
            .store
            .pin_change(id)?
            .ok_or_else(|| CoreError::BadInput(format!("no change #{id}")))?;
        if row.state != ChangeState::Pending.as_str() {
            return Err(CoreError::BadInput(format!(
                "change #{id} is {} already, not waiting for a decision",
                row.state
            )));
        }
        if decision == Decision::Approve {
            match (
                ChangeKind::parse(&row.change),
                row.new_definition.as_deref(),
            ) {
                (Some(ChangeKind::Removed), _) => {
                    self.store.delete_pin(&row.server, &row.kind, &row.name)?;
                }
                (_, Some(new)) => {
                    self.store.set_pin(
                        &row.server,
                        &row.kind,
                        &row.name,
                        new,
                        &row.new_hash,
                        &row.findings,
                    )?;
                }
                (_, None) => {}
            }
        }
        let state = match decision {
            Decision::Approve => ChangeState::Approved,
            Decision::Reject => ChangeState::Rejected,
        };
        if !self.store.decide_pin_change(id, state.as_str())? {
            return Err(CoreError::BadInput(format!(
                "change #{id} was decided meanwhile"
            )));
        }
        let _ = self.store.audit(
            Some(&row.server),
            "pin_decision",
            &serde_json::json!({
                "id": id,
                "kind": row.kind,
                "name": airlock_scan::visible(&row.name),
                "change": row.change,
                "decision": state.as_str(),
                "hash": row.new_hash,
            }),
        );
        self.pins_changed(&row.server);
        let decided = self.store.pin_change(id)?.unwrap_or(row);
        Ok(PinChange::from_row(decided))
    }

    /// [`Airlock::decide_pin_change`] of the open change of `server`'s
    /// tool or prompt `name` (`kind`: `None` looks at tools, then prompts).
    pub fn decide_pin(
        &self,
        server: &str,
        name: &str,
        kind: Option<PinKind>,
        decision: Decision,
    ) -> CoreResult<PinChange> {
        let open = self.store.pending_pin_changes(Some(server))?;
        let kinds = match kind {
            Some(k) => vec![k],
            None => vec![PinKind::Tool, PinKind::Prompt],
        };
        for k in kinds {
            if let Some(c) = open.iter().find(|c| {
                c.kind == k.as_str() && (c.name == name || airlock_scan::visible(&c.name) == name)
            }) {
                return self.decide_pin_change(c.id, decision);
            }
        }
        Err(CoreError::BadInput(format!(
            "{server} has no change of {name:?} waiting for review (`airlock tools review {server}` lists them)"
        )))
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
