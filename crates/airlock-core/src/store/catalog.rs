//! The catalog's cache (`catalog`, migration 0019): the latest entry of each
//! server per registry, replaced whole at each read of that registry, so a
//! server the registry dropped goes too.

use rusqlite::params;

use super::{now_ms, Store, StoreResult};

/// One cached entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogRow {
    pub registry: String,
    pub name: String,
    pub version: String,
    pub status: String,
    /// The checked entry, as JSON.
    pub entry: String,
    pub fetched_at: i64,
}

/// The columns [`catalog_row`] reads, in its order.
const COLUMNS: &str = "registry, name, version, status, entry, fetched_at";

fn catalog_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CatalogRow> {
    Ok(CatalogRow {
        registry: r.get(0)?,
        name: r.get(1)?,
        version: r.get(2)?,
        status: r.get(3)?,
        entry: r.get(4)?,
        fetched_at: r.get(5)?,
    })
}

/// Most rows one search returns.
pub const MAX_CATALOG_RESULTS: u32 = 500;

impl Store {
    /// Replace what is kept of `registry` with `rows` (name, version,
    /// status, description, entry JSON), in one transaction.
    pub fn replace_catalog(
        &self,
        registry: &str,
        rows: &[(String, String, String, String, String)],
    ) -> StoreResult<()> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM catalog WHERE registry = ?1", params![registry])?;
        {
            let mut ins = tx.prepare_cached(
                "INSERT OR REPLACE INTO catalog (registry, name, version, status, description, entry, fetched_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let now = now_ms();
            for (name, version, status, description, entry) in rows {
                ins.execute(params![
                    registry,
                    name,
                    version,
                    status,
                    description,
                    entry,
                    now
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Entries whose name or description contains `text` (any case; all
    /// with an empty text), deleted ones left out, by name, at most `limit`.
    pub fn search_catalog(&self, text: &str, limit: u32) -> StoreResult<Vec<CatalogRow>> {
        let conn = self.lock();
        let pattern = format!(
            "%{}%",
            text.replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM catalog \
             WHERE status != 'deleted' AND (name LIKE ?1 ESCAPE '\\' OR description LIKE ?1 ESCAPE '\\') \
             ORDER BY name, registry LIMIT ?2"
        ))?;
        let rows = stmt.query_map(
            params![pattern, limit.min(MAX_CATALOG_RESULTS)],
            catalog_row,
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The entries named `name` (one per registry), deleted ones included.
    pub fn catalog_entry(&self, name: &str) -> StoreResult<Vec<CatalogRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM catalog WHERE name = ?1 ORDER BY registry"
        ))?;
        let rows = stmt.query_map(params![name], catalog_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many entries are kept, and when the newest read was (ms).
    pub fn catalog_size(&self) -> StoreResult<(u64, Option<i64>)> {
        let conn = self.lock();
        let (n, at): (i64, Option<i64>) = conn
            .prepare_cached("SELECT COUNT(*), MAX(fetched_at) FROM catalog")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok((u64::try_from(n).unwrap_or(0), at))
    }
}
