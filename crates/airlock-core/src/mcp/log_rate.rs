//! How many of a server's log lines (its `notifications/message`, its
//! stderr) Airlock keeps: a burst of [`LOG_BURST`], then
//! [`LOG_LINES_PER_SEC`] a second. A server that logs faster loses its own
//! lines (the next one kept says how many went) instead of costing every
//! other server writes to the shared database and events to every shell.

use std::time::Instant;

/// Lines kept at once.
pub const LOG_BURST: u32 = 200;
/// Lines kept a second after the burst.
pub const LOG_LINES_PER_SEC: u32 = 50;

/// A token bucket of one server's log lines.
#[derive(Debug)]
pub struct LogRate {
    tokens: f64,
    at: Instant,
    dropped: u64,
}

impl Default for LogRate {
    fn default() -> Self {
        Self {
            tokens: f64::from(LOG_BURST),
            at: Instant::now(),
            dropped: 0,
        }
    }
}

impl LogRate {
    /// `Some(n)` when this line is kept (`n` lines went before it since the
    /// last one kept); `None` when it goes.
    pub fn admit(&mut self) -> Option<u64> {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * f64::from(LOG_LINES_PER_SEC);
        self.tokens = (self.tokens + refill).min(f64::from(LOG_BURST));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Some(std::mem::take(&mut self.dropped))
        } else {
            self.dropped += 1;
            None
        }
    }
}

/// `text` as kept after `dropped` lines went.
pub fn with_dropped(text: &str, dropped: u64) -> String {
    if dropped == 0 {
        text.to_owned()
    } else {
        format!("({dropped} earlier lines dropped: the server logs faster than {LOG_LINES_PER_SEC} a second) {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_rest_go_and_are_counted() {
        let mut r = LogRate::default();
        for _ in 0..LOG_BURST {
            assert_eq!(r.admit(), Some(0));
        }
        for _ in 0..1000 {
            assert_eq!(r.admit(), None);
        }
        r.at -= std::time::Duration::from_secs(1);
        assert_eq!(r.admit(), Some(1000), "the next kept line counts them");
        assert!(with_dropped("x", 1000).starts_with("(1000 earlier lines dropped"));
        assert_eq!(with_dropped("x", 0), "x");
    }
}
