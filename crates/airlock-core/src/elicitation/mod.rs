//! The elicitation broker: the one owner of every elicitation's lifecycle.
//!
//! The flow of a URL elicitation, each step in this module:
//! server message (the `mcp` handler or the tool-call loop) -> `url`:
//! inspect, record `requested`, refuse blocked URLs and floods, ask the
//! [`Consent`] port -> on accept, the [`Opener`] -> the wait (completion
//! notification, or late -> Continue / Cancel, or expiry) -> every move
//! written by [`Broker`]'s one `advance` function to history, the audit log
//! and a core event. The legal moves are the table in
//! [`crate::lifecycle::TRANSITIONS`].
//!
//! Forms (`form_request`) have a shorter machine: requested ->
//! invalid_schema | accepted | declined | cancelled. Sign-ins (`sign_in`)
//! share the URL consent and end completed | failed | cancelled.
//!
//! The shells (terminal, desktop, scripted tests) implement the ports in
//! `ports`; nothing outside this module writes a state or asks a port.
//! What they show a person is [`view::ConsentView`], in the words of one
//! table ([`view::sentences`]).

mod broker;
mod browser_opener;
mod completion;
pub mod form;
mod form_request;
mod outcome;
mod ports;
mod sign_in;
mod url;
pub mod view;

pub use crate::lifecycle::{ElicitationState, Mode, Origin};
pub use broker::{
    AdmitPermit, Broker, BrokerSettings, CallGuard, Withdrawal, DEFAULT_MAX_PENDING_PER_SERVER,
    DEFAULT_MAX_PER_MINUTE, LATE_LOG_GRACE, MAX_ELICITATION_ID_BYTES, MAX_MESSAGE_CHARS,
    MAX_OPEN_RECORDS, MAX_TRACKED, ONE_OF,
};
pub use outcome::{RateLimit, Refusal, UrlOutcome};
pub use ports::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, Familiarity, FixedConsent, FormAnswer,
    FormConsentRequest, FormOutcome, HostConsentRequest, HostDecision, LookAlike, Opener,
    PrintOpener, SystemBrowser, UrlConsentRequest, OPENER_CHECK,
};
pub use sign_in::{MixUpSeen, SignInRecord, MAX_REASON_CHARS};
pub use url::{InputAction, RequiredElicitation};
pub use view::ConsentView;
