//! Reading a registry: `GET {base}/v0.1/servers?version=latest&limit=100`
//! and its pages (`cursor` ← `metadata.nextCursor`), each page bounded in
//! bytes, the whole read bounded in pages and entries, a cursor that comes
//! back (a loop) ends it. Entries that fail their checks are left out and
//! counted; deleted ones are kept (as deleted) so a cache learns of them.

use std::time::Duration;

use serde_json::Value;

use crate::entry::CatalogEntry;

/// The official MCP Registry.
pub const OFFICIAL_REGISTRY: &str = "https://registry.modelcontextprotocol.io";

/// Bounds of one read of a registry.
#[derive(Debug, Clone, Copy)]
pub struct FetchLimits {
    pub max_pages: usize,
    pub max_entries: usize,
    pub max_page_bytes: usize,
    pub timeout: Duration,
}

impl Default for FetchLimits {
    fn default() -> Self {
        FetchLimits {
            max_pages: 500,
            max_entries: 20_000,
            max_page_bytes: 8 * 1024 * 1024,
            timeout: Duration::from_secs(20),
        }
    }
}

/// Why a registry could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogError {
    /// Not an https URL (http only to this computer).
    BadRegistry(String),
    Network(String),
    /// The registry answered something that is not a page of servers.
    BadAnswer(String),
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BadRegistry(s) => write!(f, "not a registry Airlock reads: {s}"),
            Self::Network(s) => write!(f, "cannot reach the registry: {s}"),
            Self::BadAnswer(s) => write!(f, "the registry's answer is not a page of servers: {s}"),
        }
    }
}

impl std::error::Error for CatalogError {}

/// What a read gave.
#[derive(Debug, Clone, Default)]
pub struct Fetched {
    pub entries: Vec<CatalogEntry>,
    /// Entries left out, each with why (at most 20 reasons kept).
    pub refused: usize,
    pub reasons: Vec<String>,
    pub pages: usize,
    /// The read stopped at a bound (pages or entries).
    pub cut: bool,
}

/// The base URL of a registry, checked.
pub fn registry_base(raw: &str) -> Result<url::Url, CatalogError> {
    let u = url::Url::parse(raw.trim_end_matches('/'))
        .map_err(|e| CatalogError::BadRegistry(format!("{raw}: {e}")))?;
    let loopback = matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    if u.scheme() != "https" && !(u.scheme() == "http" && loopback) {
        return Err(CatalogError::BadRegistry(format!(
            "{raw}: https only (plain http only to this computer)"
        )));
    }
    if !u.username().is_empty() || u.password().is_some() || u.query().is_some() {
        return Err(CatalogError::BadRegistry(format!(
            "{raw}: no user, password or query"
        )));
    }
    Ok(u)
}

/// The latest version of every server the registry lists (with `search`:
/// those whose name contains it), page after page within `limits`.
pub async fn fetch_latest(
    registry: &str,
    search: Option<&str>,
    limits: FetchLimits,
) -> Result<Fetched, CatalogError> {
    let base = registry_base(registry)?;
    let client = reqwest::Client::builder()
        .timeout(limits.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| CatalogError::Network(e.to_string()))?;
    let mut out = Fetched::default();
    let mut cursor: Option<String> = None;
    let mut seen_cursors = std::collections::HashSet::new();
    loop {
        if out.pages >= limits.max_pages || out.entries.len() >= limits.max_entries {
            out.cut = true;
            break;
        }
        let mut url = base.clone();
        url.set_path(&format!(
            "{}/v0.1/servers",
            base.path().trim_end_matches('/')
        ));
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("version", "latest");
            q.append_pair("limit", "100");
            if let Some(c) = &cursor {
                q.append_pair("cursor", c);
            }
            if let Some(s) = search {
                q.append_pair("search", s);
            }
        }
        let page = get_json(&client, url, limits.max_page_bytes).await?;
        out.pages += 1;
        let items = page
            .get("servers")
            .and_then(Value::as_array)
            .ok_or_else(|| CatalogError::BadAnswer("no `servers` list".into()))?;
        for item in items {
            if out.entries.len() >= limits.max_entries {
                out.cut = true;
                break;
            }
            match CatalogEntry::from_item(item) {
                Ok(e) => out.entries.push(e),
                Err(why) => {
                    out.refused += 1;
                    if out.reasons.len() < 20 {
                        out.reasons.push(why.0);
                    }
                }
            }
        }
        match page
            .get("metadata")
            .and_then(|m| m.get("nextCursor"))
            .and_then(Value::as_str)
        {
            Some(next) if !next.is_empty() && next.len() <= 1024 => {
                if !seen_cursors.insert(next.to_owned()) {
                    // The same cursor again: a loop, not more pages.
                    break;
                }
                cursor = Some(next.to_owned());
            }
            _ => break,
        }
    }
    Ok(out)
}

/// One version of one server (`GET {base}/v0.1/servers/{name}/versions/{version}`),
/// checked like every entry.
pub async fn fetch_version(
    registry: &str,
    name: &str,
    version: &str,
    limits: FetchLimits,
) -> Result<CatalogEntry, CatalogError> {
    let base = registry_base(registry)?;
    crate::entry::check_name(name).map_err(|e| CatalogError::BadRegistry(e.0))?;
    crate::entry::check_version(version).map_err(|e| CatalogError::BadRegistry(e.0))?;
    let client = reqwest::Client::builder()
        .timeout(limits.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| CatalogError::Network(e.to_string()))?;
    let mut url = base.clone();
    // The name's slash is part of one path segment.
    url.path_segments_mut()
        .map_err(|()| CatalogError::BadRegistry(registry.to_owned()))?
        .pop_if_empty()
        .extend(["v0.1", "servers", name, "versions", version]);
    let item = get_json(&client, url, limits.max_page_bytes).await?;
    let entry = CatalogEntry::from_item(&item).map_err(|e| CatalogError::BadAnswer(e.0))?;
    if entry.name != name || entry.version != version {
        return Err(CatalogError::BadAnswer(format!(
            "asked for {name} {version}, got {} {}",
            entry.name, entry.version
        )));
    }
    Ok(entry)
}

/// GET a JSON document of at most `max` bytes.
async fn get_json(
    client: &reqwest::Client,
    url: url::Url,
    max: usize,
) -> Result<Value, CatalogError> {
    let mut resp = client
        .get(url.as_str())
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| CatalogError::Network(e.to_string()))?;
    if !resp.status().is_success() {
        return Err(CatalogError::BadAnswer(format!(
            "HTTP {}",
            resp.status().as_u16()
        )));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| CatalogError::Network(e.to_string()))?
    {
        if body.len() + chunk.len() > max {
            return Err(CatalogError::BadAnswer(format!("a page over {max} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| CatalogError::BadAnswer(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registry_is_https_or_this_computer() {
        assert!(registry_base("https://registry.modelcontextprotocol.io").is_ok());
        assert!(registry_base("http://127.0.0.1:8080/").is_ok());
        for bad in [
            "http://registry.example",
            "ftp://x.example",
            "https://u:p@x.example",
            "https://x.example/?a=b",
            "nonsense",
        ] {
            assert!(registry_base(bad).is_err(), "{bad}");
        }
    }
}
