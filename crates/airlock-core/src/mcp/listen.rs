//! A 2026-07-28 server's `subscriptions/listen` stream: the one way such a
//! server sends its list changes and its resources' updates. Each session
//! has at most one stream, whose filter names the lists the server offers
//! ([`super::list_changes::to_listen`]) and the resource URIs Airlock
//! follows there ([`Listener::follow`]); when that set changes, a stream
//! with the new filter is opened and, once the server acknowledged it,
//! replaces the old one (which is then cancelled): updates are not lost in
//! between, and the few sent twice are coalesced downstream.
//!
//! Bounded: at most [`MAX_FOLLOWED_URIS`] URIs per server, each at most
//! [`MAX_FOLLOWED_URI_BYTES`]; a server has [`ACK_TIMEOUT`] to acknowledge
//! a stream. rmcp checks every notification on a stream against the filter
//! the server acknowledged (anything else ends the stream), so a server
//! cannot send updates of URIs Airlock did not name. A stream the server
//! ends is opened again after a wait that doubles up to [`REOPEN_MAX`],
//! and not after [`MAX_FAILED_OPENS`] failed opens in a row (until the
//! next change of the set).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient, ServiceError, Subscription};
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::handler::AirlockClient;

/// Resource URIs Airlock follows at one server at once.
pub const MAX_FOLLOWED_URIS: usize = 1024;
/// Longest resource URI Airlock follows, in bytes.
pub const MAX_FOLLOWED_URI_BYTES: usize = 2048;
/// How long a server may take to acknowledge a listen stream.
pub const ACK_TIMEOUT: Duration = Duration::from_secs(30);
/// The first wait before a stream the server ended is opened again; it
/// doubles up to [`REOPEN_MAX`], and starts over after a stream that lived
/// [`REOPEN_MAX`].
pub const REOPEN_FIRST: Duration = Duration::from_secs(1);
pub const REOPEN_MAX: Duration = Duration::from_secs(60);
/// Failed opens in a row after which Airlock stops until the set changes.
pub const MAX_FAILED_OPENS: u32 = 5;

/// Why a change of the followed URIs did not take.
#[derive(Debug)]
pub(crate) enum ListenError {
    /// Over a bound; nothing changed.
    TooMany,
    TooLong,
    /// The server refused the stream or did not acknowledge it in time.
    Open(ServiceError),
    Timeout,
}

/// A new stream for the reader; `None`: listen for nothing any more.
type Handoff = Option<Subscription>;

/// One session's listen stream (see the module docs).
pub(crate) struct Listener {
    peer: Peer<RoleClient>,
    /// The list changes the server offers (empty: none).
    lists: SubscriptionFilter,
    /// Changes of the set and opens happen one at a time under it.
    ops: tokio::sync::Mutex<()>,
    /// The URIs followed: only their updates are passed on (an old stream
    /// may still carry others for a moment).
    uris: Arc<Mutex<BTreeSet<String>>>,
    /// The newest stream opened for a change, for the reader (latest wins).
    slot: Arc<(Mutex<Option<Handoff>>, Notify)>,
    /// Ends the reader when the session goes.
    stop: CancellationToken,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Listener {
    /// The listener of a 2026-07-28 session; it opens a stream at once
    /// when the server offers list changes (`lists`), else on the first
    /// URI followed.
    pub(crate) fn start(
        peer: Peer<RoleClient>,
        lists: Option<SubscriptionFilter>,
        client: AirlockClient,
    ) -> Arc<Self> {
        let now = lists.as_ref().map(|_| Instant::now());
        let this = Arc::new(Self {
            peer,
            lists: lists.unwrap_or_default(),
            ops: tokio::sync::Mutex::new(()),
            uris: Arc::default(),
            slot: Arc::default(),
            stop: CancellationToken::new(),
        });
        let reader = Reader {
            listener: Arc::downgrade(&this),
            slot: this.slot.clone(),
            stop: this.stop.clone(),
            uris: this.uris.clone(),
            client,
        };
        tokio::spawn(reader.run(now));
        this
    }

    fn filter(&self, uris: &BTreeSet<String>) -> SubscriptionFilter {
        let mut filter = self.lists.clone();
        filter.resource_subscriptions = (!uris.is_empty()).then(|| uris.iter().cloned().collect());
        filter
    }

    fn is_empty(filter: &SubscriptionFilter) -> bool {
        *filter == SubscriptionFilter::default()
    }

    /// Open a stream with `filter`, acknowledged within [`ACK_TIMEOUT`].
    async fn open(&self, filter: SubscriptionFilter) -> Result<Subscription, ListenError> {
        match tokio::time::timeout(ACK_TIMEOUT, self.peer.listen(filter)).await {
            Ok(Ok(s)) => Ok(s),
            Ok(Err(e)) => Err(ListenError::Open(e)),
            Err(_) => Err(ListenError::Timeout),
        }
    }

    fn followed(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.uris.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Follow `add` too (on one new stream): the URIs the server
    /// acknowledged, of `add`, are returned; the others are not followed.
    pub(crate) async fn follow(&self, add: &[String]) -> Result<Vec<String>, ListenError> {
        if add.iter().any(|u| u.len() > MAX_FOLLOWED_URI_BYTES) {
            return Err(ListenError::TooLong);
        }
        let _ops = self.ops.lock().await;
        let mut wanted = self.followed().clone();
        let before = wanted.len();
        wanted.extend(add.iter().cloned());
        if wanted.len() > MAX_FOLLOWED_URIS {
            return Err(ListenError::TooMany);
        }
        if wanted.len() == before {
            return Ok(add.to_vec());
        }
        let stream = self.open(self.filter(&wanted)).await?;
        let acked: BTreeSet<&String> = stream
            .acknowledged()
            .resource_subscriptions
            .iter()
            .flatten()
            .collect();
        // What the server did not acknowledge is not followed.
        wanted.retain(|u| acked.contains(u));
        let followed: Vec<String> = add
            .iter()
            .filter(|u| wanted.contains(*u))
            .cloned()
            .collect();
        *self.followed() = wanted;
        self.hand_off(Some(stream));
        Ok(followed)
    }

    /// Stop following `uri` at once, and listen on a new stream without it
    /// (nothing if it was not followed). Failing to open the new stream
    /// leaves the old one, whose updates of `uri` are no longer passed on.
    pub(crate) async fn unfollow(&self, uri: &str) -> Result<(), ListenError> {
        let _ops = self.ops.lock().await;
        let filter = {
            let mut followed = self.followed();
            if !followed.remove(uri) {
                return Ok(());
            }
            self.filter(&followed)
        };
        let stream = if Self::is_empty(&filter) {
            None
        } else {
            Some(self.open(filter).await?)
        };
        self.hand_off(stream);
        Ok(())
    }

    fn hand_off(&self, stream: Handoff) {
        let (slot, ready) = &*self.slot;
        // A newer stream replaces one the reader has not taken yet (that
        // one is dropped, which cancels it at the server).
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(stream);
        ready.notify_one();
    }

    /// A stream with the current set, for the reader after the server
    /// ended one (`None`: nothing to listen for).
    async fn reopen(&self) -> Result<Option<Subscription>, ListenError> {
        let _ops = self.ops.lock().await;
        let filter = self.filter(&self.followed());
        if Self::is_empty(&filter) {
            return Ok(None);
        }
        self.open(filter).await.map(Some)
    }
}

/// Reads the current stream: list changes to the client's coalescer,
/// resource updates to the gateway's apps.
struct Reader {
    listener: Weak<Listener>,
    slot: Arc<(Mutex<Option<Handoff>>, Notify)>,
    stop: CancellationToken,
    /// The URIs followed (see [`Listener`]).
    uris: Arc<Mutex<BTreeSet<String>>>,
    client: AirlockClient,
}

async fn next_of(
    current: &mut Option<Subscription>,
) -> Result<Option<ServerNotification>, ServiceError> {
    match current {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}

async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Reader {
    async fn run(self, mut reopen_at: Option<Instant>) {
        let mut current: Option<Subscription> = None;
        let mut wait = REOPEN_FIRST;
        let mut failed = 0u32;
        let mut opened = Instant::now();
        loop {
            tokio::select! {
                () = self.stop.cancelled() => return,
                () = self.slot.1.notified() => {
                    let taken = self.slot.0.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(stream) = taken {
                        current = stream;
                        (reopen_at, failed, opened) = (None, 0, Instant::now());
                    }
                }
                next = next_of(&mut current) => match next {
                    Ok(Some(notification)) => self.deliver(notification),
                    end => {
                        if let Err(e) = end {
                            self.client.log("airlock", "warning", &format!(
                                "the server broke its listen stream ({e}); opening it again"
                            ));
                        }
                        current = None;
                        if opened.elapsed() >= REOPEN_MAX {
                            wait = REOPEN_FIRST;
                        }
                        reopen_at = Some(Instant::now() + wait);
                        wait = (wait * 2).min(REOPEN_MAX);
                    }
                },
                () = until(reopen_at) => {
                    reopen_at = None;
                    let Some(listener) = self.listener.upgrade() else { return };
                    if listener.peer.is_transport_closed() {
                        return;
                    }
                    match listener.reopen().await {
                        Ok(stream) => (current, failed, opened) = (stream, 0, Instant::now()),
                        Err(e) => {
                            failed += 1;
                            let again = failed < MAX_FAILED_OPENS;
                            self.client.log("airlock", "warning", &format!(
                                "the server refused to send list changes and resource updates ({}){}",
                                describe(&e),
                                if again { "; trying again" } else { "; they come back when it reconnects or a resource is subscribed" }
                            ));
                            if again {
                                reopen_at = Some(Instant::now() + wait);
                                wait = (wait * 2).min(REOPEN_MAX);
                            }
                        }
                    }
                }
            }
        }
    }

    /// One notification of the stream: rmcp let through only what the
    /// server acknowledged.
    fn deliver(&self, notification: ServerNotification) {
        match notification {
            ServerNotification::ResourceUpdatedNotification(n) => {
                let followed = self.uris.lock().unwrap_or_else(|e| e.into_inner());
                if !followed.contains(&n.params.uri) {
                    return;
                }
                drop(followed);
                if let Some(apps) = &self.client.app_requests {
                    apps.resource_updated(&self.client.server, &n.params.uri);
                }
            }
            ServerNotification::ToolListChangedNotification(_)
            | ServerNotification::PromptListChangedNotification(_)
            | ServerNotification::ResourceListChangedNotification(_) => self.client.lists.changed(),
            _ => {}
        }
    }
}

/// A listen error in words.
pub(crate) fn describe(e: &ListenError) -> String {
    match e {
        ListenError::TooMany => {
            format!("Airlock follows at most {MAX_FOLLOWED_URIS} resources of one server")
        }
        ListenError::TooLong => {
            format!("a resource URI longer than {MAX_FOLLOWED_URI_BYTES} bytes")
        }
        ListenError::Open(e) => e.to_string(),
        ListenError::Timeout => format!(
            "it did not acknowledge the listen stream within {} s",
            ACK_TIMEOUT.as_secs()
        ),
    }
}
