//! One attached app, served as one MCP server (rmcp's server side): lists
//! come from the [`Catalog`](crate::catalog::Catalog), calls go to the core (`Airlock::call_tool_for`)
//! so that URL elicitations, sign-ins, rate limits, history and masking are
//! Airlock's own on every path. The app never sees a URL elicitation: it
//! gets the tool's final result, or a tool error that says why.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, DiscoverResult, ErrorCode, ErrorData,
    GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext, SubscriptionSink};
use rmcp::ServerHandler;
use tokio::sync::Semaphore;

use crate::errors::core_error;
use crate::limits;
pub(crate) use crate::routing::changes::{announce_change, follow_changes, CHANGE_COALESCE};
use crate::session::budget::{self, Own};
use crate::session::forward::{forward_call, prompt_for_the_app, resource_for_the_app, tool_error};
use crate::session::paging::page;
use crate::session::shared::Gateway;

/// The app a request's token belongs to, in the request's extensions
/// (put there by [`crate::wire::http`], which checked the token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpClient(pub String);

/// An app's own name (clientInfo.name) made into an app name: what
/// [`crate::wire::hello::check_app_name`] would refuse becomes `_`,
/// bounded.
pub fn app_name_from_hello(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .take(airlock_core::apps::MAX_APP_NAME_CHARS)
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cleaned = cleaned.trim_start_matches('-').to_owned();
    if cleaned.is_empty() {
        "unnamed".to_owned()
    } else {
        cleaned
    }
}

/// Numbers the attached apps (for form routing).
static NEXT_APP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// One app's session.
pub struct AppSession {
    pub(crate) gateway: Arc<Gateway>,
    pub(crate) id: u64,
    /// `--app NAME` from the hello; else the app's own name is used.
    app: Option<String>,
    /// The app's slots for requests in flight ([`crate::session::requests`]).
    pub(crate) in_flight: Arc<Semaphore>,
    /// The app's open `subscriptions/listen` streams (2026-07-28).
    pub(crate) subscriptions: Arc<Mutex<Vec<SubscriptionSink>>>,
    /// Over HTTP: the app (token) this session belongs to, from its
    /// first request on.
    bound: Option<Mutex<Option<String>>>,
    /// Resources servers linked in this app's tool results.
    links: Arc<crate::session::links::Links>,
}

impl AppSession {
    pub fn new(gateway: Arc<Gateway>, app: Option<String>) -> Self {
        Self {
            gateway,
            id: NEXT_APP.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            app,
            in_flight: Arc::new(Semaphore::new(limits::MAX_CALLS_IN_FLIGHT_PER_APP)),
            subscriptions: Arc::new(Mutex::new(Vec::new())),
            bound: None,
            links: Arc::default(),
        }
    }

    /// A session over HTTP: its app is the one whose token its requests carry.
    pub fn new_http(gateway: Arc<Gateway>) -> Self {
        let mut s = Self::new(gateway, None);
        s.bound = Some(Mutex::new(None));
        s
    }

    /// Who is asking: over HTTP the token's app (the session is bound to
    /// the first one; another app's token is refused), else
    /// [`Self::client_name`].
    pub(crate) fn who(&self, context: &RequestContext<RoleServer>) -> Result<String, ErrorData> {
        let Some(bound) = &self.bound else {
            return Ok(self.client_name(context));
        };
        let app = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.extensions.get::<HttpClient>())
            .map(|c| c.0.clone())
            .ok_or_else(|| ErrorData::invalid_request("no app token on this request", None))?;
        let mut bound = bound.lock().unwrap_or_else(|p| p.into_inner());
        match &*bound {
            Some(b) if *b != app => Err(ErrorData::invalid_request(
                "this session belongs to another app",
                None,
            )),
            Some(_) => Ok(app),
            None => {
                *bound = Some(app.clone());
                Ok(app)
            }
        }
    }

    fn profile(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<(String, airlock_core::apps::AppProfile), ErrorData> {
        let (who, profile, _) = self.standing(context)?;
        Ok((who, profile))
    }

    /// Who is asking, what it sees, and whether the user paused it.
    pub(crate) fn standing(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<(String, airlock_core::apps::AppProfile, bool), ErrorData> {
        let who = self.who(context)?;
        let (p, paused) = crate::catalog::profile::standing(&self.gateway.core, &who);
        Ok((who, p, paused))
    }

    /// A request that would reach a server, from a paused app: refused.
    fn refuse_if_paused(&self, context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let (who, _, paused) = self.standing(context)?;
        if let Some(why) = self.gateway.core.app_refused(&who) {
            return Err(ErrorData::invalid_request(format!("Airlock: {why}"), None));
        }
        if paused {
            return Err(ErrorData::invalid_request(
                format!("Airlock: {}", airlock_core::apps::PAUSED_ERROR),
                None,
            ));
        }
        Ok(())
    }

    /// The name history records for this app's calls.
    fn client_name(&self, context: &RequestContext<RoleServer>) -> String {
        if let Some(c) = &self.app {
            return c.clone();
        }
        context
            .client_info()
            .map(|i| app_name_from_hello(&i.name))
            .unwrap_or_else(|| "unnamed".to_owned())
    }

    /// Wait (bounded) until the host's first connects are done, so that an
    /// app attaching at start-up sees every server that could connect.
    async fn settled(&self) {
        let mut ready = self.gateway.started.clone();
        let _ = tokio::time::timeout(limits::STARTUP_WAIT, ready.wait_for(|done| *done)).await;
        // Each ready server's first list, bounded: a slow one arrives later
        // with list_changed instead of holding this app's handshake.
        let core = &self.gateway.core;
        let ready: Vec<String> = core
            .list_servers()
            .unwrap_or_default()
            .into_iter()
            .map(|d| d.name)
            .filter(|n| {
                matches!(
                    core.status(n),
                    airlock_core::status::ConnStatus::Ready { .. }
                )
            })
            .collect();
        self.gateway
            .catalog
            .first_lists(&ready, limits::FIRST_LIST_WAIT)
            .await;
    }
}

/// The app detached: its log lines and resource subscriptions end
/// (crate::routing).
impl Drop for AppSession {
    fn drop(&mut self) {
        let router = self.gateway.router.clone();
        router.logs.remove(self.id);
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (core, id) = (self.gateway.core.clone(), self.id);
        rt.spawn(async move { router.resources.detach(&core, id).await });
    }
}

#[allow(deprecated)] // logging: 2025-11-25 apps use it
fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder()
        .enable_tools()
        .enable_tool_list_changed()
        .enable_prompts()
        .enable_prompts_list_changed()
        .enable_resources()
        .enable_resources_list_changed()
        .enable_resources_subscribe()
        .enable_logging()
        .enable_completions()
        .build()
}

/// What a call's arguments are checked against before it reaches its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Nothing: the server checks its own (a direct call).
    None,
    /// The tool's input schema (a call through `airlock__call_tool`).
    Schema,
}

impl AppSession {
    /// The one path of a tool call to a server, whichever way the app made
    /// it (directly, or through `airlock__call_tool`): the app's in-flight
    /// slot, its profile, a hold, a pause (refused and recorded), the
    /// arguments' `check`, then forwarded with forms and progress.
    pub(crate) async fn call_exposed(
        &self,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
        check: Check,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let slot = self.slot()?;
        let (app, profile, paused) = self.standing(context)?;
        // An app the team's policy keeps out: told which rule, nothing sent.
        if let Some(why) = self.gateway.core.app_refused(&app) {
            return Err(ErrorData::invalid_request(format!("Airlock: {why}"), None));
        }
        let view = self.gateway.catalog.view();
        let route = view
            .tool(name)
            .filter(|r| profile.allows_tool(&r.server, &r.name))
            .cloned();
        let Some(route) = route else {
            // A tool the app knew that is held now (changed since the user
            // approved it, or poisoned): the reason, as a tool error.
            if let Some(held) = view
                .held_tool(name)
                .filter(|h| profile.allows_server(&h.server))
            {
                return Ok(tool_error(format!("Airlock: {}", held.why)));
            }
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}: tools/list shows the tools Airlock serves now",
                    truncate(name, 200)
                ),
                None,
            ));
        };
        let misfit = match (check, view.tool_def(name)) {
            (Check::Schema, Some(tool)) => budget::check_arguments(tool, arguments.as_ref()).err(),
            _ => None,
        };
        drop(view);
        // Paused by the user: nothing reaches the server; history says so.
        if paused {
            let why = airlock_core::apps::PAUSED_ERROR;
            let _ = self.gateway.core.record_refused_call(
                &app,
                &route.server,
                &route.name,
                arguments.as_ref(),
                why,
            );
            return Ok(tool_error(format!("Airlock: {why}")));
        }
        // Arguments that do not fit: nothing reaches the server; history says so.
        if let Some(why) = misfit {
            let _ = self.gateway.core.record_refused_call(
                &app,
                &route.server,
                &route.name,
                arguments.as_ref(),
                &why,
            );
            return Ok(budget::refusal(&why));
        }
        // A form this call's server asks goes to this app, if it can show
        // it (crate::session::requests).
        let (core, progress, peer, links) = (
            self.gateway.core.clone(),
            context.meta.get_progress_token(),
            context.peer.clone(),
            self.links.clone(),
        );
        self.with_forms(&app, slot, context, move |caller| {
            forward_call(core, caller, route, links, arguments, progress, peer)
        })
        .await
    }
}

/// Servers' tools with an MCP App pass it on (crate::catalog::apps): the
/// gateway says so as such a server does, so an app that renders Apps
/// knows to look.
fn declare_apps(capabilities: &mut ServerCapabilities, view: &crate::catalog::View) {
    use crate::catalog::apps;
    if view.tools.iter().any(|t| !apps::app_uris(t).is_empty()) {
        capabilities
            .extensions
            .get_or_insert_default()
            .insert(apps::UI_EXTENSION.to_owned(), Default::default());
    }
}

impl ServerHandler for AppSession {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(capabilities())
            .with_server_info(Implementation::new(
                "airlock-gateway",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(self.gateway.catalog.instructions())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // Over HTTP the session is bound to the initializing app's token.
        let (_, profile) = self.profile(&context)?;
        context.peer.set_peer_info(request.clone());
        self.settled().await;
        // Fresh instructions for get_info.
        let view = self.gateway.catalog.view();
        let mut result = self.negotiate_initialize(&request)?;
        // Only the servers this app's profile shows are named.
        result.instructions = Some(view.instructions_for(|s| profile.allows_server(s)));
        declare_apps(&mut result.capabilities, &view);
        Ok(result)
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        crate::routing::ask::spend_request_id_zero(&context.peer);
        // Over HTTP rmcp runs the session: follow the catalog from here.
        if self.bound.is_some() {
            tokio::spawn(follow_changes(
                self.gateway.catalog.clone(),
                context.peer,
                self.subscriptions.clone(),
            ));
        }
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let (_, profile) = self.profile(&context)?;
        self.settled().await;
        let view = self.gateway.catalog.view();
        let mut result = DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        );
        result.instructions = Some(view.instructions_for(|s| profile.allows_server(s)));
        declare_apps(&mut result.capabilities, &view);
        Ok(result)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let (app, profile) = self.profile(&context)?;
        let view = self.gateway.catalog.view();
        let listed = crate::session::budget::listed(&self.gateway.core, &view, &profile, &app);
        let (tools, next) = page(&listed, request.as_ref())?;
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next;
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A 2026-07-28 app's retry with its answer to a form: the call that
        // asked it goes on (crate::session::rounds).
        if let Some(state) = request.request_state.as_deref() {
            return self
                .resume(state, request.input_responses.as_ref(), &context)
                .await;
        }
        match crate::session::budget::own(&request.name) {
            Some(Own::Find) => {
                let (_, profile) = self.profile(&context)?;
                let view = self.gateway.catalog.view();
                let catalog = &self.gateway.catalog;
                return Ok(budget::find(
                    catalog,
                    &view,
                    &profile,
                    request.arguments.as_ref(),
                ));
            }
            Some(Own::Call) => {
                let (name, arguments) = match budget::call_request(request.arguments.as_ref()) {
                    Ok(r) => r,
                    Err(why) => return Ok(budget::refusal(&why)),
                };
                return self
                    .call_exposed(&name, arguments, Check::Schema, &context)
                    .await;
            }
            None => {}
        }
        self.call_exposed(&request.name, request.arguments, Check::None, &context)
            .await
    }
    #[allow(deprecated)] // logging: 2025-11-25 apps use it
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let (app, _) = self.profile(&context)?;
        self.gateway.router.logs.set(
            &self.gateway.core,
            self.id,
            &context.peer,
            request.level,
            app,
        );
        Ok(())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let (_, profile) = self.profile(&context)?;
        let view = self.gateway.catalog.view();
        let (prompts, next) = page(
            &crate::catalog::profile::prompts(&view, &profile),
            request.as_ref(),
        )?;
        let mut result = ListPromptsResult::with_all_items(prompts);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if let Some(state) = request.request_state.as_deref() {
            return self
                .resume(state, request.input_responses.as_ref(), &context)
                .await;
        }
        self.refuse_if_paused(&context)?;
        let slot = self.slot()?;
        let (app, profile) = self.profile(&context)?;
        let view = self.gateway.catalog.view();
        let route = view
            .prompt(&request.name)
            .filter(|r| profile.allows_server(&r.server))
            .cloned();
        let Some(route) = route else {
            if let Some(held) = view
                .held_prompt(&request.name)
                .filter(|h| profile.allows_server(&h.server))
            {
                return Err(ErrorData::invalid_params(
                    format!("Airlock: {}", held.why),
                    None,
                ));
            }
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt {:?}: prompts/list shows the prompts Airlock serves now",
                    truncate(&request.name, 200)
                ),
                None,
            ));
        };
        drop(view);
        let (core, peer) = (self.gateway.core.clone(), context.peer.clone());
        let relay = crate::routing::progress::Relay::new(context.meta.get_progress_token());
        self.with_forms(&app, slot, &context, move |caller| async move {
            let sender = crate::routing::progress::Relay::sender(relay.as_ref());
            let get = core.get_prompt_for(
                &caller,
                &route.server,
                &route.name,
                request.arguments,
                sender,
            );
            crate::routing::progress::forwarding(get, relay.as_ref(), &peer)
                .await
                .map(|r| GetPromptResponse::Complete(prompt_for_the_app(r)))
                .map_err(|e| core_error(&e))
        })
        .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let (_, profile) = self.profile(&context)?;
        let view = self.gateway.catalog.view();
        let (resources, next) = page(
            &crate::catalog::profile::resources(&view, &profile),
            request.as_ref(),
        )?;
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let (_, profile) = self.profile(&context)?;
        let view = self.gateway.catalog.view();
        let (templates, next) = page(
            &crate::catalog::profile::templates(&view, &profile),
            request.as_ref(),
        )?;
        let mut result = ListResourceTemplatesResult::with_all_items(templates);
        result.next_cursor = next;
        Ok(result)
    }

    async fn complete(
        &self,
        mut request: rmcp::model::CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, ErrorData> {
        self.refuse_if_paused(&context)?;
        let (_, profile) = self.profile(&context)?;
        let view = self.gateway.catalog.view();
        // The prompt's or template's own server, under its own name there.
        let server = crate::catalog::templates::completion_server(&view, &mut request.r#ref);
        drop(view);
        let Some(server) = server.filter(|s| profile.allows_server(s)) else {
            return Err(ErrorData::invalid_params(
                "unknown prompt or resource template: prompts/list and resources/templates/list show what Airlock serves now",
                None,
            ));
        };
        request.meta = None;
        let complete = self.gateway.core.complete(&server, request);
        tokio::select! {
            r = complete => r.map_err(|e| core_error(&e)),
            () = context.ct.cancelled() => Err(ErrorData::new(ErrorCode::INVALID_REQUEST, "cancelled by the app", None)),
        }
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if let Some(state) = request.request_state.as_deref() {
            return self
                .resume(state, request.input_responses.as_ref(), &context)
                .await;
        }
        self.refuse_if_paused(&context)?;
        let slot = self.slot()?;
        let (app, profile) = self.profile(&context)?;
        let view = self.gateway.catalog.view();
        // The URI's owner: the server that lists it (or whose template or
        // App it is), else the one recorded as owning it.
        let owner = view.resource_route(&request.uri).or_else(|| {
            self.gateway
                .catalog
                .recorded_owner(&request.uri)
                .map(|server| crate::catalog::Route {
                    server,
                    name: request.uri.clone(),
                })
        });
        // A link a server returned to this app is read from that server,
        // unless the URI is another server's: the owner wins (a link must
        // not make one server's page or data pass for another's), and the
        // link is forgotten, logged and audited.
        let route = match (self.links.server_of(&request.uri), owner) {
            (Some(linker), Some(owner)) if owner.server != linker => {
                self.links.forget(&request.uri);
                crate::catalog::log(&format!(
                    "{linker} linked {} for app {app}, a URI {} owns: read from {}",
                    truncate(&request.uri, 200),
                    owner.server,
                    owner.server
                ));
                self.gateway
                    .core
                    .note_foreign_link(&linker, &owner.server, &request.uri, &app);
                Some(owner)
            }
            (Some(linker), _) => Some(crate::catalog::Route {
                server: linker,
                name: request.uri.clone(),
            }),
            (None, owner) => owner,
        }
        .filter(|r| profile.allows_server(&r.server));
        let Some(route) = route else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "unknown resource {:?}: resources/list shows the resources Airlock serves now",
                    truncate(&request.uri, 200)
                ),
                None,
            ));
        };
        drop(view);
        let (core, peer) = (self.gateway.core.clone(), context.peer.clone());
        let relay = crate::routing::progress::Relay::new(context.meta.get_progress_token());
        self.with_forms(&app, slot, &context, move |caller| async move {
            let sender = crate::routing::progress::Relay::sender(relay.as_ref());
            let read = core.read_resource_for(&caller, &route.server, &route.name, sender);
            crate::routing::progress::forwarding(read, relay.as_ref(), &peer)
                .await
                .map(|r| ReadResourceResponse::Complete(resource_for_the_app(r)))
                .map_err(|e| core_error(&e))
        })
        .await
    }

    #[allow(deprecated)] // resources/subscribe: 2025-11-25 apps use it
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.refuse_if_paused(&context)?;
        let (app, profile) = self.profile(&context)?;
        let wanted = crate::routing::subscribe::Wanted {
            subscriber: crate::routing::subscribe::Subscriber::session(self.id),
            app,
            server: String::new(),
            uri: request.uri,
        };
        self.subscribe_resource(wanted, &profile, context.peer)
            .await
    }

    #[allow(deprecated)] // resources/unsubscribe: 2025-11-25 apps use it
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let core = &self.gateway.core;
        self.gateway
            .router
            .resources
            .unsubscribe(core, self.id, &request.uri)
            .await;
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(crate::routing::listen::accepted(requested))
    }

    /// A listen stream: list changes (crate::routing::changes) and the updates of
    /// the resources it names (crate::session::subscriptions), until it closes.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        {
            let mut subs = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
            if subs.len() >= limits::MAX_SUBSCRIPTIONS_PER_APP {
                return Err(ErrorData::new(
                    ErrorCode::INVALID_REQUEST,
                    format!(
                        "too many open subscriptions from this app (at most {})",
                        limits::MAX_SUBSCRIPTIONS_PER_APP
                    ),
                    None,
                ));
            }
            subs.push(context.sink().clone());
        }
        let served = self.serve_listen(&context).await;
        let id = context.sink().id().clone();
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|s| s.id() != &id);
        served
    }
}

fn truncate(text: &str, max_chars: usize) -> Cow<'_, str> {
    if text.chars().count() <= max_chars {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().take(max_chars).chain(['…']).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::hello::check_app_name;

    #[test]
    fn an_apps_own_name_becomes_a_plain_client_name() {
        assert_eq!(app_name_from_hello("Claude Code\u{202e}"), "Claude_Code_");
        assert_eq!(app_name_from_hello("--"), "unnamed");
        assert!(check_app_name(&app_name_from_hello(&"é".repeat(500))).is_ok());
    }
}
