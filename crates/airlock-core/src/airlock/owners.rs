//! Owners of resource URIs and templates: the first server seen serving one keeps it.

use crate::owners::*;
use crate::store::owners::ConflictRow;
use crate::{Airlock, CoreError, CoreResult};

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

    /// Audit a resource link `linker` returned to `app` for a URI `owner`
    /// owns: the read went to the owner (`resource_link_refused`).
    pub fn note_foreign_link(&self, linker: &str, owner: &str, uri: &str, app: &str) {
        let _ = self.store.audit(
            Some(linker),
            "resource_link_refused",
            &serde_json::json!({
                "uri": crate::url_safety::neutralize_for_display(uri, 500),
                "owner": owner,
                "app": app,
            }),
        );
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
