//! Completion notifications (2025-11-25): the accepted elicitations that
//! wait for `notifications/elicitation/complete`, matched on connection and
//! id; unknown, repeated and other-connection ids are ignored and audited.

use tokio::sync::oneshot;

use super::broker::{bounded_id, Broker, Ending, Tracked, MAX_TRACKED};
use crate::lifecycle::ElicitationState as S;

impl Broker {
    pub(super) fn track(
        &self,
        record_id: i64,
        connection: u64,
        elicitation_id: String,
    ) -> oneshot::Receiver<Ending> {
        let (tx, rx) = oneshot::channel();
        let evicted = {
            let mut tracked = self.tracked.lock().unwrap_or_else(|e| e.into_inner());
            let evicted = (tracked.len() >= MAX_TRACKED)
                .then(|| tracked.pop_front())
                .flatten();
            tracked.push_back(Tracked {
                record_id,
                connection,
                elicitation_id,
                done: tx,
            });
            evicted
        };
        if let Some(t) = evicted {
            self.advance(
                t.record_id,
                S::Expired,
                Some(
                    "too many elicitations wait for completion; the oldest stopped waiting".into(),
                ),
                serde_json::json!({}),
            );
            let _ = t.done.send(Ending::Evicted);
        }
        rx
    }

    pub(super) fn untrack(&self, connection: u64, elicitation_id: &str) {
        let id = bounded_id(elicitation_id);
        self.tracked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|t| !(t.connection == connection && t.elicitation_id == id));
    }

    /// `notifications/elicitation/complete` from `connection`. Unknown,
    /// already completed or other-connection ids are ignored and audited.
    pub fn complete(&self, server: &str, connection: u64, elicitation_id: &str) -> bool {
        let id = bounded_id(elicitation_id);
        let found = {
            let mut tracked = self.tracked.lock().unwrap_or_else(|e| e.into_inner());
            let pos = tracked
                .iter()
                .position(|t| t.connection == connection && t.elicitation_id == id);
            pos.and_then(|p| tracked.remove(p))
        };
        match found {
            Some(t) => {
                self.advance(
                    t.record_id,
                    S::Completed,
                    None,
                    serde_json::json!({"by": "notification"}),
                );
                let _ = t.done.send(Ending::Completed);
                true
            }
            None => {
                let _ = self.store.audit(
                    Some(server),
                    "elicitation_complete_ignored",
                    &serde_json::json!({"elicitation_id": id, "reason": "unknown, already completed, or from another connection"}),
                );
                false
            }
        }
    }

    /// Is this elicitation still waiting for its completion notification?
    pub fn is_waiting(&self, connection: u64, elicitation_id: &str) -> bool {
        let id = bounded_id(elicitation_id);
        self.tracked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|t| t.connection == connection && t.elicitation_id == id)
    }

    /// The connection ended: its waits end `connection_lost`.
    pub fn connection_lost(&self, connection: u64) {
        let lost: Vec<Tracked> = {
            let mut tracked = self.tracked.lock().unwrap_or_else(|e| e.into_inner());
            let (lost, keep): (Vec<_>, Vec<_>) =
                tracked.drain(..).partition(|t| t.connection == connection);
            tracked.extend(keep);
            lost
        };
        for t in lost {
            self.advance(t.record_id, S::ConnectionLost, None, serde_json::json!({}));
            let _ = t.done.send(Ending::ConnectionLost);
        }
    }
}
