//! Per-app profiles (issue 12): which servers, and optionally which
//! tools, an app sees. The profile is the core's
//! ([`airlock_core::apps::AppProfile`], `airlock apps profile`),
//! read again on every list and call, so a change applies at once; a
//! app without a row sees every enabled server.

use airlock_core::apps::AppProfile;
use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};

use crate::catalog::View;

/// The profile of `app`; one that cannot be read shows nothing.
pub fn of(core: &airlock_core::Airlock, app: &str) -> AppProfile {
    standing(core, app).0
}

/// The profile of `app` and whether the user paused it (issue 13);
/// one that cannot be read shows nothing and is not paused.
pub fn standing(core: &airlock_core::Airlock, app: &str) -> (AppProfile, bool) {
    // An app the team's policy keeps out sees nothing, as if paused.
    if core.app_refused(app).is_some() {
        return (AppProfile::servers(Vec::<String>::new()), true);
    }
    match core.app(app) {
        Ok(Some(c)) => (c.profile, c.paused),
        Ok(None) => (AppProfile::default(), false),
        Err(_) => (AppProfile::servers(Vec::<String>::new()), false),
    }
}

/// `true` when the profile lets every item through (nothing to filter).
fn everything(p: &AppProfile) -> bool {
    p.servers.is_none() && p.tools.is_empty()
}

pub fn tools(view: &View, p: &AppProfile) -> Vec<Tool> {
    if everything(p) {
        return view.tools.clone();
    }
    view.tools
        .iter()
        .filter(|t| {
            view.tool(&t.name)
                .is_some_and(|r| p.allows_tool(&r.server, &r.name))
        })
        .cloned()
        .collect()
}

pub fn prompts(view: &View, p: &AppProfile) -> Vec<Prompt> {
    view.prompts
        .iter()
        .filter(|i| {
            view.prompt(&i.name)
                .is_some_and(|r| p.allows_server(&r.server))
        })
        .cloned()
        .collect()
}

pub fn resources(view: &View, p: &AppProfile) -> Vec<Resource> {
    view.resources
        .iter()
        .filter(|i| {
            view.resource(&i.uri)
                .is_some_and(|r| p.allows_server(&r.server))
        })
        .cloned()
        .collect()
}

pub fn templates(view: &View, p: &AppProfile) -> Vec<ResourceTemplate> {
    view.templates
        .iter()
        .filter(|t| {
            view.template_owners
                .of_pattern(&t.uri_template)
                .is_some_and(|s| p.allows_server(s))
        })
        .cloned()
        .collect()
}
