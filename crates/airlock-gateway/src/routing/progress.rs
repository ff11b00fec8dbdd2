//! A request's progress, server to app: the app's tools/call, prompts/get
//! or resources/read carried a progressToken, the core's request gives the
//! server one of its own
//! ([`airlock_core::mcp::progress`]) and each checked report reaches the app
//! with the app's token, at most one per [`limits::PROGRESS_MIN_INTERVAL`]
//! (the latest wins; nothing queues), and none after the result.

use std::future::Future;

use airlock_core::mcp::progress::{Progress, ProgressSender};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::limits;

/// Where one request's progress goes: the app's token, and the channel the
/// core reports the server's progress into.
pub(crate) struct Relay {
    token: ProgressToken,
    tx: ProgressSender,
    rx: watch::Receiver<Option<Progress>>,
}

impl Relay {
    /// A relay when the app asked for progress (its request carried a token).
    pub(crate) fn new(token: Option<ProgressToken>) -> Option<Self> {
        let (tx, rx) = watch::channel(None);
        token.map(|token| Self { token, tx, rx })
    }

    /// What the core reports the server's progress into.
    pub(crate) fn sender(relay: Option<&Self>) -> Option<&ProgressSender> {
        relay.map(|r| &r.tx)
    }
}

/// Run `call` to its end, passing its progress on to `peer` meanwhile.
pub(crate) async fn forwarding<F: Future>(
    call: F,
    relay: Option<&Relay>,
    peer: &Peer<RoleServer>,
) -> F::Output {
    let Some((token, mut reports)) = relay.map(|r| (r.token.clone(), r.rx.clone())) else {
        return call.await;
    };
    tokio::pin!(call);
    let mut open = true;
    let mut waiting = false;
    let mut next_at = Instant::now();
    loop {
        tokio::select! {
            biased;
            outcome = &mut call => return outcome,
            changed = reports.changed(), if open && !waiting => {
                if changed.is_err() {
                    open = false;
                } else {
                    waiting = true;
                }
            }
            () = tokio::time::sleep_until(next_at), if waiting => {
                waiting = false;
                let report = reports.borrow_and_update().clone();
                if let Some(p) = report {
                    let mut param = ProgressNotificationParam::new(token.clone(), p.progress);
                    param.total = p.total;
                    param.message = p.message;
                    let _ = peer.notify_progress(param).await;
                }
                next_at = Instant::now() + limits::PROGRESS_MIN_INTERVAL;
            }
        }
    }
}
