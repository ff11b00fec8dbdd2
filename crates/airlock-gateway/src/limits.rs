//! Every bound of the gateway, in one place (each has a test at its bound).

use std::time::Duration;

/// Apps attached to one host at once; one more is refused in its hello.
pub const MAX_APPS: usize = 64;
/// Tool calls one app may have in flight; one more gets a JSON-RPC error.
pub const MAX_CALLS_IN_FLIGHT_PER_APP: usize = 32;
/// Largest message an app may send, in bytes (one JSON-RPC line); a longer
/// line is dropped with an error and the session goes on.
pub const MAX_APP_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// `subscriptions/listen` streams one app may keep open (2026-07-28).
pub const MAX_SUBSCRIPTIONS_PER_APP: usize = 8;
/// Items per page of tools/list, prompts/list, resources/list.
pub const LIST_PAGE_SIZE: usize = 500;
/// How long an app's handshake (initialize or its first request) may take
/// after the hello.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long an attaching app waits for the host's first connects.
pub const STARTUP_WAIT: Duration = Duration::from_secs(45);
/// How long an attaching app then waits for each ready server's first list
/// (a slower one arrives later, with list_changed).
pub const FIRST_LIST_WAIT: Duration = Duration::from_secs(5);
/// How often the host reads the server list for servers added, edited,
/// paused, resumed or removed by another Airlock process.
pub const REGISTRY_POLL: Duration = Duration::from_secs(2);
/// How often the host tries again to connect servers that failed.
pub const RETRY_FAILED_EVERY: Duration = Duration::from_secs(60);
/// How long the shim waits for a host it started to listen.
pub const DAEMON_START_TIMEOUT: Duration = Duration::from_secs(20);
/// Idle time after which a host started by the shim exits (no app attached).
pub const SHIM_DAEMON_IDLE_EXIT: Duration = Duration::from_secs(600);
/// Least time between two progress notifications of one call to the app
/// (at most 20 a second; reports in between are coalesced to the latest).
pub const PROGRESS_MIN_INTERVAL: Duration = Duration::from_millis(50);
/// Server log lines passed on to one app: a burst of this many, then
/// [`LOG_LINES_PER_SEC`] a second; the rest are dropped (and counted).
pub const LOG_BURST: u32 = 50;
pub const LOG_LINES_PER_SEC: u32 = 20;
/// Longest log line passed on to an app, in characters.
pub const MAX_LOG_CHARS: usize = 2000;
/// Resources one app may be subscribed to at once (`resources/subscribe`).
pub const MAX_RESOURCE_SUBSCRIPTIONS_PER_APP: usize = 256;
/// Longest resource URI an app may subscribe to, or a server's update may
/// name, in bytes.
pub const MAX_RESOURCE_URI_BYTES: usize = 2048;
/// Least time between two `notifications/resources/updated` of one URI to
/// one app (at most 20 a second; updates in between are coalesced).
pub const RESOURCE_UPDATE_MIN_INTERVAL: Duration = Duration::from_millis(50);
/// How long a server may take to answer a resource subscribe or unsubscribe
/// made for apps; then the app gets an error and other servers' are not held.
pub const SERVER_SUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often every server is listed again even if it said nothing: a
/// server that changes a tool without saying so (or whose notice was lost:
/// the Python SDK drops a bare list_changed on a 2026-07-28 connection) is
/// caught within this long, and the change held like any other.
pub const RELIST_EVERY: Duration = Duration::from_secs(300);
