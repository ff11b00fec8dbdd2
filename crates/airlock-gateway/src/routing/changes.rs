//! An app's list_changed: on its 2025-11-25 session, or on each of its
//! 2026-07-28 `subscriptions/listen` streams, coalesced.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::service::{RoleServer, SubscriptionSink};

use crate::catalog::Catalog;

/// Send list_changed to one app: on its 2025-11-25 session, or on each of
/// its 2026-07-28 subscriptions.
pub(crate) async fn announce_change(
    peer: &rmcp::service::Peer<RoleServer>,
    subscriptions: &Mutex<Vec<SubscriptionSink>>,
) {
    let legacy = peer
        .peer_info()
        .is_some_and(|i| i.protocol_version < ProtocolVersion::V_2026_07_28);
    if legacy {
        let _ = peer.notify_tool_list_changed().await;
        let _ = peer.notify_prompt_list_changed().await;
        let _ = peer.notify_resource_list_changed().await;
    }
    let sinks: Vec<SubscriptionSink> = subscriptions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    for sink in sinks {
        if sink.accepted().tools_list_changed == Some(true) {
            let _ = sink.notify_tool_list_changed().await;
        }
        if sink.accepted().prompts_list_changed == Some(true) {
            let _ = sink.notify_prompt_list_changed().await;
        }
        if sink.accepted().resources_list_changed == Some(true) {
            let _ = sink.notify_resource_list_changed().await;
        }
    }
}

/// An HTTP session's list_changed, until its transport closes.
pub(crate) async fn follow_changes(
    catalog: Arc<Catalog>,
    peer: rmcp::service::Peer<RoleServer>,
    subscriptions: Arc<Mutex<Vec<SubscriptionSink>>>,
) {
    let mut changes = catalog.subscribe();
    loop {
        tokio::select! {
            r = changes.recv() => if matches!(r, Err(tokio::sync::broadcast::error::RecvError::Closed)) { return },
            () = tokio::time::sleep(Duration::from_secs(5)) => {
                if peer.is_transport_closed() { return }
                continue;
            }
        }
        if peer.is_transport_closed() {
            return;
        }
        tokio::time::sleep(CHANGE_COALESCE).await;
        while changes.try_recv().is_ok() {}
        announce_change(&peer, &subscriptions).await;
    }
}

/// How long several changes are gathered into one list_changed.
pub const CHANGE_COALESCE: Duration = Duration::from_millis(100);
