//! The window's start (issue 15, goal 5).
//!
//! The main window is created hidden (tauri.conf.json) and shown once its
//! page has loaded. Shown at once, GTK draws it before the web process has
//! anything: WebKitGTK's first draw then waits for the web process's first
//! update, up to 500 ms, on the main thread, and the page only starts
//! loading after that wait (measured: page load started at ~690 ms instead
//! of ~230 ms in most runs; gdb showed the main thread parked in the
//! webview's draw). Shown after the load, the first frame already has the
//! page.
//!
//! How long it took: the servers page tells the shell in the frame after
//! the one that drew the server list, and the shell prints one line to
//! stderr, with the milestones on the way (Tauri's setup, the page load,
//! the page's first request for the list). `scripts/bench-desktop.sh` reads
//! it from the release build without WebDriver; a user sees it in the
//! terminal when Airlock starts slowly.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tauri::webview::{PageLoadEvent, PageLoadPayload};
use tauri::{AppHandle, Manager, Runtime, Webview};

use crate::ctx::{ApiResult, Ctx};

/// A page that never finishes loading still gets its window by then.
pub const SHOW_AT_THE_LATEST: Duration = Duration::from_secs(3);

static STARTED: OnceLock<Instant> = OnceLock::new();
static PAINTED: AtomicBool = AtomicBool::new(false);
/// The start-up showing is done (or not wanted: `--hidden`); later page
/// loads (a reload, a window kept in the tray) never show the window.
static SHOWN: AtomicBool = AtomicBool::new(false);

/// Started at login: the window stays in the tray until the user opens it.
pub fn stay_hidden() {
    SHOWN.store(true, Ordering::Relaxed);
}

/// `on_page_load`: the main window's first loaded page shows it.
pub fn show_when_loaded<R: Runtime>(webview: &Webview<R>, payload: &PageLoadPayload<'_>) {
    if webview.label() != "main" {
        return;
    }
    if payload.event() == PageLoadEvent::Started {
        mark(Milestone::PageLoadStarted);
        return;
    }
    mark(Milestone::PageLoaded);
    if !SHOWN.swap(true, Ordering::Relaxed) {
        let _ = webview.window().show();
    }
}

/// Show the main window after `wait` if its page has not done it by then.
pub fn show_anyway_after<R: Runtime>(app: &AppHandle<R>, wait: Duration) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(wait).await;
        if !SHOWN.swap(true, Ordering::Relaxed) {
            if let Some(w) = app.get_webview_window("main") {
                let _ = w.show();
            }
        }
    });
}

/// Called first in `main`.
pub fn mark_start() {
    let _ = STARTED.set(Instant::now());
}

/// Milestones of the start, in the order they happen.
#[derive(Clone, Copy)]
pub enum Milestone {
    /// Tauri's setup hook began (GTK, the window and its webview exist).
    Setup,
    /// The core is open (database, servers configured, connects started).
    CoreReady,
    /// The main webview's page began to load (its web process is up).
    PageLoadStarted,
    /// The page finished loading (scripts ran; the window is shown).
    PageLoaded,
    /// The page asked for the server list for the first time.
    ListAsked,
}

/// Their names, in the order of `Milestone`.
const MILESTONES: [&str; 5] = [
    "setup",
    "core ready",
    "page load started",
    "page loaded",
    "list asked",
];
const UNSET: u32 = u32::MAX;
static MARKS: [AtomicU32; MILESTONES.len()] = [const { AtomicU32::new(UNSET) }; MILESTONES.len()];

fn since_start_ms() -> u32 {
    STARTED
        .get()
        .map(|t| u32::try_from(t.elapsed().as_millis()).unwrap_or(u32::MAX - 1))
        .unwrap_or(0)
}

/// Note the first time `m` happens (later times are ignored).
pub fn mark(m: Milestone) {
    let _ = MARKS[m as usize].compare_exchange(
        UNSET,
        since_start_ms(),
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
}

/// "setup 95, core ready 120, ..." for the milestones reached.
fn milestones() -> String {
    MILESTONES
        .iter()
        .zip(MARKS.iter())
        .filter_map(|(name, at)| {
            let at = at.load(Ordering::Relaxed);
            (at != UNSET).then(|| format!("{name} {at}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line printed for the first paint: the wall clock (so a script that
/// noted when it started the process can subtract) and the time since
/// `main` began.
pub fn painted_line(since_main_ms: u32, unix_ms: u128, milestones: &str) -> String {
    format!(
        "airlock-desktop: the window showed its data {since_main_ms} ms after main() began (unix ms {unix_ms}); on the way, ms after main(): {milestones}"
    )
}

/// The window drew its first data: milliseconds since `main` began, printed
/// once; later calls (a reload of the page) print nothing and return 0.
pub fn startup_painted(_cx: Ctx<'_>) -> ApiResult<u32> {
    if PAINTED.swap(true, Ordering::Relaxed) {
        return Ok(0);
    }
    let ms = since_start_ms();
    let unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    eprintln!("{}", painted_line(ms, unix_ms, &milestones()));
    Ok(ms)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_line_names_both_clocks_and_the_milestones() {
        let line = super::painted_line(123, 1_700_000_000_456, "setup 40, page loaded 100");
        assert_eq!(
            line,
            "airlock-desktop: the window showed its data 123 ms after main() began (unix ms 1700000000456); on the way, ms after main(): setup 40, page loaded 100"
        );
    }

    #[test]
    fn a_milestone_keeps_its_first_time_and_unreached_ones_are_left_out() {
        super::mark_start();
        super::mark(super::Milestone::CoreReady);
        let first = super::MARKS[super::Milestone::CoreReady as usize]
            .load(std::sync::atomic::Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(5));
        super::mark(super::Milestone::CoreReady);
        let list = super::milestones();
        assert!(list.contains(&format!("core ready {first}")), "{list}");
        // Only main() marks the setup; this test never reached it.
        assert!(!list.contains("setup"), "{list}");
    }
}
