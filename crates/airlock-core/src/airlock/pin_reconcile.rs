//! A server's fresh lists checked against its pinned definitions.

use std::collections::{HashMap, HashSet};

use airlock_scan::{Finding, Severity, ToolIndex};
use serde_json::Value;

use crate::pins::reconcile::*;
use crate::pins::{canonical, definition_hash, ChangeKind, ChangeState, PinKind, PinPolicy};
use crate::store::pins::{NewChange, PendingHead, PinRow, MAX_PENDING_CHANGES_PER_SERVER};
use crate::{Airlock, CoreResult};

impl Airlock {
    /// The pin policy of `server` (the default for a server with no stored
    /// definition, such as an in-process one in tests).
    pub fn pin_policy(&self, server: &str) -> PinPolicy {
        // A mode the team's policy fixes wins over the server's own.
        if let Some(fixed) = self.policy_pin_mode() {
            return fixed;
        }
        self.get_server(server)
            .map(|d| d.options.pins)
            .unwrap_or_default()
    }

    /// Decide what the apps see of `server`'s `kind` items (`items`: as the
    /// server listed them, as JSON): served ones cleaned, changes recorded
    /// and audited, held ones with their reasons. `tools`: every server's
    /// tools, for the scanner's shadowing check. `max_definition_bytes`:
    /// larger definitions are held.
    pub fn reconcile_pins(
        &self,
        server: &str,
        kind: PinKind,
        items: Vec<Value>,
        tools: &ToolIndex,
        max_definition_bytes: usize,
    ) -> CoreResult<Reconciled> {
        let policy = self.pin_policy(server);
        let ctx = airlock_scan::Context::new(server, tools);
        let mut out = Reconciled::default();
        let mut seen: Vec<Seen> = Vec::with_capacity(items.len());
        let mut names: HashSet<String> = HashSet::with_capacity(items.len());
        for item in items {
            let Some(name) = item.get("name").and_then(Value::as_str).map(str::to_owned) else {
                continue;
            };
            if !names.insert(name.clone()) {
                out.held.push(Held {
                    why: format!(
                        "{} lists {} {} more than once; only the first is served",
                        shown(server),
                        kind.as_str(),
                        shown(&name)
                    ),
                    name,
                });
                continue;
            }
            if airlock_scan::clean(&name) != name {
                // A name with hidden characters is not the name it looks
                // like: never served under its cleaned look-alike.
                out.held.push(Held {
                    why: format!(
                        "{}'s {} {} is not served: its name has hidden characters",
                        shown(server),
                        kind.as_str(),
                        shown(&name)
                    ),
                    name,
                });
                continue;
            }
            let text = canonical(kind, &item).to_string();
            if text.len() > max_definition_bytes {
                out.held.push(Held {
                    why: format!(
                        "{}'s {} {} is not served: its definition is {} bytes, over the limit of {max_definition_bytes} (`airlock servers edit {} --max-definition-bytes N` changes it)",
                        shown(server),
                        kind.as_str(),
                        shown(&name),
                        text.len(),
                        shown(server)
                    ),
                    name,
                });
                continue;
            }
            let findings = scan(kind, &item, &ctx);
            let serious = airlock_scan::worst(&findings) == Some(Severity::Serious);
            let mut cleaned = item;
            airlock_scan::clean_json(&mut cleaned);
            seen.push(Seen {
                hash: definition_hash(&text),
                name,
                text,
                findings,
                serious,
                cleaned,
            });
        }
        if policy == PinPolicy::Off {
            out.served = seen.into_iter().map(|s| (s.name, s.cleaned)).collect();
            return Ok(out);
        }
        let k = kind.as_str();
        let pins: HashMap<String, PinRow> = self
            .store
            .pins(server, k)?
            .into_iter()
            .map(|p| (p.name.clone(), p))
            .collect();
        let heads = self.store.pending_pin_heads(server, k)?;
        // An item added (or first seen) and then no longer listed waits
        // for no one: its change is closed, so a server listing fresh
        // names at every refresh leaves only the ones it lists now.
        let gone: Vec<i64> = heads
            .iter()
            .filter(|c| {
                !names.contains(&c.name)
                    && (c.change == ChangeKind::Added.as_str()
                        || c.change == ChangeKind::FirstSight.as_str())
            })
            .map(|c| c.id)
            .collect();
        self.store.supersede_pin_change_ids(&gone)?;
        let pending: HashMap<String, PendingHead> = heads
            .into_iter()
            .filter(|c| !gone.contains(&c.id))
            .map(|c| (c.name.clone(), c))
            .collect();
        let rejected = self.store.rejected_pin_versions(server, k)?;
        // Room left under the cap on open changes of this server.
        let mut room =
            MAX_PENDING_CHANGES_PER_SERVER.saturating_sub(self.store.pending_pin_count(server)?);
        let first_sight = !self.store.pin_seen(server, k)?;
        // A server installed from a registry: nothing is pinned unseen; its
        // first tools wait for the person, like serious ones.
        let installed_unseen = first_sight && self.store.install_first_sight(server)?;
        let mut pinned_now: Vec<String> = Vec::new();
        let mut to_record: Vec<ToRecord> = Vec::new();
        let mut unrecorded = 0usize;
        for s in &seen {
            let pin = pins.get(&s.name);
            // As approved, unless it is looked at again now with a serious
            // finding its pin did not have: the same text can name another
            // server's tools only once that server is listed (shadowing in
            // either order of listing), or a newer scanner catches more.
            let newly_serious = pin.and_then(|p| newly_serious(&s.findings, &p.findings));
            if pin.is_some_and(|p| p.hash == s.hash) && newly_serious.is_none() {
                // As approved. A change it had pending is moot now.
                if pending.contains_key(&s.name) {
                    self.store.supersede_pin_changes(server, k, &s.name)?;
                }
                out.served.push((s.name.clone(), s.cleaned.clone()));
                continue;
            }
            let flagged = pin.is_some_and(|p| p.hash == s.hash);
            if rejected.contains(&(s.name.clone(), s.hash.clone())) {
                out.held.push(Held {
                    name: s.name.clone(),
                    why: format!(
                        "you rejected this version of {}'s {k} {} in Airlock",
                        shown(server),
                        shown(&s.name)
                    ),
                });
                continue;
            }
            // Approved for everyone by the team's policy (this exact
            // definition, by its hash; a version the person rejected stays
            // rejected): pinned without asking.
            let approved_by_policy =
                newly_serious.is_none() && self.policy_approves(server, &s.name, &s.hash);
            let change = match (pin, first_sight) {
                _ if approved_by_policy => None,
                (Some(_), _) => Some(ChangeKind::Changed),
                (None, true) if s.serious || installed_unseen => Some(ChangeKind::FirstSight),
                // First sight, nothing serious: pinned as it is.
                (None, true) => None,
                (None, false) => Some(ChangeKind::Added),
            };
            let Some(change) = change else {
                self.store.set_pin(
                    server,
                    k,
                    &s.name,
                    &s.text,
                    &s.hash,
                    &findings_json(&s.findings),
                )?;
                if pending.contains_key(&s.name) {
                    self.store.supersede_pin_changes(server, k, &s.name)?;
                }
                pinned_now.push(s.name.clone());
                out.served.push((s.name.clone(), s.cleaned.clone()));
                continue;
            };
            let hold = policy == PinPolicy::Hold;
            let open = pending.get(&s.name);
            let already = open.is_some_and(|c| c.new_hash == s.hash);
            if hold {
                let mut why = match newly_serious.as_ref().filter(|_| flagged) {
                    Some(found) => format!(
                        "{}'s {k} {} is held again: {} ({}); {}",
                        shown(server),
                        shown(&s.name),
                        found.detail,
                        found.kind.as_str(),
                        format_args!(
                            "review it in Airlock (`airlock tools review {}`)",
                            shown(server)
                        )
                    ),
                    None => why(server, kind, &s.name, change, &s.findings),
                };
                if !already {
                    // A change replacing an open one takes no more room.
                    if open.is_some() || room > 0 {
                        room = room.saturating_sub(usize::from(open.is_none()));
                        to_record.push(ToRecord::new(
                            kind,
                            &s.name,
                            change,
                            ChangeState::Pending,
                            pin.map(|p| p.definition.clone()),
                            Some(s.text.clone()),
                            &s.hash,
                            &s.findings,
                        ));
                    } else {
                        unrecorded += 1;
                        why = full(server, kind, &s.name);
                    }
                }
                out.held.push(Held {
                    name: s.name.clone(),
                    why,
                });
            } else {
                if !already {
                    to_record.push(ToRecord::new(
                        kind,
                        &s.name,
                        change,
                        ChangeState::Notified,
                        pin.map(|p| p.definition.clone()),
                        Some(s.text.clone()),
                        &s.hash,
                        &s.findings,
                    ));
                }
                self.store.set_pin(
                    server,
                    k,
                    &s.name,
                    &s.text,
                    &s.hash,
                    &findings_json(&s.findings),
                )?;
                out.served.push((s.name.clone(), s.cleaned.clone()));
            }
        }
        // Pinned definitions the server no longer lists.
        for (name, pin) in &pins {
            if names.contains(name) {
                continue;
            }
            let open = pending.get(name);
            if open.is_some_and(|c| c.change == ChangeKind::Removed.as_str()) {
                continue;
            }
            let state = if policy == PinPolicy::Hold {
                if open.is_none() && room == 0 {
                    // Recorded at a later refresh, once there is room: the
                    // pin stays, and nothing of it is served meanwhile.
                    unrecorded += 1;
                    continue;
                }
                room = room.saturating_sub(usize::from(open.is_none()));
                ChangeState::Pending
            } else {
                self.store.delete_pin(server, k, name)?;
                ChangeState::Notified
            };
            to_record.push(ToRecord::new(
                kind,
                name,
                ChangeKind::Removed,
                state,
                Some(pin.definition.clone()),
                None,
                &pin.hash,
                &[],
            ));
        }
        out.new_pending += to_record
            .iter()
            .filter(|r| r.state == ChangeState::Pending)
            .count();
        self.record_changes(server, &to_record)?;
        if unrecorded > 0 {
            tracing::warn!(
                "{}: {unrecorded} more {k} changes held but not recorded: {MAX_PENDING_CHANGES_PER_SERVER} wait for review already",
                shown(server)
            );
        }
        if !seen.is_empty() {
            self.store.mark_pin_seen(server, k)?;
        }
        if !pinned_now.is_empty() {
            let count = pinned_now.len();
            pinned_now.truncate(MAX_NAMES_PER_AUDIT);
            let _ = self.store.audit(
                Some(server),
                "pin",
                &serde_json::json!({
                    "kind": k,
                    "pinned": count,
                    "names": pinned_now,
                    "first_sight": first_sight,
                }),
            );
        }
        if out.new_pending > 0 || !gone.is_empty() {
            self.pins_changed(server);
        }
        Ok(out)
    }

    /// Record (and audit) changes of `server`'s items, in one transaction.
    fn record_changes(&self, server: &str, changes: &[ToRecord]) -> CoreResult<()> {
        let findings: Vec<String> = changes.iter().map(|c| findings_json(&c.findings)).collect();
        let rows: Vec<NewChange<'_>> = changes
            .iter()
            .zip(&findings)
            .map(|(c, f)| NewChange {
                server,
                kind: c.kind.as_str(),
                name: &c.name,
                change: c.change.as_str(),
                old_definition: c.old.as_deref(),
                new_definition: c.new.as_deref(),
                new_hash: &c.hash,
                findings: f,
                state: c.state.as_str(),
            })
            .collect();
        let ids = self.store.insert_pin_changes(&rows)?;
        for (c, id) in changes.iter().zip(ids) {
            self.audit_change(server, id, c);
        }
        Ok(())
    }

    /// The audit event of one recorded change.
    fn audit_change(&self, server: &str, id: i64, c: &ToRecord) {
        let serious = c
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Serious)
            .count();
        let kinds: Vec<&str> = c.findings.iter().map(|f| f.kind.as_str()).collect();
        let _ = self.store.audit(
            Some(server),
            "pin_change",
            &serde_json::json!({
                "id": id,
                "kind": c.kind.as_str(),
                "name": airlock_scan::visible(&c.name),
                "change": c.change.as_str(),
                "state": c.state.as_str(),
                "hash": c.hash,
                "serious_findings": serious,
                "findings": kinds,
            }),
        );
    }

    /// Tell the shells that `server`'s changes waiting for review changed.
    pub(crate) fn pins_changed(&self, server: &str) {
        let pending = self.store.pending_pin_count(server).unwrap_or(0);
        let _ = self.events.send(crate::events::CoreEvent::PinChanges {
            server: server.to_owned(),
            pending,
        });
    }
}

/// The first serious finding of `findings` whose kind the pin's recorded
/// findings (JSON) do not have.
fn newly_serious(findings: &[Finding], pinned: &str) -> Option<Finding> {
    let known: Vec<Finding> = serde_json::from_str(pinned).unwrap_or_default();
    findings
        .iter()
        .find(|f| {
            f.severity == Severity::Serious
                && !known
                    .iter()
                    .any(|k| k.kind == f.kind && k.severity == Severity::Serious)
        })
        .cloned()
}

/// A change to record once the list is reconciled.
struct ToRecord {
    kind: PinKind,
    name: String,
    change: ChangeKind,
    state: ChangeState,
    old: Option<String>,
    new: Option<String>,
    hash: String,
    findings: Vec<Finding>,
}

impl ToRecord {
    #[allow(clippy::too_many_arguments)]
    fn new(
        kind: PinKind,
        name: &str,
        change: ChangeKind,
        state: ChangeState,
        old: Option<String>,
        new: Option<String>,
        hash: &str,
        findings: &[Finding],
    ) -> Self {
        Self {
            kind,
            name: name.to_owned(),
            change,
            state,
            old,
            new,
            hash: hash.to_owned(),
            findings: findings.to_vec(),
        }
    }
}

/// Why an item is held without its change recorded: the server's open
/// changes are at [`MAX_PENDING_CHANGES_PER_SERVER`].
fn full(server: &str, kind: PinKind, name: &str) -> String {
    format!(
        "{s} changed or added {k} {n}, not served: {MAX_PENDING_CHANGES_PER_SERVER} changes of {s} already wait for your review; decide those first (`airlock tools review {s}`)",
        s = shown(server),
        k = kind.as_str(),
        n = shown(name)
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::pins::PinKind;
    use crate::servers::{ServerInput, Transport};
    use crate::test_support::{open_core, RecordingOpener, ScriptedConsent};

    /// MCP Apps: a tool that starts showing another App, or that shows the
    /// model a tool that was the App's alone, waits for the user's review;
    /// the rest of `_meta` changes nothing.
    #[test]
    fn a_tools_app_link_and_visibility_are_pinned() {
        let (core, _dir) = open_core(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            Default::default(),
        );
        core.add_server(&ServerInput {
            name: "maps".into(),
            options: Default::default(),
            transport: Transport::Stdio {
                command: "maps-server".into(),
                args: Vec::new(),
                env: Default::default(),
                cwd: None,
            },
        })
        .unwrap();
        let tools = airlock_scan::ToolIndex::default();
        let tool = |meta: serde_json::Value| {
            vec![json!({"name": "show_map", "description": "Show a map.",
                "inputSchema": {"type": "object"}, "_meta": meta})]
        };
        let reconcile = |meta| {
            core.reconcile_pins("maps", PinKind::Tool, tool(meta), &tools, 64 * 1024)
                .unwrap()
        };
        let first =
            reconcile(json!({"ui": {"resourceUri": "ui://maps/map", "visibility": ["app"]}}));
        assert_eq!(first.served.len(), 1, "pinned at first sight");
        // Other `_meta` keys: not pinned.
        let same = reconcile(
            json!({"ui": {"visibility": ["app"], "resourceUri": "ui://maps/map"}, "trace": 7}),
        );
        assert_eq!((same.served.len(), same.held.len()), (1, 0));
        // Another App.
        let other =
            reconcile(json!({"ui": {"resourceUri": "ui://maps/login", "visibility": ["app"]}}));
        assert_eq!((other.served.len(), other.held.len()), (0, 1));
        assert!(
            other.held[0].why.contains("show_map"),
            "{}",
            other.held[0].why
        );
        // Shown to the model too.
        let visible = reconcile(
            json!({"ui": {"resourceUri": "ui://maps/map", "visibility": ["model", "app"]}}),
        );
        assert_eq!((visible.served.len(), visible.held.len()), (0, 1));
        // The review shows the App link in the diff.
        let pending = core.pending_pin_changes(Some("maps")).unwrap();
        assert_eq!(
            pending.len(),
            1,
            "one change of one tool waits: {pending:?}"
        );
        let shown = format!("{:?}", pending[0].diff);
        assert!(shown.contains("ui://maps/map"), "{shown}");
        assert!(shown.contains("visibility"), "{shown}");
    }
}
