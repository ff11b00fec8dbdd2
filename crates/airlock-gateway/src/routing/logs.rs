//! Servers' log messages (`notifications/message`) to the app whose
//! request caused them ([`crate::routing::router`]: the core names the one
//! app with requests in flight on that server's connection; a line nobody's
//! request caused stays in Airlock's own log), when that app asked for them
//! with `logging/setLevel`: at or above its level, from a server its profile
//! shows, as plain text (escaped, bounded), the logger named after the
//! server. Each server has a bucket of its own per app ([`limits::LOG_BURST`]
//! at once, [`limits::LOG_LINES_PER_SEC`] a second), spent *before* a line
//! enters the app's queue: one server's flood drops its own lines and never
//! fills the queue that another server's line needs; the next line passed on
//! says how many went.
//!
//! Nothing waits on an app: a line goes into the app's bounded queue
//! ([`LOG_QUEUE`], room for several servers' bursts at once) or is dropped
//! (and counted).

// Logging is deprecated in 2026-07-28 (SEP-2577); 2025-11-25 apps use it.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use airlock_core::Airlock;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc;

use crate::limits;

/// Lines waiting for one app; beyond, they are dropped (and counted). Four
/// servers' whole bursts fit, so a fifth server's line still finds room.
pub const LOG_QUEUE: usize = 4 * limits::LOG_BURST as usize;
/// Servers one app keeps a bucket for (one per server it hears from).
const MAX_BUCKETS: usize = 256;

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

/// A level as the core spells it ("info", "warning", ...).
fn parse(level: &str) -> Option<LoggingLevel> {
    serde_json::from_value(serde_json::Value::String(level.to_owned())).ok()
}

/// One server's line, on its way to an app.
struct Line {
    server: String,
    level: LoggingLevel,
    text: String,
    /// This server's lines its bucket dropped just before this one.
    earlier_dropped: u64,
}

/// What one app asked for (its level, and the app whose profile applies).
struct Sink {
    wish: Arc<Mutex<(LoggingLevel, String)>>,
    lines: mpsc::Sender<Line>,
    /// Lines dropped because the app's queue was full.
    dropped: Arc<AtomicU64>,
    /// A bucket per server this app hears from.
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// The apps that asked for log lines, by app number.
#[derive(Default)]
pub struct LogSinks(Mutex<HashMap<u64, Sink>>);

impl LogSinks {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Sink>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// App `app` set `level`; the first time, start passing lines to `peer`.
    pub(crate) fn set(
        self: &Arc<Self>,
        core: &Arc<Airlock>,
        app: u64,
        peer: &Peer<RoleServer>,
        level: LoggingLevel,
        app_name: String,
    ) {
        let mut sinks = self.lock();
        if let Some(sink) = sinks.get(&app) {
            *sink.wish.lock().unwrap_or_else(|e| e.into_inner()) = (level, app_name);
            return;
        }
        let (lines, rx) = mpsc::channel(LOG_QUEUE);
        let wish = Arc::new(Mutex::new((level, app_name)));
        let dropped = Arc::new(AtomicU64::new(0));
        tokio::spawn(forward(
            core.clone(),
            self.clone(),
            app,
            peer.clone(),
            wish.clone(),
            dropped.clone(),
            rx,
        ));
        sinks.insert(
            app,
            Sink {
                wish,
                lines,
                dropped,
                buckets: Mutex::new(HashMap::new()),
            },
        );
    }

    /// The app detached: its lines stop.
    pub(crate) fn remove(&self, app: u64) {
        self.lock().remove(&app);
    }

    /// A server's line for app `app` (nothing if it asked for none).
    pub(crate) fn deliver(&self, app: u64, server: &str, level: &str, text: &str) {
        let sinks = self.lock();
        let Some(sink) = sinks.get(&app) else {
            return;
        };
        let level = parse(level).unwrap_or(LoggingLevel::Info);
        let wanted = sink.wish.lock().unwrap_or_else(|e| e.into_inner()).0;
        if rank(level) < rank(wanted) {
            return;
        }
        // The server's own bucket first: its flood stops here, before the
        // queue every server shares.
        let earlier_dropped = {
            let mut buckets = sink.buckets.lock().unwrap_or_else(|e| e.into_inner());
            if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(server) {
                buckets.clear();
            }
            let bucket = buckets.entry(server.to_owned()).or_insert_with(Bucket::new);
            if !bucket.take() {
                return;
            }
            std::mem::take(&mut bucket.dropped)
        };
        let line = Line {
            server: server.to_owned(),
            level,
            text: text.to_owned(),
            earlier_dropped,
        };
        if sink.lines.try_send(line).is_err() {
            sink.dropped
                .fetch_add(1 + earlier_dropped, Ordering::Relaxed);
        }
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

/// Pass one app's lines on until its transport closes or it detaches.
async fn forward(
    core: Arc<Airlock>,
    sinks: Arc<LogSinks>,
    app: u64,
    peer: Peer<RoleServer>,
    wish: Arc<Mutex<(LoggingLevel, String)>>,
    queue_dropped: Arc<AtomicU64>,
    mut lines: mpsc::Receiver<Line>,
) {
    while let Some(line) = lines.recv().await {
        if peer.is_transport_closed() {
            break;
        }
        let app_name = wish.lock().unwrap_or_else(|e| e.into_inner()).1.clone();
        // A server the app's profile does not show: never passed on.
        if !crate::catalog::profile::of(&core, &app_name).allows_server(&line.server) {
            continue;
        }
        let mut text =
            airlock_core::url_safety::neutralize_for_display(&line.text, limits::MAX_LOG_CHARS);
        let dropped = line.earlier_dropped + queue_dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            text = format!("({dropped} earlier lines dropped) {text}");
        }
        let mut param =
            LoggingMessageNotificationParam::new(line.level, serde_json::Value::String(text));
        param.logger = Some(line.server);
        let _ = peer.notify_logging_message(param).await;
    }
    sinks.remove(app);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The failure seen on a loaded machine: an app slow to take its lines
    /// while one server floods. The loud server's bucket stops its flood
    /// before the queue, so the calm server's line is queued all the same.
    #[test]
    fn a_flood_never_fills_the_queue_another_servers_line_needs() {
        let sinks = LogSinks::default();
        let (tx, mut rx) = mpsc::channel(LOG_QUEUE);
        sinks.lock().insert(
            1,
            Sink {
                wish: Arc::new(Mutex::new((LoggingLevel::Debug, "a".into()))),
                lines: tx,
                dropped: Arc::new(AtomicU64::new(0)),
                buckets: Mutex::new(HashMap::new()),
            },
        );
        // Nobody drains the queue meanwhile (the app is slow).
        for i in 0..500 {
            sinks.deliver(1, "loud", "info", &format!("loud line {i}"));
        }
        sinks.deliver(1, "calm", "info", "calm line 0");
        let mut loud = 0;
        let mut calm = false;
        while let Ok(line) = rx.try_recv() {
            match line.server.as_str() {
                "loud" => loud += 1,
                _ => calm = true,
            }
        }
        assert!(calm, "the calm line was queued");
        assert_eq!(loud, limits::LOG_BURST as usize, "the loud burst, no more");
        // The loud server's next passed line says how many of its lines went.
        std::thread::sleep(std::time::Duration::from_millis(
            1100 / u64::from(limits::LOG_LINES_PER_SEC).max(1) + 10,
        ));
        sinks.deliver(1, "loud", "info", "later");
        let later = rx.try_recv().expect("refilled");
        assert_eq!(later.earlier_dropped, 450);
    }

    #[test]
    fn a_bucket_gives_its_burst_then_refills_slowly() {
        let mut b = Bucket::new();
        for _ in 0..limits::LOG_BURST {
            assert!(b.take());
        }
        assert!(!b.take(), "the burst is spent");
        assert_eq!(b.dropped, 1);
    }

    #[test]
    fn levels_are_ordered_and_unknown_ones_read_as_info() {
        assert!(rank(LoggingLevel::Error) > rank(LoggingLevel::Info));
        assert_eq!(parse("warning"), Some(LoggingLevel::Warning));
        assert_eq!(parse("loud"), None);
    }
}
