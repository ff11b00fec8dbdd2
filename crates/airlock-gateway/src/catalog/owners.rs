//! Resource URIs and template patterns have owners: the first server to
//! list one keeps it (the core records the claim and keeps it across
//! restarts) until the user gives it to another. A second server listing
//! it is not served it: the conflict is logged, recorded for the window and
//! `airlock servers show`, and never resolved by name order. Templates that
//! could match the same URI (one's literal start is a prefix of the
//! other's) conflict the same way, and so does a resource URI that fits
//! another server's older template. A template too broad to belong to
//! anyone (no scheme in its literal start, such as `{uri}`) is not served.

use std::collections::HashMap;

use airlock_core::owners::{UriConflict, UriKind, UriOwner};

/// The owners known to the host (loaded once, then kept in step).
#[derive(Debug, Default)]
pub struct Book {
    map: HashMap<(UriKind, String), UriOwner>,
}

impl Book {
    pub fn from_owners(owners: Vec<UriOwner>) -> Self {
        Self {
            map: owners
                .into_iter()
                .map(|o| ((o.kind, o.uri.clone()), o))
                .collect(),
        }
    }

    /// `server` now lists `listed` of `kind`, and these are their `owners`
    /// (from the core's record).
    pub fn update(
        &mut self,
        server: &str,
        kind: UriKind,
        listed: &[String],
        owners: Vec<UriOwner>,
    ) {
        let listed: std::collections::HashSet<&String> = listed.iter().collect();
        self.map.retain(|(k, uri), o| {
            *k != kind || o.server != server || o.chosen || listed.contains(uri)
        });
        for o in owners {
            self.map.insert((o.kind, o.uri.clone()), o);
        }
    }

    pub fn owner(&self, kind: UriKind, uri: &str) -> Option<&UriOwner> {
        self.map.get(&(kind, uri.to_owned()))
    }
}

/// What comes before a template's first `{`.
pub fn literal(pattern: &str) -> &str {
    pattern.split('{').next().unwrap_or_default()
}

/// A template nobody can own: its literal start names no scheme.
pub fn too_broad(pattern: &str) -> bool {
    let lit = literal(pattern);
    match lit.find(':') {
        Some(i) => i == 0 || lit.len() < 3,
        None => true,
    }
}

/// A template whose literal start is a scheme and nothing more
/// (`file:///{+path}`, `https://{host}/{path}`): it is served and reads the
/// URIs of its scheme that no one else claims, but never takes a resource
/// or a template of another server, whichever came first (issue 34).
pub fn scheme_wide(pattern: &str) -> bool {
    let lit = literal(pattern);
    lit.find(':')
        .is_some_and(|i| lit[i + 1..].trim_start_matches('/').is_empty())
}

/// Could the two templates match one URI?
pub fn overlaps(a: &str, b: &str) -> bool {
    let (la, lb) = (literal(a), literal(b));
    la.starts_with(lb) || lb.starts_with(la)
}

/// Does `uri` fit `pattern` (its literal start, and something after it)?
pub fn fits(pattern: &str, uri: &str) -> bool {
    let lit = literal(pattern);
    !lit.is_empty() && uri.starts_with(lit) && uri.len() > lit.len()
}

/// How strong a claim is: chosen by the user first, then the oldest, then
/// the server's name (only to be deterministic). Smaller is stronger.
pub fn rank(owner: Option<&UriOwner>, server: &str) -> (bool, i64, String) {
    match owner {
        Some(o) => (!o.chosen, o.claimed_at, server.to_owned()),
        None => (true, i64::MAX, server.to_owned()),
    }
}

/// A conflict seen now.
pub fn conflict(uri: &str, kind: UriKind, server: &str, owner: &str) -> UriConflict {
    UriConflict {
        uri: uri.to_owned(),
        kind,
        server: server.to_owned(),
        owner: owner.to_owned(),
        seen_at: airlock_core::store::now_ms(),
    }
}

#[cfg(test)]
#[allow(clippy::literal_string_with_formatting_args)] // URI templates
mod tests {
    use super::*;

    fn claim(uri: &str, server: &str, at: i64, chosen: bool) -> UriOwner {
        UriOwner {
            uri: uri.into(),
            kind: UriKind::Resource,
            server: server.into(),
            claimed_at: at,
            chosen,
        }
    }

    #[test]
    fn a_template_of_a_whole_scheme_is_scheme_wide() {
        assert!(scheme_wide("file:///{+path}"));
        assert!(scheme_wide("https://{host}/{path}"));
        assert!(scheme_wide("notes:{id}"));
        assert!(!scheme_wide("file:///home/{+path}"));
        assert!(!scheme_wide("demo://resource/{id}"));
        assert!(!scheme_wide("{uri}"));
    }

    #[test]
    fn templates_overlap_when_one_literal_starts_the_other() {
        assert!(overlaps("demo://text/{id}", "demo://text/special/{id}"));
        assert!(overlaps("demo://text/{id}", "demo://text/{x}"));
        assert!(!overlaps("demo://text/{id}", "demo://image/{id}"));
        assert!(fits("demo://text/{id}", "demo://text/7"));
        assert!(!fits("demo://text/{id}", "demo://text/"));
        assert!(too_broad("{uri}"));
        assert!(too_broad("x{y}"));
        assert!(too_broad(":{y}"));
        assert!(!too_broad("file:///{path}"));
        assert!(!too_broad("demo://{x}"));
    }

    #[test]
    fn a_chosen_claim_beats_an_older_one_and_older_beats_newer() {
        let old = claim("u", "a", 1, false);
        let new = claim("u", "b", 2, false);
        let chosen = claim("u", "c", 3, true);
        assert!(rank(Some(&old), "a") < rank(Some(&new), "b"));
        assert!(rank(Some(&chosen), "c") < rank(Some(&old), "a"));
        assert!(rank(Some(&new), "b") < rank(None, "a"));
    }

    #[test]
    fn the_book_follows_a_servers_list_and_keeps_choices() {
        let mut book = Book::from_owners(vec![
            claim("x", "a", 1, false),
            claim("y", "a", 1, true),
            claim("z", "b", 1, false),
        ]);
        book.update("a", UriKind::Resource, &[], Vec::new());
        assert!(
            book.owner(UriKind::Resource, "x").is_none(),
            "no longer listed"
        );
        assert!(book.owner(UriKind::Resource, "y").is_some(), "chosen stays");
        assert!(
            book.owner(UriKind::Resource, "z").is_some(),
            "another server's"
        );
    }
}
