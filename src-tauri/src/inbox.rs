//! Elicitations waiting for the user: consent (open or not) and late ones
//! (continue or cancel). The native dialog, a notification action and the
//! window's inbox all answer through here; the first answer wins.

use std::collections::BTreeMap;
use std::sync::Mutex;

use airlock_core::url_safety::Inspection;
use serde::Serialize;
use tokio::sync::oneshot;
use ts_rs::TS;

/// Most entries the inbox holds; the broker's rate limits keep it far below.
pub const MAX_INBOX: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PendingKind {
    /// Waiting for "Open in browser" / "Decline".
    Consent,
    /// Accepted, completion is late: waiting for "Continue" / "Cancel".
    Late,
}

/// What the window shows for one waiting elicitation (server text already neutralised).
#[derive(Debug, Clone, Serialize, TS)]
pub struct PendingView {
    pub record_id: i64,
    pub kind: PendingKind,
    pub server: String,
    pub message: String,
    pub inspection: Inspection,
    pub since_ms: i64,
}

/// An answer from any surface: "accept", "decline", "cancel" (consent) or
/// "continue", "cancel" (late).
pub type Answer = &'static str;

struct Entry {
    view: PendingView,
    tx: Option<oneshot::Sender<Answer>>,
}

#[derive(Default)]
pub struct Inbox {
    entries: Mutex<BTreeMap<(i64, u8), Entry>>,
}

fn key(view: &PendingView) -> (i64, u8) {
    (view.record_id, view.kind as u8)
}

impl Inbox {
    /// Add an entry; returns the receiver of its answer, or `None` when full.
    pub fn add(&self, view: PendingView) -> Option<oneshot::Receiver<Answer>> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_INBOX {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        entries.insert(key(&view), Entry { view, tx: Some(tx) });
        Some(rx)
    }

    /// Deliver an answer; `false` if nobody is waiting for it any more.
    pub fn answer(&self, record_id: i64, kind: PendingKind, answer: Answer) -> bool {
        let tx = self
            .entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&(record_id, kind as u8))
            .and_then(|e| e.tx.take());
        tx.map(|tx| tx.send(answer).is_ok()).unwrap_or(false)
    }

    pub fn remove(&self, record_id: i64, kind: PendingKind) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(record_id, kind as u8));
    }

    pub fn list(&self) -> Vec<PendingView> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(|e| e.view.clone())
            .collect()
    }

    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}
