//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865) through the gateway.
//!
//! A tool names its App in `_meta.ui.resourceUri` (and in the deprecated
//! flat `_meta["ui/resourceUri"]`): a `ui://` resource the app reads with
//! `resources/read` and renders. Everything in `_meta` passes through as
//! the server listed it (cleaned of hidden characters like the rest of the
//! definition; its App settings are pinned with the tool, the rest of
//! `_meta` is not: see airlock_core's `pins::canonical`). What the gateway adds is where the link
//! may lead, so that one server's tool cannot present another's App, nor
//! feed another server's App its results:
//! - a URI that a listed resource or template routes to the tool's own
//!   server is passed on as is;
//! - one routed to another server (it lists it, owns it, or its template
//!   fits it) is taken out of that tool's `_meta` (its other keys stay);
//! - a `ui://` URI nobody lists (the spec lets a server leave its Apps out
//!   of resources/list) is read from the tool's server, when only that
//!   server's tools name it and the owners book gives it to no other;
//!   named by several servers' tools, it is taken out of each.

use std::collections::{BTreeSet, HashMap};

use airlock_core::owners::UriKind;
use rmcp::model::Tool;
use serde_json::Value;

use crate::catalog::owners::Book;
use crate::catalog::view::{Route, View};
use crate::limits;

pub use airlock_core::mcp::{LEGACY_RESOURCE_URI_META, UI_EXTENSION, UI_META};
const RESOURCE_URI: &str = "resourceUri";
const UI_SCHEME: &str = "ui://";

/// The App URIs a tool names (both spellings; usually the same URI).
pub fn app_uris(tool: &Tool) -> Vec<&str> {
    let Some(meta) = tool.meta.as_ref() else {
        return Vec::new();
    };
    let nested = meta
        .0
        .get(UI_META)
        .and_then(|ui| ui.get(RESOURCE_URI))
        .and_then(Value::as_str);
    let flat = meta.0.get(LEGACY_RESOURCE_URI_META).and_then(Value::as_str);
    let mut uris: Vec<&str> = nested.into_iter().chain(flat).collect();
    uris.dedup();
    uris
}

/// Take a tool's App link out of its `_meta`, leaving the rest.
fn unlink(tool: &mut Tool) {
    let Some(meta) = tool.meta.as_mut() else {
        return;
    };
    meta.0.remove(LEGACY_RESOURCE_URI_META);
    if let Some(Value::Object(ui)) = meta.0.get_mut(UI_META) {
        ui.remove(RESOURCE_URI);
        if ui.is_empty() {
            meta.0.remove(UI_META);
        }
    }
    if meta.0.is_empty() {
        tool.meta = None;
    }
}

/// Apply the rules of the module docs to `view`'s tools (its resources and
/// templates routed already); returns where unlisted App URIs are read.
pub(crate) fn link(view: &mut View, book: &Book) -> HashMap<String, Route> {
    let server_of = |view: &View, tool: &Tool| view.tool(&tool.name).map(|r| r.server.clone());
    // Who names each `ui://` URI that nothing routes.
    let mut unrouted: HashMap<String, BTreeSet<String>> = HashMap::new();
    for tool in &view.tools {
        let Some(server) = server_of(view, tool) else {
            continue;
        };
        for uri in app_uris(tool) {
            if view.resource_route(uri).is_none() {
                unrouted
                    .entry(uri.to_owned())
                    .or_default()
                    .insert(server.clone());
            }
        }
    }
    let mut routes: HashMap<String, Route> = HashMap::new();
    for (uri, servers) in &unrouted {
        let usable = uri.len() <= limits::MAX_RESOURCE_URI_BYTES
            && uri
                .get(..UI_SCHEME.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(UI_SCHEME));
        let mut named = servers.iter();
        let (Some(server), None) = (named.next(), named.next()) else {
            continue;
        };
        let owned_elsewhere = book
            .owner(UriKind::Resource, uri)
            .is_some_and(|o| o.server != *server);
        if usable && !owned_elsewhere {
            routes.insert(
                uri.clone(),
                Route {
                    server: server.clone(),
                    name: uri.clone(),
                },
            );
        }
    }
    let mut unlinked = Vec::new();
    for i in 0..view.tools.len() {
        let tool = &view.tools[i];
        let Some(server) = server_of(view, tool) else {
            continue;
        };
        let foreign = app_uris(tool).into_iter().find(|uri| {
            let route = view
                .resource_route(uri)
                .or_else(|| routes.get(*uri).cloned());
            route.is_none_or(|r| r.server != server)
        });
        if let Some(uri) = foreign {
            unlinked.push((tool.name.to_string(), server, uri.to_owned()));
            unlink(&mut view.tools[i]);
        }
    }
    for (tool, server, uri) in unlinked {
        crate::catalog::log(&format!(
            "tool {tool:?} of {server}: its MCP App {:?} is not passed on: {}",
            airlock_core::url_safety::neutralize_for_display(&uri, 200),
            match view.resource_route(&uri) {
                Some(r) => format!("{} serves that URI", r.server),
                None => "another server's tool names it too, or it is not a ui:// URI".into(),
            }
        ));
    }
    routes
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use rmcp::model::Resource;
    use serde_json::json;

    use super::*;
    use crate::catalog::build_view as build;
    use crate::catalog::view::Served;

    fn tool(name: &str, meta: Value) -> (String, Tool) {
        let t: Tool = serde_json::from_value(json!({
            "name": name, "inputSchema": {"type": "object"}, "_meta": meta,
        }))
        .unwrap();
        (name.to_owned(), t)
    }

    fn resource(uri: &str) -> Resource {
        serde_json::from_value(json!({"uri": uri, "name": uri})).unwrap()
    }

    fn meta_of(view: &View, exposed: &str) -> Option<Value> {
        let t = view.tools.iter().find(|t| t.name == exposed).unwrap();
        t.meta.as_ref().map(|m| Value::Object(m.0.clone()))
    }

    #[test]
    fn an_app_link_leads_only_to_its_own_server() {
        let own = json!({"ui": {"resourceUri": "ui://clock/app.html", "visibility": ["model", "app"]}, "ui/resourceUri": "ui://clock/app.html", "x": 1});
        let mut rooms = BTreeMap::new();
        rooms.insert(
            "clock".to_owned(),
            Arc::new(Served {
                tools: vec![
                    tool("time", own.clone()),
                    tool(
                        "hidden",
                        json!({"ui": {"resourceUri": "ui://clock/only-mine.html"}}),
                    ),
                ],
                resources: vec![resource("ui://clock/app.html")],
                ..Served::default()
            }),
        );
        rooms.insert(
            "thief".to_owned(),
            Arc::new(Served {
                tools: vec![
                    // Another server's listed App, and its unlisted one.
                    tool("steal", json!({"ui": {"resourceUri": "ui://clock/app.html", "visibility": ["app"]}, "y": 2})),
                    tool("steal2", json!({"ui/resourceUri": "ui://clock/only-mine.html"})),
                    tool("own", json!({"ui": {"resourceUri": "ui://thief/view.html"}})),
                    tool("file", json!({"ui": {"resourceUri": "file:///etc/passwd"}})),
                ],
                ..Served::default()
            }),
        );
        let view = build(&rooms, "__", &Book::default());
        assert_eq!(meta_of(&view, "clock__time"), Some(own), "passed on as is");
        // Named by both servers' tools, unlisted: read from neither.
        assert_eq!(meta_of(&view, "clock__hidden"), None);
        assert_eq!(meta_of(&view, "thief__steal2"), None);
        assert_eq!(
            meta_of(&view, "thief__steal"),
            Some(json!({"ui": {"visibility": ["app"]}, "y": 2})),
            "the link goes, the rest stays"
        );
        assert_eq!(meta_of(&view, "thief__file"), None, "not a ui:// URI");
        // An unlisted App of one server only is read from it.
        let r = view.resource_route("ui://thief/view.html").unwrap();
        assert_eq!(
            (r.server.as_str(), r.name.as_str()),
            ("thief", "ui://thief/view.html")
        );
        assert_eq!(
            view.resource_route("ui://clock/app.html").unwrap().server,
            "clock"
        );
        assert!(view.resource_route("ui://clock/only-mine.html").is_none());
        assert!(
            !view
                .resources
                .iter()
                .any(|r| r.uri == "ui://thief/view.html"),
            "routed, not listed"
        );
    }

    #[test]
    fn an_unlisted_app_owned_by_another_server_is_not_taken() {
        let mut rooms = BTreeMap::new();
        rooms.insert(
            "late".to_owned(),
            Arc::new(Served {
                tools: vec![tool(
                    "t",
                    json!({"ui": {"resourceUri": "ui://first/app.html"}}),
                )],
                ..Served::default()
            }),
        );
        let book = Book::from_owners(vec![airlock_core::owners::UriOwner {
            uri: "ui://first/app.html".into(),
            kind: UriKind::Resource,
            server: "first".into(),
            claimed_at: 1,
            chosen: false,
        }]);
        let view = build(&rooms, "__", &book);
        assert_eq!(meta_of(&view, "late__t"), None);
        assert!(view.resource_route("ui://first/app.html").is_none());
    }
}
