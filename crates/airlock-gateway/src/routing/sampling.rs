//! A server's sampling and roots requests during an app's call go to that
//! app ([`airlock_core::forward`]), on the same rule as forms
//! ([`crate::routing::router`]): the app the core names, the one with
//! requests in flight on that server's connection; when none or several
//! callers are (Airlock's own included), nobody is guessed. Sampling goes
//! only to an app that declared it (else the server gets an error saying
//! so), roots only from an app that declared them (else none). Both need
//! server-to-app requests, which exist on 2025-11-25 sessions only.
//! Sampling counts against the server's limits like its elicitations (the
//! core admits it first).

// Sampling and roots are deprecated in 2026-07-28 (SEP-2577); 2025-11-25
// servers and apps still use them.
#![allow(deprecated)]

use std::time::Duration;

use airlock_core::elicitation::BoxFuture;
use airlock_core::forward::AppRequests;
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ErrorCode,
    ErrorData, ListRootsResult, ServerRequest,
};
use rmcp::service::{Peer, RoleServer, ServiceError};

use airlock_core::caller::AppTarget;

use crate::routing::ask::has_requests;
use crate::routing::router::Router;

/// How long an app may take to answer a sampling request (its model, maybe
/// with the user's approval).
pub const APP_SAMPLING_TIMEOUT: Duration = Duration::from_secs(600);
/// How long an app may take to list its roots.
pub const APP_ROOTS_TIMEOUT: Duration = Duration::from_secs(30);

fn refused(text: String) -> ErrorData {
    ErrorData::new(ErrorCode::METHOD_NOT_FOUND, text, None)
}

/// `sampling/createMessage` to the app, with the checks of rmcp's
/// `Peer::create_message`, bounded by [`APP_SAMPLING_TIMEOUT`], cancelled at
/// the app when dropped ([`crate::routing::ask`]).
async fn ask_app(
    app: &Peer<RoleServer>,
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, ServiceError> {
    if (params.tools.is_some() || params.tool_choice.is_some()) && !app.supports_sampling_tools() {
        return Err(ServiceError::McpError(ErrorData::invalid_params(
            "the request offers tools, and the app did not declare tools for sampling",
            None,
        )));
    }
    params
        .validate()
        .map_err(|e| ServiceError::McpError(ErrorData::invalid_params(e, None)))?;
    let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
    match crate::routing::ask::ask(app, request, APP_SAMPLING_TIMEOUT).await? {
        ClientResult::CreateMessageResult(result) => Ok(*result),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

impl AppRequests for Router {
    fn create_message<'a>(
        &'a self,
        server: &'a str,
        to_app: Option<AppTarget>,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'a, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async move {
            let Some(app) = to_app.and_then(|t| self.peer_of(t)) else {
                return Err(refused(format!(
                    "Airlock passes sampling on only to the one app whose call on {server} is running; there is none, or several"
                )));
            };
            let declared = app
                .peer_info()
                .is_some_and(|i| i.capabilities.sampling.is_some());
            if !declared || !has_requests(&app) {
                return Err(refused(
                    "the app calling this tool through Airlock does not offer sampling".into(),
                ));
            }
            match ask_app(&app, params).await {
                Ok(result) => Ok(result),
                Err(ServiceError::McpError(e)) => Err(ErrorData::new(
                    e.code,
                    format!(
                        "the app refused: {}",
                        airlock_core::url_safety::neutralize_for_display(&e.message, 500)
                    ),
                    None,
                )),
                Err(ServiceError::Timeout { .. }) => Err(ErrorData::internal_error(
                    format!(
                        "the app did not answer within {} s",
                        APP_SAMPLING_TIMEOUT.as_secs()
                    ),
                    None,
                )),
                Err(e) => Err(ErrorData::internal_error(
                    format!("the app did not answer: {e}"),
                    None,
                )),
            }
        })
    }

    fn list_roots<'a>(
        &'a self,
        _server: &'a str,
        to_app: Option<AppTarget>,
    ) -> BoxFuture<'a, Result<ListRootsResult, ErrorData>> {
        Box::pin(async move {
            let Some(app) = to_app.and_then(|t| self.peer_of(t)) else {
                return Ok(ListRootsResult::default());
            };
            let declared = app
                .peer_info()
                .is_some_and(|i| i.capabilities.roots.is_some());
            if !declared || !has_requests(&app) {
                return Ok(ListRootsResult::default());
            }
            match tokio::time::timeout(APP_ROOTS_TIMEOUT, app.list_roots()).await {
                Ok(Ok(roots)) => Ok(roots),
                Ok(Err(e)) => Err(ErrorData::internal_error(
                    format!("the app could not list its roots: {e}"),
                    None,
                )),
                Err(_) => Err(ErrorData::internal_error(
                    "the app did not list its roots in time",
                    None,
                )),
            }
        })
    }

    fn resource_updated(&self, server: &str, uri: &str) {
        self.resources.updated(server, uri);
    }

    fn server_log(&self, server: &str, to_app: Option<AppTarget>, level: &str, text: &str) {
        if let Some(target) = to_app {
            self.logs.deliver(target.app, server, level, text);
        }
    }
}
