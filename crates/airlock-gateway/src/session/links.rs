//! Resources a server linked in its tool results (`resource_link` content
//! blocks): when the same app reads such a URI and no other server owns it
//! (lists it, or its template or MCP App, or was recorded as its owner), the
//! read goes to the server that returned the link. A link to a URI another
//! server owns is read from the owner, and forgotten (session/app.rs). At most
//! [`MAX_LINKS_PER_APP`] per app (the oldest are forgotten), URIs of at
//! most [`crate::limits::MAX_RESOURCE_URI_BYTES`].

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use rmcp::model::{CallToolResult, ContentBlock};

use crate::limits;

/// Links remembered per app.
pub const MAX_LINKS_PER_APP: usize = 1024;

/// One app's links: URI -> the server that returned it.
#[derive(Default)]
pub struct Links(Mutex<(HashMap<String, String>, VecDeque<String>)>);

impl Links {
    /// Remember the links in `result`, returned by `server`.
    pub fn record(&self, server: &str, result: &CallToolResult) {
        let mut guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (by_uri, order) = &mut *guard;
        for block in &result.content {
            let ContentBlock::ResourceLink(link) = block else {
                continue;
            };
            let uri = &link.uri;
            if uri.is_empty() || uri.len() > limits::MAX_RESOURCE_URI_BYTES {
                continue;
            }
            if by_uri.insert(uri.clone(), server.to_owned()).is_none() {
                order.push_back(uri.clone());
            }
            while order.len() > MAX_LINKS_PER_APP {
                if let Some(old) = order.pop_front() {
                    by_uri.remove(&old);
                }
            }
        }
    }

    /// Forget the link of `uri` (it named another server's URI).
    pub fn forget(&self, uri: &str) {
        let mut guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (by_uri, order) = &mut *guard;
        if by_uri.remove(uri).is_some() {
            order.retain(|u| u != uri);
        }
    }

    /// The server that linked `uri` for this app, if one did.
    pub fn server_of(&self, uri: &str) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .get(uri)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn linking(uris: &[String]) -> CallToolResult {
        let content: Vec<serde_json::Value> = uris
            .iter()
            .map(|u| json!({"type": "resource_link", "uri": u, "name": u}))
            .collect();
        serde_json::from_value(json!({"content": content})).unwrap()
    }

    #[test]
    fn a_link_is_read_from_its_server_and_the_oldest_are_forgotten() {
        let links = Links::default();
        links.record("a", &linking(&["demo://x".into()]));
        assert_eq!(links.server_of("demo://x").as_deref(), Some("a"));
        assert_eq!(links.server_of("demo://y"), None);
        let many: Vec<String> = (0..MAX_LINKS_PER_APP)
            .map(|i| format!("demo://{i}"))
            .collect();
        links.record("b", &linking(&many));
        assert_eq!(links.server_of("demo://x"), None, "the oldest went");
        assert_eq!(links.server_of("demo://0").as_deref(), Some("b"));
        let long = format!("demo://{}", "z".repeat(limits::MAX_RESOURCE_URI_BYTES));
        links.record("c", &linking(std::slice::from_ref(&long)));
        assert_eq!(links.server_of(&long), None, "too long to keep");
    }
}
