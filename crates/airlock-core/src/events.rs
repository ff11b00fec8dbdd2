//! Events the core emits on one broadcast channel; shells subscribe.

use serde::Serialize;

use crate::mcp::ConnStatus;

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
    Elicitation {
        server: String,
        record_id: i64,
        state: String,
    },
}
