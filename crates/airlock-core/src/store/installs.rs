//! Servers installed from a registry (`installs`, migration 0020): the
//! entry and version, the folder, and the lock every start is checked
//! against.

use rusqlite::{params, OptionalExtension};

use super::{now_ms, Store, StoreResult};

/// One installed server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRow {
    pub server: String,
    pub registry: String,
    pub entry_name: String,
    pub version: String,
    pub kind: String,
    pub identifier: String,
    pub dir: String,
    pub digest: String,
    /// airlock-install's `Lock`, as JSON.
    pub lock: String,
    /// Its first tools are not seen yet: every one waits for review.
    pub first_sight: bool,
    pub installed_at: i64,
}

const COLUMNS: &str =
    "server, registry, entry_name, version, kind, identifier, dir, digest, lock, first_sight, installed_at";

fn install_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<InstallRow> {
    Ok(InstallRow {
        server: r.get(0)?,
        registry: r.get(1)?,
        entry_name: r.get(2)?,
        version: r.get(3)?,
        kind: r.get(4)?,
        identifier: r.get(5)?,
        dir: r.get(6)?,
        digest: r.get(7)?,
        lock: r.get(8)?,
        first_sight: r.get::<_, i64>(9)? != 0,
        installed_at: r.get(10)?,
    })
}

impl Store {
    /// Record (or replace, on an update) what is installed for a server.
    pub fn set_install(&self, row: &InstallRow) -> StoreResult<()> {
        self.lock().execute(
            &format!(
                "INSERT OR REPLACE INTO installs ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
            ),
            params![
                row.server,
                row.registry,
                row.entry_name,
                row.version,
                row.kind,
                row.identifier,
                row.dir,
                row.digest,
                row.lock,
                i64::from(row.first_sight),
                now_ms(),
            ],
        )?;
        Ok(())
    }

    /// What is installed for `server`, if it came from a registry.
    pub fn install(&self, server: &str) -> StoreResult<Option<InstallRow>> {
        let conn = self.lock();
        let row = conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM installs WHERE server = ?1"))?
            .query_row(params![server], install_row)
            .optional()?;
        Ok(row)
    }

    /// Every installed server, by name.
    pub fn installs(&self) -> StoreResult<Vec<InstallRow>> {
        let conn = self.lock();
        let mut stmt =
            conn.prepare_cached(&format!("SELECT {COLUMNS} FROM installs ORDER BY server"))?;
        let rows = stmt.query_map([], install_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Is `server` installed and its first tools not yet seen?
    pub fn install_first_sight(&self, server: &str) -> StoreResult<bool> {
        let conn = self.lock();
        let v: Option<i64> = conn
            .prepare_cached("SELECT first_sight FROM installs WHERE server = ?1")?
            .query_row(params![server], |r| r.get(0))
            .optional()?;
        Ok(v.is_some_and(|v| v != 0))
    }

    /// The person has seen its first tools.
    pub fn install_seen(&self, server: &str) -> StoreResult<()> {
        self.lock().execute(
            "UPDATE installs SET first_sight = 0 WHERE server = ?1",
            params![server],
        )?;
        Ok(())
    }

    /// When the registries of installed servers were last read for updates
    /// (ms), if ever.
    pub fn catalog_checked_at(&self) -> StoreResult<Option<i64>> {
        let conn = self.lock();
        let v: Option<String> = conn
            .prepare_cached("SELECT value FROM meta WHERE key = 'catalog_checked_at'")?
            .query_row([], |r| r.get(0))
            .optional()?;
        Ok(v.and_then(|v| v.parse().ok()))
    }

    /// The registries of installed servers were read for updates now.
    pub fn set_catalog_checked_at(&self, at: i64) -> StoreResult<()> {
        self.lock().execute(
            "INSERT INTO meta (key, value) VALUES ('catalog_checked_at', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![at.to_string()],
        )?;
        Ok(())
    }

    /// Forget an install (its server was removed).
    pub fn remove_install(&self, server: &str) -> StoreResult<()> {
        self.lock()
            .execute("DELETE FROM installs WHERE server = ?1", params![server])?;
        Ok(())
    }
}
