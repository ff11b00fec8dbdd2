//! 2026-07-28 input rounds: a server answers `tools/call`, `prompts/get` or
//! `resources/read` with an `InputRequiredResult`; each of its input
//! requests goes through the broker (URLs and forms, as on the request path)
//! and the request is retried with the answers and the server's
//! `requestState`, at most [`MAX_INPUT_ROUNDS`] times. Here too: prompts and
//! resources, on behalf of an app (`app`) or of Airlock itself.

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    ClientRequest, ElicitRequestParams, GetPromptRequest, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, ReadResourceRequest, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerResult,
};
use rmcp::service::ServiceError;

use super::session_errors::{protocol, session_error};
use super::tool_calls::{MAX_ELICITATIONS_PER_ROUND, MAX_INPUT_ROUNDS};
use crate::caller::Caller;
use crate::elicitation::{Origin, Refusal};
use crate::mcp::progress::{request_once, ProgressSender};
use crate::mcp::Session;
use crate::{Airlock, CoreResult};

/// One answer of a server to a request that may take input rounds.
enum Step<T> {
    Done(T),
    Input(InputRequiredResult),
}

fn prompt_step(r: GetPromptResponse) -> Result<Step<GetPromptResult>, ServiceError> {
    match r {
        GetPromptResponse::Complete(r) => Ok(Step::Done(r)),
        GetPromptResponse::InputRequired(i) => Ok(Step::Input(i)),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

fn resource_step(r: ReadResourceResponse) -> Result<Step<ReadResourceResult>, ServiceError> {
    match r {
        ReadResourceResponse::Complete(r) => Ok(Step::Done(r)),
        ReadResourceResponse::InputRequired(i) => Ok(Step::Input(i)),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// What a retry carries: the answers (none: left out) and the server's state.
pub(crate) type Retry = (Option<InputResponses>, Option<String>);

impl Airlock {
    pub async fn get_prompt(
        self: &Arc<Self>,
        server: &str,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> CoreResult<GetPromptResult> {
        self.get_prompt_for(&Caller::own(), server, name, arguments, None)
            .await
    }

    /// [`Airlock::get_prompt`] on behalf of an app attached to the gateway
    /// (see [`crate::caller`]): the forms and pages its server asks for
    /// name it, and its forms may go back to it; the server's progress
    /// reports for it go to `progress` (see [`crate::mcp::progress`]).
    pub async fn get_prompt_for(
        self: &Arc<Self>,
        caller: &Caller,
        server: &str,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        progress: Option<&ProgressSender>,
    ) -> CoreResult<GetPromptResult> {
        self.with_inputs(caller, server, |session, (responses, state)| {
            let mut params = GetPromptRequestParams::new(name);
            params.arguments = arguments.clone();
            params.input_responses = responses;
            params.request_state = state;
            let progress = progress.cloned();
            async move {
                match progress {
                    None => session.peer.get_prompt_once(params).await,
                    Some(p) => {
                        let request =
                            ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
                        match request_once(&session, request, &p).await? {
                            ServerResult::GetPromptResult(r) => Ok(GetPromptResponse::Complete(r)),
                            ServerResult::InputRequiredResult(r) => {
                                Ok(GetPromptResponse::InputRequired(r))
                            }
                            _ => Err(ServiceError::UnexpectedResponse),
                        }
                    }
                }
                .and_then(prompt_step)
            }
        })
        .await
    }

    pub async fn read_resource(
        self: &Arc<Self>,
        server: &str,
        uri: &str,
    ) -> CoreResult<ReadResourceResult> {
        self.read_resource_for(&Caller::own(), server, uri, None)
            .await
    }

    /// [`Airlock::read_resource`] on behalf of an app (see
    /// [`Airlock::get_prompt_for`]).
    pub async fn read_resource_for(
        self: &Arc<Self>,
        caller: &Caller,
        server: &str,
        uri: &str,
        progress: Option<&ProgressSender>,
    ) -> CoreResult<ReadResourceResult> {
        self.with_inputs(caller, server, |session, (responses, state)| {
            let mut params = ReadResourceRequestParams::new(uri);
            params.input_responses = responses;
            params.request_state = state;
            let progress = progress.cloned();
            async move {
                match progress {
                    // rmcp's own read keeps its response cache.
                    None => session.peer.read_resource_once(params).await,
                    Some(p) => {
                        let request =
                            ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params));
                        match request_once(&session, request, &p).await? {
                            ServerResult::ReadResourceResult(r) => {
                                Ok(ReadResourceResponse::Complete(r))
                            }
                            ServerResult::InputRequiredResult(r) => {
                                Ok(ReadResourceResponse::InputRequired(r))
                            }
                            _ => Err(ServiceError::UnexpectedResponse),
                        }
                    }
                }
                .and_then(resource_step)
            }
        })
        .await
    }

    /// Send a request (`send`, given the session and what the retry
    /// carries) until the server answers it without asking for input. While
    /// it runs, forms and pages its server asks on the request path name
    /// `app`, and a Cancel on a late one stops it (as for tool calls).
    async fn with_inputs<T, F, Fut>(
        self: &Arc<Self>,
        caller: &Caller,
        server: &str,
        mut send: F,
    ) -> CoreResult<T>
    where
        F: FnMut(Arc<Session>, Retry) -> Fut,
        Fut: Future<Output = Result<Step<T>, ServiceError>>,
    {
        let session = self.session_for(server, caller.app_name()).await?;
        let mut retry: Retry = (None, None);
        let mut rounds = 0usize;
        loop {
            let guard = self.broker.call_started(session.connection, caller);
            let step = tokio::select! {
                r = send(session.clone(), std::mem::take(&mut retry)) => r,
                () = guard.cancelled() => return Err(protocol(
                    server,
                    "cancelled while waiting for the browser step; the request was stopped",
                )),
            };
            drop(guard);
            match step.map_err(|e| session_error(&session, e))? {
                Step::Done(result) => return Ok(result),
                Step::Input(ir) => {
                    retry = self.answer_round(caller, &session, &mut rounds, ir).await?;
                }
            }
        }
    }

    /// Answer one `InputRequiredResult` (round `rounds`, counted here; more
    /// than [`MAX_INPUT_ROUNDS`] is an error): what the retry carries.
    pub(crate) async fn answer_round(
        &self,
        caller: &Caller,
        session: &Arc<Session>,
        rounds: &mut usize,
        ir: InputRequiredResult,
    ) -> CoreResult<Retry> {
        let server = session.server.as_str();
        *rounds += 1;
        if *rounds > MAX_INPUT_ROUNDS {
            return Err(protocol(
                server,
                format!(
                    "the server still asked for input after {MAX_INPUT_ROUNDS} rounds; stopped"
                ),
            ));
        }
        let responses = self
            .fulfil_inputs(
                caller,
                server,
                session,
                ir.input_requests.unwrap_or_default(),
            )
            .await?;
        Ok((
            (!responses.is_empty()).then_some(responses),
            ir.request_state,
        ))
    }

    /// 2026-07-28: answer each input request of an `InputRequiredResult`.
    async fn fulfil_inputs(
        &self,
        caller: &Caller,
        server: &str,
        session: &Arc<Session>,
        requests: InputRequests,
    ) -> CoreResult<InputResponses> {
        let mut responses = InputResponses::new();
        for (key, request) in requests.into_iter().take(MAX_ELICITATIONS_PER_ROUND) {
            let value = match request {
                InputRequest::Elicitation(e) => match e.params {
                    ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                        let action = self
                            .broker
                            .fulfil_input_url(
                                server,
                                session.connection,
                                caller.app_name(),
                                &message,
                                &url,
                            )
                            .await
                            .map_err(|r| match r {
                                Refusal::Cancelled => {
                                    protocol(server, "cancelled while waiting for the browser step")
                                }
                                other => protocol(
                                    server,
                                    format!("{other}; the request was not retried"),
                                ),
                            })?;
                        serde_json::json!({ "action": action.as_str() })
                    }
                    ElicitRequestParams::FormElicitationParams {
                        message,
                        requested_schema,
                        ..
                    } => {
                        let order = requested_schema.property_order.clone();
                        let schema_json = serde_json::to_value(&requested_schema)
                            .unwrap_or(serde_json::Value::Null);
                        match self
                            .broker
                            .handle_form_for(
                                caller.app_name(),
                                // This call's own round: its app, exactly.
                                caller.call.map(Into::into),
                                server,
                                &message,
                                &schema_json,
                                order.as_deref(),
                                Origin::InputRequired,
                                // No request of the server's to withdraw: it waits for the retry.
                                &crate::elicitation::Withdrawal::default(),
                            )
                            .await
                        {
                            Ok(outcome) => outcome.result_json(),
                            Err(e) => {
                                // No error channel exists for one input request:
                                // stop here and say why, rather than answer for the user.
                                self.log(
                                    server,
                                    "warning",
                                    &format!("form input request refused: {e}"),
                                );
                                return Err(protocol(
                                    server,
                                    format!("the server asked for a form Airlock cannot show: {e}"),
                                ));
                            }
                        }
                    }
                    _ => {
                        return Err(protocol(
                            server,
                            "the server asked for an elicitation in an unknown mode",
                        ))
                    }
                },
                InputRequest::ListRoots(_) => serde_json::json!({ "roots": [] }),
                _ => {
                    return Err(protocol(
                        server,
                        "the server asked for sampling, which Airlock does not offer",
                    ))
                }
            };
            responses.insert(key, value);
        }
        Ok(responses)
    }
}
