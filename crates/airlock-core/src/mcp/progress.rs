//! Progress of a tool call, a prompt or a resource read, from the server to
//! whoever asked for it (an app attached to the gateway; later the window).
//!
//! A call that wants progress gives [`Airlock::call_tool_with_progress`] (or
//! `get_prompt_for` / `read_resource_for`) a
//! [`ProgressSender`]: a watch channel, so only the latest report is kept
//! and a server that floods notifications queues nothing. The request to
//! the server carries rmcp's progress token for it; the connection's
//! [`ProgressRoutes`] take each `notifications/progress` with that token to
//! the call's sender, checked ([`Progress::checked`]): finite numbers,
//! progress that goes up, a bounded message shown as plain text.
//!
//! [`Airlock::call_tool_with_progress`]: crate::Airlock::call_tool_with_progress

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult,
    CancelledNotificationParam, ClientRequest, ProgressNotificationParam, ProgressToken,
    ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};

use crate::mcp::Session;

/// Longest progress message passed on, in characters.
pub const MAX_PROGRESS_MESSAGE_CHARS: usize = 500;
/// Calls of one connection that wait for progress at once (more get none).
pub const MAX_PROGRESS_ROUTES: usize = 1024;

/// One progress report of a call, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    /// Plain text (controls, bidi and invisible characters escaped), bounded.
    pub message: Option<String>,
}

/// Where a call's progress goes: the latest report wins (no queue).
pub type ProgressSender = tokio::sync::watch::Sender<Option<Progress>>;

impl Progress {
    /// A server's report as it may be passed on, or `None` when it must be
    /// dropped: a number that is not finite or negative, a progress that
    /// does not go up from `last`, a total below the progress.
    pub fn checked(param: &ProgressNotificationParam, last: Option<&Progress>) -> Option<Self> {
        let progress = param.progress;
        if !progress.is_finite() || progress < 0.0 {
            return None;
        }
        if last.is_some_and(|l| progress <= l.progress) {
            return None;
        }
        let total = param.total.filter(|t| t.is_finite() && *t >= progress);
        let message = param
            .message
            .as_deref()
            .map(|m| crate::url_safety::neutralize_for_display(m, MAX_PROGRESS_MESSAGE_CHARS))
            .filter(|m| !m.is_empty());
        Some(Self {
            progress,
            total,
            message,
        })
    }
}

/// The calls of one connection that want progress, by the token the
/// request to the server carried.
#[derive(Clone, Default)]
pub struct ProgressRoutes(Arc<Mutex<HashMap<ProgressToken, ProgressSender>>>);

impl ProgressRoutes {
    fn add(&self, token: ProgressToken, sender: ProgressSender) -> Option<RouteGuard> {
        let mut routes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if routes.len() >= MAX_PROGRESS_ROUTES {
            return None;
        }
        routes.insert(token.clone(), sender);
        Some(RouteGuard {
            routes: self.clone(),
            token,
        })
    }

    /// A server's `notifications/progress`: to the call it belongs to, if
    /// one waits for it and the report passes [`Progress::checked`].
    pub fn deliver(&self, param: &ProgressNotificationParam) {
        let routes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(sender) = routes.get(&param.progress_token) else {
            return;
        };
        sender.send_if_modified(|current| match Progress::checked(param, current.as_ref()) {
            Some(p) => {
                *current = Some(p);
                true
            }
            None => false,
        });
    }
}

/// Removes a call's route when the call ends (or is dropped).
struct RouteGuard {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.token);
    }
}

/// Sends `notifications/cancelled` for a request still unanswered when its
/// future is dropped (what rmcp's `call_tool_once` does for its own calls).
struct CancelOnDrop {
    peer: rmcp::service::Peer<rmcp::service::RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some("request abandoned by the caller".to_owned()),
                ))
                .await;
        });
    }
}

/// One request to the server whose progress goes to `progress` (the
/// request carries rmcp's progress token); cancelled at the server when
/// dropped unanswered. Any request that may take long uses it: a tool
/// call, a prompt, a resource read.
pub(crate) async fn request_once(
    session: &Session,
    request: ClientRequest,
    progress: &ProgressSender,
) -> Result<ServerResult, ServiceError> {
    let handle = session
        .peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    let _route = session
        .progress
        .add(handle.progress_token.clone(), progress.clone());
    let mut cancel = CancelOnDrop {
        peer: session.peer.clone(),
        id: Some(handle.id.clone()),
    };
    let result = handle.await_response().await;
    cancel.id = None;
    result
}

/// One `tools/call` to the server, like rmcp's `call_tool_once`; with a
/// sender, the server's progress for it goes there.
pub(crate) async fn call_once(
    session: &Session,
    params: CallToolRequestParams,
    progress: Option<&ProgressSender>,
) -> Result<CallToolResponse, ServiceError> {
    let Some(progress) = progress else {
        return session.peer.call_tool_once(params).await;
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    match request_once(session, request, progress).await? {
        ServerResult::CallToolResult(r) => Ok(CallToolResponse::Complete(r)),
        ServerResult::InputRequiredResult(r) => Ok(CallToolResponse::InputRequired(r)),
        ServerResult::CreateTaskResult(r) => Ok(CallToolResponse::Task(r)),
        ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(CallToolResult::default())),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn param(
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> ProgressNotificationParam {
        let mut p =
            ProgressNotificationParam::new(ProgressToken(NumberOrString::Number(1)), progress);
        p.total = total;
        p.message = message.map(str::to_owned);
        p
    }

    #[test]
    fn reports_are_checked() {
        let first = Progress::checked(&param(1.0, Some(5.0), Some("step\u{1b}[31m one")), None)
            .expect("passed on");
        assert_eq!(first.total, Some(5.0));
        assert!(!first.message.as_deref().unwrap().contains('\u{1b}'));
        // Not increasing, not finite, negative: dropped.
        assert!(Progress::checked(&param(1.0, None, None), Some(&first)).is_none());
        assert!(Progress::checked(&param(0.5, None, None), Some(&first)).is_none());
        assert!(Progress::checked(&param(f64::NAN, None, None), None).is_none());
        assert!(Progress::checked(&param(f64::INFINITY, None, None), None).is_none());
        assert!(Progress::checked(&param(-1.0, None, None), None).is_none());
        // A total below the progress or not finite is left out.
        let p = Progress::checked(&param(7.0, Some(5.0), None), Some(&first)).unwrap();
        assert_eq!(p.total, None);
        let long = "x".repeat(10_000);
        let p = Progress::checked(&param(8.0, None, Some(&long)), Some(&first)).unwrap();
        assert!(p.message.unwrap().chars().count() <= MAX_PROGRESS_MESSAGE_CHARS + 1);
    }

    #[test]
    fn routes_keep_the_latest_report_and_go_with_the_call() {
        let routes = ProgressRoutes::default();
        let (tx, mut rx) = tokio::sync::watch::channel(None);
        let token = ProgressToken(NumberOrString::Number(1));
        let guard = routes.add(token.clone(), tx).expect("room");
        for i in 1..=1000 {
            routes.deliver(&param(f64::from(i), Some(1000.0), None));
        }
        // A flood leaves one value, the latest.
        assert!(rx.has_changed().unwrap());
        assert_eq!(rx.borrow_and_update().as_ref().unwrap().progress, 1000.0);
        // Another call's token reaches nothing.
        let mut other = param(2000.0, None, None);
        other.progress_token = ProgressToken(NumberOrString::Number(2));
        routes.deliver(&other);
        assert!(!rx.has_changed().unwrap());
        drop(guard);
        assert!(routes.0.lock().unwrap().is_empty());
        // With its route gone the sender is dropped too.
        assert!(rx.has_changed().is_err());
    }
}
