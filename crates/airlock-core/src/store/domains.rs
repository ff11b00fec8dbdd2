//! Where servers have sent the user before (`opened_domains`).

use rusqlite::{params, OptionalExtension};

use super::{now_ms, Store, StoreResult};

/// Domains of all servers kept for look-alike checks at most.
pub const MAX_KNOWN_DOMAINS: u32 = 10_000;

impl Store {
    /// A page of `domain` was opened for `server`.
    pub fn note_opened(&self, server: &str, domain: &str) -> StoreResult<()> {
        let now = now_ms();
        self.lock().execute(
            "INSERT INTO opened_domains (server_name, domain, times, first_at, last_at)
             VALUES (?1, ?2, 1, ?3, ?3)
             ON CONFLICT (server_name, domain) DO UPDATE SET times = times + 1, last_at = ?3",
            params![server, domain, now],
        )?;
        Ok(())
    }

    /// How often `server` sent the user to `domain`, and when first.
    pub fn opened_before(&self, server: &str, domain: &str) -> StoreResult<Option<(u32, i64)>> {
        Ok(self
            .lock()
            .query_row(
                "SELECT times, first_at FROM opened_domains WHERE server_name = ?1 AND domain = ?2",
                params![server, domain],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// Domains any server sent the user to, most recent first (bounded).
    pub fn known_domains(&self) -> StoreResult<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT domain FROM opened_domains GROUP BY domain ORDER BY MAX(last_at) DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map(params![MAX_KNOWN_DOMAINS], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
