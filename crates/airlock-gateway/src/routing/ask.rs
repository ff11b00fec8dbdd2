//! Requests from Airlock to an app (sampling, forms), cancelled at the app
//! when Airlock stops waiting: the server withdrew its request, its call
//! ended, or the time ran out. The app's model stops and its prompt goes,
//! instead of answering a question nobody asks any more.

use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientResult, PingRequest, RequestId, ServerRequest,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleServer, ServiceError};

/// How long the first ping of a session may take.
const PING_TIMEOUT: Duration = Duration::from_secs(30);

/// The TypeScript SDK (1.32) ignores `notifications/cancelled` for request
/// id 0 (`if (!requestId) return`), and rmcp numbers a session's requests to
/// the app from 0. So an app that may get requests from Airlock (sampling,
/// roots, forms) gets a `ping` first, which takes id 0: a later sampling
/// request or form the server withdraws can then be cancelled at the app.
pub fn spend_request_id_zero(app: &Peer<RoleServer>) {
    let Some(info) = app.peer_info() else { return };
    let c = &info.capabilities;
    if !crate::routing::sampling::has_requests(app)
        || (c.sampling.is_none() && c.roots.is_none() && c.elicitation.is_none())
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
