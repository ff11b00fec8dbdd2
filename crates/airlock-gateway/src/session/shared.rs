//! What every app session shares: the one [`Gateway`] of a host (the core,
//! the catalog, the router of server-to-app messages, the parked rounds,
//! the attached apps). The host builds and starts it
//! (`Gateway::start` in crate::host); the sessions, the HTTP front and the
//! history flush read it. It names nothing above the session.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use airlock_core::Airlock;
use tokio::sync::watch;

use crate::catalog::Catalog;
use crate::limits;
use crate::routing::router::Router;
use crate::session::attached::Attachments;
use crate::session::rounds::Rounds;

/// What every app session shares.
pub struct Gateway {
    pub core: Arc<Airlock>,
    pub catalog: Arc<Catalog>,
    /// `true` once the first connects are done.
    pub started: watch::Receiver<bool>,
    /// Where servers' messages to apps go (crate::routing::router).
    pub router: Arc<Router>,
    /// Calls of 2026-07-28 apps waiting for the app's answer to a form.
    pub rounds: Rounds,
    attached: AtomicUsize,
    /// The count of attached apps, for the idle timer.
    attached_tx: watch::Sender<usize>,
    /// Which apps are attached, for whoever shows them (the desktop).
    pub attachments: Arc<Attachments>,
}

impl Gateway {
    /// A gateway with no app attached and no round parked.
    pub(crate) fn new(
        catalog: Arc<Catalog>,
        core: Arc<Airlock>,
        started: watch::Receiver<bool>,
        router: Arc<Router>,
        attachments: Arc<Attachments>,
    ) -> Self {
        let (attached_tx, _) = watch::channel(0);
        Self {
            catalog,
            core,
            started,
            router,
            rounds: Rounds::default(),
            attached: AtomicUsize::new(0),
            attached_tx,
            attachments,
        }
    }

    pub fn attached(&self) -> usize {
        self.attached.load(Ordering::SeqCst)
    }

    /// The count of attached apps, as it changes.
    pub(crate) fn attached_count(&self) -> watch::Receiver<usize> {
        self.attached_tx.subscribe()
    }
}

/// Counts an attached app while alive.
pub(crate) struct Attached(Arc<Gateway>);

impl Attached {
    /// One of the [`limits::MAX_APPS`] places, if one is free.
    pub(crate) fn new(gateway: Arc<Gateway>) -> Option<Self> {
        let n = gateway.attached.fetch_add(1, Ordering::SeqCst);
        if n >= limits::MAX_APPS {
            gateway.attached.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        gateway.attached_tx.send_replace(n + 1);
        Some(Self(gateway))
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        let n = self.0.attached.fetch_sub(1, Ordering::SeqCst);
        self.0.attached_tx.send_replace(n.saturating_sub(1));
    }
}
