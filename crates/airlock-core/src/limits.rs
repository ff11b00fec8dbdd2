//! Every deadline, limit and time-out a user can set, with its default and
//! its bounds, defined once. The CLI's flags and the desktop's settings
//! validate against these same bounds (see [`Bound::check`]).

use std::time::Duration;

/// A setting's default and the closed range it must stay in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// What the setting is, in words (for error messages).
    pub what: &'static str,
    /// The unit shown after numbers in error messages.
    pub unit: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

impl Bound {
    /// `Ok(value)` inside the bounds, else a sentence a person can act on.
    pub fn check(&self, value: u64) -> Result<u64, String> {
        if (self.min..=self.max).contains(&value) {
            Ok(value)
        } else {
            Err(format!(
                "{} must be between {} and {} {} (got {value})",
                self.what, self.min, self.max, self.unit
            ))
        }
    }

    pub fn default_duration(&self) -> Duration {
        Duration::from_secs(self.default)
    }
}

/// Seconds after which an accepted URL elicitation without completion is late
/// (the user is offered Continue / Cancel).
pub const LATE_AFTER_SECS: Bound = Bound {
    what: "late after",
    unit: "seconds",
    default: 120,
    min: 1,
    max: 3600,
};

/// Seconds after which Airlock stops waiting for a completion (the record
/// expires). Must also be at least the late deadline.
pub const GIVE_UP_AFTER_SECS: Bound = Bound {
    what: "give up after",
    unit: "seconds",
    default: 600,
    min: 1,
    max: 86_400,
};

/// URL elicitations (and sign-ins) of one server waiting for consent at once.
pub const MAX_PENDING_PER_SERVER: Bound = Bound {
    what: "waiting requests per server",
    unit: "",
    default: 3,
    min: 1,
    max: 20,
};

/// URL elicitations (and sign-ins) one server may start per minute.
pub const MAX_PER_MINUTE: Bound = Bound {
    what: "requests per server per minute",
    unit: "",
    default: 10,
    min: 1,
    max: 120,
};

/// Seconds the MCP handshake (initialize or discovery) may take.
pub const CONNECT_TIMEOUT_SECS: Bound = Bound {
    what: "connect timeout",
    unit: "seconds",
    default: 30,
    min: 1,
    max: 300,
};

/// Days of history kept (0 = forever).
pub const HISTORY_RETENTION_DAYS: Bound = Bound {
    what: "history retention",
    unit: "days",
    default: 90,
    min: 0,
    max: 3650,
};

/// Largest message Airlock reads from a server (a tool result, a list
/// page, ...), in bytes: a larger one is dropped unread and its request
/// fails with an error naming this limit. Per server: `--max-message-bytes`.
pub const MAX_MESSAGE_BYTES: Bound = Bound {
    what: "largest message from a server",
    unit: "bytes",
    default: 16 * 1024 * 1024,
    min: 64 * 1024,
    max: 1024 * 1024 * 1024,
};

/// Largest tool or prompt definition (canonical JSON) served to apps, in
/// bytes: a larger one is held, its calls refused with this limit named.
/// Per server: `--max-definition-bytes`.
pub const MAX_DEFINITION_BYTES: Bound = Bound {
    what: "largest tool or prompt definition",
    unit: "bytes",
    default: 64 * 1024,
    min: 1024,
    max: 1024 * 1024,
};

/// First reconnect back-off; doubled on each failure up to `MAX_BACKOFF`.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// Largest reconnect back-off.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Reconnect attempts before the status becomes `failed`; they carry over
/// from drop to drop until a connection stays up `STABLE_CONNECTION`.
pub const MAX_RECONNECT_ATTEMPTS: u32 = 10;
/// A connection that stayed up this long resets the reconnect attempts.
pub const STABLE_CONNECTION: Duration = Duration::from_secs(60);

/// How a dropped connection is re-established.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconnectPolicy {
    pub first_backoff: Duration,
    pub max_backoff: Duration,
    pub max_attempts: u32,
    /// A connection up this long resets the attempts and the back-off.
    pub stable_after: Duration,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        Self {
            first_backoff: FIRST_BACKOFF,
            max_backoff: MAX_BACKOFF,
            max_attempts: MAX_RECONNECT_ATTEMPTS,
            stable_after: STABLE_CONNECTION,
        }
    }
}

/// The late and give-up deadlines together: each in its bounds, and give-up
/// not before late.
pub fn check_deadlines(late_after_secs: u64, give_up_after_secs: u64) -> Result<(), String> {
    LATE_AFTER_SECS.check(late_after_secs)?;
    GIVE_UP_AFTER_SECS.check(give_up_after_secs)?;
    if give_up_after_secs < late_after_secs {
        return Err(format!(
            "give up after ({give_up_after_secs} s) must be at least late after ({late_after_secs} s)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bound_accepts_its_ends_and_default_and_refuses_beyond() {
        for b in [
            LATE_AFTER_SECS,
            GIVE_UP_AFTER_SECS,
            MAX_PENDING_PER_SERVER,
            MAX_PER_MINUTE,
            CONNECT_TIMEOUT_SECS,
            HISTORY_RETENTION_DAYS,
            MAX_MESSAGE_BYTES,
            MAX_DEFINITION_BYTES,
        ] {
            assert!(b.check(b.min).is_ok(), "{b:?}");
            assert!(b.check(b.max).is_ok(), "{b:?}");
            assert!(b.check(b.default).is_ok(), "{b:?}");
            assert!(b.check(b.max + 1).is_err(), "{b:?}");
            if b.min > 0 {
                let e = b.check(b.min - 1).unwrap_err();
                assert!(e.contains(b.what), "{e}");
            }
        }
    }

    #[test]
    fn late_after_zero_is_refused_and_give_up_cannot_come_first() {
        assert!(LATE_AFTER_SECS.check(0).is_err());
        assert!(check_deadlines(10, 5).is_err());
        assert!(check_deadlines(10, 10).is_ok());
        assert!(check_deadlines(120, 600).is_ok());
    }
}
