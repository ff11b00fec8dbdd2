//! What each command the UI may invoke does: a thin function over
//! `airlock-core` per command declared in `api_declaration.rs`, taking a
//! `Ctx` and the declared arguments (`api.rs` generates the Tauri command
//! that calls it). The commands of a page with a module of its own
//! (`apps_page`, `app_config`, `pin_review`, `startup`) are re-exported
//! here, so every declared command has its function in this one namespace.
//! `Ctx`, `AppState` and the error type are in `ctx.rs`. Types cross to
//! TypeScript through ts-rs (see `bindings` below).

use std::collections::BTreeMap;

use airlock_core::activity::{ActivityOverview, ActivityQuery};
use airlock_core::audit_export::ExportFormat;
use airlock_core::auth::store::RegisteredClient;
use airlock_core::elicitation::form::{FieldError, FormSchema};
use airlock_core::elicitation::FormAnswer;
use airlock_core::mcp::ConnStatus;
use airlock_core::servers::{parse_config as parse, ImportPlan, ServerDef, ServerInput, Transport};
use airlock_core::store::{
    AuditPage, AuditQuery, ElicitationPage, ElicitationQuery, ElicitationRecord, HistoryPage,
    HistoryQuery, LogLine,
};
use airlock_core::url_safety::{inspect, neutralize_for_display, Inspection, Policy};
use airlock_core::{CallOutcome, ConnectionReport, OAuthSummary};
use serde::Serialize;
use ts_rs::TS;

use crate::ctx::{ApiError, ApiResult, Ctx};
// The Apps page: connecting apps, their profiles and pauses; start at login.
pub use crate::app_config::{apply_app, plan_app};
pub use crate::apps_page::{apps, autostart, set_app_paused, set_app_profile, set_autostart};
use crate::inbox::{PendingKind, PendingView};
// The Catalog page: registries read, searched, servers installed locked.
pub use crate::catalog_page::{
    cancel_install, cancel_update, catalog_refresh, catalog_search, catalog_size, catalog_updates,
    commit_install, commit_update, first_sight, first_sight_done, prepare_install, prepare_update,
};
// The Review page: changes of pinned tools and prompts, URI owners.
pub use crate::pin_review::{
    choose_uri_owner, decide_pin_change, pin_counts, pin_history, pin_review, take_review_request,
    uri_conflicts,
};
use crate::settings::Settings;
// The window's first paint (issue 15's start benchmark).
pub use crate::startup::startup_painted;

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AppInfo {
    pub name: String,
    /// The same version `airlock --version` prints (`airlock_core::about`).
    pub version: String,
    /// MCP protocol revisions Airlock speaks, newest first.
    pub protocol_revisions: Vec<String>,
    pub data_dir: String,
}

pub fn app_info(cx: Ctx<'_>) -> ApiResult<AppInfo> {
    Ok(AppInfo {
        name: cx.app.package_info().name.clone(),
        version: airlock_core::about::VERSION.into(),
        protocol_revisions: airlock_core::about::protocol_revisions()
            .into_iter()
            .map(String::from)
            .collect(),
        data_dir: cx.state.data_dir.display().to_string(),
    })
}

pub fn get_settings(cx: Ctx<'_>) -> ApiResult<Settings> {
    Ok(cx
        .state
        .settings
        .read()
        .map(|s| s.clone())
        .unwrap_or_default())
}

pub fn save_settings(cx: Ctx<'_>, mut settings: Settings) -> ApiResult<Settings> {
    // A form without the mark keeps the one there is.
    if settings.consent_mark.trim().is_empty() {
        if let Ok(s) = cx.state.settings.read() {
            settings.consent_mark = s.consent_mark.clone();
        }
    }
    settings
        .save(&cx.state.data_dir)
        .map_err(ApiError::bad_input)?;
    crate::native_dialog::set_mark(&settings.consent_mark);
    // Deadlines, limits and the URL policy apply to the next request.
    cx.state.core.set_broker_settings(settings.broker())?;
    if let Ok(mut s) = cx.state.settings.write() {
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
    /// Tools approved and off, and the apps that used it lately.
    pub glance: airlock_core::store::ServerGlance,
}

/// Async, so it runs off the main thread: the first look at an HTTP server
/// reads its OAuth state from the keychain.
pub async fn list_servers(cx: Ctx<'_>) -> ApiResult<Vec<ServerView>> {
    crate::startup::mark(crate::startup::Milestone::ListAsked);
    let defs = cx.state.core.list_servers()?;
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    let mut glances = cx
        .state
        .core
        .server_glances(&names)
        .unwrap_or_default()
        .into_iter();
    Ok(defs
        .into_iter()
        .map(|def| ServerView {
            status: cx.state.core.status(&def.name),
            glance: glances.next().unwrap_or_default(),
            oauth: matches!(def.transport, Transport::Http { .. })
                .then(|| cx.state.core.oauth_summary(&def.name)),
            def,
        })
        .collect())
}

pub fn add_server(cx: Ctx<'_>, input: ServerInput) -> ApiResult<ServerDef> {
    Ok(cx.state.core.add_server(&input)?)
}

pub fn update_server(cx: Ctx<'_>, input: ServerInput) -> ApiResult<ServerDef> {
    Ok(cx.state.core.update_server(&input)?)
}

pub fn remove_server(cx: Ctx<'_>, name: String) -> ApiResult<()> {
    Ok(cx.state.core.remove_server(&name)?)
}

pub fn parse_config(_cx: Ctx<'_>, text: String) -> ApiResult<ImportPlan> {
    parse(&text).map_err(|e| ApiError::bad_input(e.to_string()))
}

pub fn import_config(
    cx: Ctx<'_>,
    text: String,
    answers: BTreeMap<String, String>,
) -> ApiResult<Vec<String>> {
    let plan = parse(&text).map_err(|e| ApiError::bad_input(e.to_string()))?;
    let inputs = plan
        .resolve(&answers)
        .map_err(|e| ApiError::bad_input(e.to_string()))?;
    Ok(cx.state.core.import_servers(&inputs)?)
}

pub async fn connect(cx: Ctx<'_>, name: String) -> ApiResult<ConnectionReport> {
    Ok(cx.state.core.connect(&name).await?)
}

pub fn disconnect(cx: Ctx<'_>, name: String) -> ApiResult<()> {
    cx.state.core.disconnect(&name);
    Ok(())
}

/// Sign in to an HTTP server (MCP authorization): the sign-in page is shown
/// for consent first, then opened in the system browser; connects after.
pub async fn sign_in(cx: Ctx<'_>, name: String) -> ApiResult<ConnectionReport> {
    Ok(cx.state.core.sign_in(&name).await?)
}

/// Stop a sign-in waiting for consent or for the browser.
pub fn cancel_sign_in(cx: Ctx<'_>, name: String) -> ApiResult<bool> {
    Ok(cx.state.core.cancel_sign_in(&name))
}

/// Set the OAuth client registered with the provider for a server (client
/// id, optional secret to the keychain, optional fixed redirect port), or
/// forget it with `client_id: null`. Used at the next sign-in.
pub fn set_oauth_client(
    cx: Ctx<'_>,
    name: String,
    client_id: Option<String>,
    client_secret: Option<String>,
    redirect_port: Option<u16>,
) -> ApiResult<()> {
    let client = match client_id {
        Some(id) => Some(
            RegisteredClient::new(&id, client_secret.as_deref(), redirect_port)
                .map_err(|e| ApiError::bad_input(format!("OAuth client: {e}")))?,
        ),
        None => None,
    };
    Ok(cx.state.core.set_oauth_client(&name, client.as_ref())?)
}

/// Pause (disconnect, ask nothing, remembered) or resume a server.
pub fn tools_off(cx: Ctx<'_>, server: String) -> ApiResult<Vec<String>> {
    Ok(cx.state.core.tools_off(&server)?)
}

pub fn set_tool_on(cx: Ctx<'_>, server: String, tool: String, on: bool) -> ApiResult<bool> {
    Ok(cx.state.core.set_tool_on(&server, &tool, on)?)
}

pub fn set_paused(cx: Ctx<'_>, name: String, paused: bool) -> ApiResult<()> {
    Ok(cx.state.core.set_paused(&name, paused)?)
}

/// Forget the server's OAuth tokens (keychain) and disconnect; whether any were stored.
pub fn sign_out(cx: Ctx<'_>, name: String) -> ApiResult<bool> {
    Ok(cx.state.core.logout(&name)?)
}

/// A request for an exception to the team's policy: the text to send and,
/// when the policy names an email, a `mailto:` link.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PolicyException {
    pub text: String,
    pub mailto: Option<String>,
}

/// The exception request for a server the team's policy refuses.
pub fn policy_exception(
    cx: Ctx<'_>,
    server: String,
    reason: String,
) -> ApiResult<Option<PolicyException>> {
    if reason.len() > 4096 {
        return Err(ApiError::bad_input("the reason is over 4 KiB"));
    }
    Ok(cx
        .state
        .core
        .policy_exception(&server, &reason)?
        .map(|(text, mailto)| PolicyException { text, mailto }))
}

pub fn server_room(cx: Ctx<'_>, name: String) -> ApiResult<airlock_core::rooms::RoomReport> {
    Ok(cx.state.core.room(&name)?)
}

pub fn change_room(
    cx: Ctx<'_>,
    name: String,
    change: airlock_core::rooms::RoomChange,
) -> ApiResult<airlock_core::rooms::RoomReport> {
    Ok(cx.state.core.change_room(&name, &change)?)
}

pub fn server_logs(cx: Ctx<'_>, name: String, limit: u32) -> ApiResult<Vec<LogLine>> {
    Ok(cx.state.core.logs(&name, limit)?)
}

/// Tools, prompts and resources of a server, as the server sent them.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Capabilities {
    pub tools: serde_json::Value,
    pub prompts: serde_json::Value,
    pub resources: serde_json::Value,
}

pub async fn server_details(cx: Ctx<'_>, name: String) -> ApiResult<Capabilities> {
    let core = &cx.state.core;
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

pub async fn call_tool(
    cx: Ctx<'_>,
    server: String,
    tool: String,
    arguments: serde_json::Value,
) -> ApiResult<CallOutcome> {
    let args = match arguments {
        serde_json::Value::Object(m) => Some(m),
        serde_json::Value::Null => None,
        _ => return Err(ApiError::bad_input("tool arguments must be a JSON object")),
    };
    // A version whose change waits for review does not run from the window
    // either (apps do not see it at all).
    let held = cx
        .state
        .core
        .pending_pin_changes(Some(&server))?
        .iter()
        .any(|c| c.kind == airlock_core::pins::PinKind::Tool && c.name == tool);
    if held {
        return Err(ApiError::bad_input(format!(
            "{tool} cannot run: its change waits for your review (Tool changes page)"
        )));
    }
    Ok(cx.state.core.call_tool(&server, &tool, args).await?)
}

pub async fn history(cx: Ctx<'_>, filter: HistoryQuery) -> ApiResult<HistoryPage> {
    Ok(cx.state.core.history(&filter)?)
}

/// History's Activity tab: requests and calls per day, domains, who asks most.
pub fn activity(cx: Ctx<'_>, query: ActivityQuery) -> ApiResult<ActivityOverview> {
    Ok(cx.state.core.activity(&query)?)
}

pub async fn elicitations(
    cx: Ctx<'_>,
    server: Option<String>,
    limit: u32,
) -> ApiResult<Vec<ElicitationRecord>> {
    Ok(cx.state.core.elicitations(server.as_deref(), limit)?)
}

pub async fn elicitation_page(cx: Ctx<'_>, filter: ElicitationQuery) -> ApiResult<ElicitationPage> {
    Ok(cx.state.core.elicitation_page(&filter)?)
}

pub async fn audit_page(cx: Ctx<'_>, filter: AuditQuery) -> ApiResult<AuditPage> {
    Ok(cx.state.core.audit_page(&filter)?)
}

/// Where an export went, and how many events it holds.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ExportDone {
    pub path: String,
    #[ts(type = "number")]
    pub events: u64,
}

/// The save dialog is Airlock's own (the window never names a path), then
/// the events are written off the async runtime, page by page.
pub async fn export_audit(
    cx: Ctx<'_>,
    filter: AuditQuery,
    format: ExportFormat,
) -> ApiResult<Option<ExportDone>> {
    use tauri_plugin_dialog::DialogExt;
    let (tx, rx) = tokio::sync::oneshot::channel();
    cx.app
        .dialog()
        .file()
        .set_title("Export the audit trail")
        .set_file_name(format!("airlock-audit.{}", format.extension()))
        .add_filter(format.extension().to_uppercase(), &[format.extension()])
        .save_file(move |picked| {
            let _ = tx.send(picked);
        });
    let Some(path) = rx.await.ok().flatten().and_then(|p| p.into_path().ok()) else {
        return Ok(None);
    };
    let core = cx.state.core.clone();
    let target = path.clone();
    let events = tauri::async_runtime::spawn_blocking(move || -> Result<u64, String> {
        let file = std::fs::File::create(&target)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
        let mut out = std::io::BufWriter::new(file);
        core.export_audit(&filter, format, &mut out)
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| ApiError::bad_input(e.to_string()))?
    .map_err(ApiError::bad_input)?;
    Ok(Some(ExportDone {
        path: path.display().to_string(),
        events,
    }))
}

pub async fn audit_kinds(cx: Ctx<'_>) -> ApiResult<Vec<String>> {
    Ok(cx.state.core.audit_kinds()?)
}

pub async fn pending(cx: Ctx<'_>) -> ApiResult<Vec<PendingView>> {
    Ok(cx.state.inbox.list())
}

/// "accept" | "decline" | "cancel" for a consent request.
pub fn answer_consent(cx: Ctx<'_>, record_id: i64, answer: String) -> ApiResult<bool> {
    let answer = match answer.as_str() {
        "accept" => "accept",
        "decline" => "decline",
        "cancel" => "cancel",
        _ => {
            return Err(ApiError::bad_input(
                "answer must be accept, decline or cancel",
            ))
        }
    };
    Ok(cx
        .state
        .inbox
        .answer(record_id, PendingKind::Consent, answer))
}

/// "continue" | "cancel" for a late elicitation.
pub fn answer_late(cx: Ctx<'_>, record_id: i64, answer: String) -> ApiResult<bool> {
    let answer = match answer.as_str() {
        "continue" => "continue",
        "cancel" => "cancel",
        _ => return Err(ApiError::bad_input("answer must be continue or cancel")),
    };
    Ok(cx.state.inbox.answer(record_id, PendingKind::Late, answer))
}

/// The answer to a form: "accept" with `content` (a JSON object of the
/// answers), "decline" or "cancel" (`content` ignored). An accept is checked
/// against the form first; when it does not fit, the error lists each field
/// (`invalid_form`) and the form stays pending. `false` when nobody waits
/// for this answer any more.
pub fn answer_form(
    cx: Ctx<'_>,
    record_id: i64,
    action: String,
    content: Option<serde_json::Value>,
) -> ApiResult<bool> {
    let answer = match action.as_str() {
        "accept" => match content {
            Some(serde_json::Value::Object(m)) => FormAnswer::Accept(m),
            None | Some(serde_json::Value::Null) => FormAnswer::Accept(Default::default()),
            Some(_) => {
                return Err(ApiError::bad_input(
                    "the answers of a form must be a JSON object",
                ))
            }
        },
        "decline" => FormAnswer::Decline,
        "cancel" => FormAnswer::Cancel,
        _ => {
            return Err(ApiError::bad_input(
                "action must be accept, decline or cancel",
            ))
        }
    };
    cx.state
        .inbox
        .answer_form(record_id, answer)
        .map_err(|errors| invalid_form(cx.state.inbox.form(record_id).as_ref(), errors))
}

pub fn url_check(cx: Ctx<'_>, url: String) -> ApiResult<Inspection> {
    let allow = cx
        .state
        .settings
        .read()
        .map(|s| s.allow_http_loopback)
        .unwrap_or(true);
    Ok(inspect(
        &url,
        &Policy {
            allow_http_loopback: allow,
        },
    ))
}

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
        let other = serde_json::to_value(super::ApiError::bad_input("x")).unwrap();
        assert!(other.get("fields").is_none());
    }
}

#[cfg(test)]
mod capability {
    //! `build.rs` writes the capability and the isolation hook's allow-list
    //! from the declaration; these check what it wrote (and what is
    //! committed: scripts/test.sh fails on a diff) against the declaration
    //! the app was compiled with, and that the hook really uses that list.
    use std::collections::BTreeSet;

    use crate::api::{COMMANDS, CORE_PLUGIN_CALLS};

    fn read(path: &str) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(root.join(path)).unwrap()
    }

    #[test]
    fn commands_are_declared_once_each() {
        let unique: BTreeSet<&str> = COMMANDS.iter().copied().collect();
        assert_eq!(unique.len(), COMMANDS.len(), "a command is declared twice");
    }

    #[test]
    fn the_capability_grants_exactly_the_declared_commands_and_plugin_calls() {
        let cap: serde_json::Value =
            serde_json::from_str(&read("capabilities/default.json")).unwrap();
        assert_eq!(cap["windows"], serde_json::json!(["main"]));
        let granted: BTreeSet<String> = cap["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_owned())
            .collect();
        let mut declared: BTreeSet<String> = COMMANDS
            .iter()
            .map(|c| format!("allow-{}", c.replace('_', "-")))
            .collect();
        for (plugin, calls) in CORE_PLUGIN_CALLS {
            declared.extend(calls.iter().map(|c| format!("core:{plugin}:allow-{c}")));
        }
        assert_eq!(granted, declared);
    }

    #[test]
    fn the_isolation_hook_lets_through_exactly_the_declared_calls() {
        let allowed = read("isolation/allowed.js");
        let list = |constant: &str| -> BTreeSet<String> {
            let start = format!("const {constant} = new Set(");
            let line = allowed
                .lines()
                .find_map(|l| l.strip_prefix(start.as_str()))
                .unwrap_or_else(|| panic!("allowed.js lacks {constant}"));
            let json = line.strip_suffix(");").unwrap();
            serde_json::from_str(json).unwrap()
        };
        let commands: BTreeSet<String> = COMMANDS.iter().map(|c| c.to_string()).collect();
        assert_eq!(list("AIRLOCK_COMMANDS"), commands);
        let plugin_calls: BTreeSet<String> = CORE_PLUGIN_CALLS
            .iter()
            .flat_map(|(plugin, calls)| calls.iter().map(move |c| format!("plugin:{plugin}|{c}")))
            .collect();
        assert_eq!(list("AIRLOCK_PLUGIN_CALLS"), plugin_calls);

        // The page loads the list before the hook, and the hook consults it.
        let html = read("isolation/index.html");
        let list_at = html.find("<script src=\"allowed.js\"></script>").unwrap();
        let hook_at = html.find("<script src=\"index.js\"></script>").unwrap();
        assert!(list_at < hook_at, "allowed.js must load before index.js");
        let hook = read("isolation/index.js");
        assert!(hook.contains("AIRLOCK_COMMANDS.has(cmd)"), "{hook}");
        assert!(hook.contains("AIRLOCK_PLUGIN_CALLS.has(cmd)"), "{hook}");
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
        // Every type a command or an event carries, and the typed map of
        // commands and events (desktopApi.ts), from the declaration.
        crate::api::typescript(&cfg).write(&cfg, &dir).unwrap();
        // The error every command may reject with (not part of the map).
        ApiError::export_all(&cfg).unwrap();
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
        // The bounds of a server's size limits, so the form checks the same.
        let bound = |name: &str, b: airlock_core::limits::Bound| {
            format!(
                "/** The {}, in {}. */\nexport const {name}: Bound = {{ default: {}, min: {}, max: {} }};\n",
                b.what, b.unit, b.default, b.min, b.max
            )
        };
        let limits = format!(
            "// Generated from airlock_core::limits by `cargo test -p airlock-desktop`. Do not edit.\n\nexport type Bound = {{ default: number; min: number; max: number }};\n\n{}\n{}",
            bound("MAX_MESSAGE_BYTES", airlock_core::limits::MAX_MESSAGE_BYTES),
            bound("MAX_DEFINITION_BYTES", airlock_core::limits::MAX_DEFINITION_BYTES),
        );
        std::fs::write(dir.join("serverLimits.ts"), limits).unwrap();
        // The sentence of each URL warning, for records (the history) that
        // carry only the code; a view carries its sentences itself.
        use airlock_core::elicitation::view::sentences;
        use airlock_core::url_safety::Warning;
        let rows: Vec<String> = Warning::ALL
            .iter()
            .map(|w| {
                let sentence = serde_json::to_string(sentences::warning(*w)).unwrap();
                format!("  {}: {sentence},", w.code())
            })
            .collect();
        let table = format!(
            "// Generated from airlock_core::elicitation::view::sentences by `cargo test -p airlock-desktop`. Do not edit.\n\nimport type {{ Warning }} from \"./Warning\";\n\n/** What each URL warning means, in the core's words. */\nexport const WARNING_SENTENCES: Readonly<Record<Warning, string>> = {{\n{}\n}};\n\n/** Whether a stored code is one of the warnings above. */\nexport function isWarning(code: string): code is Warning {{\n  return Object.hasOwn(WARNING_SENTENCES, code);\n}}\n",
            rows.join("\n")
        );
        std::fs::write(dir.join("consentSentences.ts"), table).unwrap();
    }
}
