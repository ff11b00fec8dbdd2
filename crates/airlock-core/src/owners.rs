//! Owners of the resource URIs and template patterns the gateway serves:
//! the first server to list one keeps it (recorded, kept across restarts)
//! until the user gives it to another; a second server listing it is not
//! served it, and the conflict is shown (window, `airlock servers show`,
//! the host's log). The gateway's catalog applies the rule; this is the
//! record of it.

use serde::Serialize;

use crate::store::owners::OwnerRow;

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

pub(crate) fn owner(row: OwnerRow) -> UriOwner {
    UriOwner {
        kind: UriKind::parse(&row.kind).unwrap_or(UriKind::Resource),
        uri: row.uri,
        server: row.server,
        claimed_at: row.claimed_at,
        chosen: row.chosen,
    }
}
