//! Desktop notifications about tool and prompt changes held for review
//! (issue 25): one per server per burst (`airlock_core::pins::notice`
//! decides which changes are new and says what changed), with a single
//! action, Review, which brings the window forward on that change. Never an
//! Approve action: approving needs the diff. A server's notice is withdrawn
//! once nothing of it waits any more.
//!
//! Decisions made in another process (`airlock tools approve`) raise no
//! core event here: the core's follower withdraws their notices, and the
//! shell watches the pin generation (as the gateway host does) to tell the
//! window the new counts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use airlock_core::events::CoreEvent;
use airlock_core::pins::notice::{PinNotice, PinNoticeEvent, PIN_GENERATION_POLL};
use airlock_core::url_safety::notice::escape_markup;
use airlock_core::Airlock;
use tauri::{AppHandle, Manager};

use crate::api::{EmitDeclared, CORE_EVENT, REVIEW_EVENT};
use crate::desktop_notices::{self, close as close_notification};
use crate::pin_review::ReviewRequest;
use crate::settings::Settings;

/// The notification showing each server's notice, to replace or withdraw it.
#[derive(Default)]
struct Shown(Mutex<HashMap<String, u32>>);

impl Shown {
    fn take(&self, server: &str) -> Option<u32> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(server)
    }

    fn put(&self, server: &str, id: u32) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.to_owned(), id);
    }
}

/// The notification's body: the core's lines, then what Review does.
pub fn body(notice: &PinNotice) -> String {
    let it = if notice.count == 1 { "it" } else { "them" };
    let mut lines = notice.lines.clone();
    lines.push(format!(
        "Your apps do not see {it} until you review {it}. Review shows what changed, side by side."
    ));
    lines.join("\n")
}

/// Start following: notifications for new changes, counts for the window
/// when decisions are made elsewhere.
pub fn follow(app: &AppHandle, core: &Arc<Airlock>, settings: Arc<RwLock<Settings>>) {
    let shown = Arc::new(Shown::default());
    let (a, s) = (app.clone(), shown.clone());
    tauri::async_runtime::spawn(core.clone().follow_pin_notices(move |e| {
        let on = settings.read().map(|s| s.notifications).unwrap_or(true);
        match e {
            PinNoticeEvent::Show(n) if on => show(&a, &s, n),
            PinNoticeEvent::Show(_) => {}
            PinNoticeEvent::Settled { server } => {
                if let Some(id) = s.take(&server) {
                    close_notification(id);
                }
            }
        }
    }));
    let (app, core) = (app.clone(), core.clone());
    tauri::async_runtime::spawn(async move {
        watch_generation(app, core).await;
    });
}

/// Bring the window forward on change `id` of the review.
pub fn open_review(app: &AppHandle, id: i64) {
    if let Some(r) = app.try_state::<ReviewRequest>() {
        if let Ok(mut g) = r.0.lock() {
            *g = Some(id);
        }
    }
    crate::main_window::bring_forward(app);
    let _ = app.emit(REVIEW_EVENT, &id);
}

fn show(app: &AppHandle, shown: &Arc<Shown>, notice: PinNotice) {
    let (app, shown) = (app.clone(), shown.clone());
    // The D-Bus wait for the action blocks: a thread per notice (at most
    // one per server per burst).
    std::thread::spawn(move || {
        if let Some(old) = shown.take(&notice.server) {
            close_notification(old);
        }
        let text = body(&notice);
        let markup = desktop_notices::renders_markup();
        let review = airlock_core::elicitation::view::notice::NoticeAction::review();
        let body = if markup { escape_markup(&text) } else { text };
        let id = notice.change_id;
        desktop_notices::show(
            &notice.summary,
            &body,
            &[(review.id, review.label.as_str())],
            |handle| shown.put(&notice.server, handle),
            |action| {
                if action == review.id {
                    open_review(&app, id);
                }
            },
        );
    });
}

/// The counts that changed between `before` and `now` (a server missing
/// from `now` has none waiting any more).
pub fn changed_counts(
    before: &HashMap<String, usize>,
    now: &HashMap<String, usize>,
) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = now
        .iter()
        .filter(|(s, n)| before.get(*s) != Some(*n))
        .map(|(s, n)| (s.clone(), *n))
        .collect();
    out.extend(
        before
            .keys()
            .filter(|s| !now.contains_key(*s))
            .map(|s| (s.clone(), 0)),
    );
    out.sort();
    out
}

/// Decisions made in another process: the new counts to the window.
async fn watch_generation(app: AppHandle, core: Arc<Airlock>) {
    let counts = |core: &Airlock| -> HashMap<String, usize> {
        core.pending_pin_counts()
            .map(|v| v.into_iter().collect())
            .unwrap_or_default()
    };
    let mut generation = core.pin_generation().unwrap_or(0);
    let mut known = counts(&core);
    loop {
        tokio::time::sleep(PIN_GENERATION_POLL).await;
        let Ok(now) = core.pin_generation() else {
            continue;
        };
        if now == generation {
            continue;
        }
        generation = now;
        let fresh = counts(&core);
        for (server, pending) in changed_counts(&known, &fresh) {
            let _ = app.emit(CORE_EVENT, &CoreEvent::PinChanges { server, pending });
        }
        known = fresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_says_what_review_does_and_never_offers_approve() {
        let n = PinNotice {
            server: "weather".into(),
            change_id: 3,
            count: 1,
            summary: "weather changed tool get_weather since you approved it".into(),
            lines: vec!["Held: Hidden text in Unicode tag characters: 'A'".into()],
        };
        assert_eq!(
            body(&n),
            "Held: Hidden text in Unicode tag characters: 'A'\nYour apps do not see it until you review it. Review shows what changed, side by side."
        );
        let several = PinNotice {
            count: 2,
            lines: Vec::new(),
            ..n
        };
        assert!(body(&several).starts_with("Your apps do not see them until you review them."));
        assert!(!body(&several).to_lowercase().contains("approve"));
    }

    #[test]
    fn counts_that_changed_include_servers_now_at_zero() {
        let before: HashMap<String, usize> = [("a".into(), 2), ("b".into(), 1)].into();
        let now: HashMap<String, usize> = [("a".into(), 2), ("c".into(), 4)].into();
        assert_eq!(
            changed_counts(&before, &now),
            vec![("b".into(), 0), ("c".into(), 4)]
        );
        assert!(changed_counts(&now, &now).is_empty());
    }
}
