//! Connecting an app (airlock-apps): each app Airlock can connect and its
//! MCP config as found, the diff a connect or disconnect would make, and
//! applying exactly that. The Apps page ([`crate::apps_page`]) shows them.

use std::path::PathBuf;

use airlock_apps::{AppId, AppsError, Change, Keeper, Places, ALL_APPS};
use serde::Serialize;
use ts_rs::TS;

use crate::ctx::{ApiError, ApiResult, Ctx};

/// The MCP config of an app Airlock can connect, as Airlock finds it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct AppConfigView {
    /// Its MCP config file (`~/` for the home folder).
    pub path: String,
    /// One of the app's programs is on PATH.
    pub installed: bool,
    /// The config file or its folder exists.
    pub config_found: bool,
    /// Installed or config found.
    pub detected: bool,
    /// Its config has Airlock's entry.
    pub connected: bool,
    /// Connected with this Airlock's path (else: connect again to update).
    pub up_to_date: bool,
    /// Why its config cannot be read or edited.
    pub problem: Option<String>,
}

/// What a connect or disconnect would change; nothing written yet.
#[derive(Debug, Clone, Serialize, TS)]
pub struct AppChangeView {
    pub id: String,
    pub name: String,
    pub path: String,
    pub connect: bool,
    /// Unified diff of the config file (empty: nothing to change).
    pub diff: String,
    pub notes: Vec<String>,
    /// Servers that move from the app into Airlock.
    pub moved: Vec<String>,
}

/// What applying did.
#[derive(Debug, Clone, Serialize, TS)]
pub struct AppChangeDone {
    pub message: String,
    /// Copy of the config as it was before.
    pub backup: Option<String>,
}

fn app_error(e: AppsError) -> ApiError {
    let code = match e {
        AppsError::ChangedSinceShown { .. } => "changed_since_shown",
        AppsError::Malformed { .. } | AppsError::Unreadable { .. } => "app_config_unusable",
        AppsError::Vault { .. } => "keychain",
        _ => "app_config",
    };
    ApiError {
        code: code.into(),
        message: e.to_string(),
        fields: None,
    }
}

fn api_error(code: &str, message: String) -> ApiError {
    ApiError {
        code: code.into(),
        message,
        fields: None,
    }
}

/// A path as people read it: `~/.cursor/mcp.json`.
fn shown_path(path: &std::path::Path, places: &Places) -> String {
    match path.strip_prefix(&places.home) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

fn places(cx: Ctx<'_>) -> ApiResult<Places> {
    Places::from_env(cx.state.data_dir.clone()).map_err(app_error)
}

/// The `airlock` command installed next to this app (what the apps run).
fn airlock_program() -> ApiResult<PathBuf> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| {
            api_error(
                "no_airlock_cli",
                format!("cannot tell where Airlock is installed: {e}"),
            )
        })?;
    let cli = exe.with_file_name(format!("airlock{}", std::env::consts::EXE_SUFFIX));
    if cli.is_file() {
        Ok(cli)
    } else {
        Err(api_error(
            "no_airlock_cli",
            format!(
                "the airlock command is not installed next to this app (looked for {}); apps need it to reach Airlock",
                cli.display()
            ),
        ))
    }
}

fn app_id(id: &str) -> ApiResult<AppId> {
    id.parse()
        .map_err(|e: airlock_apps::UnknownApp| api_error("bad_input", e.to_string()))
}

/// Every app Airlock can connect, in airlock-apps' order, with its config.
pub fn connectable(cx: Ctx<'_>) -> ApiResult<Vec<(AppId, AppConfigView)>> {
    let places = places(cx)?;
    // Without the CLI, status still lists the apps; nothing is up to date.
    let program = airlock_program().unwrap_or_default();
    Ok(ALL_APPS
        .iter()
        .map(|app| {
            let s = airlock_apps::status(*app, &places, &program);
            let view = AppConfigView {
                path: shown_path(&s.path, &places),
                installed: s.installed,
                config_found: s.config_found,
                detected: s.detected,
                connected: s.connected,
                up_to_date: s.up_to_date,
                problem: s.problem,
            };
            (*app, view)
        })
        .collect())
}

/// The OS keychain and the core's secret detector ([`airlock_core::app_configs`]).
fn keeper() -> Keeper<'static> {
    airlock_core::app_configs::keeper()
}

fn plan(cx: Ctx<'_>, id: &str, connect: bool, move_servers: bool) -> ApiResult<(Places, Change)> {
    let app = app_id(id)?;
    let places = places(cx)?;
    let change = if connect {
        airlock_apps::plan_connect(app, &places, &airlock_program()?, move_servers, keeper())
    } else {
        airlock_apps::plan_disconnect(app, &places, keeper())
    }
    .map_err(app_error)?;
    Ok((places, change))
}

pub fn plan_app(
    cx: Ctx<'_>,
    app: String,
    connect: bool,
    move_servers: bool,
) -> ApiResult<AppChangeView> {
    let (places, change) = plan(cx, &app, connect, move_servers)?;
    Ok(AppChangeView {
        id: change.app.as_str().into(),
        name: change.app.display_name().into(),
        path: shown_path(&change.path, &places),
        connect,
        diff: change.diff.clone(),
        notes: change.notes.clone(),
        moved: change.moved.iter().map(|m| m.name.clone()).collect(),
    })
}

/// Apply the change whose diff the user saw: planned again, and refused if
/// the diff is not the one shown.
pub fn apply_app(
    cx: Ctx<'_>,
    app: String,
    connect: bool,
    move_servers: bool,
    diff: String,
) -> ApiResult<AppChangeDone> {
    let (places, change) = plan(cx, &app, connect, move_servers)?;
    if change.diff != diff {
        return Err(app_error(AppsError::ChangedSinceShown {
            path: change.path,
        }));
    }
    if let Some(import) = change.moved_as_import() {
        let plan = airlock_core::servers::parse_config(&import)
            .map_err(|e| api_error("bad_input", e.to_string()))?;
        let inputs = plan
            .resolve(&Default::default())
            .map_err(|e| api_error("bad_input", e.to_string()))?;
        cx.state.core.import_servers(&inputs)?;
    }
    let applied = airlock_apps::apply(&change, &places, keeper()).map_err(app_error)?;
    let verb = if connect { "connected" } else { "disconnected" };
    let message = if change.changes_nothing() {
        format!("{} is already {verb}.", change.app.display_name())
    } else {
        format!(
            "{} {verb}. Restart it (or reload its MCP servers) to use the change.",
            change.app.display_name()
        )
    };
    Ok(AppChangeDone {
        message,
        backup: applied.backup.map(|b| b.display().to_string()),
    })
}
