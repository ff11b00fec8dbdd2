//! Notices of held definitions: what changed, for the notifications and the window.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use crate::events::CoreEvent;
use crate::pins::notice::*;
use crate::Airlock;

impl Airlock {
    /// Follow the changes held for review and call `act` with one notice
    /// per server per burst ([`PIN_NOTICE_GAP`]), and when a server's last
    /// waiting change is decided (here, or in another process: seen within
    /// [`PIN_GENERATION_POLL`]). Runs until the core's event channel
    /// closes; spawn it on the shell's runtime. `act` must not block long
    /// (show the notification on a thread of its own).
    pub async fn follow_pin_notices(self: Arc<Self>, act: impl Fn(PinNoticeEvent) + Send) {
        let mut rx = self.subscribe();
        let mut tracker = PinNoticeTracker::seeded(&self);
        // Servers with a burst under way, and when it is noticed.
        let mut due: BTreeMap<String, Instant> = BTreeMap::new();
        let mut generation = self.pin_generation().unwrap_or(0);
        let mut next_poll = Instant::now() + PIN_GENERATION_POLL;
        loop {
            let wake = due
                .values()
                .min()
                .map_or(next_poll, |at| (*at).min(next_poll));
            let event = tokio::time::timeout_at(wake, rx.recv()).await.ok();
            match event {
                Some(Ok(CoreEvent::PinChanges { server, .. })) => {
                    due.entry(server)
                        .or_insert_with(|| Instant::now() + PIN_NOTICE_GAP);
                }
                Some(Ok(_)) => {}
                // Events were lost: look at every server that has a notice
                // or waiting changes.
                Some(Err(RecvError::Lagged(_))) => {
                    let mut servers: Vec<String> = tracker.told.keys().cloned().collect();
                    if let Ok(counts) = self.pending_pin_counts() {
                        servers.extend(counts.into_iter().map(|(s, _)| s));
                    }
                    for server in servers {
                        due.entry(server)
                            .or_insert_with(|| Instant::now() + PIN_NOTICE_GAP);
                    }
                }
                Some(Err(RecvError::Closed)) => return,
                None => {}
            }
            let now = Instant::now();
            if now >= next_poll {
                next_poll = now + PIN_GENERATION_POLL;
                // Decided elsewhere: look again at every server with a notice.
                if let Ok(g) = self.pin_generation() {
                    if g != generation {
                        generation = g;
                        for server in tracker.told.keys() {
                            due.entry(server.clone()).or_insert(now);
                        }
                    }
                }
            }
            let ripe: Vec<String> = due
                .iter()
                .filter(|(_, at)| **at <= now)
                .map(|(s, _)| s.clone())
                .collect();
            for server in ripe {
                due.remove(&server);
                let Ok(pending) = self.store.pending_pin_change_heads(Some(&server)) else {
                    continue;
                };
                if let Some(e) = tracker.update(&server, &pending) {
                    act(e);
                }
            }
        }
    }
}
