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

/// What the Servers page shows of a server at a glance.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServerGlance {
    /// Tools the person approved (pinned) for apps.
    pub tools_approved: u32,
    /// Of those and others, turned off.
    pub tools_off: u32,
    /// Apps that called it in the last [`GLANCE_DAYS`] days, most recent
    /// first, at most [`GLANCE_APPS`].
    pub apps: Vec<String>,
}

/// How far back "used by" looks.
pub const GLANCE_DAYS: i64 = 7;
/// Most apps named.
pub const GLANCE_APPS: usize = 5;

impl Store {
    /// [`ServerGlance`] of `server`: three indexed queries.
    pub fn server_glance(&self, server: &str) -> StoreResult<ServerGlance> {
        let conn = self.lock();
        let count = |sql: &str| -> StoreResult<u32> {
            let n: i64 = conn
                .prepare_cached(sql)?
                .query_row(params![server], |r| r.get(0))?;
            Ok(u32::try_from(n).unwrap_or(u32::MAX))
        };
        let tools_approved =
            count("SELECT COUNT(*) FROM pins WHERE server = ?1 AND kind = 'tool'")?;
        let tools_off = count("SELECT COUNT(*) FROM tools_off WHERE server = ?1")?;
        let since = now_ms() - GLANCE_DAYS * 24 * 3600 * 1000;
        let mut stmt = conn.prepare_cached(
            "SELECT client, MAX(started_at) AS last FROM tool_calls \
             WHERE server_name = ?1 AND started_at >= ?2 AND client IS NOT NULL \
             GROUP BY client ORDER BY last DESC LIMIT ?3",
        )?;
        let apps = stmt
            .query_map(params![server, since, GLANCE_APPS as i64], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(ServerGlance {
            tools_approved,
            tools_off,
            apps,
        })
    }
}
