//! Tools, prompts and resources lists of a connected server, and tool
//! calls, which land in history. A tool call that needs a URL elicitation
//! (2025-11-25 -32042, or a 2026-07-28 `InputRequiredResult`, see
//! [`super::input_rounds`]) goes through the broker and is retried.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{CallToolRequestParams, CallToolResponse, ProtocolVersion};
use rmcp::service::ServiceError;
use serde::Serialize;
use tracing::Instrument;

use super::lists::{list_bounded, paginated};
use super::session_errors::{protocol, service_error, session_error};
use crate::caller::Caller;
use crate::elicitation::{Refusal, RequiredElicitation};
use crate::mcp::Session;
use crate::servers::ProtocolChoice;
use crate::store::{now_ms, NewToolCall, ToolCallOutcome};
use crate::{Airlock, CoreError, CoreResult};

/// JSON-RPC code of URLElicitationRequiredError (2025-11-25).
pub const URL_ELICITATION_REQUIRED: i32 = -32042;
/// Rounds of -32042 for one tool call before giving up.
pub const MAX_REQUIRED_ROUNDS: usize = 3;
/// Rounds of `InputRequiredResult` for one request before giving up.
pub const MAX_INPUT_ROUNDS: usize = 5;
/// Elicitations taken from one -32042 or one `InputRequiredResult`.
pub const MAX_ELICITATIONS_PER_ROUND: usize = 8;
/// Largest tool result stored in history, in bytes of JSON.
pub const MAX_STORED_RESULT_BYTES: usize = 256 * 1024;

// What a tool call returned. Its history record is written just after, off
// the call's path (so no record id here); `Airlock::history` sees it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CallOutcome {
    pub server: String,
    pub tool: String,
    pub result: serde_json::Value,
    pub is_error: bool,
    pub duration_ms: i64,
}

/// The result as history keeps it: secrets masked (a server may return its
/// own, say its environment, as the log does), at most
/// [`MAX_STORED_RESULT_BYTES`], always JSON.
fn stored_result(json: &serde_json::Value, redactor: &crate::secrets::Redactor) -> String {
    let text = json.to_string();
    let masked = redactor.redact(&text);
    // Masking changes text inside strings only, but check before storing it as JSON.
    let valid = masked == text || serde_json::from_str::<serde::de::IgnoredAny>(&masked).is_ok();
    if valid && masked.len() <= MAX_STORED_RESULT_BYTES {
        masked
    } else {
        serde_json::json!({
            "truncated": crate::store::truncate_text(&masked, MAX_STORED_RESULT_BYTES)
        })
        .to_string()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ToolCallError(pub String);

/// A server tried a server-initiated request (2025-11-25 style) on a
/// 2026-07-28 connection, where none exist: the Python SDK answers -32600
/// "... no back-channel for server-initiated requests".
fn sends_old_style_requests(e: &ServiceError) -> bool {
    match e {
        ServiceError::McpError(data) => {
            data.code == rmcp::model::ErrorCode::INVALID_REQUEST
                && (data.message.contains("back-channel")
                    || data.message.contains("server-initiated"))
        }
        _ => false,
    }
}

/// Why a call that needed a URL elicitation was not retried, in words.
fn not_retried(refusal: &Refusal) -> String {
    match refusal {
        Refusal::LoopDetected { .. } | Refusal::Expired { .. } => {
            format!("{refusal}; the call was not retried")
        }
        Refusal::Cancelled => {
            "cancelled while waiting for the browser step; the call was not retried".to_owned()
        }
        _ => {
            format!("the tool needs a URL elicitation that was {refusal}; the call was not retried")
        }
    }
}

/// The URL elicitations listed in a -32042 error's `data.elicitations`
/// (at most [`MAX_ELICITATIONS_PER_ROUND`]; entries without a `url` skipped).
fn parse_required(data: Option<&serde_json::Value>) -> Vec<RequiredElicitation> {
    let text = |item: &serde_json::Value, key: &str| {
        item.get(key)
            .and_then(|m| m.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    data.and_then(|d| d.get("elicitations"))
        .and_then(|e| e.as_array())
        .map(|items| {
            items
                .iter()
                .take(MAX_ELICITATIONS_PER_ROUND)
                .filter_map(|item| {
                    Some(RequiredElicitation {
                        url: item.get("url")?.as_str()?.to_owned(),
                        message: text(item, "message"),
                        elicitation_id: text(item, "elicitationId"),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Airlock {
    /// Every tool of a server, page by page (bounded: see `list_bounded`).
    pub async fn list_tools(self: &Arc<Self>, server: &str) -> CoreResult<Vec<rmcp::model::Tool>> {
        let s = self.session(server).await?;
        list_bounded(&s, "tools", |cursor| async {
            let page = s.peer.list_tools(paginated(cursor)).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await
    }

    pub async fn list_prompts(
        self: &Arc<Self>,
        server: &str,
    ) -> CoreResult<Vec<rmcp::model::Prompt>> {
        let s = self.session(server).await?;
        list_bounded(&s, "prompts", |cursor| async {
            let page = s.peer.list_prompts(paginated(cursor)).await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await
    }

    pub async fn list_resources(
        self: &Arc<Self>,
        server: &str,
    ) -> CoreResult<Vec<rmcp::model::Resource>> {
        let s = self.session(server).await?;
        list_bounded(&s, "resources", |cursor| async {
            let page = s.peer.list_resources(paginated(cursor)).await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }

    /// Call a tool; the call, its result, duration and outcome land in history.
    pub async fn call_tool(
        self: &Arc<Self>,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> CoreResult<CallOutcome> {
        // Apps never see a tool that is off (the gateway serves it as
        // withheld); Airlock's own callers are told here.
        if self.is_tool_off(server, tool) {
            return Err(CoreError::BadInput(super::tool_switches::tool_off_reason(
                server, tool,
            )));
        }
        self.call_tool_for(None, server, tool, arguments).await
    }

    /// [`Airlock::call_tool`] on behalf of an app attached to the gateway:
    /// history records `app` as the caller (`None`: Airlock itself).
    pub async fn call_tool_for(
        self: &Arc<Self>,
        app: Option<&str>,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> CoreResult<CallOutcome> {
        self.call_tool_with_progress(&Caller::named(app), server, tool, arguments, None)
            .await
    }

    /// [`Airlock::call_tool_for`] made for `caller` (an app's call through
    /// the gateway: what its server asks meanwhile goes back to it, see
    /// [`crate::caller`]), whose server's progress reports (checked, latest
    /// only: see [`crate::mcp::progress`]) go to `progress`.
    pub async fn call_tool_with_progress(
        self: &Arc<Self>,
        caller: &Caller,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        progress: Option<&crate::mcp::progress::ProgressSender>,
    ) -> CoreResult<CallOutcome> {
        let app = caller.app_name();
        let started_at = now_ms();
        let t0 = Instant::now();
        let args_json = arguments.as_ref().map_or_else(
            || "null".to_owned(),
            |a| serde_json::to_string(a).unwrap_or_default(),
        );
        // Dropped before the call ends (the app cancelled it, or went): the
        // call still leaves a history row.
        let mut unfinished = super::history::Unfinished {
            history: &self.history,
            call: Some(NewToolCall {
                app: app.map(str::to_owned),
                server: server.to_owned(),
                tool: tool.to_owned(),
                arguments_json: args_json.clone(),
                result_json: None,
                outcome: ToolCallOutcome::Failed,
                error: Some("cancelled by the caller before it finished".to_owned()),
                started_at,
                duration_ms: 0,
            }),
            t0,
        };
        let result = self
            .call_tool_inner(caller, server, tool, arguments, progress)
            .instrument(tracing::trace_span!("call.server"))
            .await;
        unfinished.call = None;
        let duration_ms = i64::try_from(t0.elapsed().as_millis()).unwrap_or(i64::MAX);
        let record = |outcome, result_json, error| NewToolCall {
            app: app.map(str::to_owned),
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments_json: args_json.clone(),
            result_json,
            outcome,
            error,
            started_at,
            duration_ms,
        };
        match result {
            Ok((r, redactor)) => {
                let span = tracing::trace_span!("call.result").entered();
                let is_error = r.is_error.unwrap_or(false);
                let json = serde_json::to_value(&r).unwrap_or_default();
                let stored = stored_result(&json, &redactor);
                let outcome = if is_error {
                    ToolCallOutcome::ToolError
                } else {
                    ToolCallOutcome::Ok
                };
                drop(span);
                let _span = tracing::trace_span!("call.history").entered();
                self.history.record(record(outcome, Some(stored), None))?;
                Ok(CallOutcome {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    result: json,
                    is_error,
                    duration_ms,
                })
            }
            Err(e) => {
                // Unknown servers are a usage error, not a call: keep them out of history.
                if !matches!(e, CoreError::UnknownServer(_)) {
                    let error = self.redact(server, &e.to_string());
                    let _ = self
                        .history
                        .record(record(ToolCallOutcome::Failed, None, Some(error)));
                }
                Err(e)
            }
        }
    }

    async fn call_tool_inner(
        self: &Arc<Self>,
        caller: &Caller,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        progress: Option<&crate::mcp::progress::ProgressSender>,
    ) -> CoreResult<(rmcp::model::CallToolResult, Arc<crate::secrets::Redactor>)> {
        let app = caller.app_name();
        let mut session = self
            .session_for(server, app)
            .instrument(tracing::trace_span!("call.session"))
            .await?;
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments;
        let mut step_ups = 0usize;
        let mut fell_back = false;
        let mut required_rounds = 0usize;
        let mut input_rounds = 0usize;
        let mut offered: HashSet<String> = HashSet::new();
        loop {
            // A Cancel on a late elicitation this call's server asked for
            // stops the call (rmcp sends notifications/cancelled on drop).
            let guard = self.broker.call_started(session.connection, caller);
            let response = tokio::select! {
                r = crate::mcp::progress::call_once(&session, params.clone(), progress).instrument(tracing::trace_span!("call.rpc")) => r,
                () = guard.cancelled() => return Err(protocol(
                    server,
                    "cancelled while waiting for the browser step; the tool call was stopped",
                )),
            };
            drop(guard);
            match response {
                Ok(CallToolResponse::Complete(r)) => return Ok((r, session.redactor.clone())),
                Ok(CallToolResponse::InputRequired(ir)) => {
                    let (responses, state) = self
                        .answer_round(caller, &session, &mut input_rounds, ir)
                        .await?;
                    params.input_responses = responses;
                    params.request_state = state;
                }
                Ok(_) => {
                    return Err(protocol(
                        server,
                        "the server answered with a task, which Airlock does not run yet",
                    ))
                }
                Err(ServiceError::McpError(e)) if e.code.0 == URL_ELICITATION_REQUIRED => {
                    required_rounds += 1;
                    if required_rounds > MAX_REQUIRED_ROUNDS {
                        return Err(protocol(
                            server,
                            format!("the server still required a URL elicitation after {MAX_REQUIRED_ROUNDS} rounds; stopped"),
                        ));
                    }
                    self.required_round(app, server, &session, e.data.as_ref(), &mut offered)
                        .await?;
                }
                Err(e) if !fell_back && sends_old_style_requests(&e) => {
                    // A server written for 2025-11-25 on a 2026-07-28
                    // connection: in automatic mode, move it to 2025-11-25
                    // (remembered) and retry the call once.
                    fell_back = true;
                    if !self.fall_back_to_2025(server, &session)? {
                        return Err(protocol(
                            server,
                            format!(
                                "{}; the server sends requests the 2025-11-25 way: set its protocol to 2025-11-25 or automatic (`airlock servers edit {server} --protocol 2025-11-25 ...`, or in the window's server form)",
                                service_error(server, e)
                            ),
                        ));
                    }
                    session = self.session_for(server, app).await?;
                }
                Err(e) => {
                    // Step-up: a 403 `insufficient_scope` from an OAuth server;
                    // authorize once more with the scopes it named, reconnect,
                    // and retry the call once.
                    if step_ups == 0 {
                        if let Some(challenge) = crate::mcp::insufficient_scope_challenge(&e) {
                            step_ups += 1;
                            session.close();
                            self.step_up_authorization(server, &challenge, app).await?;
                            session = self.session_for(server, app).await?;
                            continue;
                        }
                    }
                    return Err(session_error(&session, e));
                }
            }
        }
    }

    /// Move a server in automatic mode that sent a request the 2025-11-25
    /// way on a 2026-07-28 connection to 2025-11-25: remember it, say so in
    /// its log, and drop the session so the next one is made the old way.
    /// `false` when the user chose the revision (nothing to recover).
    fn fall_back_to_2025(&self, server: &str, session: &Session) -> CoreResult<bool> {
        let def = self.get_server(server)?;
        if def.options.protocol != ProtocolChoice::Auto
            || session.info.protocol_version != ProtocolVersion::V_2026_07_28.to_string()
        {
            return Ok(false);
        }
        self.store
            .set_protocol_learned(server, Some(ProtocolChoice::V2025_11_25.as_str()))?;
        self.log(
            server,
            "warning",
            "the server sends requests the 2025-11-25 way (it has no back-channel on 2026-07-28): reconnecting on 2025-11-25, remembered for next time (protocol: automatic)",
        );
        self.disconnect(server);
        Ok(true)
    }

    /// 2025-11-25 error path: the broker takes the listed elicitations
    /// through consent and waits for them; `Ok` means retry the call.
    async fn required_round(
        &self,
        app: Option<&str>,
        server: &str,
        session: &Session,
        data: Option<&serde_json::Value>,
        offered: &mut HashSet<String>,
    ) -> CoreResult<()> {
        let list = parse_required(data);
        if list.is_empty() {
            return Err(protocol(
                server,
                "the server sent -32042 without any URL elicitation in `data.elicitations`",
            ));
        }
        if list.iter().any(|i| i.elicitation_id.trim().is_empty()) {
            return Err(protocol(
                server,
                "a -32042 elicitation has no `elicitationId`",
            ));
        }
        self.broker
            .fulfil_required(server, session.connection, app, list, offered)
            .await
            .map_err(|r| protocol(server, not_retried(&r)))
    }
}
