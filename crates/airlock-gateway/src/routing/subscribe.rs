//! Resource subscriptions across the gateway: an app subscribes to URIs
//! it sees, with `resources/subscribe` (2025-11-25) or on a
//! `subscriptions/listen` stream (2026-07-28, crate::routing::listen); Airlock
//! subscribes at the server that serves each (once, however many apps;
//! `Airlock::subscribe_resource` speaks the server's revision), and each
//! update of that server for that URI reaches exactly the subscribers of
//! it. When the last one unsubscribes, closes its stream or detaches,
//! Airlock unsubscribes at the server.
//!
//! Each server is on its own: subscribing and unsubscribing at a server
//! runs under that server's lock only, each answer bounded by
//! [`limits::SERVER_SUBSCRIBE_TIMEOUT`], so a server that never answers
//! costs its own subscribers a time-out and nobody else anything.
//!
//! Bounded: [`limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP`] URIs per app
//! (its `resources/subscribe` and all its streams together), URIs of at
//! most [`limits::MAX_RESOURCE_URI_BYTES`], and per URI per subscriber at
//! most one update each [`limits::RESOURCE_UPDATE_MIN_INTERVAL`]: the
//! updates in between are coalesced into one (a `watch` holds only "there
//! was an update", never a queue). Updates for URIs nobody subscribed to,
//! or of a server for another server's URI, are ignored.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use airlock_core::Airlock;
use rmcp::model::{ErrorData, ResourceUpdatedNotificationParam};
use rmcp::service::{Peer, RoleServer, SubscriptionSendError, SubscriptionSink};
use tokio::sync::watch;

use crate::limits;

/// A server and the URI there.
type Key = (String, String);

/// Who gets updates: an app's `resources/subscribe` ([`Subscriber::session`])
/// or one of its listen streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subscriber {
    pub app: u64,
    /// 0: `resources/subscribe`; else the number of a listen stream.
    pub stream: u64,
}

impl Subscriber {
    /// The app's `resources/subscribe` subscriptions.
    pub fn session(app: u64) -> Self {
        Self { app, stream: 0 }
    }
}

/// Where a subscriber's updates go.
#[derive(Clone)]
pub enum Target {
    /// 2025-11-25: a notification on the app's session.
    Session(Peer<RoleServer>),
    /// 2026-07-28: a notification on the app's listen stream.
    Stream(SubscriptionSink),
}

/// Per (server, URI): each subscriber, and the signal of its updates.
type ByUri = HashMap<Key, HashMap<Subscriber, watch::Sender<()>>>;

/// Every app's resource subscriptions on one host.
#[derive(Default)]
pub struct ResourceSubscriptions {
    by_uri: Mutex<ByUri>,
    /// Subscribes and unsubscribes at each server one at a time, so the
    /// server's state follows the apps' (first in, last out); one lock per
    /// server, so a server that is slow to answer (each answer is bounded
    /// by [`limits::SERVER_SUBSCRIBE_TIMEOUT`]) delays only its own.
    ops: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// A subscription request, routed: the server and its URI there.
pub struct Wanted {
    pub subscriber: Subscriber,
    pub app: String,
    pub server: String,
    pub uri: String,
}

/// `op` at `server`, bounded by [`limits::SERVER_SUBSCRIBE_TIMEOUT`].
async fn at_server<T>(
    server: &str,
    op: impl std::future::Future<Output = airlock_core::CoreResult<T>>,
) -> Result<T, String> {
    match tokio::time::timeout(limits::SERVER_SUBSCRIBE_TIMEOUT, op).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!(
            "{server} did not answer within {} s",
            limits::SERVER_SUBSCRIBE_TIMEOUT.as_secs()
        )),
    }
}

impl ResourceSubscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, ByUri> {
        self.by_uri.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lock of `server`'s operations (see [`Self::ops`]).
    async fn server_ops(&self, server: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = self
            .ops
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(server.to_owned())
            .or_default()
            .clone();
        lock.lock_owned().await
    }

    /// Subscribe `wanted.subscriber` (its updates to `target`); the first
    /// subscriber of a URI subscribes Airlock at the server.
    pub async fn subscribe(
        &self,
        core: &Arc<Airlock>,
        wanted: Wanted,
        target: Target,
    ) -> Result<(), ErrorData> {
        let _ops = self.server_ops(&wanted.server).await;
        let key = (wanted.server, wanted.uri);
        let who = wanted.subscriber;
        let (already, first, count) = {
            let map = self.lock();
            let subs = map.get(&key);
            (
                subs.is_some_and(|m| m.contains_key(&who)),
                subs.is_none(),
                count_of(&map, who.app),
            )
        };
        if already {
            return Ok(());
        }
        if count >= limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP {
            return Err(too_many(count, 1));
        }
        if first {
            match tokio::time::timeout(
                limits::SERVER_SUBSCRIBE_TIMEOUT,
                core.subscribe_resource(&key.0, &key.1),
            )
            .await
            {
                Ok(r) => r.map_err(|e| crate::errors::core_error(&e))?,
                Err(_) => {
                    return Err(ErrorData::internal_error(
                        format!(
                            "Airlock: {} did not answer the subscription within {} s",
                            key.0,
                            limits::SERVER_SUBSCRIBE_TIMEOUT.as_secs()
                        ),
                        None,
                    ))
                }
            }
        }
        let (tx, rx) = watch::channel(());
        self.lock().entry(key.clone()).or_default().insert(who, tx);
        tokio::spawn(forward(core.clone(), target, wanted.app, key, rx));
        Ok(())
    }

    /// Subscribe `who` to each of `keys` at once (a listen stream's URIs,
    /// routed), its updates to `target`; at a 2026-07-28 server all the new
    /// URIs go on one new stream. Over the app's bound: an error, nothing
    /// subscribed. The URIs a server would not subscribe (or not in time)
    /// are left out and returned, with why. Each server in turn, under its
    /// own lock only.
    pub async fn subscribe_many(
        &self,
        core: &Arc<Airlock>,
        who: Subscriber,
        app_name: &str,
        keys: Vec<Key>,
        target: &Target,
    ) -> Result<Vec<(Key, String)>, ErrorData> {
        let fresh: Vec<Key> = {
            let map = self.lock();
            let mut fresh: Vec<Key> = keys
                .into_iter()
                .filter(|k| !map.get(k).is_some_and(|m| m.contains_key(&who)))
                .collect();
            fresh.sort();
            fresh.dedup();
            let count = count_of(&map, who.app);
            if count + fresh.len() > limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP {
                return Err(too_many(count, fresh.len()));
            }
            fresh
        };
        let mut by_server: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (server, uri) in fresh {
            by_server.entry(server).or_default().push(uri);
        }
        let mut refused = Vec::new();
        for (server, uris) in by_server {
            let _ops = self.server_ops(&server).await;
            let firsts: Vec<String> = {
                let map = self.lock();
                uris.iter()
                    .filter(|u| !map.contains_key(&(server.clone(), (*u).clone())))
                    .cloned()
                    .collect()
            };
            let done = if firsts.is_empty() {
                Ok(Vec::new())
            } else {
                at_server(&server, core.subscribe_resources(&server, &firsts)).await
            };
            let mut map = self.lock();
            for uri in uris {
                let key = (server.clone(), uri);
                if firsts.contains(&key.1) {
                    let why = match &done {
                        Ok(done) if done.contains(&key.1) => None,
                        Ok(_) => Some("the server did not acknowledge it".to_owned()),
                        Err(e) => Some(e.clone()),
                    };
                    if let Some(why) = why {
                        refused.push((key, why));
                        continue;
                    }
                }
                let (tx, rx) = watch::channel(());
                map.entry(key.clone()).or_default().insert(who, tx);
                let forward = forward(core.clone(), target.clone(), app_name.to_owned(), key, rx);
                tokio::spawn(forward);
            }
        }
        Ok(refused)
    }

    /// Unsubscribe `app`'s `resources/subscribe` from `uri` (nothing if it
    /// was not subscribed); the last subscriber of a URI unsubscribes
    /// Airlock at the server.
    pub async fn unsubscribe(&self, core: &Arc<Airlock>, app: u64, uri: &str) {
        let who = Subscriber::session(app);
        self.remove(core, |s, k| *s == who && k.1 == uri).await;
    }

    /// A listen stream ended: its subscriptions end.
    pub async fn end_stream(&self, core: &Arc<Airlock>, stream: Subscriber) {
        self.remove(core, |s, _| *s == stream).await;
    }

    /// The app detached: all its subscriptions end.
    pub async fn detach(&self, core: &Arc<Airlock>, app: u64) {
        self.remove(core, |s, _| s.app == app).await;
    }

    /// Remove the subscriptions `which` picks, server by server (each under
    /// its own lock), unsubscribing at a server the URIs nobody wants now.
    async fn remove(&self, core: &Arc<Airlock>, which: impl Fn(&Subscriber, &Key) -> bool) {
        let servers: std::collections::BTreeSet<String> = self
            .lock()
            .iter()
            .filter(|(key, subs)| subs.keys().any(|s| which(s, key)))
            .map(|(key, _)| key.0.clone())
            .collect();
        for server in servers {
            let _ops = self.server_ops(&server).await;
            let emptied: Vec<String> = {
                let mut map = self.lock();
                let mut emptied = Vec::new();
                map.retain(|key, subs| {
                    if key.0 != server {
                        return true;
                    }
                    subs.retain(|s, _| !which(s, key));
                    if subs.is_empty() {
                        emptied.push(key.1.clone());
                        return false;
                    }
                    true
                });
                emptied
            };
            for uri in emptied {
                // Failing (server gone, reconnected, slow) leaves nothing to undo here.
                let _ = at_server(&server, core.unsubscribe_resource(&server, &uri)).await;
            }
        }
    }

    /// `server` (re)connected: subscribe again at its new session to the
    /// URIs apps are subscribed to there (a failure leaves the apps'
    /// subscriptions, silent until the server sends updates again).
    pub async fn resubscribe(&self, core: &Arc<Airlock>, server: &str) {
        let _ops = self.server_ops(server).await;
        let uris: Vec<String> = self
            .lock()
            .keys()
            .filter(|k| k.0 == server)
            .map(|k| k.1.clone())
            .collect();
        if !uris.is_empty() {
            let _ = at_server(server, core.subscribe_resources(server, &uris)).await;
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

fn too_many(has: usize, adds: usize) -> ErrorData {
    ErrorData::invalid_request(
        format!(
            "too many resource subscriptions from this app (at most {}; it has {has}, this adds {adds})",
            limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP
        ),
        None,
    )
}

/// The subscriptions of `app` (all its subscribers).
fn count_of(map: &ByUri, app: u64) -> usize {
    map.values()
        .map(|m| m.keys().filter(|s| s.app == app).count())
        .sum()
}

/// One subscriber's updates of one URI, at most one per
/// [`limits::RESOURCE_UPDATE_MIN_INTERVAL`], until it unsubscribes (the
/// sender is dropped) or its transport or stream closes. Not while the
/// user paused the app or its profile hides the server. The URI the app
/// sees is the server's own (the catalog keeps resource URIs as they are).
async fn forward(
    core: Arc<Airlock>,
    target: Target,
    app_name: String,
    (server, uri): Key,
    mut rx: watch::Receiver<()>,
) {
    while rx.changed().await.is_ok() {
        let (profile, paused) = crate::catalog::profile::standing(&core, &app_name);
        let shown = !paused && profile.allows_server(&server);
        match &target {
            Target::Session(peer) => {
                if peer.is_transport_closed() {
                    return;
                }
                if shown {
                    let _ = peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.clone()))
                        .await;
                }
            }
            Target::Stream(sink) if shown => {
                if let Err(SubscriptionSendError::SubscriptionClosed) =
                    sink.notify_resource_updated(uri.clone()).await
                {
                    return;
                }
            }
            Target::Stream(_) => {}
        }
        tokio::time::sleep(limits::RESOURCE_UPDATE_MIN_INTERVAL).await;
    }
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
            .insert(Subscriber::session(1), tx);
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
