//! The demo's server-side state: one "flow" per URL elicitation the server
//! started, keyed by a random id that appears in the page URL, in the
//! 2025-11-25 `elicitationId` and in the 2026-07-28 `requestState`.
//!
//! The server speaks to exactly one client (stdio), so one process-wide table
//! is enough. It is bounded: the oldest flows are forgotten first.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rmcp::{Peer, RoleServer};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// Flows kept at once; starting one more forgets the oldest.
pub const MAX_FLOWS: usize = 256;

/// What a flow is for; decides the page text and the tool that may resume it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `connect_demo_account`
    Connect,
    /// `fetch_private_data`
    Fetch,
    /// `never_completes`: the page has no working button.
    Never,
}

impl Kind {
    /// What the page says the server wants.
    pub fn purpose(self) -> &'static str {
        match self {
            Kind::Connect => "Connect your demo account",
            Kind::Fetch => "Authorize access to your demo data",
            Kind::Never => "Try a demo step that never finishes",
        }
    }
}

struct Flow {
    kind: Kind,
    completed: bool,
    /// The page was opened at least once.
    visited: bool,
    /// 2025-11-25 only: where `notifications/elicitation/complete` goes.
    notify: Option<Peer<RoleServer>>,
}

#[derive(Default)]
struct Inner {
    flows: HashMap<String, Flow>,
    order: VecDeque<String>,
    /// The -32042 elicitation a retry of `fetch_private_data` is waiting for.
    pending_fetch: Option<String>,
    /// The -32042 elicitation of `never_completes`, until the client retries.
    pending_never: Option<String>,
}

/// What pressing the page's button did.
pub enum Completion {
    /// Newly completed; send the notification to this peer if there is one.
    Completed(Option<Peer<RoleServer>>),
    AlreadyCompleted,
    /// A `never_completes` flow: the button does nothing.
    Never,
    Unknown,
}

/// How waiting for a flow ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Waited {
    Completed,
    TimedOut,
    Cancelled,
    /// The flow was forgotten (too many newer flows).
    Gone,
}

pub struct Flows {
    inner: Mutex<Inner>,
    changed: watch::Sender<u64>,
}

impl Default for Flows {
    fn default() -> Self {
        Self::new()
    }
}

impl Flows {
    pub fn new() -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            changed: watch::Sender::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Start a flow and return its id (32 hex digits, URL-safe).
    pub fn start(&self, kind: Kind, notify: Option<Peer<RoleServer>>) -> String {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let mut inner = self.lock();
        while inner.order.len() >= MAX_FLOWS {
            if let Some(old) = inner.order.pop_front() {
                inner.flows.remove(&old);
            }
        }
        inner.flows.insert(
            id.clone(),
            Flow {
                kind,
                completed: false,
                visited: false,
                notify,
            },
        );
        inner.order.push_back(id.clone());
        id
    }

    /// Kind and completion of a flow, if it is known.
    pub fn get(&self, id: &str) -> Option<(Kind, bool)> {
        self.lock().flows.get(id).map(|f| (f.kind, f.completed))
    }

    /// The page of a known flow was shown; returns its kind and completion.
    pub fn visit(&self, id: &str) -> Option<(Kind, bool)> {
        let mut inner = self.lock();
        let flow = inner.flows.get_mut(id)?;
        flow.visited = true;
        Some((flow.kind, flow.completed))
    }

    pub fn forget(&self, id: &str) {
        let mut inner = self.lock();
        inner.flows.remove(id);
        inner.order.retain(|o| o != id);
        if inner.pending_fetch.as_deref() == Some(id) {
            inner.pending_fetch = None;
        }
        if inner.pending_never.as_deref() == Some(id) {
            inner.pending_never = None;
        }
    }

    /// The page's button was pressed.
    pub fn complete(&self, id: &str) -> Completion {
        let outcome = {
            let mut inner = self.lock();
            match inner.flows.get_mut(id) {
                None => Completion::Unknown,
                Some(f) if f.kind == Kind::Never => Completion::Never,
                Some(f) if f.completed => Completion::AlreadyCompleted,
                Some(f) => {
                    f.completed = true;
                    Completion::Completed(f.notify.take())
                }
            }
        };
        if matches!(outcome, Completion::Completed(_)) {
            self.changed.send_modify(|n| *n = n.wrapping_add(1));
        }
        outcome
    }

    /// Wait until flow `id` is completed, `timeout` passes or `ct` fires.
    pub async fn wait(&self, id: &str, timeout: Duration, ct: &CancellationToken) -> Waited {
        let mut rx = self.changed.subscribe();
        let until = tokio::time::Instant::now() + timeout;
        loop {
            // Subscribed before checking: a completion in between still wakes us.
            match self.get(id) {
                None => return Waited::Gone,
                Some((_, true)) => return Waited::Completed,
                Some((_, false)) => {}
            }
            tokio::select! {
                changed = tokio::time::timeout_at(until, rx.changed()) => match changed {
                    Ok(Ok(())) => {}
                    // The sender lives as long as `self`; treat its end like a timeout.
                    Ok(Err(_)) | Err(_) => return Waited::TimedOut,
                },
                () = ct.cancelled() => return Waited::Cancelled,
            }
        }
    }

    /// The pending `fetch_private_data` elicitation, if any: (id, completed).
    pub fn pending_fetch(&self) -> Option<(String, bool)> {
        let inner = self.lock();
        let id = inner.pending_fetch.clone()?;
        let completed = inner.flows.get(&id)?.completed;
        Some((id, completed))
    }

    pub fn set_pending_fetch(&self, id: &str) {
        self.lock().pending_fetch = Some(id.to_owned());
    }

    /// The pending `never_completes` elicitation, if any: (id, page visited).
    pub fn pending_never(&self) -> Option<(String, bool)> {
        let inner = self.lock();
        let id = inner.pending_never.clone()?;
        let visited = inner.flows.get(&id)?.visited;
        Some((id, visited))
    }

    pub fn set_pending_never(&self, id: &str) {
        self.lock().pending_never = Some(id.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn completion_wakes_a_waiter() {
        let flows = std::sync::Arc::new(Flows::new());
        let id = flows.start(Kind::Connect, None);
        let f2 = flows.clone();
        let id2 = id.clone();
        let waiter = tokio::spawn(async move {
            f2.wait(&id2, Duration::from_secs(5), &CancellationToken::new())
                .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(matches!(flows.complete(&id), Completion::Completed(None)));
        assert_eq!(waiter.await.ok(), Some(Waited::Completed));
        assert!(matches!(flows.complete(&id), Completion::AlreadyCompleted));
    }

    #[tokio::test]
    async fn never_flows_do_not_complete_and_waits_time_out() {
        let flows = Flows::new();
        let id = flows.start(Kind::Never, None);
        assert!(matches!(flows.complete(&id), Completion::Never));
        assert!(matches!(flows.complete("nope"), Completion::Unknown));
        let ct = CancellationToken::new();
        assert_eq!(
            flows.wait(&id, Duration::from_millis(20), &ct).await,
            Waited::TimedOut
        );
        ct.cancel();
        assert_eq!(
            flows.wait(&id, Duration::from_secs(5), &ct).await,
            Waited::Cancelled
        );
    }

    #[test]
    fn the_table_is_bounded() {
        let flows = Flows::new();
        let first = flows.start(Kind::Fetch, None);
        for _ in 0..MAX_FLOWS {
            flows.start(Kind::Connect, None);
        }
        assert!(flows.get(&first).is_none());
        assert_eq!(flows.lock().flows.len(), MAX_FLOWS);
    }
}
