//! The gateway's apps (the `clients` table, migration 0008: the stored
//! name stays; see [`crate::apps`]). The bearer token of an app is in
//! the OS keychain; this table only says when it
//! was set.

use std::sync::atomic::Ordering;

use rusqlite::{params, OptionalExtension};

use super::{now_ms, Store, StoreResult};

/// One row of `clients`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppRow {
    pub name: String,
    /// When its HTTP token was made (ms); `None`: no token (stdio only).
    pub token_set_at: Option<i64>,
    /// Its profile as JSON; `None`: every enabled server and tool.
    pub profile_json: Option<String>,
    pub created_at: i64,
    /// Paused in Airlock: its calls are refused (migration 0011).
    pub paused: bool,
}

/// Whether `clients` may have changed since this was taken: writes
/// through this store's own connection (counted in memory) and SQLite's
/// `PRAGMA data_version`, which moves when another connection commits
/// (another `airlock` process, or the history writer: a cheap false alarm).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppsStamp {
    own_writes: u64,
    data_version: i64,
}

impl AppsStamp {
    /// This store's own writes to `clients` when it was taken.
    pub fn own_writes(&self) -> u64 {
        self.own_writes
    }
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AppRow> {
    Ok(AppRow {
        name: r.get(0)?,
        token_set_at: r.get(1)?,
        profile_json: r.get(2)?,
        created_at: r.get(3)?,
        paused: r.get(4)?,
    })
}

impl Store {
    /// Add an app; `false` when one of that name exists.
    pub fn insert_app(&self, name: &str, token_set_at: Option<i64>) -> StoreResult<bool> {
        let n = self.lock().execute(
            "INSERT OR IGNORE INTO clients (name, token_set_at, profile_json, created_at)
             VALUES (?1, ?2, NULL, ?3)",
            params![name, token_set_at, now_ms()],
        )?;
        self.wrote_apps();
        Ok(n == 1)
    }

    /// Every app, by name (at most `limit`).
    pub fn list_apps(&self, limit: u32) -> StoreResult<Vec<AppRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT name, token_set_at, profile_json, created_at, paused FROM clients ORDER BY name LIMIT ?1",
        )?;
        let rows = stmt.query_map(params![limit], row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn get_app(&self, name: &str) -> StoreResult<Option<AppRow>> {
        Ok(self
            .lock()
            .prepare_cached(
                "SELECT name, token_set_at, profile_json, created_at, paused FROM clients WHERE name = ?1",
            )?
            .query_row(params![name], row)
            .optional()?)
    }

    /// Set an app's profile; `false` when there is no such app.
    pub fn set_app_profile(&self, name: &str, profile_json: Option<&str>) -> StoreResult<bool> {
        let n = self.lock().execute(
            "UPDATE clients SET profile_json = ?2 WHERE name = ?1",
            params![name, profile_json],
        )?;
        self.wrote_apps();
        Ok(n == 1)
    }

    /// Pause or resume an app, adding its row (no token, every server)
    /// when there is none.
    pub fn set_app_paused(&self, name: &str, paused: bool) -> StoreResult<()> {
        self.lock().execute(
            "INSERT INTO clients (name, token_set_at, profile_json, created_at, paused)
             VALUES (?1, NULL, NULL, ?2, ?3)
             ON CONFLICT (name) DO UPDATE SET paused = excluded.paused",
            params![name, now_ms(), paused],
        )?;
        self.wrote_apps();
        Ok(())
    }

    /// Remove an app; `false` when there was none.
    pub fn delete_app(&self, name: &str) -> StoreResult<bool> {
        let n = self
            .lock()
            .execute("DELETE FROM clients WHERE name = ?1", params![name])?;
        self.wrote_apps();
        Ok(n == 1)
    }

    fn wrote_apps(&self) {
        self.app_writes.fetch_add(1, Ordering::SeqCst);
    }

    /// Writes to `clients` through this store so far (memory only).
    pub fn app_writes(&self) -> u64 {
        self.app_writes.load(Ordering::SeqCst)
    }

    /// What [`AppsStamp`] says now: one `PRAGMA data_version` (no table
    /// is read).
    pub fn apps_stamp(&self) -> StoreResult<AppsStamp> {
        // Read the count first: a write landing between the two reads
        // makes the next stamp differ again (one more re-read, never a
        // missed change).
        let own_writes = self.app_writes();
        let data_version = self
            .lock()
            .query_row("PRAGMA data_version", [], |r| r.get(0))?;
        Ok(AppsStamp {
            own_writes,
            data_version,
        })
    }

    pub fn count_apps(&self) -> StoreResult<u32> {
        Ok(self
            .lock()
            .query_row("SELECT COUNT(*) FROM clients", [], |r| r.get(0))?)
    }
}
