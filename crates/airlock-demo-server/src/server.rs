//! The MCP side: four tools that show URL elicitation end to end, on both
//! protocol revisions rmcp negotiates.
//!
//! - 2025-11-25 (`initialize` handshake): `elicitation/create` with mode url
//!   (request path), JSON-RPC error -32042 with `data.elicitations` (error
//!   path), and `notifications/elicitation/complete` when the page's button is
//!   pressed.
//! - 2026-07-28 (per-request metadata): an `InputRequiredResult` with one URL
//!   input request and the flow id as `requestState`; the client's retry gets
//!   the real result once the button was pressed.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitationAction, ErrorCode, ErrorData, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::flows::{Flows, Kind, Waited};
use crate::web::Web;

/// JSON-RPC code of URLElicitationRequiredError (2025-11-25).
pub const URL_ELICITATION_REQUIRED: i32 = -32042;
pub const REQUIRED_MESSAGE: &str = "This request requires more information.";
/// Key of the one input request in a 2026-07-28 `InputRequiredResult`.
pub const INPUT_KEY: &str = "url";
/// How long `connect_demo_account` (2025-11-25) waits for the button.
pub const CONNECT_WAIT: Duration = Duration::from_secs(600);

pub const CONNECTED: &str = "Demo account connected";
pub const DATA: &str = "Your private demo data: 42 records";
pub const CONTINUED: &str = "Continued without a completion: the never_completes page has no working button, so the flow never finishes and the client let you go on by hand.";

const INSTRUCTIONS: &str = "\
airlock-demo shows URL elicitation end to end. Each tool opens a page this server \
serves on 127.0.0.1 (this computer only); pressing the page's button finishes the step.
- connect_demo_account: asks the client to open the page (elicitation/create, mode url; \
on 2026-07-28 an input_required result). After the button press it answers \"Demo account \
connected\"; if you decline it answers \"Not connected: declined\".
- fetch_private_data: the first call fails with -32042 (URL elicitation required; on \
2026-07-28 an input_required result). Press the page's button, the server sends \
notifications/elicitation/complete, and the client's retry returns the data.
- never_completes: same error path, but the page has no working button and no completion \
ever arrives, so the client should mark the step late and offer Continue; once the page \
was opened, the retry after Continue succeeds.
- echo: returns its message.
Set AIRLOCK_DEMO_PROTOCOL=2025-11-25 or 2026-07-28 to pin one protocol revision.";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// Text to send back.
    pub message: String,
}

#[derive(Clone)]
pub struct DemoServer {
    flows: Arc<Flows>,
    web: Web,
    versions: Vec<ProtocolVersion>,
    tool_router: ToolRouter<Self>,
}

fn text_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text.into())]).into()
}

fn error_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text.into())]).into()
}

/// Does this request speak 2026-07-28 (multi-round-trip requests)?
fn is_mrtr(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// Did the client declare `elicitation.url` (in `initialize` or in this request's `_meta`)?
fn supports_url(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.client_capabilities()
        .and_then(|c| c.elicitation)
        .is_some_and(|e| e.url.is_some())
}

const NO_URL_SUPPORT: &str =
    "this client does not support URL elicitation (it did not declare elicitation.url)";

/// What a failed flow's result says, per tool.
fn failure_prefix(kind: Kind) -> &'static str {
    match kind {
        Kind::Connect => "Not connected",
        Kind::Fetch => "No data",
        Kind::Never => "Not continued",
    }
}

fn success_text(kind: Kind) -> &'static str {
    match kind {
        Kind::Connect => CONNECTED,
        Kind::Fetch => DATA,
        Kind::Never => CONTINUED,
    }
}

impl DemoServer {
    pub fn new(flows: Arc<Flows>, web: Web, versions: Vec<ProtocolVersion>) -> Self {
        Self {
            flows,
            web,
            versions,
            tool_router: Self::tool_router(),
        }
    }

    /// The -32042 error listing one URL elicitation (2025-11-25 error path).
    fn url_required(&self, id: &str, kind: Kind) -> ErrorData {
        ErrorData::new(
            ErrorCode(URL_ELICITATION_REQUIRED),
            REQUIRED_MESSAGE,
            Some(serde_json::json!({
                "elicitations": [{
                    "mode": "url",
                    "message": kind.purpose(),
                    "url": self.web.page_url(id, kind),
                    "elicitationId": id,
                }]
            })),
        )
    }

    /// An `InputRequiredResult` with one URL input request (2026-07-28).
    fn input_required(&self, id: &str, kind: Kind, message: String) -> CallToolResponse {
        let mut requests = InputRequests::new();
        requests.insert(
            INPUT_KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(
                ElicitRequestParams::UrlElicitationParams {
                    meta: None,
                    message,
                    url: self.web.page_url(id, kind),
                    // 2026-07-28 has no elicitationId; rmcp models absence as "".
                    elicitation_id: String::new(),
                },
            )),
        );
        InputRequiredResult::new(Some(requests), Some(id.to_owned())).into()
    }

    /// One 2026-07-28 round of any of the three flows. The flow id travels as
    /// `requestState`; the state itself stays here, so an unknown or foreign
    /// id just starts a new flow.
    fn mrtr_round(
        &self,
        kind: Kind,
        state: Option<String>,
        responses: Option<rmcp::model::InputResponses>,
    ) -> CallToolResponse {
        let known = state.as_deref().and_then(|id| match self.flows.get(id) {
            Some((k, done)) if k == kind => Some((id, done)),
            _ => None,
        });
        let Some((id, done)) = known else {
            let id = self.flows.start(kind, None);
            return self.input_required(&id, kind, kind.purpose().to_owned());
        };
        if done {
            if kind == Kind::Fetch {
                self.flows.forget(id);
            }
            return text_result(success_text(kind));
        }
        let action = responses
            .as_ref()
            .and_then(|r| r.get(INPUT_KEY))
            .and_then(|v| v.get("action"))
            .and_then(|a| a.as_str());
        match action {
            Some("decline") => {
                self.flows.forget(id);
                error_result(format!("{}: declined", failure_prefix(kind)))
            }
            Some("cancel") => {
                self.flows.forget(id);
                error_result(format!("{}: cancelled", failure_prefix(kind)))
            }
            // The user went on without a completion, which is all this flow allows.
            _ if kind == Kind::Never => {
                self.flows.forget(id);
                text_result(CONTINUED)
            }
            _ => self.input_required(
                id,
                kind,
                format!(
                    "{} (not done yet: press the button on the page, then continue)",
                    kind.purpose()
                ),
            ),
        }
    }

    /// 2025-11-25 request path: `elicitation/create`, then wait for the button.
    async fn connect_request_path(
        &self,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let kind = Kind::Connect;
        let id = self.flows.start(kind, Some(ctx.peer.clone()));
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: kind.purpose().to_owned(),
            url: self.web.page_url(&id, kind),
            elicitation_id: id.clone(),
        };
        let answer = tokio::select! {
            answer = ctx.peer.create_elicitation(params) => answer,
            () = ctx.ct.cancelled() => {
                self.flows.forget(&id);
                return Ok(error_result("Not connected: the request was cancelled"));
            }
        };
        let action = match answer {
            Ok(result) => result.action,
            Err(e) => {
                self.flows.forget(&id);
                return Ok(error_result(format!(
                    "Not connected: the client did not show the request ({e})"
                )));
            }
        };
        match action {
            ElicitationAction::Accept => {}
            ElicitationAction::Decline => {
                self.flows.forget(&id);
                return Ok(error_result("Not connected: declined"));
            }
            _ => {
                self.flows.forget(&id);
                return Ok(error_result("Not connected: cancelled"));
            }
        }
        // Accept means consent, not completion: wait for the button.
        Ok(match self.flows.wait(&id, CONNECT_WAIT, &ctx.ct).await {
            Waited::Completed => text_result(CONNECTED),
            Waited::TimedOut => {
                self.flows.forget(&id);
                error_result(format!(
                    "Not connected: the page was not finished within {} s",
                    CONNECT_WAIT.as_secs()
                ))
            }
            Waited::Cancelled => {
                self.flows.forget(&id);
                error_result("Not connected: the request was cancelled")
            }
            Waited::Gone => error_result("Not connected: the request expired"),
        })
    }
}

#[tool_router]
impl DemoServer {
    #[tool(
        description = "Connect a (pretend) demo account. Asks you to open a local page and press its button (URL elicitation, request path). Answers \"Demo account connected\" after the press, or why not."
    )]
    async fn connect_demo_account(
        &self,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        if !supports_url(&ctx) {
            return Ok(error_result(format!("Not connected: {NO_URL_SUPPORT}")));
        }
        if is_mrtr(&ctx) {
            return Ok(self.mrtr_round(Kind::Connect, state, responses));
        }
        self.connect_request_path(&ctx).await
    }

    #[tool(
        description = "Read private demo data. The first call fails with -32042 (URL elicitation required); authorize on the local page, and the client's retry returns the data."
    )]
    async fn fetch_private_data(
        &self,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        if !supports_url(&ctx) {
            return Ok(error_result(format!("No data: {NO_URL_SUPPORT}")));
        }
        if is_mrtr(&ctx) {
            return Ok(self.mrtr_round(Kind::Fetch, state, responses));
        }
        match self.flows.pending_fetch() {
            Some((id, true)) => {
                self.flows.forget(&id);
                Ok(text_result(DATA))
            }
            // Still waiting for the button: the same elicitation again.
            Some((id, false)) => Err(self.url_required(&id, Kind::Fetch)),
            None => {
                let id = self.flows.start(Kind::Fetch, Some(ctx.peer.clone()));
                self.flows.set_pending_fetch(&id);
                Err(self.url_required(&id, Kind::Fetch))
            }
        }
    }

    #[tool(
        description = "A URL elicitation that never completes: its page has no working button and no completion ever arrives, so the client should mark it late and offer Continue. Once the page was opened, the retry after Continue succeeds."
    )]
    async fn never_completes(
        &self,
        ctx: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        if !supports_url(&ctx) {
            return Ok(error_result(format!("Not continued: {NO_URL_SUPPORT}")));
        }
        if is_mrtr(&ctx) {
            return Ok(self.mrtr_round(Kind::Never, state, responses));
        }
        // The error path carries no state: a call that finds the pending
        // elicitation with its page opened is the retry after the client's
        // Continue. Unopened (declined, or Continue without looking): the same
        // elicitation again.
        match self.flows.pending_never() {
            Some((id, true)) => {
                self.flows.forget(&id);
                return Ok(text_result(CONTINUED));
            }
            Some((id, false)) => return Err(self.url_required(&id, Kind::Never)),
            None => {}
        }
        let id = self.flows.start(Kind::Never, None);
        self.flows.set_pending_never(&id);
        Err(self.url_required(&id, Kind::Never))
    }

    #[tool(description = "Return the message unchanged.")]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(args.message)])
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("airlock-demo", env!("CARGO_PKG_VERSION"))
                    .with_title("Airlock demo server"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(self.versions.clone())
    }
}
