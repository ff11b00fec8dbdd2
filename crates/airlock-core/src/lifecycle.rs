//! The words of the elicitation lifecycle, the same in SQLite, core events,
//! the CLI's JSON and TypeScript, and the table of legal moves between them.
//! A leaf at the crate's root, not in elicitation/: the store reads and
//! writes these words, and elicitation/ uses the store, so under
//! elicitation/ it would make the circle store -> elicitation -> store
//! (scripts/check-cycles.py).

use serde::{Deserialize, Serialize};

/// Where an elicitation record is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ElicitationState {
    /// Recorded; nothing decided yet.
    Requested,
    /// The URL failed inspection; the user was not asked.
    Blocked,
    /// The server asked too often; the user was not asked.
    RateLimited,
    /// A form whose schema Airlock cannot show; the server got -32602.
    InvalidSchema,
    /// The user said no.
    Declined,
    /// Dismissed, or cancelled while waiting.
    Cancelled,
    /// The user said yes (for a form: the answer was sent; that is its end).
    Accepted,
    /// The page was handed to the system browser.
    Opened,
    /// The system browser could not take the page.
    OpenFailed,
    /// The server said the out-of-band step is done (or a sign-in finished).
    Completed,
    /// No completion by the late deadline; the user is offered Continue / Cancel.
    Late,
    /// The user said "go on" without a completion.
    Continued,
    /// No completion and no answer by the give-up deadline.
    Expired,
    /// The connection that asked went away.
    ConnectionLost,
    /// The server withdrew its request (`notifications/cancelled`) before
    /// it was answered.
    Withdrawn,
    /// A sign-in failed at one of its steps.
    Failed,
    /// Airlock stopped (crash, kill) while the record was open.
    Interrupted,
}

use ElicitationState as S;

/// Every state, in lifecycle order.
pub const ALL_STATES: [ElicitationState; 17] = [
    S::Requested,
    S::Blocked,
    S::RateLimited,
    S::InvalidSchema,
    S::Declined,
    S::Cancelled,
    S::Accepted,
    S::Opened,
    S::OpenFailed,
    S::Completed,
    S::Late,
    S::Continued,
    S::Expired,
    S::ConnectionLost,
    S::Withdrawn,
    S::Failed,
    S::Interrupted,
];

/// The legal moves: from a state (left) to any of the states on the right.
/// A state with no row here is final. `Accepted` is final for forms only
/// (see [`ElicitationState::is_final`]).
pub const TRANSITIONS: &[(ElicitationState, &[ElicitationState])] = &[
    (
        S::Requested,
        &[
            S::Blocked,
            S::RateLimited,
            S::InvalidSchema,
            S::Declined,
            S::Cancelled,
            S::Accepted,
            S::ConnectionLost,
            S::Withdrawn,
            S::Interrupted,
        ],
    ),
    (
        S::Accepted,
        &[
            S::Opened,
            S::OpenFailed,
            S::Failed,
            S::Cancelled,
            S::ConnectionLost,
            S::Interrupted,
        ],
    ),
    (
        S::Opened,
        &[
            S::Completed,
            S::Late,
            S::Continued,
            S::Cancelled,
            S::Expired,
            S::ConnectionLost,
            S::Failed,
            S::Interrupted,
        ],
    ),
    (
        S::OpenFailed,
        &[
            S::Completed,
            S::Late,
            S::Continued,
            S::Cancelled,
            S::Expired,
            S::ConnectionLost,
            S::Interrupted,
        ],
    ),
    (
        S::Late,
        &[
            S::Completed,
            S::Continued,
            S::Cancelled,
            S::Expired,
            S::ConnectionLost,
            S::Interrupted,
        ],
    ),
];

impl ElicitationState {
    /// The stored word (`snake_case`).
    pub fn as_str(self) -> &'static str {
        match self {
            S::Requested => "requested",
            S::Blocked => "blocked",
            S::RateLimited => "rate_limited",
            S::InvalidSchema => "invalid_schema",
            S::Declined => "declined",
            S::Cancelled => "cancelled",
            S::Accepted => "accepted",
            S::Opened => "opened",
            S::OpenFailed => "open_failed",
            S::Completed => "completed",
            S::Late => "late",
            S::Continued => "continued",
            S::Expired => "expired",
            S::ConnectionLost => "connection_lost",
            S::Withdrawn => "withdrawn",
            S::Failed => "failed",
            S::Interrupted => "interrupted",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        ALL_STATES.iter().copied().find(|s| s.as_str() == word)
    }

    /// May a record in this state move to `next`?
    pub fn can_move_to(self, next: ElicitationState) -> bool {
        TRANSITIONS
            .iter()
            .any(|(from, to)| *from == self && to.contains(&next))
    }

    /// Does the record's life end here? (A form ends when it is accepted.)
    pub fn is_final(self, mode: Mode) -> bool {
        match (self, mode) {
            (S::Accepted, Mode::Form) => true,
            _ => !TRANSITIONS.iter().any(|(from, _)| *from == self),
        }
    }
}

impl std::fmt::Display for ElicitationState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// What kind of elicitation a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Url,
    Form,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Url => "url",
            Self::Form => "form",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [Self::Url, Self::Form]
            .into_iter()
            .find(|m| m.as_str() == word)
    }
}

/// How the elicitation reached us.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `elicitation/create` (2025-11-25 request path).
    Request,
    /// A -32042 error listing URL elicitations (2025-11-25 error path).
    RequiredError,
    /// An `InputRequiredResult` (2026-07-28).
    InputRequired,
    /// Not an elicitation: Airlock's own MCP authorization (OAuth) sign-in
    /// page, shown and consented to the same way.
    SignIn,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::RequiredError => "required_error",
            Self::InputRequired => "input_required",
            Self::SignIn => "sign_in",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [
            Self::Request,
            Self::RequiredError,
            Self::InputRequired,
            Self::SignIn,
        ]
        .into_iter()
        .find(|o| o.as_str() == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_round_trips_and_matches_serde() {
        for s in ALL_STATES {
            assert_eq!(ElicitationState::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        assert_eq!(ElicitationState::parse("opend"), None);
        for m in [Mode::Url, Mode::Form] {
            assert_eq!(Mode::parse(m.as_str()), Some(m));
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
        for o in [
            Origin::Request,
            Origin::RequiredError,
            Origin::InputRequired,
            Origin::SignIn,
        ] {
            assert_eq!(Origin::parse(o.as_str()), Some(o));
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
        }
    }

    #[test]
    fn the_url_paths_are_legal() {
        let paths: &[&[ElicitationState]] = &[
            // Request / error path, completed by notification.
            &[S::Requested, S::Accepted, S::Opened, S::Completed],
            // Late, then the user continues, cancels, or nobody answers.
            &[S::Requested, S::Accepted, S::Opened, S::Late, S::Continued],
            &[S::Requested, S::Accepted, S::Opened, S::Late, S::Cancelled],
            &[S::Requested, S::Accepted, S::Opened, S::Late, S::Expired],
            &[S::Requested, S::Accepted, S::Opened, S::Late, S::Completed],
            // The browser could not open; the user may still finish by hand.
            &[
                S::Requested,
                S::Accepted,
                S::OpenFailed,
                S::Late,
                S::Continued,
            ],
            // InputRequired: Continue right after opening.
            &[S::Requested, S::Accepted, S::Opened, S::Continued],
            // Refused before asking, or by the user.
            &[S::Requested, S::Blocked],
            &[S::Requested, S::RateLimited],
            &[S::Requested, S::Declined],
            &[S::Requested, S::Cancelled],
            &[S::Requested, S::ConnectionLost],
            &[S::Requested, S::Withdrawn],
            &[S::Requested, S::Accepted, S::Opened, S::ConnectionLost],
            // A sign-in.
            &[S::Requested, S::Accepted, S::Opened, S::Failed],
            &[S::Requested, S::Accepted, S::Cancelled],
            // A crash with a record open.
            &[
                S::Requested,
                S::Accepted,
                S::Opened,
                S::Late,
                S::Interrupted,
            ],
        ];
        for path in paths {
            for pair in path.windows(2) {
                assert!(pair[0].can_move_to(pair[1]), "{path:?}: {pair:?}");
            }
            let last = path.last().copied().unwrap();
            assert!(last.is_final(Mode::Url), "{path:?} should end");
        }
    }

    #[test]
    fn final_states_never_move_and_nothing_goes_back() {
        for from in ALL_STATES {
            for to in ALL_STATES {
                if from.is_final(Mode::Url) {
                    assert!(!from.can_move_to(to), "{from} -> {to}");
                }
            }
            // Nothing returns to requested, and no state moves to itself.
            assert!(!from.can_move_to(S::Requested), "{from} -> requested");
            assert!(!from.can_move_to(from), "{from} -> {from}");
        }
        // Illegal shortcuts a bug could take.
        assert!(
            !S::Requested.can_move_to(S::Opened),
            "opened without consent"
        );
        assert!(!S::Requested.can_move_to(S::Completed));
        assert!(!S::Declined.can_move_to(S::Accepted));
        assert!(!S::Blocked.can_move_to(S::Accepted));
        assert!(!S::Completed.can_move_to(S::Late));
        assert!(!S::Expired.can_move_to(S::Completed));
        assert!(!S::Continued.can_move_to(S::Cancelled));
    }

    #[test]
    fn a_form_ends_at_accepted_a_url_does_not() {
        assert!(S::Accepted.is_final(Mode::Form));
        assert!(!S::Accepted.is_final(Mode::Url));
        assert!(!S::Requested.is_final(Mode::Form));
        assert!(S::InvalidSchema.is_final(Mode::Form));
    }
}
