//! Owners of the resource URIs and template patterns the gateway serves:
//! the first server to list one keeps it (recorded, kept across restarts)
//! until the user gives it to another; a second server listing it is not
//! served it, and the conflict is shown (window, `airlock servers show`,
//! the host's log). The gateway's catalog applies the rule; this is the
//! record of it.

use serde::Serialize;

use crate::store::owners::{ConflictRow, OwnerRow};
use crate::{Airlock, CoreError, CoreResult};

/// Owners read at once, at most (every server's lists together).
pub const MAX_OWNERS: u32 = 200_000;

/// A resource URI or a resource template pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum UriKind {
    Resource,
    Template,
}

impl UriKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Resource => "resource",
            Self::Template => "template",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [Self::Resource, Self::Template]
            .into_iter()
            .find(|k| k.as_str() == word)
    }
}

/// Who owns a URI, since when, and whether the user chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriOwner {
    pub uri: String,
    pub kind: UriKind,
    pub server: String,
    pub claimed_at: i64,
    pub chosen: bool,
}

/// A server not served a URI another owns.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UriConflict {
    pub uri: String,
    pub kind: UriKind,
    /// The server that lists it too and is not served it.
    pub server: String,
    /// The server that is served it.
    pub owner: String,
    pub seen_at: i64,
}

fn owner(row: OwnerRow) -> UriOwner {
    UriOwner {
        kind: UriKind::parse(&row.kind).unwrap_or(UriKind::Resource),
        uri: row.uri,
        server: row.server,
        claimed_at: row.claimed_at,
        chosen: row.chosen,
    }
}

impl Airlock {
    /// Every recorded owner.
    pub fn uri_owners(&self) -> CoreResult<Vec<UriOwner>> {
        Ok(self
            .store
            .uri_owners(MAX_OWNERS)?
            .into_iter()
            .map(owner)
            .collect())
    }

    /// `server` now lists exactly `uris` of `kind`: record its claims
    /// (first come keeps them) and return the owners of `uris`.
    pub fn sync_uri_claims(
        &self,
        server: &str,
        kind: UriKind,
        uris: &[String],
    ) -> CoreResult<Vec<UriOwner>> {
        Ok(self
            .store
            .sync_uri_claims(server, kind.as_str(), uris)?
            .into_iter()
            .map(owner)
            .collect())
    }

    /// The user gives `uri` to `server` (a configured server).
    pub fn choose_uri_owner(&self, uri: &str, kind: UriKind, server: &str) -> CoreResult<()> {
        self.get_server(server)?;
        if uri.is_empty() || uri.len() > 4096 {
            return Err(CoreError::BadInput(
                "the URI must be 1 to 4096 bytes".to_owned(),
            ));
        }
        self.store.choose_uri_owner(uri, kind.as_str(), server)?;
        let _ = self.store.audit(
            Some(server),
            "uri_owner_chosen",
            &serde_json::json!({"uri": crate::url_safety::neutralize_for_display(uri, 500), "kind": kind.as_str()}),
        );
        Ok(())
    }

    /// Record the conflicts the catalog sees now.
    pub fn set_uri_conflicts(&self, conflicts: &[UriConflict]) -> CoreResult<()> {
        let rows: Vec<ConflictRow> = conflicts
            .iter()
            .map(|c| ConflictRow {
                uri: c.uri.clone(),
                kind: c.kind.as_str().to_owned(),
                server: c.server.clone(),
                owner: c.owner.clone(),
                seen_at: c.seen_at,
            })
            .collect();
        Ok(self.store.set_uri_conflicts(&rows)?)
    }

    /// The conflicts recorded (`server`: those it is a party to).
    pub fn uri_conflicts(&self, server: Option<&str>) -> CoreResult<Vec<UriConflict>> {
        Ok(self
            .store
            .uri_conflicts(server)?
            .into_iter()
            .map(|r| UriConflict {
                kind: UriKind::parse(&r.kind).unwrap_or(UriKind::Resource),
                uri: r.uri,
                server: r.server,
                owner: r.owner,
                seen_at: r.seen_at,
            })
            .collect())
    }
}
