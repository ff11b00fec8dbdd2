//! The one router of server-to-app messages. Every message a server sends
//! for an app reaches the gateway through one of the core's ports and ends
//! here, where it goes to exactly one app, or to none:
//!
//! | message | from the core | to the app |
//! |---|---|---|
//! | form (elicitation) | consent port: `HostConsent::ask_form` | [`Router::form_target`]: a request on a 2025-11-25 session, the call's answer in rounds on 2026-07-28 |
//! | sampling, roots | `AppRequests::create_message`, `list_roots` | [`crate::routing::sampling`] |
//! | log line | `AppRequests::server_log` | [`crate::routing::logs`] (the app's level, its profile, a bucket per server) |
//! | resource update | `AppRequests::resource_updated` | [`crate::routing::subscribe`] |
//! | progress (tool calls, prompts, resource reads) | the request's own progress channel | [`crate::routing::progress`] |
//! | list change | the catalog's change broadcast | [`crate::routing::changes`] |
//! | anything else (a vendor's notification, such as Claude Code's `notifications/claude/channel`, which an app puts in front of the model as if the user had typed it; a task's status) | nothing: the core reads `notifications/elicitation/complete` itself and drops the rest; a server's experimental capabilities are not offered to apps | no app (`tests/routing.rs`: `a_servers_vendor_notification_reaches_no_app`) |
//!
//! Which app a message belongs to is the core's to say (an [`AppTarget`]:
//! exact for a 2026-07-28 input round of an app's call; on a 2025-11-25
//! connection, the one app whose requests are in flight there, counting
//! Airlock's own: see `Broker::sole_app`). The router never guesses: an
//! unknown target, a call of another app, or no target at all means
//! Airlock's own consent answers (forms), or nobody (the rest).
//!
//! A new kind of message: add a method to the core's `AppRequests` (its
//! handler computes the target), implement it on [`Router`], and add a row
//! above.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use airlock_core::caller::{AppCall, AppTarget};
use airlock_core::elicitation::FormAnswer;
use rmcp::model::ElicitRequestParams;
use rmcp::service::{Peer, RoleServer};
use tokio::sync::{mpsc, oneshot};

/// A form for a 2026-07-28 app's call that is running, on its way to
/// become the call's answer ([`crate::session::rounds`]): its parameters,
/// and where its answer goes.
pub struct RoundForm {
    pub params: ElicitRequestParams,
    pub answer: oneshot::Sender<FormAnswer>,
}

/// One request of an app in flight (a tool call, prompt or resource read).
struct InFlight {
    app: u64,
    /// The app's session: forms (2025-11-25), sampling and roots go here.
    peer: Peer<RoleServer>,
    /// A 2026-07-28 app that shows forms: this call's forms go back as its
    /// answer, in rounds ([`crate::session::rounds`]).
    round: Option<mpsc::Sender<RoundForm>>,
}

/// Where a form goes.
pub(crate) enum FormTarget {
    /// A 2025-11-25 app: an `elicitation/create` request to it.
    Ask(Peer<RoleServer>),
    /// A 2026-07-28 app: the form is its call's answer.
    Round(mpsc::Sender<RoundForm>),
}

/// See the module docs.
#[derive(Default)]
pub struct Router {
    calls: Mutex<HashMap<u64, InFlight>>,
    next_call: AtomicU64,
    /// The apps that asked for servers' log lines (`logging/setLevel`).
    pub(crate) logs: Arc<crate::routing::logs::LogSinks>,
    /// The apps' resource subscriptions.
    pub resources: crate::routing::subscribe::ResourceSubscriptions,
}

/// One request in flight; unregistered when dropped.
pub struct CallTicket {
    router: Arc<Router>,
    id: AppCall,
}

impl CallTicket {
    /// The numbers the core carries with the request ([`airlock_core::caller`]).
    pub fn id(&self) -> AppCall {
        self.id
    }
}

impl Drop for CallTicket {
    fn drop(&mut self) {
        self.router.lock().remove(&self.id.call);
    }
}

impl Router {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, InFlight>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// App `app` (its session: `peer`) starts a request; `round`: where its
    /// forms go when the app takes them in rounds.
    pub fn call_started(
        self: &Arc<Self>,
        app: u64,
        peer: Peer<RoleServer>,
        round: Option<mpsc::Sender<RoundForm>>,
    ) -> CallTicket {
        let call = self.next_call.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(call, InFlight { app, peer, round });
        CallTicket {
            router: self.clone(),
            id: AppCall { app, call },
        }
    }

    /// The session of the app `target` names, if it still has a request in
    /// flight (the call named, when one is, must be that app's).
    pub(crate) fn peer_of(&self, target: AppTarget) -> Option<Peer<RoleServer>> {
        let calls = self.lock();
        match target.call {
            Some(call) => calls
                .get(&call)
                .filter(|c| c.app == target.app)
                .map(|c| c.peer.clone()),
            None => calls
                .values()
                .find(|c| c.app == target.app)
                .map(|c| c.peer.clone()),
        }
    }

    /// Where a form for `target` goes: the call's rounds (a 2026-07-28 app:
    /// only when the call is known, since the form becomes that call's
    /// answer), or a request to the app when it declared forms on a
    /// 2025-11-25 session; `None`: Airlock's own consent asks.
    pub(crate) fn form_target(&self, target: AppTarget) -> Option<FormTarget> {
        let calls = self.lock();
        let mine = |c: &&InFlight| c.app == target.app;
        if let Some(call) = target.call {
            let c = calls.get(&call).filter(mine)?;
            if let Some(round) = &c.round {
                return Some(FormTarget::Round(round.clone()));
            }
            return crate::routing::ask::takes_forms(&c.peer)
                .then(|| FormTarget::Ask(c.peer.clone()));
        }
        let c = calls.values().find(mine)?;
        if c.round.is_some() {
            // Several calls of a 2026-07-28 app: which one's answer is the
            // form? Not guessed.
            return None;
        }
        crate::routing::ask::takes_forms(&c.peer).then(|| FormTarget::Ask(c.peer.clone()))
    }
}
