//! Events the core emits on one broadcast channel; shells subscribe. Each
//! event carries what a shell needs to show it, so no shell re-reads the
//! database or re-inspects a URL.

use airlock_url_safety::Inspection;
use serde::Serialize;

use crate::status::ConnStatus;
use crate::store::ElicitationRecord;

/// Capacity of the event channel; a slow subscriber loses the oldest events
/// (it sees `Lagged`) instead of growing memory.
pub const EVENT_CHANNEL_CAPACITY: usize = 1024;

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CoreEvent {
    Status {
        server: String,
        status: ConnStatus,
    },
    Log {
        server: String,
        source: String,
        level: String,
        text: String,
    },
    /// An elicitation (or sign-in) record moved to a new state.
    Elicitation(Box<ElicitationEvent>),
    /// A connected server said its tools, prompts or resources changed
    /// (at most one event per server every half second, however many
    /// notices it sends): list them again.
    ListsChanged {
        server: String,
    },
    /// Changes of `server`'s pinned tools or prompts that wait for the
    /// user's review (`pending` of them now): a badge, a notification.
    PinChanges {
        server: String,
        pending: usize,
    },
}

/// One transition of an elicitation record.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ElicitationEvent {
    /// The record as it is after this transition (`record.state` is the new state).
    pub record: ElicitationRecord,
    /// What the URL really points at, as the user was (or would have been) shown it.
    pub inspection: Option<Inspection>,
    /// Why the record ended this way (refusal, failure), in words.
    pub reason: Option<String>,
}
