//! The review of held definitions: approve or reject a change.

use crate::pins::review::*;
use crate::pins::{ChangeKind, ChangeState, PinKind};
use crate::{Airlock, CoreError, CoreResult};

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

    /// The waiting changes without their definitions (for notices).
    pub(crate) fn pending_pin_change_heads(
        &self,
        server: Option<&str>,
    ) -> CoreResult<Vec<crate::store::pins::ChangeRow>> {
        Ok(self.store.pending_pin_change_heads(server)?)
    }

    /// How many changes wait for the user, per server.
    pub fn pending_pin_counts(&self) -> CoreResult<Vec<(String, usize)>> {
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for c in self.store.pending_pin_change_heads(None)? {
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
        if decision == Decision::Approve && !PinChange::from_row(row.clone()).complete {
            return Err(CoreError::BadInput(format!(
                "change #{id} of {}'s {} {} cannot be shown whole (over {MAX_REVIEW_LINES} lines, or a text over {} characters), so it cannot be approved: what you could not review is not approved. Reject it, or ask the server's maker for a smaller definition",
                airlock_scan::visible(&row.server),
                row.kind,
                airlock_scan::visible(&row.name),
                airlock_scan::MAX_VISIBLE_CHARS
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

    /// [`Airlock::decide_pin_change`] of change `id`, the one the person
    /// reviewed, after checking that it is `server`'s `name` (of `kind`)
    /// and still the one waiting: when the server changed the item again
    /// since, the newer change is neither approved nor rejected, and the
    /// error says to review again.
    pub fn decide_reviewed_pin(
        &self,
        server: &str,
        name: &str,
        kind: PinKind,
        id: i64,
        decision: Decision,
    ) -> CoreResult<PinChange> {
        let review = format!("`airlock tools review {}`", airlock_scan::visible(server));
        let row = self.store.pin_change(id)?.filter(|r| {
            r.server == server
                && r.kind == kind.as_str()
                && (r.name == name || airlock_scan::visible(&r.name) == name)
        });
        let Some(row) = row else {
            return Err(CoreError::BadInput(format!(
                "change #{id} is not a change of {server}'s {} {name} ({review} lists the changes and their numbers)",
                kind.as_str()
            )));
        };
        if row.state == ChangeState::Superseded.as_str() {
            let newer = self
                .store
                .pending_pin_heads(&row.server, &row.kind)?
                .into_iter()
                .find(|c| c.name == row.name);
            return Err(CoreError::BadInput(match newer {
                Some(c) => format!(
                    "{server} changed {} {name} again after the change #{id} you reviewed: nothing was decided; review change #{} ({review})",
                    kind.as_str(),
                    c.id
                ),
                None => format!(
                    "change #{id} of {server}'s {} {name} no longer waits: the server changed it again or went back to what you approved ({review})",
                    kind.as_str()
                ),
            }));
        }
        self.decide_pin_change(row.id, decision)
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
