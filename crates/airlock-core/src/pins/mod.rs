//! Tools and prompts pinned until the user reviews a change (issue 25).
//!
//! The first time Airlock lists a server's tools (and prompts) it pins each
//! definition: name, title, description, input and output schema and
//! annotations (a prompt: name, title, description, arguments), as
//! canonical JSON and its SHA-256 ([`canonical()`]). When the server later
//! changes a pinned definition, adds one or removes one, the apps keep
//! seeing only what was approved: under the server's policy
//! ([`PinPolicy::Hold`], the default) a changed or added definition is held
//! (withdrawn from the apps, its calls refused with [`Held::why`]) until the
//! user approves it; [`PinPolicy::Notify`] serves it and records the change
//! for review; [`PinPolicy::Off`] pins nothing. A definition the scanner
//! ([`airlock_scan`]) finds something serious in is held at first sight
//! too. Every definition an app reads has its hidden characters removed.
//! Every pin, change, approval and rejection is in the audit trail.
//!
//! `reconcile` decides; `review` is what the user sees and does;
//! [`notice`] is what a notification says about it.

mod canonical;
pub mod notice;
pub(crate) mod reconcile;
pub(crate) mod review;

use serde::{Deserialize, Serialize};

/// Longest text a review shows whole, in characters.
pub use airlock_scan::MAX_VISIBLE_CHARS;
pub use canonical::{canonical, definition_hash};
pub use reconcile::{Held, Reconciled};
pub use review::{Decision, PinChange, MAX_REVIEW_LINES};

/// What is pinned: a server's tools or its prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PinKind {
    Tool,
    Prompt,
}

impl PinKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [Self::Tool, Self::Prompt]
            .into_iter()
            .find(|k| k.as_str() == word)
    }
}

/// What a server's changes do (set per server; the default holds them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PinPolicy {
    /// A changed or added definition waits for the user's approval.
    #[default]
    Hold,
    /// A change is served at once and recorded for review.
    Notify,
    /// Nothing pinned; definitions are still cleaned of hidden characters.
    Off,
}

impl PinPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hold => "hold",
            Self::Notify => "notify",
            Self::Off => "off",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [Self::Hold, Self::Notify, Self::Off]
            .into_iter()
            .find(|p| p.as_str() == word)
    }
}

/// How a definition differs from what is pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Seen for the first time with something serious in it.
    FirstSight,
    /// A new tool or prompt on a server seen before.
    Added,
    /// A pinned definition that changed.
    Changed,
    /// A pinned definition the server no longer lists.
    Removed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FirstSight => "first_sight",
            Self::Added => "added",
            Self::Changed => "changed",
            Self::Removed => "removed",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [Self::FirstSight, Self::Added, Self::Changed, Self::Removed]
            .into_iter()
            .find(|k| k.as_str() == word)
    }
}

/// Where a change stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ChangeState {
    /// Waiting for the user (the definition is held under `hold`).
    Pending,
    Approved,
    Rejected,
    /// Served at once (policy `notify`), recorded for the user to see.
    Notified,
    /// A newer change of the same item replaced it, or the server went
    /// back to the pinned definition.
    Superseded,
}

impl ChangeState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Approved => "approved",
            Self::Rejected => "rejected",
            Self::Notified => "notified",
            Self::Superseded => "superseded",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [
            Self::Pending,
            Self::Approved,
            Self::Rejected,
            Self::Notified,
            Self::Superseded,
        ]
        .into_iter()
        .find(|s| s.as_str() == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for k in [PinKind::Tool, PinKind::Prompt] {
            assert_eq!(PinKind::parse(k.as_str()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        for p in [PinPolicy::Hold, PinPolicy::Notify, PinPolicy::Off] {
            assert_eq!(PinPolicy::parse(p.as_str()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        for c in [
            ChangeKind::FirstSight,
            ChangeKind::Added,
            ChangeKind::Changed,
            ChangeKind::Removed,
        ] {
            assert_eq!(ChangeKind::parse(c.as_str()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        for s in [
            ChangeState::Pending,
            ChangeState::Approved,
            ChangeState::Rejected,
            ChangeState::Notified,
            ChangeState::Superseded,
        ] {
            assert_eq!(ChangeState::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        assert_eq!(PinPolicy::default(), PinPolicy::Hold);
    }
}
