//! Pinned tool and prompt definitions and the changes waiting for the
//! user's review (`pins`, `pin_changes`, `pin_sights`; migration 0016).
//! The rules that decide what is pinned or held are in [`crate::pins`];
//! this is only how they are kept.

use rusqlite::{params, OptionalExtension};

use super::{now_ms, Store, StoreResult};

/// Changes kept per server (older decided ones are pruned on insert; the
/// audit trail keeps every one).
pub const MAX_CHANGES_PER_SERVER: i64 = 2000;

/// Changes waiting for review per server: past it, a new change is held
/// unrecorded until the person has decided some (a server that lists fresh
/// names at every refresh cannot grow the table, nor every reconcile).
pub const MAX_PENDING_CHANGES_PER_SERVER: usize = 500;

/// One pinned definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinRow {
    pub name: String,
    /// Canonical JSON of the definition as approved.
    pub definition: String,
    pub hash: String,
    /// The scanner's findings on it (JSON list).
    pub findings: String,
    pub pinned_at: i64,
}

/// One change of a server's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRow {
    pub id: i64,
    pub server: String,
    pub kind: String,
    pub name: String,
    pub change: String,
    pub old_definition: Option<String>,
    pub new_definition: Option<String>,
    pub new_hash: String,
    pub findings: String,
    pub state: String,
    pub seen_at: i64,
    pub decided_at: Option<i64>,
}

/// An open change as a reconcile needs it (no definitions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingHead {
    pub id: i64,
    pub name: String,
    pub change: String,
    pub new_hash: String,
}

/// A change to record.
pub struct NewChange<'a> {
    pub server: &'a str,
    pub kind: &'a str,
    pub name: &'a str,
    pub change: &'a str,
    pub old_definition: Option<&'a str>,
    pub new_definition: Option<&'a str>,
    pub new_hash: &'a str,
    pub findings: &'a str,
    pub state: &'a str,
}

const CHANGE_COLUMNS: &str = "id, server, kind, name, change, old_definition, new_definition, new_hash, findings, state, seen_at, decided_at";

fn change_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChangeRow> {
    Ok(ChangeRow {
        id: r.get(0)?,
        server: r.get(1)?,
        kind: r.get(2)?,
        name: r.get(3)?,
        change: r.get(4)?,
        old_definition: r.get(5)?,
        new_definition: r.get(6)?,
        new_hash: r.get(7)?,
        findings: r.get(8)?,
        state: r.get(9)?,
        seen_at: r.get(10)?,
        decided_at: r.get(11)?,
    })
}

impl Store {
    /// Every pin of `server`'s `kind`, by name.
    pub fn pins(&self, server: &str, kind: &str) -> StoreResult<Vec<PinRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT name, definition, hash, findings, pinned_at FROM pins
             WHERE server = ?1 AND kind = ?2 ORDER BY name",
        )?;
        let rows = stmt.query_map(params![server, kind], |r| {
            Ok(PinRow {
                name: r.get(0)?,
                definition: r.get(1)?,
                hash: r.get(2)?,
                findings: r.get(3)?,
                pinned_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Pin (or re-pin) one definition.
    pub fn set_pin(
        &self,
        server: &str,
        kind: &str,
        name: &str,
        definition: &str,
        hash: &str,
        findings: &str,
    ) -> StoreResult<()> {
        self.lock().execute(
            "INSERT INTO pins (server, kind, name, definition, hash, findings, pinned_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (server, kind, name) DO UPDATE SET
               definition = excluded.definition, hash = excluded.hash,
               findings = excluded.findings, pinned_at = excluded.pinned_at",
            params![server, kind, name, definition, hash, findings, now_ms()],
        )?;
        Ok(())
    }

    pub fn delete_pin(&self, server: &str, kind: &str, name: &str) -> StoreResult<()> {
        self.lock().execute(
            "DELETE FROM pins WHERE server = ?1 AND kind = ?2 AND name = ?3",
            params![server, kind, name],
        )?;
        Ok(())
    }

    /// Has Airlock listed `server`'s `kind` before?
    pub fn pin_seen(&self, server: &str, kind: &str) -> StoreResult<bool> {
        Ok(self
            .lock()
            .prepare_cached("SELECT 1 FROM pin_sights WHERE server = ?1 AND kind = ?2")?
            .query_row(params![server, kind], |_| Ok(()))
            .optional()?
            .is_some())
    }

    pub fn mark_pin_seen(&self, server: &str, kind: &str) -> StoreResult<()> {
        self.lock().execute(
            "INSERT OR IGNORE INTO pin_sights (server, kind, first_at) VALUES (?1, ?2, ?3)",
            params![server, kind, now_ms()],
        )?;
        Ok(())
    }

    /// The newest change of `name` in `state` with `new_hash`, if any.
    pub fn pin_change_for(
        &self,
        server: &str,
        kind: &str,
        name: &str,
        new_hash: &str,
        state: &str,
    ) -> StoreResult<Option<ChangeRow>> {
        Ok(self
            .lock()
            .prepare_cached(&format!(
                "SELECT {CHANGE_COLUMNS} FROM pin_changes
                 WHERE server = ?1 AND kind = ?2 AND name = ?3 AND new_hash = ?4 AND state = ?5
                 ORDER BY id DESC LIMIT 1"
            ))?
            .query_row(params![server, kind, name, new_hash, state], change_row)
            .optional()?)
    }

    /// Record a change; an open change of the same item with another hash
    /// is superseded by it. Returns the new row's id.
    pub fn insert_pin_change(&self, c: &NewChange<'_>) -> StoreResult<i64> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let now = now_ms();
        tx.execute(
            "UPDATE pin_changes SET state = 'superseded', decided_at = ?4
             WHERE server = ?1 AND kind = ?2 AND name = ?3 AND state = 'pending'",
            params![c.server, c.kind, c.name, now],
        )?;
        tx.execute(
            "INSERT INTO pin_changes (server, kind, name, change, old_definition, new_definition,
                                      new_hash, findings, state, seen_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                c.server,
                c.kind,
                c.name,
                c.change,
                c.old_definition,
                c.new_definition,
                c.new_hash,
                c.findings,
                c.state,
                now
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "DELETE FROM pin_changes WHERE server = ?1 AND state != 'pending' AND id NOT IN
               (SELECT id FROM pin_changes WHERE server = ?1 ORDER BY id DESC LIMIT ?2)",
            params![c.server, MAX_CHANGES_PER_SERVER],
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// Record several changes at once, in one transaction (see
    /// [`Store::insert_pin_change`]). Returns the new rows' ids, in order.
    pub fn insert_pin_changes(&self, changes: &[NewChange<'_>]) -> StoreResult<Vec<i64>> {
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let now = now_ms();
        let mut ids = Vec::with_capacity(changes.len());
        {
            let mut supersede = tx.prepare_cached(
                "UPDATE pin_changes SET state = 'superseded', decided_at = ?4
                 WHERE server = ?1 AND kind = ?2 AND name = ?3 AND state = 'pending'",
            )?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO pin_changes (server, kind, name, change, old_definition, new_definition,
                                          new_hash, findings, state, seen_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for c in changes {
                supersede.execute(params![c.server, c.kind, c.name, now])?;
                insert.execute(params![
                    c.server,
                    c.kind,
                    c.name,
                    c.change,
                    c.old_definition,
                    c.new_definition,
                    c.new_hash,
                    c.findings,
                    c.state,
                    now
                ])?;
                ids.push(tx.last_insert_rowid());
            }
        }
        let mut servers: Vec<&str> = changes.iter().map(|c| c.server).collect();
        servers.sort_unstable();
        servers.dedup();
        for server in servers {
            tx.execute(
                "DELETE FROM pin_changes WHERE server = ?1 AND state != 'pending' AND id NOT IN
                   (SELECT id FROM pin_changes WHERE server = ?1 ORDER BY id DESC LIMIT ?2)",
                params![server, MAX_CHANGES_PER_SERVER],
            )?;
        }
        tx.commit()?;
        Ok(ids)
    }

    /// What a reconcile needs of `server`'s open changes of `kind`: no
    /// definitions (a server's open changes may be hundreds of large ones).
    pub fn pending_pin_heads(&self, server: &str, kind: &str) -> StoreResult<Vec<PendingHead>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT id, name, change, new_hash FROM pin_changes
             WHERE state = 'pending' AND server = ?1 AND kind = ?2 ORDER BY id",
        )?;
        let rows = stmt.query_map(params![server, kind], |r| {
            Ok(PendingHead {
                id: r.get(0)?,
                name: r.get(1)?,
                change: r.get(2)?,
                new_hash: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The `(name, hash)` of every version of `server`'s `kind` the user
    /// rejected (kept among the server's last [`MAX_CHANGES_PER_SERVER`]).
    pub fn rejected_pin_versions(
        &self,
        server: &str,
        kind: &str,
    ) -> StoreResult<std::collections::HashSet<(String, String)>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT name, new_hash FROM pin_changes
             WHERE state = 'rejected' AND server = ?1 AND kind = ?2",
        )?;
        let rows = stmt.query_map(params![server, kind], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many changes of `server` wait for the user.
    pub fn pending_pin_count(&self, server: &str) -> StoreResult<usize> {
        let n: i64 = self
            .lock()
            .prepare_cached(
                "SELECT COUNT(*) FROM pin_changes WHERE state = 'pending' AND server = ?1",
            )?
            .query_row(params![server], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Close the open changes `ids` (their items are no longer listed, say).
    pub fn supersede_pin_change_ids(&self, ids: &[i64]) -> StoreResult<usize> {
        if ids.is_empty() {
            return Ok(0);
        }
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let now = now_ms();
        let mut n = 0;
        {
            let mut stmt = tx.prepare_cached(
                "UPDATE pin_changes SET state = 'superseded', decided_at = ?2
                 WHERE id = ?1 AND state = 'pending'",
            )?;
            for id in ids {
                n += stmt.execute(params![id, now])?;
            }
        }
        tx.commit()?;
        Ok(n)
    }

    /// Close the open changes of `name` (it came back as pinned, say).
    pub fn supersede_pin_changes(
        &self,
        server: &str,
        kind: &str,
        name: &str,
    ) -> StoreResult<usize> {
        Ok(self.lock().execute(
            "UPDATE pin_changes SET state = 'superseded', decided_at = ?4
             WHERE server = ?1 AND kind = ?2 AND name = ?3 AND state = 'pending'",
            params![server, kind, name, now_ms()],
        )?)
    }

    /// Changes waiting for the user (`server`: of that one only), oldest first.
    pub fn pending_pin_changes(&self, server: Option<&str>) -> StoreResult<Vec<ChangeRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {CHANGE_COLUMNS} FROM pin_changes
             WHERE state = 'pending' AND (?1 IS NULL OR server = ?1) ORDER BY id LIMIT 10000"
        ))?;
        let rows = stmt.query_map(params![server], change_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// [`Store::pending_pin_changes`] without their definitions (`None`):
    /// what notices and counts need, cheap however large the definitions.
    pub fn pending_pin_change_heads(&self, server: Option<&str>) -> StoreResult<Vec<ChangeRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT id, server, kind, name, change, NULL, NULL, new_hash, findings, state, seen_at, decided_at
             FROM pin_changes
             WHERE state = 'pending' AND (?1 IS NULL OR server = ?1) ORDER BY id LIMIT 10000",
        )?;
        let rows = stmt.query_map(params![server], change_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The newest changes of `server` (any state), newest first.
    pub fn recent_pin_changes(&self, server: &str, limit: u32) -> StoreResult<Vec<ChangeRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {CHANGE_COLUMNS} FROM pin_changes WHERE server = ?1 ORDER BY id DESC LIMIT ?2"
        ))?;
        let rows = stmt.query_map(params![server, limit], change_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn pin_change(&self, id: i64) -> StoreResult<Option<ChangeRow>> {
        Ok(self
            .lock()
            .prepare_cached(&format!(
                "SELECT {CHANGE_COLUMNS} FROM pin_changes WHERE id = ?1"
            ))?
            .query_row(params![id], change_row)
            .optional()?)
    }

    /// Decide an open change: its new state, when. `false`: it was not open.
    pub fn decide_pin_change(&self, id: i64, state: &str) -> StoreResult<bool> {
        let conn = self.lock();
        let n = conn.execute(
            "UPDATE pin_changes SET state = ?2, decided_at = ?3 WHERE id = ?1 AND state = 'pending'",
            params![id, state, now_ms()],
        )?;
        if n == 1 {
            conn.execute(
                "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'pin_generation'",
                [],
            )?;
        }
        Ok(n == 1)
    }

    /// A number that changes with every decision (in any process).
    pub fn pin_generation(&self) -> StoreResult<i64> {
        let v: Option<String> = self
            .lock()
            .prepare_cached("SELECT value FROM meta WHERE key = 'pin_generation'")?
            .query_row([], |r| r.get(0))
            .optional()?;
        Ok(v.and_then(|v| v.parse().ok()).unwrap_or(0))
    }

    /// Forget every pin, change and URI claim of a server (it was removed).
    pub fn forget_pins(&self, server: &str) -> StoreResult<()> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM pins WHERE server = ?1", params![server])?;
        tx.execute("DELETE FROM pin_changes WHERE server = ?1", params![server])?;
        tx.execute("DELETE FROM pin_sights WHERE server = ?1", params![server])?;
        tx.execute("DELETE FROM uri_owners WHERE server = ?1", params![server])?;
        tx.execute("DELETE FROM tools_off WHERE server = ?1", params![server])?;
        tx.execute(
            "DELETE FROM uri_conflicts WHERE server = ?1 OR owner = ?1",
            params![server],
        )?;
        tx.commit()?;
        Ok(())
    }
}
