//! A server's own `notifications/{tools,prompts,resources}/list_changed`:
//! turned into [`CoreEvent::ListsChanged`] so the gateway lists the server
//! again and tells its apps, and the window shows the new tools.
//!
//! A hostile server may send them in a flood: each connection has one
//! [`ListChanges`], which gathers every notice within [`COALESCE`] into one
//! event, so a flood costs one re-list per half second, never one per
//! message, and nothing queues.
//!
//! 2025-11-25 servers send the notices unasked (the client handler's
//! callbacks). 2026-07-28 servers send them only on a `subscriptions/listen`
//! stream: [`super::listen`] opens one after the handshake when the server
//! declares `listChanged` for any list ([`to_listen`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::SubscriptionFilter;
use tokio::sync::broadcast;

use crate::events::CoreEvent;

/// Notices within this long of the first become one event.
pub const COALESCE: Duration = Duration::from_millis(500);

/// Gathers one connection's list_changed notices (see the module docs).
#[derive(Clone)]
pub struct ListChanges {
    server: Arc<str>,
    events: broadcast::Sender<CoreEvent>,
    /// An event is scheduled: further notices until it fires add nothing.
    pending: Arc<AtomicBool>,
}

impl ListChanges {
    pub fn new(server: &str, events: broadcast::Sender<CoreEvent>) -> Self {
        Self {
            server: server.into(),
            events,
            pending: Arc::new(AtomicBool::new(false)),
        }
    }

    /// One notice: an event [`COALESCE`] from now unless one is already due.
    pub fn changed(&self) {
        if self.pending.swap(true, Ordering::SeqCst) {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(COALESCE).await;
            // Cleared first: a notice from now on schedules the next event.
            this.pending.store(false, Ordering::SeqCst);
            let _ = this.events.send(CoreEvent::ListsChanged {
                server: this.server.to_string(),
            });
        });
    }
}

/// What to listen for on a session: the lists whose changes a 2026-07-28
/// server offers (`listChanged: true` in its capabilities); `None` on an
/// earlier revision (its notices come unasked) or when it offers none.
pub fn to_listen(
    protocol_version: &str,
    capabilities: &serde_json::Value,
) -> Option<SubscriptionFilter> {
    if !streams(protocol_version) {
        return None;
    }
    offered(capabilities)
}

/// Whether a session of this revision has listen streams (2026-07-28 on).
pub fn streams(protocol_version: &str) -> bool {
    // Versions are dates: the listen stream came with 2026-07-28.
    protocol_version >= "2026-07-28" && protocol_version.starts_with("20")
}

/// The lists whose changes a server offers; `None` when it offers none.
fn offered(capabilities: &serde_json::Value) -> Option<SubscriptionFilter> {
    let declares = |list: &str| {
        capabilities
            .get(list)
            .and_then(|c| c.get("listChanged"))
            .and_then(serde_json::Value::as_bool)
            == Some(true)
    };
    let mut filter = SubscriptionFilter::builder();
    let mut any = false;
    if declares("tools") {
        filter = filter.tools_list_changed();
        any = true;
    }
    if declares("prompts") {
        filter = filter.prompts_list_changed();
        any = true;
    }
    if declares("resources") {
        filter = filter.resources_list_changed();
        any = true;
    }
    any.then(|| filter.build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_lists_follow_the_capabilities() {
        let none = serde_json::json!({"tools": {}, "prompts": {"listChanged": false}});
        assert!(offered(&none).is_none());
        let some = serde_json::json!({"tools": {"listChanged": true}, "resources": {"listChanged": true}, "prompts": {}});
        let f = offered(&some).expect("tools and resources");
        assert_eq!(f.tools_list_changed, Some(true));
        assert_eq!(f.resources_list_changed, Some(true));
        assert_eq!(f.prompts_list_changed, None);
        // Not a bool: not offered.
        assert!(offered(&serde_json::json!({"tools": {"listChanged": "yes"}})).is_none());
        // Earlier revisions send their notices unasked: nothing to listen for.
        assert!(to_listen("2025-11-25", &some).is_none());
        assert!(to_listen("unknown", &some).is_none());
        assert!(to_listen("2026-07-28", &some).is_some());
    }

    #[tokio::test]
    async fn a_flood_of_notices_is_one_event() {
        let (tx, mut rx) = broadcast::channel(16);
        let changes = ListChanges::new("s", tx);
        for _ in 0..10_000 {
            changes.changed();
        }
        tokio::time::sleep(COALESCE * 2).await;
        assert!(matches!(rx.try_recv(), Ok(CoreEvent::ListsChanged { server }) if server == "s"));
        assert!(rx.try_recv().is_err(), "one event for the whole flood");
        // A later notice is announced again.
        changes.changed();
        tokio::time::sleep(COALESCE * 2).await;
        assert!(matches!(rx.try_recv(), Ok(CoreEvent::ListsChanged { .. })));
    }
}
