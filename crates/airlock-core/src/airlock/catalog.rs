//! The catalog of MCP registries: read a registry into the cache
//! (`refresh_catalog`), then search and show from the cache, offline.

use airlock_catalog::{fetch_latest, fetch_version, CatalogEntry, FetchLimits};
use serde::Serialize;

use super::Airlock;
use crate::error::{CoreError, CoreResult};

/// What a read of a registry did.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CatalogRefresh {
    pub registry: String,
    pub entries: usize,
    pub refused: usize,
    /// Why some entries were left out (a few).
    pub reasons: Vec<String>,
    pub pages: usize,
    /// The read stopped at a bound.
    pub cut: bool,
}

/// A cached entry with the registry it came from.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogHit {
    pub registry: String,
    pub fetched_at: i64,
    #[serde(flatten)]
    pub entry: serde_json::Value,
}

/// A cached entry, typed, with the registry it came from (the window's).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CatalogItem {
    pub registry: String,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub fetched_at: i64,
    pub entry: CatalogEntry,
}

/// How much the cache holds.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CatalogSize {
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub entries: u64,
    /// When a registry was last read (ms), if ever.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub fetched_at: Option<i64>,
}

/// A cached row as shown; a row whose JSON no longer reads is skipped.
fn hit(r: crate::store::catalog::CatalogRow) -> Option<CatalogHit> {
    Some(CatalogHit {
        entry: serde_json::from_str(&r.entry).ok()?,
        registry: r.registry,
        fetched_at: r.fetched_at,
    })
}

impl Airlock {
    /// Read `registry`'s latest entries into the cache (replacing what was
    /// kept of it).
    pub async fn refresh_catalog(&self, registry: &str) -> CoreResult<CatalogRefresh> {
        self.check_registry_policy(registry)?;
        let fetched = fetch_latest(registry, None, FetchLimits::default())
            .await
            .map_err(|e| CoreError::BadInput(e.to_string()))?;
        let rows: Vec<(String, String, String, String, String)> = fetched
            .entries
            .iter()
            .map(|e: &CatalogEntry| {
                let status = serde_json::to_value(e.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                (
                    e.name.clone(),
                    e.version.clone(),
                    status,
                    e.description.clone(),
                    serde_json::to_string(e).unwrap_or_default(),
                )
            })
            .collect();
        self.store.replace_catalog(registry, &rows)?;
        let _ = self.store.audit(
            None,
            "catalog_refreshed",
            &serde_json::json!({"registry": registry, "entries": rows.len(), "refused": fetched.refused}),
        );
        Ok(CatalogRefresh {
            registry: registry.to_owned(),
            entries: rows.len(),
            refused: fetched.refused,
            reasons: fetched.reasons,
            pages: fetched.pages,
            cut: fetched.cut,
        })
    }

    /// Cached entries whose name or description contains `text`.
    pub fn search_catalog(&self, text: &str, limit: u32) -> CoreResult<Vec<CatalogHit>> {
        Ok(self
            .store
            .search_catalog(text, limit)?
            .into_iter()
            .filter_map(hit)
            .collect())
    }

    /// One version of `name`, asked of the registry that lists it (the first
    /// one in the cache, or `registry`): versions other than the latest are
    /// not cached.
    pub async fn catalog_version(
        &self,
        name: &str,
        version: &str,
        registry: Option<&str>,
    ) -> CoreResult<(String, CatalogEntry)> {
        let registry = match registry {
            Some(r) => r.to_owned(),
            None => self
                .store
                .catalog_entry(name)?
                .into_iter()
                .map(|r| r.registry)
                .next()
                .ok_or_else(|| {
                    CoreError::BadInput(format!(
                        "{name} is not in the catalog (`airlock catalog refresh`, then `airlock catalog search`)"
                    ))
                })?,
        };
        self.check_registry_policy(&registry)?;
        let entry = fetch_version(&registry, name, version, FetchLimits::default())
            .await
            .map_err(|e| CoreError::BadInput(format!("{name} {version}: {e}")))?;
        Ok((registry, entry))
    }

    /// The cached latest entry of `name` from `registry`, typed (`None`:
    /// that registry does not list it, as of the last read).
    pub(crate) fn cached_entry(
        &self,
        name: &str,
        registry: &str,
    ) -> CoreResult<Option<CatalogEntry>> {
        Ok(self
            .store
            .catalog_entry(name)?
            .into_iter()
            .find(|c| c.registry == registry)
            .and_then(|c| serde_json::from_str(&c.entry).ok()))
    }

    /// The cached entries named `name`, one per registry.
    pub fn catalog_entry(&self, name: &str) -> CoreResult<Vec<CatalogHit>> {
        Ok(self
            .store
            .catalog_entry(name)?
            .into_iter()
            .filter_map(hit)
            .collect())
    }

    /// Cached entries whose name or description contains `text`, typed.
    pub fn catalog_items(&self, text: &str, limit: u32) -> CoreResult<Vec<CatalogItem>> {
        Ok(self
            .store
            .search_catalog(text, limit)?
            .into_iter()
            .filter_map(|r| {
                let mut entry: CatalogEntry = serde_json::from_str(&r.entry).ok()?;
                // The registry's words with every hidden character made
                // visible (the window shows the markers).
                let v = airlock_scan::visible;
                entry.description = v(&entry.description);
                entry.title = entry.title.as_deref().map(v);
                entry.status_message = entry.status_message.as_deref().map(v);
                for p in &mut entry.packages {
                    for e in &mut p.env {
                        e.description = v(&e.description);
                    }
                }
                Some(CatalogItem {
                    entry,
                    registry: r.registry,
                    fetched_at: r.fetched_at,
                })
            })
            .collect())
    }

    /// How many entries the cache holds, and when it was last read.
    pub fn catalog_size(&self) -> CoreResult<(u64, Option<i64>)> {
        Ok(self.store.catalog_size()?)
    }
}
