//! The Apps page (issue 27): one card per app, merging every source Airlock
//! has of one: the apps it can connect (their MCP config found or not,
//! connected or not; [`crate::app_config`]), the apps with a profile (kept
//! by the core: what they see, a token, a pause) and the apps attached to
//! this window now. Also "Start Airlock at login"
//! ([`crate::autostart`]: an XDG autostart entry on Linux, the Run key on
//! Windows, a LaunchAgent on macOS), offered there after the first connect.

use std::collections::BTreeMap;
use std::sync::Arc;

use airlock_core::apps::{check_app_name, AppProfile};
use airlock_gateway::Attachments;
use serde::Serialize;
use ts_rs::TS;

use crate::app_config::AppConfigView;
use crate::ctx::{ApiError, ApiResult, Ctx};

/// One app on the Apps page.
#[derive(Debug, Clone, Serialize, TS)]
pub struct AppView {
    /// The name its calls are recorded and its profile is kept under
    /// (`cursor`, `claude-code`, ...): an app Airlock can connect goes by its id.
    pub name: String,
    /// The app's own name when it is one Airlock can connect ("Cursor").
    pub app_name: Option<String>,
    /// Its MCP config when it is one Airlock can connect (detected or not,
    /// connected or not); `None`: Airlock cannot edit its config.
    pub config: Option<AppConfigView>,
    /// Airlock keeps a profile for it (what it sees, maybe a token, a pause).
    pub has_profile: bool,
    pub has_token: bool,
    pub paused: bool,
    pub profile: AppProfile,
    /// Sessions attached to this window now.
    pub attached: u32,
    /// When the oldest of them attached (ms).
    pub attached_since: Option<i64>,
    /// The most tools its tools/list holds (its profile's budget, else the
    /// app's default); `None`: no budget.
    pub tool_budget: Option<u32>,
    /// Where that budget comes from, in a line (the app's cap and its source).
    pub tool_budget_why: Option<String>,
}

/// Where `name`'s budget comes from with `profile`, in a line.
fn budget_why(name: &str, profile: &AppProfile) -> Option<String> {
    use airlock_core::tool_budget::{app_cap, ToolBudget};
    let cap = app_cap(name);
    let default = cap.map(|c| format!("{} tools ({}; {})", c.budget(), c.what, c.source));
    match (profile.tool_budget, default) {
        (Some(ToolBudget::Tools(_)), Some(d)) => {
            Some(format!("set in its profile; the app's default is {d}"))
        }
        (Some(ToolBudget::Tools(_)), None) => Some("set in its profile".to_owned()),
        (Some(ToolBudget::Off), Some(d)) => {
            Some(format!("none set in its profile; the app's default is {d}"))
        }
        (None, Some(d)) => Some(format!("the app's default: {d}")),
        _ => None,
    }
}

/// The apps attached to this window's gateway (shared with the host).
#[derive(Default)]
pub struct Attached(pub Arc<Attachments>);

fn attachments(cx: Ctx<'_>) -> Vec<airlock_gateway::AttachedApp> {
    use tauri::Manager;
    cx.app
        .try_state::<Attached>()
        .map(|a| a.0.list())
        .unwrap_or_default()
}

/// Every app: the ones Airlock can connect, the ones with a profile and the
/// ones attached now, one entry per name, by name.
pub async fn apps(cx: Ctx<'_>) -> ApiResult<Vec<AppView>> {
    let mut by_name: BTreeMap<String, AppView> = BTreeMap::new();
    let blank = |name: &str| AppView {
        name: name.to_owned(),
        app_name: None,
        config: None,
        has_profile: false,
        has_token: false,
        paused: false,
        profile: AppProfile::default(),
        attached: 0,
        attached_since: None,
        tool_budget: AppProfile::default().tool_budget_for(name),
        tool_budget_why: budget_why(name, &AppProfile::default()),
    };
    // The apps Airlock can connect (its name is the app id); a page that
    // cannot read their configs still lists the rest.
    if let Ok(apps) = crate::app_config::connectable(cx) {
        for (id, config) in apps {
            let mut v = blank(id.as_str());
            v.app_name = Some(id.display_name().to_owned());
            v.config = Some(config);
            by_name.insert(v.name.clone(), v);
        }
    }
    for c in cx.state.core.apps()? {
        let v = by_name
            .entry(c.name.clone())
            .or_insert_with(|| blank(&c.name));
        v.has_profile = true;
        v.has_token = c.has_token;
        v.paused = c.paused;
        v.tool_budget = c.profile.tool_budget_for(&c.name);
        v.tool_budget_why = budget_why(&c.name, &c.profile);
        v.profile = c.profile;
    }
    for a in attachments(cx) {
        let v = by_name
            .entry(a.app.clone())
            .or_insert_with(|| blank(&a.app));
        v.attached = v.attached.saturating_add(1);
        v.attached_since = Some(v.attached_since.map_or(a.since_ms, |s| s.min(a.since_ms)));
    }
    // An app Airlock can connect, when its config could not be read.
    for v in by_name.values_mut().filter(|v| v.app_name.is_none()) {
        v.app_name = v
            .name
            .parse::<airlock_apps::AppId>()
            .ok()
            .map(|id| id.display_name().to_owned());
    }
    Ok(by_name.into_values().collect())
}

/// Pause (its calls are refused, "paused in Airlock") or resume an app.
pub fn set_app_paused(cx: Ctx<'_>, name: String, paused: bool) -> ApiResult<()> {
    Ok(cx.state.core.set_app_paused(&name, paused)?)
}

/// Set which servers (and tools) an app sees; an app without a profile gets one.
pub fn set_app_profile(cx: Ctx<'_>, name: String, profile: AppProfile) -> ApiResult<()> {
    check_app_name(&name).map_err(|e| ApiError::bad_input(e.to_string()))?;
    let core = &cx.state.core;
    if core.app(&name)?.is_none() {
        core.add_app(&name, false)?;
    }
    Ok(core.set_app_profile(&name, &profile)?)
}

fn autostart_error(e: impl std::fmt::Display) -> ApiError {
    ApiError {
        code: "autostart".into(),
        message: format!("cannot change starting at login: {e}"),
        fields: None,
    }
}

/// Whether Airlock starts at login (its autostart entry exists).
pub fn autostart(_cx: Ctx<'_>) -> ApiResult<bool> {
    crate::autostart::is_enabled().map_err(autostart_error)
}

/// Start Airlock at login, or not; returns the new state.
pub fn set_autostart(cx: Ctx<'_>, enabled: bool) -> ApiResult<bool> {
    if enabled {
        crate::autostart::enable()
    } else {
        crate::autostart::disable()
    }
    .map_err(autostart_error)?;
    // Asked once (after the first app is connected): never again.
    if let Ok(mut s) = cx.state.settings.write() {
        if !s.autostart_offered {
            s.autostart_offered = true;
            let _ = s.save(&cx.state.data_dir);
        }
    }
    crate::autostart::is_enabled().map_err(autostart_error)
}
