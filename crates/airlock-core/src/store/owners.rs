//! Who owns a resource URI or template pattern the gateway serves
//! (`uri_owners`, `uri_conflicts`; migration 0016). The rules are the
//! gateway's catalog's; this is how they are kept across restarts.

use rusqlite::params;

use super::{now_ms, Store, StoreResult};

/// One owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRow {
    pub uri: String,
    /// `resource` or `template`.
    pub kind: String,
    pub server: String,
    pub claimed_at: i64,
    /// The user chose this owner.
    pub chosen: bool,
}

/// A server that lists a URI another server owns.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConflictRow {
    pub uri: String,
    pub kind: String,
    /// The server that is not served the URI.
    pub server: String,
    pub owner: String,
    pub seen_at: i64,
}

fn owner_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<OwnerRow> {
    Ok(OwnerRow {
        uri: r.get(0)?,
        kind: r.get(1)?,
        server: r.get(2)?,
        claimed_at: r.get(3)?,
        chosen: r.get(4)?,
    })
}

impl Store {
    /// Every owner (at most `limit`).
    pub fn uri_owners(&self, limit: u32) -> StoreResult<Vec<OwnerRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT uri, kind, server, claimed_at, chosen FROM uri_owners ORDER BY claimed_at LIMIT ?1",
        )?;
        let rows = stmt.query_map(params![limit], owner_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// `server` now lists exactly `uris` of `kind`: its claims on others
    /// go (unless the user chose it), each new one is recorded unless
    /// another server owns it already. Returns the owners of `uris`.
    pub fn sync_uri_claims(
        &self,
        server: &str,
        kind: &str,
        uris: &[String],
    ) -> StoreResult<Vec<OwnerRow>> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        tx.execute_batch("CREATE TEMP TABLE IF NOT EXISTS listed (uri TEXT PRIMARY KEY)")?;
        tx.execute("DELETE FROM temp.listed", [])?;
        {
            let mut put =
                tx.prepare_cached("INSERT OR IGNORE INTO temp.listed (uri) VALUES (?1)")?;
            for uri in uris {
                put.execute(params![uri])?;
            }
        }
        tx.execute(
            "DELETE FROM uri_owners WHERE server = ?1 AND kind = ?2 AND chosen = 0
               AND uri NOT IN (SELECT uri FROM temp.listed)",
            params![server, kind],
        )?;
        let now = now_ms();
        tx.execute(
            "INSERT OR IGNORE INTO uri_owners (uri, kind, server, claimed_at, chosen)
             SELECT uri, ?2, ?1, ?3, 0 FROM temp.listed",
            params![server, kind, now],
        )?;
        let owners = {
            let mut stmt = tx.prepare_cached(
                "SELECT o.uri, o.kind, o.server, o.claimed_at, o.chosen FROM uri_owners o
                 JOIN temp.listed l ON l.uri = o.uri WHERE o.kind = ?1",
            )?;
            let rows = stmt.query_map(params![kind], owner_row)?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        tx.execute("DELETE FROM temp.listed", [])?;
        tx.commit()?;
        Ok(owners)
    }

    /// The user gives `uri` (of `kind`) to `server`.
    pub fn choose_uri_owner(&self, uri: &str, kind: &str, server: &str) -> StoreResult<()> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO uri_owners (uri, kind, server, claimed_at, chosen) VALUES (?1, ?2, ?3, ?4, 1)
             ON CONFLICT (uri, kind) DO UPDATE SET server = excluded.server,
               claimed_at = excluded.claimed_at, chosen = 1",
            params![uri, kind, server, now_ms()],
        )?;
        conn.execute(
            "DELETE FROM uri_conflicts WHERE uri = ?1 AND kind = ?2",
            params![uri, kind],
        )?;
        conn.execute(
            "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'pin_generation'",
            [],
        )?;
        Ok(())
    }

    /// The conflicts now (replacing those recorded before).
    pub fn set_uri_conflicts(&self, conflicts: &[ConflictRow]) -> StoreResult<()> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM uri_conflicts", [])?;
        {
            let mut put = tx.prepare_cached(
                "INSERT OR IGNORE INTO uri_conflicts (uri, kind, server, owner, seen_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for c in conflicts {
                put.execute(params![c.uri, c.kind, c.server, c.owner, c.seen_at])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The conflicts recorded (`server`: those it is a party to).
    pub fn uri_conflicts(&self, server: Option<&str>) -> StoreResult<Vec<ConflictRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT uri, kind, server, owner, seen_at FROM uri_conflicts
             WHERE ?1 IS NULL OR server = ?1 OR owner = ?1 ORDER BY uri LIMIT 10000",
        )?;
        let rows = stmt.query_map(params![server], |r| {
            Ok(ConflictRow {
                uri: r.get(0)?,
                kind: r.get(1)?,
                server: r.get(2)?,
                owner: r.get(3)?,
                seen_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
