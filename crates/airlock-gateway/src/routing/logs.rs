//! Servers' log messages (`notifications/message`) to the apps that asked
//! for them with `logging/setLevel`: from the servers the app's profile
//! shows, at or above its level, as plain text (escaped, bounded), the
//! logger named after the server, at most [`limits::LOG_BURST`] at once and
//! [`limits::LOG_LINES_PER_SEC`] a second (the rest dropped, and the next
//! line passed on says how many). The lines come from the core's events
//! (already masked of the server's secrets), a bounded channel: an app
//! that lags loses lines, it never grows a queue.

// Logging is deprecated in 2026-07-28 (SEP-2577); 2025-11-25 apps use it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_core::events::CoreEvent;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::broadcast::error::RecvError;

use crate::host::Gateway;
use crate::limits;

const ORDER: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

fn rank(level: LoggingLevel) -> usize {
    ORDER.iter().position(|l| *l == level).unwrap_or(0)
}

/// A level as the core's log event spells it ("info", "warning", ...).
fn parse(level: &str) -> Option<LoggingLevel> {
    serde_json::from_value(serde_json::Value::String(level.to_owned())).ok()
}

/// What one app asked for: its level (and the client whose profile applies).
#[derive(Default)]
pub struct LogWish {
    wish: Mutex<Option<(LoggingLevel, String)>>,
    started: std::sync::atomic::AtomicBool,
}

impl LogWish {
    /// The app set `level`; the first time, start passing lines to `peer`.
    pub(crate) fn set(
        self: &Arc<Self>,
        gateway: &Arc<Gateway>,
        peer: &Peer<RoleServer>,
        level: LoggingLevel,
        client: String,
    ) {
        *self.wish.lock().unwrap_or_else(|e| e.into_inner()) = Some((level, client));
        if !self.started.swap(true, std::sync::atomic::Ordering::SeqCst) {
            tokio::spawn(forward(gateway.clone(), peer.clone(), self.clone()));
        }
    }

    fn get(&self) -> Option<(LoggingLevel, String)> {
        self.wish.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A token bucket: [`limits::LOG_BURST`] lines, refilled at
/// [`limits::LOG_LINES_PER_SEC`].
struct Bucket {
    tokens: f64,
    at: Instant,
    dropped: u64,
}

impl Bucket {
    fn new() -> Self {
        Self {
            tokens: f64::from(limits::LOG_BURST),
            at: Instant::now(),
            dropped: 0,
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill =
            now.duration_since(self.at).as_secs_f64() * f64::from(limits::LOG_LINES_PER_SEC);
        self.tokens = (self.tokens + refill).min(f64::from(limits::LOG_BURST));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.dropped += 1;
            false
        }
    }
}

/// Pass servers' log lines to one app until its transport closes.
async fn forward(gateway: Arc<Gateway>, peer: Peer<RoleServer>, wish: Arc<LogWish>) {
    let mut events = gateway.core.subscribe();
    let mut bucket = Bucket::new();
    loop {
        let event = tokio::select! {
            e = events.recv() => e,
            () = tokio::time::sleep(Duration::from_secs(5)) => {
                if peer.is_transport_closed() { return }
                continue;
            }
        };
        let (server, level, text) = match event {
            Ok(CoreEvent::Log {
                server,
                source,
                level,
                text,
            }) if source == "notification" => (server, level, text),
            Ok(_) => continue,
            Err(RecvError::Lagged(n)) => {
                bucket.dropped += n;
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        if peer.is_transport_closed() {
            return;
        }
        let Some((wanted, client)) = wish.get() else {
            continue;
        };
        let level = parse(&level).unwrap_or(LoggingLevel::Info);
        if rank(level) < rank(wanted) || !bucket.take() {
            continue;
        }
        if !crate::profile::of(&gateway.core, &client).allows_server(&server) {
            continue;
        }
        let mut text =
            airlock_core::url_safety::neutralize_for_display(&text, limits::MAX_LOG_CHARS);
        if bucket.dropped > 0 {
            text = format!("({} earlier lines dropped) {text}", bucket.dropped);
            bucket.dropped = 0;
        }
        let mut param =
            LoggingMessageNotificationParam::new(level, serde_json::Value::String(text));
        param.logger = Some(server);
        let _ = peer.notify_logging_message(param).await;
    }
}
