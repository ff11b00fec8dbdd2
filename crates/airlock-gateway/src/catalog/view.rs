//! One consistent picture of what the apps see, built (CPU only, no I/O)
//! from each server's served items: tools and prompts under collision-free
//! names, with the routes back to their servers and the held ones' reasons;
//! resources and templates served by their owners only; the instructions.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use airlock_core::owners::{UriConflict, UriKind};
use airlock_core::pins::Held;
use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};

use crate::catalog::owners::{self, Book};
use crate::catalog::{instructions, names, templates};

/// What one server offers the apps after its pins and cleaning.
#[derive(Debug, Default, Clone)]
pub struct Served {
    /// `(own name on the server, the tool as apps see it)`.
    pub tools: Vec<(String, Tool)>,
    pub held_tools: Vec<Held>,
    pub prompts: Vec<(String, Prompt)>,
    pub held_prompts: Vec<Held>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    /// The server's own instructions, fenced ([`instructions::section`]).
    pub section: Option<String>,
}

/// Where an exposed name leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub server: String,
    /// The item's own name (tool, prompt) or URI (resource) on that server.
    pub name: String,
}

/// A name an app may still call that is held, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldRoute {
    pub server: String,
    pub why: String,
}

/// See the module docs.
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
    held_tools: HashMap<String, HeldRoute>,
    held_prompts: HashMap<String, HeldRoute>,
    /// Which server each template pattern (and a URI fitting one) goes to.
    pub template_owners: templates::Owners,
    /// Unlisted MCP Apps (`ui://`) named by one server's tools only
    /// ([`crate::catalog::apps`]).
    pub(crate) app_routes: HashMap<String, Route>,
    /// Servers not served a URI another owns.
    pub conflicts: Vec<UriConflict>,
    /// Numbers the views one catalog builds, newest highest (the tool
    /// search follows it: [`crate::catalog::search`]).
    pub generation: u64,
    /// Each served tool's place in `tools`, by exposed name.
    tool_defs: HashMap<String, usize>,
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
    /// A tool apps may know by `exposed` that is held now.
    pub fn held_tool(&self, exposed: &str) -> Option<&HeldRoute> {
        self.held_tools.get(exposed)
    }
    /// A prompt apps may know by `exposed` that is held now.
    pub fn held_prompt(&self, exposed: &str) -> Option<&HeldRoute> {
        self.held_prompts.get(exposed)
    }
    /// The served tool apps know by `exposed`, as they see it.
    pub fn tool_def(&self, exposed: &str) -> Option<&Tool> {
        self.tool_defs.get(exposed).and_then(|i| self.tools.get(*i))
    }
    /// Every tool route: `(exposed name, route)`.
    pub fn tool_routes(&self) -> impl Iterator<Item = (&String, &Route)> {
        self.tool_routes.iter()
    }

    /// Where a URI is read or subscribed: a listed resource, else the
    /// server whose template the URI fits (the URI is the server's own),
    /// else the server whose tools name it as their MCP App.
    pub fn resource_route(&self, uri: &str) -> Option<Route> {
        self.resource(uri)
            .cloned()
            .or_else(|| {
                self.template_owners.of_uri(uri).map(|server| Route {
                    server: server.to_owned(),
                    name: uri.to_owned(),
                })
            })
            .or_else(|| self.app_routes.get(uri).cloned())
    }

    /// The combined instructions of only the servers `shown` allows.
    pub fn instructions_for(&self, shown: impl Fn(&str) -> bool) -> String {
        instructions::combine(
            &self.intro,
            self.sections
                .iter()
                .filter(|(server, _)| shown(server))
                .map(|(_, s)| s),
        )
    }
}

/// One item with the name apps know it by: served (`item`) or held.
struct Named<'a, T> {
    exposed: String,
    server: &'a str,
    own: &'a str,
    item: Option<&'a T>,
    held: Option<&'a Held>,
}

/// Exposed names for the served and held items of every server, in server
/// order (so an item's name does not move when another is withdrawn).
fn named<'a, T>(
    rooms: &'a BTreeMap<String, Arc<Served>>,
    separator: &str,
    what: &str,
    items: impl Fn(&'a Served) -> (&'a [(String, T)], &'a [Held]),
) -> Vec<Named<'a, T>> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    let mut which: Vec<(Option<&T>, Option<&Held>)> = Vec::new();
    for (server, served) in rooms {
        let (live, held) = items(served);
        for (own, item) in live {
            pairs.push((server.as_str(), own.as_str()));
            which.push((Some(item), None));
        }
        for h in held {
            pairs.push((server.as_str(), h.name.as_str()));
            which.push((None, Some(h)));
        }
    }
    let (exposed, collisions) = names::assign(&pairs, separator);
    for c in &collisions {
        let by = if c.reserved {
            "Airlock's own tools are named so"
        } else {
            "another server's item has that name"
        };
        crate::catalog::log(&format!(
            "{what} {:?} of {} is served as {:?}, not {:?}: {by}",
            c.item, c.server, c.given, c.wanted
        ));
    }
    exposed
        .into_iter()
        .zip(pairs)
        .zip(which)
        .map(|((exposed, (server, own)), (item, held))| Named {
            exposed,
            server,
            own,
            item,
            held,
        })
        .collect()
}

/// Build the view (see the module docs), all but the App links that
/// [`crate::catalog::apps::link`] adds ([`crate::catalog::build_view`]).
pub fn build(rooms: &BTreeMap<String, Arc<Served>>, separator: &str, book: &Book) -> View {
    let mut view = View {
        servers: rooms.keys().cloned().collect(),
        ..View::default()
    };

    for n in named(rooms, separator, "tool", |s| (&s.tools, &s.held_tools)) {
        let server = n.server.to_owned();
        match (n.item, n.held) {
            (Some(tool), _) => {
                let mut t = tool.clone();
                t.name = n.exposed.clone().into();
                view.tool_defs.insert(n.exposed.clone(), view.tools.len());
                view.tools.push(t);
                let name = n.own.to_owned();
                view.tool_routes.insert(n.exposed, Route { server, name });
            }
            (None, Some(h)) => {
                let why = h.why.clone();
                view.held_tools.insert(n.exposed, HeldRoute { server, why });
            }
            (None, None) => {}
        }
    }
    for n in named(rooms, separator, "prompt", |s| {
        (&s.prompts, &s.held_prompts)
    }) {
        let server = n.server.to_owned();
        match (n.item, n.held) {
            (Some(prompt), _) => {
                let mut p = prompt.clone();
                p.name = n.exposed.clone();
                view.prompts.push(p);
                let name = n.own.to_owned();
                view.prompt_routes.insert(n.exposed, Route { server, name });
            }
            (None, Some(h)) => {
                let why = h.why.clone();
                view.held_prompts
                    .insert(n.exposed, HeldRoute { server, why });
            }
            (None, None) => {}
        }
    }

    let served_templates = serve_templates(rooms, book, &mut view.conflicts);
    serve_resources(rooms, book, &served_templates, &mut view);
    (view.templates, view.template_owners) = templates::Owners::build(
        served_templates
            .iter()
            .map(|(server, list)| (*server, list.as_slice())),
    );

    view.intro = instructions::intro(separator);
    for (server, served) in rooms {
        if let Some(section) = &served.section {
            view.sections.push((server.clone(), section.clone()));
        }
    }
    view.instructions = instructions::combine(&view.intro, view.sections.iter().map(|(_, s)| s));
    view
}

/// Each server's templates that it owns (see [`owners`]).
fn serve_templates<'a>(
    rooms: &'a BTreeMap<String, Arc<Served>>,
    book: &Book,
    conflicts: &mut Vec<UriConflict>,
) -> Vec<(&'a String, Vec<ResourceTemplate>)> {
    // Candidates: each template whose exact pattern the server owns.
    let mut candidates: Vec<(&String, &ResourceTemplate)> = Vec::new();
    for (server, served) in rooms {
        for t in &served.templates {
            let pattern = t.uri_template.as_str();
            if owners::too_broad(pattern) {
                crate::catalog::log(&format!(
                    "resource template {pattern:?} of {server} is not served: it names no scheme, so it could take any URI"
                ));
                continue;
            }
            match book.owner(UriKind::Template, pattern) {
                Some(o) if o.server != *server => {
                    conflicts.push(owners::conflict(
                        pattern,
                        UriKind::Template,
                        server,
                        &o.server,
                    ));
                }
                _ => candidates.push((server, t)),
            }
        }
    }
    let mut out: Vec<(&String, Vec<ResourceTemplate>)> = Vec::new();
    for (server, t) in &candidates {
        let pattern = t.uri_template.as_str();
        let mine = owners::rank(book.owner(UriKind::Template, pattern), server);
        // A scheme-wide template neither takes another's template nor is
        // taken by one: reads go to the longest literal start.
        let scheme_wide = owners::scheme_wide(pattern);
        let stronger = candidates.iter().find(|(other, o)| {
            other != server
                && !scheme_wide
                && !owners::scheme_wide(&o.uri_template)
                && owners::overlaps(pattern, &o.uri_template)
                && owners::rank(book.owner(UriKind::Template, &o.uri_template), other) < mine
        });
        if let Some((owner, _)) = stronger {
            conflicts.push(owners::conflict(pattern, UriKind::Template, server, owner));
            continue;
        }
        match out.iter_mut().find(|(s, _)| s == server) {
            Some((_, list)) => list.push((*t).clone()),
            None => out.push((server, vec![(*t).clone()])),
        }
    }
    out
}

/// Each server's resources that it owns and that fit no stronger claim of
/// another server's template.
fn serve_resources(
    rooms: &BTreeMap<String, Arc<Served>>,
    book: &Book,
    templates: &[(&String, Vec<ResourceTemplate>)],
    view: &mut View,
) {
    for (server, served) in rooms {
        for r in &served.resources {
            let uri = r.uri.as_str();
            let owner = book.owner(UriKind::Resource, uri);
            if let Some(o) = owner.filter(|o| o.server != *server) {
                view.conflicts
                    .push(owners::conflict(uri, UriKind::Resource, server, &o.server));
                continue;
            }
            if let Some(taken) = view.resource_routes.get(uri) {
                // No record (the core could not be asked): the first keeps it.
                let owner = taken.server.clone();
                view.conflicts
                    .push(owners::conflict(uri, UriKind::Resource, server, &owner));
                continue;
            }
            let mine = owners::rank(owner, server);
            let squatting = templates.iter().find_map(|(other, list)| {
                (*other != server)
                    .then(|| {
                        list.iter().find(|t| {
                            !owners::scheme_wide(&t.uri_template)
                                && owners::fits(&t.uri_template, uri)
                                && owners::rank(
                                    book.owner(UriKind::Template, &t.uri_template),
                                    other,
                                ) < mine
                        })
                    })
                    .flatten()
                    .map(|_| (*other).clone())
            });
            if let Some(other) = squatting {
                view.conflicts
                    .push(owners::conflict(uri, UriKind::Resource, server, &other));
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
}
