//! The client side of one connection: answers the server's requests
//! (elicitation, through the broker) and notifications (logs, completions).

use std::sync::Arc;

#[allow(deprecated)]
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, CustomRequest, CustomResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ErrorData,
    FormElicitationCapability, Implementation, ProtocolVersion, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::ClientHandler;
use tokio::sync::broadcast;

use super::withdrawals::{until_withdrawn, Withdrawals};
use super::ELICITATION_COMPLETE;
use crate::elicitation::{Broker, ConsentDecision, FormAnswer, Origin};
use crate::events::CoreEvent;
use crate::secrets::Redactor;
use crate::store::Store;

/// Run a request to an app (sampling, roots) until the server's request is
/// cancelled (the server withdrew it, or the connection ended): then it is
/// dropped, which cancels it at the app. Questions to the user:
/// [`until_withdrawn`].
async fn until_cancelled<T>(
    ct: &tokio_util::sync::CancellationToken,
    question: impl std::future::Future<Output = T>,
) -> Result<T, ErrorData> {
    tokio::select! {
        answer = question => Ok(answer),
        _ = ct.cancelled() => Err(ErrorData::internal_error(
            "the request was cancelled before the user answered",
            None,
        )),
    }
}

/// The client side of one connection: answers server requests and notifications.
#[derive(Clone)]
pub struct AirlockClient {
    pub(super) server: String,
    pub(super) connection: u64,
    pub(super) broker: Arc<Broker>,
    pub(super) store: Arc<Store>,
    pub(super) events: broadcast::Sender<CoreEvent>,
    pub(super) redactor: Arc<Redactor>,
    /// Calls on this connection waiting for progress (shared with the session).
    pub(super) progress: crate::mcp::progress::ProgressRoutes,
    /// The gateway's apps, for sampling and roots; `None`: neither declared.
    pub(super) app_requests: Option<Arc<dyn crate::forward::AppRequests>>,
    /// The server's list_changed notices, coalesced into events.
    pub(super) lists: super::list_changes::ListChanges,
    /// The server's requests the user is asked about, to tell a withdrawn
    /// one from a lost connection.
    pub(super) asked: Withdrawals,
    /// How many of its log lines are kept (super::log_rate).
    pub(super) log_rate: Arc<std::sync::Mutex<super::log_rate::LogRate>>,
}

use crate::mcp_apps::{MCP_APP_MIME_TYPE, UI_EXTENSION};

pub fn client_info() -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(
        ElicitationCapability::new()
            .with_form(FormElicitationCapability::default())
            .with_url(UrlElicitationCapability::default()),
    );
    // MCP Apps (SEP-1865): servers that check for it offer their UI-enabled
    // tools; the gateway passes them on to the apps that render them.
    let mut ui = rmcp::model::JsonObject::new();
    ui.insert("mimeTypes".into(), serde_json::json!([MCP_APP_MIME_TYPE]));
    capabilities.extensions = Some([(UI_EXTENSION.to_owned(), ui)].into_iter().collect());
    let mut config = ClientConfig::new(
        capabilities,
        Implementation::new("airlock", env!("CARGO_PKG_VERSION")),
    );
    // What a plain `initialize` offers (the legacy retry in `connect`); the
    // discovery handshake negotiates its own version.
    config.protocol_version = ProtocolVersion::V_2025_11_25;
    config
}

/// Store and broadcast one log line of a server (redacted, bounded).
pub(crate) fn log_line(
    store: &Store,
    events: &broadcast::Sender<CoreEvent>,
    redactor: &Redactor,
    server: &str,
    source: &str,
    level: &str,
    text: &str,
) {
    let text = redactor.redact(text);
    let text = crate::store::truncate_text(&text, crate::store::MAX_LOG_LINE_BYTES);
    let _ = store.append_log(server, source, level, &text);
    let _ = events.send(CoreEvent::Log {
        server: server.to_owned(),
        source: source.to_owned(),
        level: level.to_owned(),
        text,
    });
}

impl AirlockClient {
    /// The client side of connection number `connection` to `server`.
    pub(super) fn new(server: &str, connection: u64, ctx: &super::ConnectContext) -> Self {
        Self {
            server: server.to_owned(),
            connection,
            broker: ctx.broker.clone(),
            store: ctx.store.clone(),
            events: ctx.events.clone(),
            redactor: ctx.redactor.clone(),
            progress: crate::mcp::progress::ProgressRoutes::default(),
            app_requests: ctx.app_requests.clone(),
            lists: super::list_changes::ListChanges::new(server, ctx.events.clone()),
            asked: Withdrawals::default(),
            log_rate: Arc::default(),
        }
    }

    pub(super) fn log(&self, source: &str, level: &str, text: &str) {
        log_line(
            &self.store,
            &self.events,
            &self.redactor,
            &self.server,
            source,
            level,
            text,
        );
    }
}

impl ClientHandler for AirlockClient {
    fn get_info(&self) -> ClientConfig {
        let mut info = client_info();
        #[allow(deprecated)]
        if self.app_requests.is_some() {
            // Passed on to the app whose call runs (crate::forward).
            info.capabilities.sampling = Some(Default::default());
            info.capabilities.roots = Some(rmcp::model::RootsCapabilities::default());
        }
        info
    }

    #[allow(deprecated)] // sampling: 2025-11-25 servers still use it
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        let Some(apps) = &self.app_requests else {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "Airlock does not offer sampling here",
                None,
            ));
        };
        let params = crate::forward::checked_sampling(params, "sampling request")
            .inspect_err(|e| self.log("airlock", "warning", &e.message))?;
        // Sampling counts against the server's limits, like its elicitations.
        let _slot = self.broker.admit_sampling(&self.server).map_err(|limit| {
            let why = format!("sampling request refused: {}", limit.describe());
            self.log("airlock", "warning", &why);
            ErrorData::new(rmcp::model::ErrorCode::INVALID_REQUEST, why, None)
        })?;
        let to_app = self.broker.sole_app(self.connection);
        let answer = until_cancelled(
            &context.ct,
            apps.create_message(&self.server, to_app, params),
        )
        .await??;
        crate::forward::checked_sampling(answer, "app's sampling answer")
    }

    #[allow(deprecated)] // roots: 2025-11-25 servers still use it
    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, ErrorData> {
        let Some(apps) = &self.app_requests else {
            return Ok(rmcp::model::ListRootsResult::default());
        };
        let to_app = self.broker.sole_app(self.connection);
        let roots = until_cancelled(&context.ct, apps.list_roots(&self.server, to_app)).await??;
        Ok(crate::forward::checked_roots(roots))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match request {
            ElicitRequestParams::UrlElicitationParams {
                message,
                url,
                elicitation_id,
                ..
            } => {
                let legacy = context
                    .peer
                    .peer_info()
                    .is_some_and(|i| i.protocol_version < ProtocolVersion::V_2026_07_28);
                if url.trim().is_empty() {
                    self.log(
                        "airlock",
                        "warning",
                        "URL elicitation without `url` answered -32602",
                    );
                    return Err(ErrorData::invalid_params(
                        "URL elicitation needs `url`",
                        None,
                    ));
                }
                if legacy && elicitation_id.trim().is_empty() {
                    self.log(
                        "airlock",
                        "warning",
                        "URL elicitation without `elicitationId` answered -32602",
                    );
                    return Err(ErrorData::invalid_params(
                        "URL elicitation needs `elicitationId` (protocol 2025-11-25)",
                        None,
                    ));
                }
                let id = (!elicitation_id.is_empty()).then_some(elicitation_id.as_str());
                let followed = self.asked.follow(context.id.clone());
                let w = &followed.withdrawal;
                let outcome = until_withdrawn(
                    &context.ct,
                    w,
                    self.broker
                        .request_url(&self.server, self.connection, &message, &url, id, w),
                )
                .await?;
                Ok(ElicitResult::new(match outcome.decision() {
                    ConsentDecision::Accept => ElicitationAction::Accept,
                    ConsentDecision::Decline => ElicitationAction::Decline,
                    ConsentDecision::Cancel => ElicitationAction::Cancel,
                }))
            }
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                let order = requested_schema.property_order.clone();
                let schema_json =
                    serde_json::to_value(&requested_schema).unwrap_or(serde_json::Value::Null);
                let followed = self.asked.follow(context.id.clone());
                let w = &followed.withdrawal;
                match until_withdrawn(
                    &context.ct,
                    w,
                    self.broker.handle_form_for(
                        self.broker.apps_in_flight(self.connection).as_deref(),
                        self.broker.sole_app(self.connection),
                        &self.server,
                        &message,
                        &schema_json,
                        order.as_deref(),
                        Origin::Request,
                        w,
                    ),
                )
                .await?
                {
                    Ok(outcome) => Ok(match outcome.answer {
                        FormAnswer::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
                            .with_content(serde_json::Value::Object(content)),
                        FormAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
                        FormAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
                    }),
                    Err(e) => {
                        self.log(
                            "airlock",
                            "warning",
                            &format!("form elicitation answered -32602: {e}"),
                        );
                        Err(ErrorData::invalid_params(
                            format!(
                                "requestedSchema is outside the form subset Airlock supports: {e}"
                            ),
                            None,
                        ))
                    }
                }
            }
            _ => {
                self.log(
                    "airlock",
                    "warning",
                    "elicitation in an unknown mode answered -32602",
                );
                Err(ErrorData::invalid_params(
                    "unknown elicitation mode; Airlock supports form and url",
                    None,
                ))
            }
        }
    }

    /// An `elicitation/create` the SDK could not type lands here (its schema
    /// types are narrower than the spec in places, and a schema outside the
    /// subset does not parse at all). Read the raw params so the server gets
    /// a form when Airlock can show one, and -32602 with the reason otherwise,
    /// never -32601 for a method we support.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "elicitation/create" {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ));
        }
        let params = request.params.unwrap_or(serde_json::Value::Null);
        let mode = params
            .get("mode")
            .and_then(|m| m.as_str())
            .unwrap_or("form");
        let invalid = |text: String| {
            self.log(
                "airlock",
                "warning",
                &format!("elicitation answered -32602: {text}"),
            );
            Err(ErrorData::invalid_params(text, None))
        };
        if mode != "form" {
            return invalid(format!(
                "malformed `{}` elicitation: Airlock supports form and url (url needs `url`, and `elicitationId` on 2025-11-25)",
                crate::url_safety::neutralize_for_display(mode, 40)
            ));
        }
        let Some(message) = params.get("message").and_then(|m| m.as_str()) else {
            return invalid("form elicitation needs a `message` string".into());
        };
        let schema = params
            .get("requestedSchema")
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        let followed = self.asked.follow(context.id.clone());
        let w = &followed.withdrawal;
        match until_withdrawn(
            &context.ct,
            w,
            self.broker.handle_form_for(
                self.broker.apps_in_flight(self.connection).as_deref(),
                self.broker.sole_app(self.connection),
                &self.server,
                message,
                &schema,
                None,
                Origin::Request,
                w,
            ),
        )
        .await?
        {
            Ok(outcome) => Ok(CustomResult::new(outcome.result_json())),
            Err(e) => invalid(format!(
                "requestedSchema is outside the form subset Airlock supports: {e}"
            )),
        }
    }

    // Logging is deprecated in 2026-07-28 but 2025-11-25 servers still send it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".into());
        let text = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let text = match &params.logger {
            Some(logger) => format!("[{logger}] {text}"),
            None => text,
        };
        // A flood costs this server its own lines, nobody else anything.
        let admitted = self
            .log_rate
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .admit();
        let Some(dropped) = admitted else {
            return;
        };
        let text = super::log_rate::with_dropped(&text, dropped);
        self.log("notification", &level, &text);
        // To the app whose request caused it (the one app with requests in
        // flight on this connection), if any: never to the others.
        if let Some(apps) = &self.app_requests {
            let text = self.redactor.redact(&text);
            let text = crate::store::truncate_text(&text, crate::store::MAX_LOG_LINE_BYTES);
            let to_app = self.broker.log_app(self.connection);
            apps.server_log(&self.server, to_app, &level, &text);
        }
    }

    /// The server withdrew one of its requests: if the user is being asked
    /// about it, its record says so (rmcp has stopped the request already).
    async fn on_cancelled(
        &self,
        params: rmcp::model::CancelledNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(id) = &params.request_id {
            self.asked.withdrawn(id);
        }
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.deliver(&params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.lists.changed();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.lists.changed();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.lists.changed();
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        context: NotificationContext<RoleClient>,
    ) {
        // 2026-07-28: updates come only on the listen stream (super::listen);
        // one outside it is unasked, or from a stream already replaced.
        let streams = context
            .peer
            .peer_info()
            .is_some_and(|i| i.protocol_version >= ProtocolVersion::V_2026_07_28);
        if streams {
            return;
        }
        if let Some(apps) = &self.app_requests {
            apps.resource_updated(&self.server, &params.uri);
        }
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == ELICITATION_COMPLETE {
            let id = notification
                .params
                .as_ref()
                .and_then(|p| p.get("elicitationId"))
                .and_then(|v| v.as_str());
            match id {
                Some(id) => {
                    self.broker.complete(&self.server, self.connection, id);
                }
                None => self.log(
                    "airlock",
                    "warning",
                    "elicitation completion without an elicitationId ignored",
                ),
            }
        }
    }
}
