//! Listing one server: its tools, prompts, resources and templates (what
//! its capabilities declare), all four at once, each bounded in time
//! ([`LIST_TIMEOUT`]); the core bounds their pages, items and bytes.

use std::sync::Arc;
use std::time::Duration;

use airlock_core::Airlock;
use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};

use crate::catalog::log;

/// How long listing one of a server's lists may take; a list that takes
/// longer is left out of this refresh (its last good one keeps serving).
pub const LIST_TIMEOUT: Duration = Duration::from_secs(15);

/// What one server offers, as last listed.
#[derive(Debug, Default, Clone)]
pub struct ServerItems {
    pub tools: Vec<Tool>,
    pub prompts: Vec<Prompt>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub instructions: Option<String>,
}

/// One list: `Some` when it came (empty when not declared), `None` when it
/// failed or took too long (logged).
async fn bounded<T>(
    server: &str,
    what: &str,
    declared: bool,
    list: impl std::future::Future<Output = airlock_core::CoreResult<Vec<T>>>,
) -> Option<Vec<T>> {
    if !declared {
        return Some(Vec::new());
    }
    match tokio::time::timeout(LIST_TIMEOUT, list).await {
        Ok(Ok(items)) => Some(items),
        Ok(Err(e)) => {
            log(&format!("{server}: cannot list its {what}: {e}"));
            None
        }
        Err(_) => {
            log(&format!(
                "{server}: listing its {what} took longer than {LIST_TIMEOUT:?}; its last list stays"
            ));
            None
        }
    }
}

/// List `server` now. Each list that fails keeps `last`'s (the last good
/// one); `None` when there is no session (the server is not served).
pub async fn fetch(
    core: &Arc<Airlock>,
    server: &str,
    last: Option<&ServerItems>,
) -> Option<ServerItems> {
    let session = match tokio::time::timeout(LIST_TIMEOUT, core.session(server)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            log(&format!("{server}: not served: {e}"));
            return None;
        }
        Err(_) => {
            log(&format!(
                "{server}: not served: no session within {LIST_TIMEOUT:?}"
            ));
            return None;
        }
    };
    let caps = &session.info.capabilities;
    let declares = |what: &str| caps.get(what).is_some_and(|v| !v.is_null());
    let (tools, prompts, resources, templates) = tokio::join!(
        bounded(server, "tools", declares("tools"), core.list_tools(server)),
        bounded(
            server,
            "prompts",
            declares("prompts"),
            core.list_prompts(server)
        ),
        bounded(
            server,
            "resources",
            declares("resources"),
            core.list_resources(server)
        ),
        bounded(
            server,
            "resource templates",
            declares("resources"),
            core.list_resource_templates(server)
        ),
    );
    Some(ServerItems {
        tools: or_last(tools, last.map(|l| &l.tools)),
        prompts: or_last(prompts, last.map(|l| &l.prompts)),
        resources: or_last(resources, last.map(|l| &l.resources)),
        templates: or_last(templates, last.map(|l| &l.templates)),
        instructions: session.info.instructions.clone(),
    })
}

/// A list that came, else the last good one.
fn or_last<T: Clone>(got: Option<Vec<T>>, last: Option<&Vec<T>>) -> Vec<T> {
    got.unwrap_or_else(|| last.cloned().unwrap_or_default())
}
