//! Requests from Airlock to an app (sampling, forms), cancelled at the app
//! when Airlock stops waiting: the server withdrew its request, its call
//! ended, or the time ran out. The app's model stops and its prompt goes,
//! instead of answering a question nobody asks any more. And what an app
//! can be asked at all: requests need a 2025-11-25 session
//! ([`has_requests`]); forms, that the app declared form elicitation
//! ([`takes_forms`], in rounds on 2026-07-28: [`takes_form_rounds`]).

use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientResult, PingRequest, ProtocolVersion, RequestId,
    ServerRequest,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleServer, ServiceError};

/// How long the first ping of a session may take.
const PING_TIMEOUT: Duration = Duration::from_secs(30);

/// An app session that has server-to-app requests (2025-11-25).
pub(crate) fn has_requests(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|i| i.protocol_version < ProtocolVersion::V_2026_07_28)
}

/// Can this app be shown a form: it declared form elicitation (an empty
/// `elicitation` object means form) on a session that has server-to-app
/// requests (2025-11-25; a 2026-07-28 app gets its forms in rounds, see
/// [`takes_form_rounds`]).
pub fn takes_forms(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info().is_some_and(|info| {
        info.protocol_version < ProtocolVersion::V_2026_07_28 && shows_forms(&info.capabilities)
    })
}

/// A 2026-07-28 request from an app that declared form elicitation (its
/// capabilities come with each request on that revision).
pub fn takes_form_rounds(context: &rmcp::service::RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
        && context
            .client_capabilities()
            .is_some_and(|c| shows_forms(&c))
}

/// Form elicitation declared (an empty `elicitation` object means form).
fn shows_forms(capabilities: &rmcp::model::ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// The TypeScript SDK (1.32) ignores `notifications/cancelled` for request
/// id 0 (`if (!requestId) return`), and rmcp numbers a session's requests to
/// the app from 0. So an app that may get requests from Airlock (sampling,
/// roots, forms) gets a `ping` first, which takes id 0: a later sampling
/// request or form the server withdraws can then be cancelled at the app.
pub fn spend_request_id_zero(app: &Peer<RoleServer>) {
    let Some(info) = app.peer_info() else { return };
    let c = &info.capabilities;
    if !has_requests(app) || (c.sampling.is_none() && c.roots.is_none() && c.elicitation.is_none())
    {
        return;
    }
    let app = app.clone();
    tokio::spawn(async move {
        let ping = app.send_request(ServerRequest::PingRequest(PingRequest::default()));
        let _ = tokio::time::timeout(PING_TIMEOUT, ping).await;
    });
}

/// The app's request in flight: when the future waiting for it is dropped
/// before the answer (the server withdrew its request, its call ended), the
/// app gets `notifications/cancelled`, so its model stops and its prompt goes.
struct CancelOnDrop {
    app: Peer<RoleServer>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (Some(id), Ok(rt)) = (self.id.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let app = self.app.clone();
        rt.spawn(async move {
            let _ = app
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some("the server withdrew its request".to_owned()),
                ))
                .await;
        });
    }
}

/// Send `request` to the app and wait at most `timeout` (rmcp cancels it at
/// the app then); dropped before the answer, it is cancelled at the app too.
pub async fn ask(
    app: &Peer<RoleServer>,
    request: ServerRequest,
    timeout: Duration,
) -> Result<ClientResult, ServiceError> {
    let handle = app
        .send_cancellable_request(request, PeerRequestOptions::with_timeout(timeout))
        .await?;
    let mut in_flight = CancelOnDrop {
        app: app.clone(),
        id: Some(handle.id.clone()),
    };
    let answer = handle.await_response().await;
    // Answered, failed or timed out (rmcp cancels a timed-out request itself).
    in_flight.id = None;
    answer
}
