//! The commands the UI may invoke: each a thin wrapper over `airlock-core`.
//! Types cross to TypeScript through ts-rs (see `bindings` below).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use airlock_core::auth::store::RegisteredClient;
use airlock_core::elicitation::form::{FieldError, FormSchema};
use airlock_core::elicitation::FormAnswer;
use airlock_core::mcp::ConnStatus;
use airlock_core::servers::{parse_config as parse, ImportPlan, ServerDef, ServerInput, Transport};
use airlock_core::store::{AuditEvent, ElicitationRecord, HistoryPage, HistoryQuery, LogLine};
use airlock_core::url_safety::{inspect, neutralize_for_display, Inspection, Policy};
use airlock_core::{Airlock, CallOutcome, ConnectionReport, CoreError, OAuthSummary};
use serde::Serialize;
use tauri::{AppHandle, State};
use ts_rs::TS;

use crate::inbox::{Inbox, PendingKind, PendingView};
use crate::settings::Settings;

pub struct AppState {
    pub core: Arc<Airlock>,
    pub inbox: Arc<Inbox>,
    pub settings: Arc<RwLock<Settings>>,
    pub data_dir: PathBuf,
}

/// An error as the UI sees it: a stable code and a sentence to act on.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ApiError {
    pub code: String,
    pub message: String,
    /// `invalid_form` only: what is wrong with each field, by property name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fields: Option<Vec<FieldError>>,
}

impl From<CoreError> for ApiError {
    fn from(e: CoreError) -> Self {
        ApiError {
            code: e.code().to_owned(),
            message: e.to_string(),
            fields: None,
        }
    }
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError {
        code: "bad_input".into(),
        message: message.into(),
        fields: None,
    }
}

/// The answers of a form that do not fit it, as one readable sentence per
/// field ("Age must be at least 0") and field by field for the UI.
fn invalid_form(schema: Option<&FormSchema>, errors: Vec<FieldError>) -> ApiError {
    let label = |name: &str| match schema.and_then(|s| s.field(name)) {
        Some(f) => f.label(),
        None => neutralize_for_display(name, 128),
    };
    let lines: Vec<String> = errors
        .iter()
        .map(|e| format!("{} {}", label(&e.field), e.message))
        .collect();
    ApiError {
        code: "invalid_form".into(),
        message: format!(
            "Nothing was sent: {}. Fix {} and try again.",
            lines.join("; "),
            if errors.len() == 1 { "it" } else { "them" }
        ),
        fields: Some(errors),
    }
}

type ApiResult<T> = Result<T, ApiError>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AppInfo {
    pub name: String,
    /// The same version `airlock --version` prints (`airlock_core::about`).
    pub version: String,
    /// MCP protocol revisions Airlock speaks, newest first.
    pub protocol_revisions: Vec<String>,
    pub data_dir: String,
}

#[tauri::command]
pub fn app_info(app: AppHandle, state: State<'_, AppState>) -> AppInfo {
    AppInfo {
        name: app.package_info().name.clone(),
        version: airlock_core::about::VERSION.into(),
        protocol_revisions: airlock_core::about::protocol_revisions()
            .into_iter()
            .map(String::from)
            .collect(),
        data_dir: state.data_dir.display().to_string(),
    }
}

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> Settings {
    state.settings.read().map(|s| s.clone()).unwrap_or_default()
}

#[tauri::command]
pub fn save_settings(state: State<'_, AppState>, settings: Settings) -> ApiResult<Settings> {
    settings.save(&state.data_dir).map_err(bad)?;
    if let Ok(mut s) = state.settings.write() {
        *s = settings.clone();
    }
    Ok(settings)
}

/// A server and its live status.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ServerView {
    pub def: ServerDef,
    pub status: ConnStatus,
    /// OAuth state of an HTTP server (tokens stored, client registered by
    /// hand); `null` for stdio servers.
    pub oauth: Option<OAuthSummary>,
}

/// Async, so it runs off the main thread: the first look at an HTTP server
/// reads its OAuth state from the keychain.
#[tauri::command]
pub async fn list_servers(state: State<'_, AppState>) -> ApiResult<Vec<ServerView>> {
    Ok(state
        .core
        .list_servers()?
        .into_iter()
        .map(|def| ServerView {
            status: state.core.status(&def.name),
            oauth: matches!(def.transport, Transport::Http { .. })
                .then(|| state.core.oauth_summary(&def.name)),
            def,
        })
        .collect())
}

#[tauri::command]
pub fn add_server(state: State<'_, AppState>, input: ServerInput) -> ApiResult<ServerDef> {
    Ok(state.core.add_server(&input)?)
}

#[tauri::command]
pub fn update_server(state: State<'_, AppState>, input: ServerInput) -> ApiResult<ServerDef> {
    Ok(state.core.update_server(&input)?)
}

#[tauri::command]
pub fn remove_server(state: State<'_, AppState>, name: String) -> ApiResult<()> {
    Ok(state.core.remove_server(&name)?)
}

#[tauri::command]
pub fn parse_config(text: String) -> ApiResult<ImportPlan> {
    parse(&text).map_err(|e| bad(e.to_string()))
}

#[tauri::command]
pub fn import_config(
    state: State<'_, AppState>,
    text: String,
    answers: BTreeMap<String, String>,
) -> ApiResult<Vec<String>> {
    let plan = parse(&text).map_err(|e| bad(e.to_string()))?;
    let inputs = plan.resolve(&answers).map_err(|e| bad(e.to_string()))?;
    Ok(state.core.import_servers(&inputs)?)
}

#[tauri::command]
pub async fn connect(state: State<'_, AppState>, name: String) -> ApiResult<ConnectionReport> {
    Ok(state.core.connect(&name).await?)
}

#[tauri::command]
pub fn disconnect(state: State<'_, AppState>, name: String) {
    state.core.disconnect(&name);
}

/// Sign in to an HTTP server (MCP authorization): the sign-in page is shown
/// for consent first, then opened in the system browser; connects after.
#[tauri::command]
pub async fn sign_in(state: State<'_, AppState>, name: String) -> ApiResult<ConnectionReport> {
    Ok(state.core.sign_in(&name).await?)
}

/// Stop a sign-in waiting for consent or for the browser.
#[tauri::command]
pub fn cancel_sign_in(state: State<'_, AppState>, name: String) -> bool {
    state.core.cancel_sign_in(&name)
}

/// Set the OAuth client registered with the provider for a server (client
/// id, optional secret to the keychain, optional fixed redirect port), or
/// forget it with `client_id: null`. Used at the next sign-in.
#[tauri::command]
pub fn set_oauth_client(
    state: State<'_, AppState>,
    name: String,
    client_id: Option<String>,
    client_secret: Option<String>,
    redirect_port: Option<u16>,
) -> ApiResult<()> {
    let client = match client_id {
        Some(id) => Some(
            RegisteredClient::new(&id, client_secret.as_deref(), redirect_port)
                .map_err(|e| bad(format!("OAuth client: {e}")))?,
        ),
        None => None,
    };
    Ok(state.core.set_oauth_client(&name, client.as_ref())?)
}

/// Forget the server's OAuth tokens (keychain) and disconnect; whether any were stored.
#[tauri::command]
pub fn sign_out(state: State<'_, AppState>, name: String) -> ApiResult<bool> {
    Ok(state.core.logout(&name)?)
}

#[tauri::command]
pub fn server_logs(
    state: State<'_, AppState>,
    name: String,
    limit: u32,
) -> ApiResult<Vec<LogLine>> {
    Ok(state
        .core
        .store()
        .logs(&name, limit)
        .map_err(CoreError::from)?)
}

/// Tools, prompts and resources of a server, as the server sent them.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Capabilities {
    pub tools: serde_json::Value,
    pub prompts: serde_json::Value,
    pub resources: serde_json::Value,
}

#[tauri::command]
pub async fn server_details(state: State<'_, AppState>, name: String) -> ApiResult<Capabilities> {
    let core = &state.core;
    let tools = core.list_tools(&name).await?;
    // Prompts and resources are optional capabilities: absent means empty.
    let prompts = core.list_prompts(&name).await.unwrap_or_default();
    let resources = core.list_resources(&name).await.unwrap_or_default();
    Ok(Capabilities {
        tools: serde_json::to_value(tools).unwrap_or_default(),
        prompts: serde_json::to_value(prompts).unwrap_or_default(),
        resources: serde_json::to_value(resources).unwrap_or_default(),
    })
}

#[tauri::command]
pub async fn call_tool(
    state: State<'_, AppState>,
    server: String,
    tool: String,
    arguments: serde_json::Value,
) -> ApiResult<CallOutcome> {
    let args = match arguments {
        serde_json::Value::Object(m) => Some(m),
        serde_json::Value::Null => None,
        _ => return Err(bad("tool arguments must be a JSON object")),
    };
    Ok(state.core.call_tool(&server, &tool, args).await?)
}

#[tauri::command]
pub fn history(state: State<'_, AppState>, filter: HistoryQuery) -> ApiResult<HistoryPage> {
    Ok(state
        .core
        .store()
        .history(&filter)
        .map_err(CoreError::from)?)
}

#[tauri::command]
pub fn elicitations(
    state: State<'_, AppState>,
    server: Option<String>,
    limit: u32,
) -> ApiResult<Vec<ElicitationRecord>> {
    Ok(state
        .core
        .store()
        .elicitations(server.as_deref(), limit)
        .map_err(CoreError::from)?)
}

#[tauri::command]
pub fn audit_events(
    state: State<'_, AppState>,
    server: Option<String>,
    limit: u32,
) -> ApiResult<Vec<AuditEvent>> {
    Ok(state
        .core
        .store()
        .audit_events(server.as_deref(), limit)
        .map_err(CoreError::from)?)
}

#[tauri::command]
pub fn pending(state: State<'_, AppState>) -> Vec<PendingView> {
    state.inbox.list()
}

/// "accept" | "decline" | "cancel" for a consent request.
#[tauri::command]
pub fn answer_consent(
    state: State<'_, AppState>,
    record_id: i64,
    answer: String,
) -> ApiResult<bool> {
    let answer = match answer.as_str() {
        "accept" => "accept",
        "decline" => "decline",
        "cancel" => "cancel",
        _ => return Err(bad("answer must be accept, decline or cancel")),
    };
    Ok(state.inbox.answer(record_id, PendingKind::Consent, answer))
}

/// "continue" | "cancel" for a late elicitation.
#[tauri::command]
pub fn answer_late(state: State<'_, AppState>, record_id: i64, answer: String) -> ApiResult<bool> {
    let answer = match answer.as_str() {
        "continue" => "continue",
        "cancel" => "cancel",
        _ => return Err(bad("answer must be continue or cancel")),
    };
    Ok(state.inbox.answer(record_id, PendingKind::Late, answer))
}

/// The answer to a form: "accept" with `content` (a JSON object of the
/// answers), "decline" or "cancel" (`content` ignored). An accept is checked
/// against the form first; when it does not fit, the error lists each field
/// (`invalid_form`) and the form stays pending. `false` when nobody waits
/// for this answer any more.
#[tauri::command]
pub fn answer_form(
    state: State<'_, AppState>,
    record_id: i64,
    action: String,
    content: Option<serde_json::Value>,
) -> ApiResult<bool> {
    let answer = match action.as_str() {
        "accept" => match content {
            Some(serde_json::Value::Object(m)) => FormAnswer::Accept(m),
            None | Some(serde_json::Value::Null) => FormAnswer::Accept(Default::default()),
            Some(_) => return Err(bad("the answers of a form must be a JSON object")),
        },
        "decline" => FormAnswer::Decline,
        "cancel" => FormAnswer::Cancel,
        _ => return Err(bad("action must be accept, decline or cancel")),
    };
    state
        .inbox
        .answer_form(record_id, answer)
        .map_err(|errors| invalid_form(state.inbox.form(record_id).as_ref(), errors))
}

#[tauri::command]
pub fn url_check(state: State<'_, AppState>, url: String) -> Inspection {
    let allow = state
        .settings
        .read()
        .map(|s| s.allow_http_loopback)
        .unwrap_or(true);
    inspect(
        &url,
        &Policy {
            allow_http_loopback: allow,
        },
    )
}

// Every command name, shared with `build.rs`; the capability and the
// isolation hook must list the same (a unit test below checks).
#[cfg(test)]
include!("command_names.rs");

#[cfg(test)]
mod form_errors {
    use airlock_core::elicitation::form::parse_schema;
    use serde_json::json;

    #[test]
    fn invalid_form_names_each_field_by_its_label_and_keeps_the_list() {
        let schema = parse_schema(&json!({"properties": {
            "age": {"type": "integer", "title": "Your age", "minimum": 0},
            "name": {"type": "string"}
        }, "required": ["name"]}))
        .unwrap();
        let errors = schema
            .validate(&json!({"age": -1}).as_object().unwrap().clone())
            .unwrap_err();
        let e = super::invalid_form(Some(&schema), errors);
        assert_eq!(e.code, "invalid_form");
        assert_eq!(
            e.message,
            "Nothing was sent: Your age must be at least 0; name is required: give a value. Fix them and try again."
        );
        assert_eq!(e.fields.as_ref().map(Vec::len), Some(2));
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["fields"][0]["field"], "age");
        // Other errors carry no `fields` key at all.
        let other = serde_json::to_value(super::bad("x")).unwrap();
        assert!(other.get("fields").is_none());
    }
}

#[cfg(test)]
mod capability {
    #[test]
    fn handler_capability_and_hook_list_exactly_the_commands() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let main = std::fs::read_to_string(root.join("src/main.rs")).unwrap();
        let cap = std::fs::read_to_string(root.join("capabilities/default.json")).unwrap();
        let hook = std::fs::read_to_string(root.join("isolation/index.js")).unwrap();
        for c in super::COMMANDS {
            assert!(
                main.contains(&format!("commands::{c},")),
                "generate_handler! in main.rs lacks {c}"
            );
            assert!(
                hook.contains(&format!("\"{c}\"")),
                "the isolation hook does not let {c} through"
            );
            let perm = format!("\"allow-{}\"", c.replace('_', "-"));
            assert!(cap.contains(&perm), "capability lacks {perm}");
        }
        assert_eq!(cap.matches("\"allow-").count(), super::COMMANDS.len());
        let handlers = main
            .lines()
            .filter(|l| l.trim_start().starts_with("commands::") && l.ends_with(','))
            .count();
        assert_eq!(
            handlers,
            super::COMMANDS.len(),
            "generate_handler! lists more"
        );
    }
}

#[cfg(test)]
mod bindings {
    //! `cargo test` writes the TypeScript bindings the UI imports; CI fails
    //! when the committed ones differ (scripts/test.sh checks git diff).
    use super::*;

    #[test]
    fn export_typescript_bindings() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/lib/bindings");
        // Ids and times are far below 2^53: JSON numbers, not bigint.
        let cfg = ts_rs::Config::new()
            .with_out_dir(&dir)
            .with_large_int("number");
        AppInfo::export_all(&cfg).unwrap();
        ApiError::export_all(&cfg).unwrap();
        Settings::export_all(&cfg).unwrap();
        ServerView::export_all(&cfg).unwrap();
        OAuthSummary::export_all(&cfg).unwrap();
        ServerInput::export_all(&cfg).unwrap();
        ImportPlan::export_all(&cfg).unwrap();
        ConnectionReport::export_all(&cfg).unwrap();
        LogLine::export_all(&cfg).unwrap();
        Capabilities::export_all(&cfg).unwrap();
        CallOutcome::export_all(&cfg).unwrap();
        HistoryQuery::export_all(&cfg).unwrap();
        HistoryPage::export_all(&cfg).unwrap();
        ElicitationRecord::export_all(&cfg).unwrap();
        AuditEvent::export_all(&cfg).unwrap();
        PendingView::export_all(&cfg).unwrap();
        Inspection::export_all(&cfg).unwrap();
        FormSchema::export_all(&cfg).unwrap();
        FieldError::export_all(&cfg).unwrap();
        airlock_core::events::CoreEvent::export_all(&cfg).unwrap();
        // The core's secret-name rule, so the form pre-marks the same fields.
        let list = |v: &[&str]| {
            v.iter()
                .map(|w| format!("\"{w}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let words = format!(
            "// Generated from airlock_core::servers::{{SECRET_WORDS, SECRET_SUFFIXES}} by `cargo test -p airlock-desktop`. Do not edit.\n\nexport const SECRET_WORDS: readonly string[] = [{}];\n\nexport const SECRET_SUFFIXES: readonly string[] = [{}];\n",
            list(airlock_core::servers::SECRET_WORDS),
            list(airlock_core::servers::SECRET_SUFFIXES),
        );
        std::fs::write(dir.join("secretWords.ts"), words).unwrap();
    }
}
