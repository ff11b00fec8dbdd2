//! `resources/subscribe` across the gateway: an app subscribes to a URI it
//! sees; Airlock subscribes at the server that serves it (once, however
//! many apps), and each `notifications/resources/updated` of that server
//! for that URI reaches exactly the apps subscribed to it. When the last
//! app unsubscribes or detaches, Airlock unsubscribes at the server.
//!
//! Bounded: [`limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP`] URIs per app,
//! URIs of at most [`limits::MAX_RESOURCE_URI_BYTES`], and per URI per app
//! at most one update each [`limits::RESOURCE_UPDATE_MIN_INTERVAL`]: the
//! updates in between are coalesced into one (a `watch` holds only "there
//! was an update", never a queue). Updates for URIs nobody subscribed to
//! are ignored.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use airlock_core::Airlock;
use rmcp::model::{ErrorData, ResourceUpdatedNotificationParam};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::watch;

use crate::limits;

/// A server and the URI there.
type Key = (String, String);

/// Every app's resource subscriptions on one host.
#[derive(Default)]
pub struct ResourceSubscriptions {
    /// Per (server, URI): each subscribed app, and the signal of its updates.
    by_uri: Mutex<HashMap<Key, HashMap<u64, watch::Sender<()>>>>,
    /// Subscribes and unsubscribes at the servers one at a time, so the
    /// server's state follows the apps' (first in, last out).
    ops: tokio::sync::Mutex<()>,
}

/// An app's subscription request, routed: the server and its URI there.
pub struct Wanted {
    pub app: u64,
    pub client: String,
    pub server: String,
    pub uri: String,
}

impl ResourceSubscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, HashMap<u64, watch::Sender<()>>>> {
        self.by_uri.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Subscribe `wanted.app` (its peer `peer`); the first app on a URI
    /// subscribes Airlock at the server.
    pub async fn subscribe(
        &self,
        core: &Arc<Airlock>,
        wanted: Wanted,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _ops = self.ops.lock().await;
        let key = (wanted.server, wanted.uri);
        let (already, first, count) = {
            let map = self.lock();
            let subs = map.get(&key);
            (
                subs.is_some_and(|m| m.contains_key(&wanted.app)),
                subs.is_none(),
                map.values().filter(|m| m.contains_key(&wanted.app)).count(),
            )
        };
        if already {
            return Ok(());
        }
        if count >= limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP {
            return Err(ErrorData::invalid_request(
                format!(
                    "too many resource subscriptions from this app (at most {})",
                    limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP
                ),
                None,
            ));
        }
        if first {
            core.subscribe_resource(&key.0, &key.1)
                .await
                .map_err(|e| crate::app::core_error(&e))?;
        }
        let (tx, rx) = watch::channel(());
        self.lock()
            .entry(key.clone())
            .or_default()
            .insert(wanted.app, tx);
        tokio::spawn(forward(core.clone(), peer, wanted.client, key, rx));
        Ok(())
    }

    /// Unsubscribe `app` from `uri` (nothing if it was not subscribed); the
    /// last app on a URI unsubscribes Airlock at the server.
    pub async fn unsubscribe(&self, core: &Arc<Airlock>, app: u64, uri: &str) {
        self.remove(core, app, |k| k.1 == uri).await;
    }

    /// The app detached: all its subscriptions end.
    pub async fn detach(&self, core: &Arc<Airlock>, app: u64) {
        self.remove(core, app, |_| true).await;
    }

    async fn remove(&self, core: &Arc<Airlock>, app: u64, which: impl Fn(&Key) -> bool) {
        let _ops = self.ops.lock().await;
        let emptied: Vec<Key> = {
            let mut map = self.lock();
            let mut emptied = Vec::new();
            map.retain(|key, subs| {
                if which(key) {
                    subs.remove(&app);
                }
                if subs.is_empty() {
                    emptied.push(key.clone());
                    return false;
                }
                true
            });
            emptied
        };
        for (server, uri) in emptied {
            // Failing (server gone, reconnected) leaves nothing to undo here.
            let _ = core.unsubscribe_resource(&server, &uri).await;
        }
    }

    /// `server` (re)connected: subscribe again at its new session to the
    /// URIs apps are subscribed to there (a failure leaves the apps'
    /// subscriptions, silent until the server sends updates again).
    pub async fn resubscribe(&self, core: &Arc<Airlock>, server: &str) {
        let _ops = self.ops.lock().await;
        let uris: Vec<String> = self
            .lock()
            .keys()
            .filter(|k| k.0 == server)
            .map(|k| k.1.clone())
            .collect();
        for uri in uris {
            let _ = core.subscribe_resource(server, &uri).await;
        }
    }

    /// A server's `notifications/resources/updated`: signal each app
    /// subscribed to that URI (nobody: ignored).
    pub fn updated(&self, server: &str, uri: &str) {
        if uri.len() > limits::MAX_RESOURCE_URI_BYTES {
            return;
        }
        let map = self.lock();
        if let Some(subs) = map.get(&(server.to_owned(), uri.to_owned())) {
            for tx in subs.values() {
                tx.send_replace(());
            }
        }
    }
}

/// One app's updates of one URI, at most one per
/// [`limits::RESOURCE_UPDATE_MIN_INTERVAL`], until it unsubscribes (the
/// sender is dropped) or its transport closes. Not while the user paused
/// the app or its profile hides the server.
async fn forward(
    core: Arc<Airlock>,
    peer: Peer<RoleServer>,
    client: String,
    (server, uri): Key,
    mut rx: watch::Receiver<()>,
) {
    while rx.changed().await.is_ok() {
        if peer.is_transport_closed() {
            return;
        }
        let (profile, paused) = crate::profile::standing(&core, &client);
        if !paused && profile.allows_server(&server) {
            let _ = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.clone()))
                .await;
        }
        tokio::time::sleep(limits::RESOURCE_UPDATE_MIN_INTERVAL).await;
    }
}

/// An app's `resources/subscribe` for `wanted.uri` (as it sees it): routed
/// to the server that serves it, if the app's `profile` shows that server.
pub(crate) async fn from_app(
    gateway: &crate::host::Gateway,
    mut wanted: Wanted,
    profile: &airlock_core::clients::ClientProfile,
    peer: Peer<RoleServer>,
) -> Result<(), ErrorData> {
    if wanted.uri.len() > limits::MAX_RESOURCE_URI_BYTES {
        return Err(ErrorData::invalid_params(
            format!(
                "resource URI longer than {} bytes",
                limits::MAX_RESOURCE_URI_BYTES
            ),
            None,
        ));
    }
    let Some(routes) = &gateway.forms else {
        return Err(ErrorData::invalid_request(
            "this Airlock host does not pass resource subscriptions on",
            None,
        ));
    };
    let view = gateway.catalog.view().await;
    let route = view
        .resource_route(&wanted.uri)
        .filter(|r| profile.allows_server(&r.server));
    drop(view);
    let Some(route) = route else {
        let shown: String = wanted.uri.chars().take(200).collect();
        return Err(ErrorData::resource_not_found(
            format!(
                "unknown resource {shown:?}: resources/list shows the resources Airlock serves now"
            ),
            None,
        ));
    };
    (wanted.server, wanted.uri) = (route.server, route.name);
    routes
        .resources
        .subscribe(&gateway.core, wanted, peer)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subscription of app 1 to `uri` at `server`, and its update signal.
    fn subscribed(subs: &ResourceSubscriptions, server: &str, uri: &str) -> watch::Receiver<()> {
        let (tx, rx) = watch::channel(());
        subs.lock()
            .entry((server.to_owned(), uri.to_owned()))
            .or_default()
            .insert(1, tx);
        rx
    }

    #[test]
    fn many_updates_are_one_signal_and_others_are_ignored() {
        let subs = ResourceSubscriptions::default();
        let mut rx = subscribed(&subs, "s", "file:///a");
        for _ in 0..1000 {
            subs.updated("s", "file:///a");
        }
        // Latest-only: one pending signal, however many updates came.
        assert!(rx.has_changed().unwrap());
        rx.borrow_and_update();
        assert!(!rx.has_changed().unwrap());
        // Another server's update of the same URI, a URI nobody subscribed
        // to, an over-long URI: nothing.
        subs.updated("t", "file:///a");
        subs.updated("s", "file:///b");
        subs.updated("s", &"x".repeat(limits::MAX_RESOURCE_URI_BYTES + 1));
        assert!(!rx.has_changed().unwrap());
        assert_eq!(subs.lock().len(), 1);
    }
}
