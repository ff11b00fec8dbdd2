//! The Catalog page's commands (issue 35): read a registry into the cache,
//! search it (offline), install a server in one flow: downloaded and
//! locked first (nothing of it runs), the plan shown for the person's yes
//! (kept here meanwhile, a few at most), then its first tools for review.
//! Thin functions over `airlock_core::catalog` and `airlock_core::install`.

use std::sync::Mutex;

use airlock_core::catalog::{CatalogItem, CatalogRefresh, CatalogSize};
use airlock_core::install::{InstallPlan, InstallRequest, StagedInstall};
use airlock_core::pins::PinChange;
use airlock_core::servers::ServerDef;
use airlock_core::update::{StagedUpdate, UpdateInfo, UpdatePlan};
use serde::Serialize;
use tauri::Manager;
use ts_rs::TS;

use crate::ctx::{ApiError, ApiResult, Ctx};

/// Installs waiting for the person's yes, at most (an older one is dropped,
/// and its folder removed, when a newer one comes).
pub const MAX_STAGED: usize = 4;
/// Entries shown for one search, at most.
pub const MAX_ITEMS: u32 = 200;

/// Installs made and locked, waiting for a yes, by id.
#[derive(Default)]
pub struct Staged {
    next: Mutex<(u64, Vec<(u64, StagedInstall)>)>,
    updates: Mutex<(u64, Vec<(u64, StagedUpdate)>)>,
}

/// An update waiting for the person's review.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StagedUpdateView {
    #[ts(type = "number")]
    pub id: u64,
    pub plan: UpdatePlan,
}

/// An install waiting for the person's yes.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StagedView {
    #[ts(type = "number")]
    pub id: u64,
    pub plan: InstallPlan,
}

fn staged<'a>(cx: &Ctx<'a>) -> ApiResult<tauri::State<'a, Staged>> {
    cx.app
        .try_state::<Staged>()
        .ok_or_else(|| ApiError::bad_input("installs are not available in this window"))
}

/// Read `registry` (empty: the official MCP Registry) into the cache.
pub async fn catalog_refresh(cx: Ctx<'_>, registry: String) -> ApiResult<CatalogRefresh> {
    let registry = if registry.trim().is_empty() {
        airlock_core::airlock_catalog::OFFICIAL_REGISTRY.to_owned()
    } else {
        registry.trim().to_owned()
    };
    Ok(cx.state.core.refresh_catalog(&registry).await?)
}

/// Cached entries whose name or description contains `text` (offline).
pub async fn catalog_search(cx: Ctx<'_>, text: String, limit: u32) -> ApiResult<Vec<CatalogItem>> {
    Ok(cx
        .state
        .core
        .catalog_items(&text, limit.clamp(1, MAX_ITEMS))?)
}

/// How many entries the cache holds, and when a registry was last read.
pub async fn catalog_size(cx: Ctx<'_>) -> ApiResult<CatalogSize> {
    let (entries, fetched_at) = cx.state.core.catalog_size()?;
    Ok(CatalogSize {
        entries,
        fetched_at,
    })
}

/// Download and lock what `request` names; the plan to say yes or no to.
pub async fn prepare_install(cx: Ctx<'_>, request: InstallRequest) -> ApiResult<StagedView> {
    let install = cx.state.core.prepare_install(&request).await?;
    let plan = install.plan.clone();
    let state = staged(&cx)?;
    let mut g = state.next.lock().unwrap_or_else(|e| e.into_inner());
    g.0 += 1;
    let id = g.0;
    g.1.push((id, install));
    while g.1.len() > MAX_STAGED {
        // Dropped: its folder is removed.
        g.1.remove(0);
    }
    Ok(StagedView { id, plan })
}

fn take(cx: &Ctx<'_>, id: u64) -> ApiResult<StagedInstall> {
    let state = staged(cx)?;
    let mut g = state.next.lock().unwrap_or_else(|e| e.into_inner());
    let at =
        g.1.iter()
            .position(|(i, _)| *i == id)
            .ok_or_else(|| ApiError::bad_input("this install is gone: prepare it again"))?;
    Ok(g.1.remove(at).1)
}

/// The person said yes: add the server, confined; its first tools wait.
pub async fn commit_install(cx: Ctx<'_>, id: u64) -> ApiResult<ServerDef> {
    let install = take(&cx, id)?;
    Ok(cx.state.core.commit_install(install)?)
}

/// The person said no: the download is removed.
pub fn cancel_install(cx: Ctx<'_>, id: u64) -> ApiResult<()> {
    drop(take(&cx, id)?);
    Ok(())
}

/// Start the installed server in its room; its first tools and prompts,
/// each waiting for the person's review (findings first).
pub async fn first_sight(cx: Ctx<'_>, server: String) -> ApiResult<Vec<PinChange>> {
    Ok(cx.state.core.first_sight(&server).await?)
}

/// The person has seen the installed server's first tools.
pub async fn first_sight_done(cx: Ctx<'_>, server: String) -> ApiResult<()> {
    Ok(cx.state.core.first_sight_done(&server)?)
}

/// What the registries (as last read) say of the installed servers.
pub async fn catalog_updates(cx: Ctx<'_>) -> ApiResult<Vec<UpdateInfo>> {
    Ok(cx.state.core.catalog_updates()?)
}

/// Install `server`'s newer version beside it, start it once confined,
/// compare its tools: the review (nothing the apps see changes).
pub async fn prepare_update(cx: Ctx<'_>, server: String) -> ApiResult<StagedUpdateView> {
    let update = cx.state.core.prepare_update(&server).await?;
    let plan = update.plan.clone();
    let state = staged(&cx)?;
    let mut g = state.updates.lock().unwrap_or_else(|e| e.into_inner());
    g.0 += 1;
    let id = g.0;
    g.1.push((id, update));
    while g.1.len() > MAX_STAGED {
        g.1.remove(0);
    }
    Ok(StagedUpdateView { id, plan })
}

fn take_update(cx: &Ctx<'_>, id: u64) -> ApiResult<StagedUpdate> {
    let state = staged(cx)?;
    let mut g = state.updates.lock().unwrap_or_else(|e| e.into_inner());
    let at =
        g.1.iter()
            .position(|(i, _)| *i == id)
            .ok_or_else(|| ApiError::bad_input("this update is gone: review it again"))?;
    Ok(g.1.remove(at).1)
}

/// The person approved the update: the new version and its tools.
pub async fn commit_update(cx: Ctx<'_>, id: u64) -> ApiResult<ServerDef> {
    let update = take_update(&cx, id)?;
    Ok(cx.state.core.commit_update(update)?)
}

/// The person kept the old version: the new one is removed.
pub fn cancel_update(cx: Ctx<'_>, id: u64) -> ApiResult<()> {
    drop(take_update(&cx, id)?);
    Ok(())
}
