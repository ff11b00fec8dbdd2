//! Single tools turned off by the person (`tools_off`, migration 0018).
//! Turning one off or on counts as a decision about what apps see: it
//! moves `pin_generation`, so a running host applies it within seconds.

use rusqlite::params;

use super::{now_ms, Store, StoreResult};

impl Store {
    /// Turn `name` of `server` off (`off`) or on. `false`: it already was.
    pub fn set_tool_off(&self, server: &str, name: &str, off: bool) -> StoreResult<bool> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let n = if off {
            tx.execute(
                "INSERT OR IGNORE INTO tools_off (server, name, off_at) VALUES (?1, ?2, ?3)",
                params![server, name, now_ms()],
            )?
        } else {
            tx.execute(
                "DELETE FROM tools_off WHERE server = ?1 AND name = ?2",
                params![server, name],
            )?
        };
        if n > 0 {
            tx.execute(
                "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'pin_generation'",
                [],
            )?;
        }
        tx.commit()?;
        Ok(n > 0)
    }

    /// The tools of `server` that are off, by name.
    pub fn tools_off(&self, server: &str) -> StoreResult<Vec<String>> {
        let conn = self.lock();
        let mut stmt =
            conn.prepare_cached("SELECT name FROM tools_off WHERE server = ?1 ORDER BY name")?;
        let rows = stmt.query_map(params![server], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
