//! Consent in a host that has no window (`airlock daemon --consent ask`):
//! nobody can be asked here yet, so every URL, sign-in and form is refused
//! with a reason the log and the app's tool error carry: open Airlock to
//! approve. When a notification server with actions runs, the daemon asks
//! there instead ([`crate::consent::notify`]).

pub mod notification_bus;
pub mod notify;

use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, FormAnswer, FormConsentRequest,
    UrlConsentRequest,
};

/// What the refusal says, in the host's log.
pub const OPEN_AIRLOCK_TO_APPROVE: &str =
    "nobody can approve this here (the Airlock daemon has no window): open Airlock to approve";

/// Refuses every question, saying why in the host's log.
pub struct NoOneToAsk;

impl Consent for NoOneToAsk {
    fn ask_host<'a>(
        &'a self,
        request: &'a airlock_core::elicitation::HostConsentRequest,
    ) -> BoxFuture<'a, airlock_core::elicitation::HostDecision> {
        crate::catalog::log(&format!(
            "{}: its room's connection to {}:{} denied: {OPEN_AIRLOCK_TO_APPROVE}",
            request.server, request.host, request.port
        ));
        Box::pin(async { airlock_core::elicitation::HostDecision::Deny })
    }

    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        crate::catalog::log(&format!(
            "{}: URL request #{} for {} declined: {OPEN_AIRLOCK_TO_APPROVE}",
            request.server,
            request.record_id,
            request
                .inspection
                .registrable_domain
                .as_deref()
                .unwrap_or("(no domain)")
        ));
        Box::pin(async { ConsentDecision::Decline })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        _request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        Box::pin(async { ContinueDecision::Cancel })
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        crate::catalog::log(&format!(
            "{}: form #{} declined: {OPEN_AIRLOCK_TO_APPROVE}",
            request.server, request.record_id
        ));
        Box::pin(async { FormAnswer::Decline })
    }
}
