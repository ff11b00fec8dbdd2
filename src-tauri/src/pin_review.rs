//! The Review page's commands (issue 25): the changes of pinned tools and
//! prompts that wait for the user, each with the name apps know it by; the
//! decisions; a server's recent decided changes; the waiting counts for the
//! badges; the resource URIs two servers both list, and the user's choice
//! of which one apps read them from. Thin functions over
//! `airlock_core::pins` and `airlock_core::owners`.

use std::sync::Mutex;

use airlock_core::owners::{UriConflict, UriKind};
use airlock_core::pins::{ChangeState, Decision, PinChange};
use airlock_gateway::catalog::names::{prefix, DEFAULT_SEPARATOR};
use serde::Serialize;
use tauri::Manager;
use ts_rs::TS;

use crate::ctx::{ApiError, ApiResult, Ctx};

/// Changes sent to the window at once, at most (the newest): a server that
/// adds 10,000 tools does not make the page build 10,000 diffs.
pub const MAX_REVIEW_ITEMS: usize = 200;
/// Decided changes of one server shown as its history, at most.
pub const MAX_HISTORY_ITEMS: u32 = 50;

/// One change as the Review page shows it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ReviewItem {
    pub change: PinChange,
    /// The name apps see it by (`weather__get_weather`), hidden characters
    /// made visible.
    pub app_name: String,
}

/// What waits for review: the newest [`MAX_REVIEW_ITEMS`] changes, oldest
/// first, and how many wait in all.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PinReview {
    pub changes: Vec<ReviewItem>,
    pub total: usize,
}

/// How many changes of one server wait for review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct PinCount {
    pub server: String,
    pub pending: usize,
}

/// The change a notification's Review action asked the window to show,
/// until the page takes it (it may not be listening yet).
#[derive(Default)]
pub struct ReviewRequest(pub Mutex<Option<i64>>);

/// The name apps see an item by through Airlock's gateway (the window's
/// host uses the default separator). `name` is already made visible.
pub fn app_name(server: &str, name: &str) -> String {
    format!("{}{DEFAULT_SEPARATOR}{name}", prefix(server))
}

fn item(change: PinChange) -> ReviewItem {
    ReviewItem {
        app_name: app_name(&change.server, &change.name),
        change,
    }
}

/// The newest `max` of `changes` (oldest first), and how many there were.
fn newest(mut changes: Vec<PinChange>, max: usize) -> PinReview {
    let total = changes.len();
    let cut = total.saturating_sub(max);
    let changes = changes.drain(cut..).map(item).collect();
    PinReview { changes, total }
}

pub async fn pin_review(cx: Ctx<'_>) -> ApiResult<PinReview> {
    Ok(newest(
        cx.state.core.pending_pin_changes(None)?,
        MAX_REVIEW_ITEMS,
    ))
}

/// The newest decided changes of `server` (approved, rejected, served
/// under "notify only", superseded), newest first.
pub async fn pin_history(cx: Ctx<'_>, server: String, limit: u32) -> ApiResult<Vec<PinChange>> {
    let limit = limit.clamp(1, MAX_HISTORY_ITEMS);
    // Ask for the waiting ones too, so `limit` decided ones remain.
    let waiting = cx.state.core.pending_pin_changes(Some(&server))?.len();
    let ask = limit.saturating_add(u32::try_from(waiting).unwrap_or(u32::MAX));
    let mut decided: Vec<PinChange> = cx
        .state
        .core
        .recent_pin_changes(&server, ask)?
        .into_iter()
        .filter(|c| c.state != ChangeState::Pending)
        .collect();
    decided.truncate(limit as usize);
    Ok(decided)
}

pub async fn pin_counts(cx: Ctx<'_>) -> ApiResult<Vec<PinCount>> {
    Ok(cx
        .state
        .core
        .pending_pin_counts()?
        .into_iter()
        .map(|(server, pending)| PinCount { server, pending })
        .collect())
}

/// "approve" or "reject" the waiting change `id`.
pub async fn decide_pin_change(cx: Ctx<'_>, id: i64, decision: String) -> ApiResult<PinChange> {
    let decision = match decision.as_str() {
        "approve" => Decision::Approve,
        "reject" => Decision::Reject,
        _ => return Err(ApiError::bad_input("decision must be approve or reject")),
    };
    Ok(cx.state.core.decide_pin_change(id, decision)?)
}

/// The URIs `server` and another server both list (either side).
pub async fn uri_conflicts(cx: Ctx<'_>, server: String) -> ApiResult<Vec<UriConflict>> {
    Ok(cx.state.core.uri_conflicts(Some(&server))?)
}

/// Apps read `uri` (`kind`: "resource" or "template") from `server` from now on.
pub async fn choose_uri_owner(
    cx: Ctx<'_>,
    uri: String,
    kind: String,
    server: String,
) -> ApiResult<()> {
    let kind = UriKind::parse(&kind)
        .ok_or_else(|| ApiError::bad_input("kind must be resource or template"))?;
    Ok(cx.state.core.choose_uri_owner(&uri, kind, &server)?)
}

/// The change a notification's Review action asked to show, once.
pub fn take_review_request(cx: Ctx<'_>) -> ApiResult<Option<i64>> {
    Ok(cx
        .app
        .try_state::<ReviewRequest>()
        .and_then(|r| r.0.lock().ok().and_then(|mut g| g.take())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_core::pins::{ChangeKind, PinKind};

    fn change(id: i64, server: &str, name: &str) -> PinChange {
        PinChange {
            id,
            server: server.into(),
            kind: PinKind::Tool,
            name: name.into(),
            change: ChangeKind::Changed,
            state: ChangeState::Pending,
            diff: Vec::new(),
            complete: true,
            findings: Vec::new(),
            seen_at: id,
            decided_at: None,
        }
    }

    #[test]
    fn apps_know_an_item_by_the_gateways_name() {
        assert_eq!(app_name("weather", "get_weather"), "weather__get_weather");
        assert_eq!(app_name("My server", "x"), "My_server__x");
    }

    #[test]
    fn the_review_keeps_the_newest_and_counts_all() {
        let all: Vec<PinChange> = (1..=5).map(|i| change(i, "w", &format!("t{i}"))).collect();
        let r = newest(all, 3);
        assert_eq!(r.total, 5);
        let ids: Vec<i64> = r.changes.iter().map(|c| c.change.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        assert_eq!(r.changes[0].app_name, "w__t3");
        let r = newest(vec![change(1, "w", "a")], 3);
        assert_eq!((r.total, r.changes.len()), (1, 1));
    }
}
