//! What every attached app sees: the tools, prompts and resources of every
//! enabled (not paused) server that is connected, under collision-free
//! names, and the servers' instructions combined. Built from the core's
//! sessions, cached, and rebuilt when a server connects or disconnects (the
//! core's status events); each rebuild is announced to the apps.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_core::status::ConnStatus;
use airlock_core::Airlock;
use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use tokio::sync::broadcast;

use crate::names;

/// How long listing one server's tools, prompts or resources may take
/// before the gateway goes on without them (they come back on its next
/// connect).
pub const LIST_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest combined instructions, in bytes.
pub const MAX_COMBINED_INSTRUCTIONS_BYTES: usize = 64 * 1024;
/// Changes buffered for slow apps; one that lags still gets one list_changed.
pub const CHANGE_CHANNEL_CAPACITY: usize = 16;

/// What one server offers, as last listed.
#[derive(Debug, Default)]
struct ServerItems {
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    instructions: Option<String>,
}

/// Where an exposed name leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub server: String,
    /// The item's own name (tool, prompt) or URI (resource) on that server.
    pub name: String,
}

/// One consistent picture of everything served, with its routes.
#[derive(Debug, Default)]
pub struct View {
    pub tools: Vec<Tool>,
    pub prompts: Vec<Prompt>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub instructions: String,
    /// The intro and each server's section of `instructions`, for apps
    /// whose profile hides some servers.
    intro: String,
    sections: Vec<(String, String)>,
    /// The servers in this view, sorted.
    pub servers: Vec<String>,
    tool_routes: HashMap<String, Route>,
    prompt_routes: HashMap<String, Route>,
    resource_routes: HashMap<String, Route>,
    /// Which server each template pattern (and a URI fitting one) goes to.
    pub template_owners: crate::templates::Owners,
}

impl View {
    pub fn tool(&self, exposed: &str) -> Option<&Route> {
        self.tool_routes.get(exposed)
    }
    pub fn prompt(&self, exposed: &str) -> Option<&Route> {
        self.prompt_routes.get(exposed)
    }
    pub fn resource(&self, uri: &str) -> Option<&Route> {
        self.resource_routes.get(uri)
    }

    /// Where a URI is read or subscribed: a listed resource, else the
    /// server whose template the URI fits (the URI is the server's own).
    pub fn resource_route(&self, uri: &str) -> Option<Route> {
        self.resource(uri).cloned().or_else(|| {
            self.template_owners.of_uri(uri).map(|server| Route {
                server: server.to_owned(),
                name: uri.to_owned(),
            })
        })
    }

    /// The combined instructions of only the servers `shown` allows.
    pub fn instructions_for(&self, shown: impl Fn(&str) -> bool) -> String {
        combine(
            &self.intro,
            self.sections.iter().filter(|(server, _)| shown(server)),
        )
    }
}

/// `intro`, then sections while the whole stays bounded.
fn combine<'a>(intro: &str, sections: impl Iterator<Item = &'a (String, String)>) -> String {
    let mut text = intro.to_owned();
    for (_, section) in sections {
        if text.len() + section.len() > MAX_COMBINED_INSTRUCTIONS_BYTES {
            text.push_str("\n\n(further servers' instructions left out: too long)");
            break;
        }
        text.push_str(section);
    }
    text
}

struct State {
    cache: BTreeMap<String, Arc<ServerItems>>,
    /// `None`: something changed since the last build.
    view: Option<Arc<View>>,
}

pub struct Catalog {
    core: Arc<Airlock>,
    separator: String,
    state: tokio::sync::Mutex<State>,
    /// The instructions of the newest view (for `get_info`, which cannot wait).
    instructions: Mutex<String>,
    changes: broadcast::Sender<()>,
}

/// One line in the host's log (its stderr).
pub(crate) fn log(text: &str) {
    eprintln!("airlock daemon: {text}");
}

impl Catalog {
    pub fn new(core: Arc<Airlock>, separator: impl Into<String>) -> Self {
        let (changes, _) = broadcast::channel(CHANGE_CHANNEL_CAPACITY);
        Self {
            core,
            separator: separator.into(),
            state: tokio::sync::Mutex::new(State {
                cache: BTreeMap::new(),
                view: None,
            }),
            instructions: Mutex::new(intro(names::DEFAULT_SEPARATOR)),
            changes,
        }
    }

    /// A message each time the lists changed (coalesce them: several
    /// servers may connect at once).
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.changes.subscribe()
    }

    pub fn instructions(&self) -> String {
        self.instructions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A server connected, disconnected or reconnected: list it again
    /// before the next answer, and tell the apps.
    pub async fn server_changed(&self, server: &str) {
        let mut st = self.state.lock().await;
        st.cache.remove(server);
        st.view = None;
        drop(st);
        let _ = self.changes.send(());
    }

    /// Forget everything (events were lost): list every server again.
    pub async fn all_changed(&self) {
        let mut st = self.state.lock().await;
        st.cache.clear();
        st.view = None;
        drop(st);
        let _ = self.changes.send(());
    }

    /// The servers to serve: configured, not paused, connected.
    fn ready_servers(&self) -> Vec<String> {
        let servers = match self.core.list_servers() {
            Ok(s) => s,
            Err(e) => {
                log(&format!("cannot read the server list: {e}"));
                return Vec::new();
            }
        };
        let mut names: Vec<String> = servers
            .into_iter()
            .filter(|d| !d.paused)
            .filter(|d| matches!(self.core.status(&d.name), ConnStatus::Ready { .. }))
            .map(|d| d.name)
            .collect();
        names.sort();
        names
    }

    /// The current view: cached, or rebuilt after a change (listing the
    /// servers that changed, at once).
    pub async fn view(&self) -> Arc<View> {
        let mut st = self.state.lock().await;
        if let Some(v) = &st.view {
            return v.clone();
        }
        let wanted = self.ready_servers();
        st.cache.retain(|name, _| wanted.contains(name));
        let mut fetches = tokio::task::JoinSet::new();
        for name in wanted.iter().filter(|n| !st.cache.contains_key(*n)) {
            let (core, name) = (self.core.clone(), name.clone());
            fetches.spawn(async move {
                let items = fetch(&core, &name).await;
                (name, items)
            });
        }
        while let Some(done) = fetches.join_next().await {
            if let Ok((name, items)) = done {
                st.cache.insert(name, Arc::new(items));
            }
        }
        let view = Arc::new(build(&st.cache, &self.separator));
        *self.instructions.lock().unwrap_or_else(|e| e.into_inner()) = view.instructions.clone();
        st.view = Some(view.clone());
        view
    }
}

/// List one server's tools, prompts and resources (what its capabilities
/// declare), each bounded in time; a list that fails is logged and left empty.
async fn fetch(core: &Arc<Airlock>, server: &str) -> ServerItems {
    let session = match tokio::time::timeout(LIST_TIMEOUT, core.session(server)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            log(&format!("{server}: not served: {e}"));
            return ServerItems::default();
        }
        Err(_) => {
            log(&format!(
                "{server}: not served: no session within {LIST_TIMEOUT:?}"
            ));
            return ServerItems::default();
        }
    };
    let caps = session.info.capabilities.clone();
    let declares = |what: &str| caps.get(what).is_some_and(|v| !v.is_null());
    async fn bounded<T>(
        server: &str,
        what: &str,
        list: impl std::future::Future<Output = airlock_core::CoreResult<Vec<T>>>,
    ) -> Vec<T> {
        match tokio::time::timeout(LIST_TIMEOUT, list).await {
            Ok(Ok(items)) => items,
            Ok(Err(e)) => {
                log(&format!("{server}: cannot list its {what}: {e}"));
                Vec::new()
            }
            Err(_) => {
                log(&format!(
                    "{server}: listing its {what} took longer than {LIST_TIMEOUT:?}; left out"
                ));
                Vec::new()
            }
        }
    }
    let tools = if declares("tools") {
        bounded(server, "tools", core.list_tools(server)).await
    } else {
        Vec::new()
    };
    let prompts = if declares("prompts") {
        bounded(server, "prompts", core.list_prompts(server)).await
    } else {
        Vec::new()
    };
    let resources = if declares("resources") {
        bounded(server, "resources", core.list_resources(server)).await
    } else {
        Vec::new()
    };
    let templates = if declares("resources") {
        bounded(
            server,
            "resource templates",
            core.list_resource_templates(server),
        )
        .await
    } else {
        Vec::new()
    };
    ServerItems {
        tools,
        prompts,
        resources,
        templates,
        instructions: session.info.instructions.clone(),
    }
}

fn intro(separator: &str) -> String {
    format!(
        "Airlock serves the tools and prompts of several MCP servers over this one connection; each is named <server>{separator}<name>. Resources keep their URIs. Sign-ins and web pages a server needs are handled in Airlock: a call waits for them and returns the tool's real result, or an error that says why."
    )
}

/// Build the view: names in server order (sorted), collisions resolved
/// and logged, instructions combined and bounded.
fn build(cache: &BTreeMap<String, Arc<ServerItems>>, separator: &str) -> View {
    let mut view = View {
        servers: cache.keys().cloned().collect(),
        ..View::default()
    };

    let tool_pairs: Vec<(&str, &str)> = cache
        .iter()
        .flat_map(|(s, items)| {
            items
                .tools
                .iter()
                .map(move |t| (s.as_str(), t.name.as_ref()))
        })
        .collect();
    let (tool_names, collisions) = names::assign(&tool_pairs, separator);
    report(&collisions, "tool");
    let tools = cache.values().flat_map(|items| items.tools.iter());
    for ((tool, exposed), (server, own)) in tools.zip(tool_names).zip(&tool_pairs) {
        let mut t = tool.clone();
        t.name = exposed.clone().into();
        view.tools.push(t);
        view.tool_routes.insert(
            exposed,
            Route {
                server: (*server).to_owned(),
                name: (*own).to_owned(),
            },
        );
    }

    let prompt_pairs: Vec<(&str, &str)> = cache
        .iter()
        .flat_map(|(s, items)| {
            items
                .prompts
                .iter()
                .map(move |p| (s.as_str(), p.name.as_str()))
        })
        .collect();
    let (prompt_names, collisions) = names::assign(&prompt_pairs, separator);
    report(&collisions, "prompt");
    let prompts = cache.values().flat_map(|items| items.prompts.iter());
    for ((prompt, exposed), (server, own)) in prompts.zip(prompt_names).zip(&prompt_pairs) {
        let mut p = prompt.clone();
        p.name = exposed.clone();
        view.prompts.push(p);
        view.prompt_routes.insert(
            exposed,
            Route {
                server: (*server).to_owned(),
                name: (*own).to_owned(),
            },
        );
    }

    // Resource URIs are kept as they are: the first server to list one
    // serves it; a second is logged (a URI cannot have two owners).
    for (server, items) in cache {
        for r in &items.resources {
            if let Some(owner) = view.resource_routes.get(&r.uri) {
                log(&format!(
                    "resource {:?} of {server} is not served: {} lists the same URI",
                    r.uri, owner.server
                ));
                continue;
            }
            view.resource_routes.insert(
                r.uri.clone(),
                Route {
                    server: server.clone(),
                    name: r.uri.clone(),
                },
            );
            view.resources.push(r.clone());
        }
    }

    (view.templates, view.template_owners) = crate::templates::Owners::build(
        cache
            .iter()
            .map(|(s, items)| (s, items.templates.as_slice())),
    );

    view.intro = intro(separator);
    for (server, items) in cache {
        let Some(own) = items
            .instructions
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        else {
            continue;
        };
        let section = format!(
            "\n\n## {server} (tools named {}{separator}...)\n{own}",
            names::prefix(server)
        );
        view.sections.push((server.clone(), section));
    }
    view.instructions = combine(&view.intro, view.sections.iter());
    view
}

fn report(collisions: &[names::Collision], what: &str) {
    for c in collisions {
        log(&format!(
            "{what} {:?} of {} is served as {:?}: {:?} was taken by another server's {what}",
            c.item, c.server, c.given, c.wanted
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> Tool {
        let mut t = Tool::default();
        t.name = name.to_owned().into();
        t
    }

    fn resource(uri: &str) -> Resource {
        serde_json::from_value(serde_json::json!({"uri": uri, "name": uri})).unwrap()
    }

    #[test]
    fn build_names_routes_and_keeps_every_item() {
        let mut cache = BTreeMap::new();
        cache.insert(
            "a".to_owned(),
            Arc::new(ServerItems {
                tools: vec![tool("b__c"), tool("echo")],
                resources: vec![resource("file:///x")],
                instructions: Some("Use a carefully.".into()),
                ..ServerItems::default()
            }),
        );
        cache.insert(
            "a__b".to_owned(),
            Arc::new(ServerItems {
                tools: vec![tool("c")],
                resources: vec![resource("file:///x"), resource("file:///y")],
                ..ServerItems::default()
            }),
        );
        let v = build(&cache, "__");
        let names: Vec<&str> = v.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["a__b__c", "a__echo", "a__b__c_2"]);
        assert_eq!(
            v.tool("a__b__c_2"),
            Some(&Route {
                server: "a__b".into(),
                name: "c".into()
            })
        );
        assert_eq!(v.tool("a__b__c").map(|r| r.name.as_str()), Some("b__c"));
        assert!(v.tool("c").is_none());
        // The first owner of a URI keeps it.
        assert_eq!(v.resources.len(), 2);
        assert_eq!(
            v.resource("file:///x").map(|r| r.server.as_str()),
            Some("a")
        );
        assert!(v
            .instructions
            .contains("## a (tools named a__...)\nUse a carefully."));
        assert_eq!(v.servers, ["a", "a__b"]);
    }

    #[test]
    fn combined_instructions_are_bounded() {
        let mut cache = BTreeMap::new();
        for i in 0..10 {
            cache.insert(
                format!("s{i}"),
                Arc::new(ServerItems {
                    instructions: Some("x".repeat(16 * 1024)),
                    ..ServerItems::default()
                }),
            );
        }
        let v = build(&cache, "__");
        assert!(v.instructions.len() <= MAX_COMBINED_INSTRUCTIONS_BYTES + 100);
        assert!(v.instructions.contains("left out"));
    }
}
