//! An app's requests that reach a server and may meet a form on the way:
//! `tools/call`, `prompts/get` and `resources/read`, the same way for all
//! three. Each holds one of the app's in-flight slots; while it runs, a form
//! its server asks goes to this app when it can show one ([`crate::routing::forms`]):
//! an `elicitation/create` request on a 2025-11-25 session, the request's
//! own answer in rounds on 2026-07-28 ([`crate::session::rounds`]); so do the
//! server's sampling and roots requests ([`crate::routing::sampling`]).

use std::future::Future;

use airlock_core::caller::Caller;
use rmcp::model::{ErrorCode, ErrorData, InputResponses};
use rmcp::service::{RequestContext, RoleServer};
use tokio::sync::OwnedSemaphorePermit;

use crate::limits;
use crate::routing::ask::takes_form_rounds;
use crate::routing::forms::APP_FORM_TIMEOUT;
use crate::session::app::AppSession;
use crate::session::rounds::{Finish, Reply, Running};

/// What a request the app cancelled ends with.
pub(crate) fn cancelled_by_the_app() -> ErrorData {
    ErrorData::new(ErrorCode::INVALID_REQUEST, "cancelled by the app", None)
}

impl AppSession {
    /// One of the app's slots for requests in flight, or why there is none.
    pub(crate) fn slot(&self) -> Result<OwnedSemaphorePermit, ErrorData> {
        self.in_flight.clone().try_acquire_owned().map_err(|_| {
            ErrorData::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "too many calls in flight from this app (tool calls, prompts and resource reads: at most {}); wait for some to finish",
                    limits::MAX_CALLS_IN_FLIGHT_PER_APP
                ),
                None,
            )
        })
    }

    /// A 2026-07-28 app's retry with its answer to a form (`state` and
    /// `responses` from the retry): the parked request that asked it goes
    /// on, if this app (by its name) was given that state for this method.
    pub(crate) async fn resume<T: Reply>(
        &self,
        state: &str,
        responses: Option<&InputResponses>,
        context: &RequestContext<RoleServer>,
    ) -> Finish<T> {
        let app_name = self.who(context)?;
        let answer = crate::session::rounds::answer_of(responses);
        let running = self
            .gateway
            .rounds
            .resume::<T>(&app_name, state, answer)
            .ok_or_else(crate::session::rounds::unknown_state)?;
        self.gateway
            .rounds
            .drive(&app_name, running, APP_FORM_TIMEOUT, context.ct.cancelled())
            .await
    }

    /// Run a request of this app (`app_name`, holding `slot`) to `server`:
    /// `work` is given the numbers the core carries with it
    /// ([`airlock_core::caller`]), so that forms its server asks meanwhile
    /// reach this app when it can show them (and sampling, roots and log
    /// lines too: [`crate::routing::router`]). For a 2026-07-28 app that
    /// shows forms the request runs on its own task, to be parked while the
    /// app answers. The app cancelling it drops it, which cancels it at the
    /// server too.
    pub(crate) async fn with_forms<T: Reply, F>(
        &self,
        app_name: &str,
        slot: OwnedSemaphorePermit,
        context: &RequestContext<RoleServer>,
        work: impl FnOnce(Caller) -> F,
    ) -> Finish<T>
    where
        F: Future<Output = Finish<T>> + Send + 'static,
    {
        let (round_tx, round_rx) = if takes_form_rounds(context) {
            let (tx, rx) = tokio::sync::mpsc::channel(1);
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        let ticket = self
            .gateway
            .router
            .call_started(self.id, context.peer.clone(), round_tx);
        let work = work(Caller::app(app_name, ticket.id()));
        if let Some(forms) = round_rx {
            let running = Running {
                task: tokio::spawn(work),
                forms,
                hold: Box::new((slot, ticket)),
            };
            return self
                .gateway
                .rounds
                .drive(app_name, running, APP_FORM_TIMEOUT, context.ct.cancelled())
                .await;
        }
        let _held = (slot, ticket);
        tokio::select! {
            end = work => end,
            () = context.ct.cancelled() => Err(cancelled_by_the_app()),
        }
    }
}
