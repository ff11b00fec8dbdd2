//! Each server is a tenant (issue 25, item 1): a server that stalls its
//! lists and floods list_changed, one whose subscriptions never answer, one
//! that floods log lines or sampling requests costs itself, never another
//! server's calls, subscriptions or log lines.

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::*;
use rmcp::model::SubscribeRequestParams;
use serde_json::json;

fn resource(uri: &str) -> rmcp::model::Resource {
    from(json!({"uri": uri, "name": uri}))
}

/// The stall of issue 25: a server that answers tools/list after 12 s and
/// says list_changed ten times a second. A quiet server's calls go on at
/// once (on main they waited up to 48 s), and its own list changes are
/// still followed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_lister_flooding_list_changed_costs_a_quiet_server_nothing() {
    let h = Harness::new().await;
    let quiet = Server::with_tools(vec![tool("echo", "Echo."), tool("spare", "Spare.")]);
    let slow = Server::with_tools(vec![tool("stall", "Stall.")]);
    h.server("quiet", quiet.clone(), false).await;
    h.server("slow", slow.clone(), false).await;
    let app = h.app("cursor", App::default()).await;
    slow.set(|s| s.list_delay = Duration::from_secs(12));
    let flood = {
        let slow = slow.clone();
        tokio::spawn(async move {
            loop {
                slow.tools_changed().await;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    let lists_before = slow.lists.load(Ordering::SeqCst);
    let mut slowest = Duration::ZERO;
    for i in 0..30 {
        let t = Instant::now();
        let r = call(&app, "quiet__echo", &format!("n{i}")).await.unwrap();
        slowest = slowest.max(t.elapsed());
        assert_eq!(text(&r), format!("echo: n{i}"));
    }
    assert!(
        slowest < Duration::from_secs(2),
        "slowest quiet call {slowest:?}"
    );
    // The slow server's own refreshes are one at a time: a flood of a
    // hundred notices in ten seconds is not a hundred lists.
    tokio::time::sleep(Duration::from_secs(8)).await;
    let lists = slow.lists.load(Ordering::SeqCst) - lists_before;
    assert!(
        lists <= 2,
        "{lists} lists of the slow server while one stalled"
    );
    // Its last good list still serves: its tool is still there.
    assert!(tool_names(&app).await.contains(&"slow__stall".to_owned()));
    // The quiet server's own change is followed meanwhile.
    quiet.set(|s| s.tools.truncate(1));
    quiet.tools_changed().await;
    let followed = h
        .until(Duration::from_secs(5), || {
            h.gateway.catalog.view().tool("quiet__spare").is_none()
        })
        .await;
    assert!(followed, "the quiet server's list change was followed");
    flood.abort();
}

/// A server that never answers resources/subscribe holds no other
/// server's subscriptions; its own subscriber gets an error in bounded time.
#[allow(deprecated)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_that_never_answers_holds_up_nobody_else() {
    let h = Harness::new().await;
    let quiet = Server::with_tools(vec![tool("echo", "Echo.")]);
    quiet.set(|s| s.resources = vec![resource("quiet://note")]);
    let stuck = Server::with_tools(vec![tool("stuck", "Stuck.")]);
    stuck.set(|s| {
        s.resources = vec![resource("stuck://note")];
        s.subscribe_hangs = true;
    });
    h.server("quiet", quiet.clone(), false).await;
    h.server("stuck", stuck, false).await;
    let a = h.app("a", App::default()).await;
    let b = h.app("b", App::default()).await;
    let a_peer = a.peer().clone();
    let t0 = Instant::now();
    let hung = tokio::spawn(async move {
        let r = a_peer
            .subscribe(SubscribeRequestParams::new("stuck://note"))
            .await;
        (r, t0.elapsed())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t = Instant::now();
    b.peer()
        .subscribe(SubscribeRequestParams::new("quiet://note"))
        .await
        .expect("subscribed at the quiet server");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let (r, took) = hung.await.unwrap();
    let e = r.expect_err("the stuck server never answered");
    assert!(e.to_string().contains("did not answer"), "{e}");
    assert!(took < Duration::from_secs(15), "{took:?}");
}

/// A server's log lines reach the app whose call caused them, not another
/// app that asked for log lines; a flood of one server's lines spends its
/// own bucket, never another server's.
#[allow(deprecated)] // logging: 2025-11-25 apps use it
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_lines_go_to_their_caller_and_a_flood_costs_its_server() {
    let h = Harness::new().await;
    h.server(
        "loud",
        Server::with_tools(vec![tool("talk", "Talks.")]),
        false,
    )
    .await;
    h.server(
        "calm",
        Server::with_tools(vec![tool("talk", "Talks.")]),
        false,
    )
    .await;
    let (a_state, b_state) = (App::default(), App::default());
    let a = h.app("a", a_state.clone()).await;
    let b = h.app("b", b_state.clone()).await;
    for app in [&a, &b] {
        app.peer()
            .set_level(rmcp::model::SetLevelRequestParams::new(
                rmcp::model::LoggingLevel::Debug,
            ))
            .await
            .unwrap();
    }
    call_with(&a, "loud__talk", json!({"lines": 500, "message": "loud"}))
        .await
        .unwrap();
    call_with(&a, "calm__talk", json!({"lines": 1, "message": "calm"}))
        .await
        .unwrap();
    // Up to 15 s: on a loaded machine (two builds beside the suite) the
    // 500 loud lines take seconds to go by; the calm one must still come.
    let heard = h
        .until(Duration::from_secs(15), || {
            a_state
                .logs
                .lock()
                .unwrap()
                .iter()
                .any(|(_, t)| t.contains("calm line 0"))
        })
        .await;
    let a_logs = a_state.logs.lock().unwrap().clone();
    assert!(
        heard,
        "the calm server's line got through the loud one's flood: {} lines",
        a_logs.len()
    );
    let loud = a_logs
        .iter()
        .filter(|(l, _)| l.as_deref() == Some("loud"))
        .count();
    // Its burst, and what its bucket refilled while the test ran (a
    // loaded machine is slow): far from the 500 it sent.
    let bound =
        airlock_gateway::limits::LOG_BURST + 15 * airlock_gateway::limits::LOG_LINES_PER_SEC;
    assert!(
        (1..=bound as usize).contains(&loud),
        "the loud server's lines are bounded: {loud}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        b_state.logs.lock().unwrap().is_empty(),
        "B's calls did not cause them: {:?}",
        b_state.logs.lock().unwrap()
    );
}

/// A flood of sampling requests from one server counts against that
/// server's limits (like its elicitations): the app is asked a bounded
/// number at once, the rest are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sampling_flood_is_bounded_per_server() {
    let h = Harness::new().await;
    h.server(
        "greedy",
        Server::with_tools(vec![tool("sample", "Samples.")]),
        false,
    )
    .await;
    let state = App {
        sampling: Some(Duration::from_millis(500)),
        ..App::default()
    };
    let app = h.app("chat", state.clone()).await;
    let r = call_with(&app, "greedy__sample", json!({"times": 20}))
        .await
        .unwrap();
    let said = text(&r);
    let limit = h.core.broker_settings().max_pending_per_server;
    let most = state.sampling_most.load(Ordering::SeqCst);
    assert!(
        most >= 1 && most <= limit,
        "at most {limit} at once, saw {most}: {said}"
    );
    assert!(
        said.contains("refused") && !said.ends_with(" 0 refused"),
        "{said}"
    );
}

/// Issue 34, item 1: a server that lists a thousand fresh tool names at
/// every list_changed. Its pending "added" changes are those it lists now
/// (the names it dropped are not waiting for anyone), at most
/// `MAX_PENDING_CHANGES_PER_SERVER`; and reconciling them does not stall
/// the daemon's one thread (this test runs on one, as `airlock daemon`
/// does): a quiet server's calls meanwhile stay fast.
#[tokio::test(flavor = "current_thread")]
async fn a_server_churning_tool_names_leaves_bounded_pending_changes_and_stalls_nobody() {
    const NAMES: usize = 1000;
    const REFRESHES: usize = 6;
    let h = Harness::new().await;
    let quiet = Server::with_tools(vec![tool("echo", "Echo.")]);
    let churn = Server::with_tools(vec![tool("seed", "Seed.")]);
    h.server("quiet", quiet.clone(), false).await;
    h.server("churn", churn.clone(), false).await;
    let app = h.app("cursor", App::default()).await;
    let pending = || {
        h.core
            .pending_pin_changes(Some("churn"))
            .expect("pending changes")
            .len()
    };
    // The quiet server's calls before: its baseline.
    const GAP: Duration = Duration::from_millis(5);
    let mut before = Vec::new();
    for i in 0..100 {
        let wanted = Instant::now() + GAP;
        tokio::time::sleep(GAP).await;
        call(&app, "quiet__echo", &format!("b{i}")).await.unwrap();
        before.push(wanted.elapsed());
    }
    let mut during = Vec::new();
    for round in 0..REFRESHES {
        let names: Vec<_> = (0..NAMES)
            .map(|i| tool(&format!("t{round}_{i}"), "A tool that came just now."))
            .collect();
        churn.set(|s| s.tools = names);
        let lists = churn.lists.load(Ordering::SeqCst);
        churn.tools_changed().await;
        // Calls of the quiet server while the churning one is listed and
        // reconciled, until its refresh settled.
        // A call wanted every 5 ms: its latency is from when it was wanted
        // (a stalled thread delays the wake-up as much as the answer).
        let started = Instant::now();
        let mut i = 0;
        loop {
            let wanted = Instant::now() + GAP;
            tokio::time::sleep(GAP).await;
            let r = call(&app, "quiet__echo", &format!("r{round}-{i}"))
                .await
                .unwrap();
            during.push(wanted.elapsed());
            assert_eq!(text(&r), format!("echo: r{round}-{i}"));
            i += 1;
            let listed = churn.lists.load(Ordering::SeqCst) > lists;
            let settled = listed
                && h.gateway
                    .catalog
                    .view()
                    .tool(&format!("churn__t{round}_0"))
                    .is_none()
                && h.core
                    .pending_pin_changes(Some("churn"))
                    .unwrap()
                    .iter()
                    .any(|c| c.name.starts_with(&format!("t{round}_")));
            if settled || started.elapsed() > Duration::from_secs(60) {
                break;
            }
        }
        // The next list_changed is not coalesced with this one.
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    let left = pending();
    let p99 = |v: &mut Vec<Duration>| {
        v.sort();
        v[(v.len() * 99 / 100).min(v.len() - 1)]
    };
    let (base, churning) = (p99(&mut before), p99(&mut during));
    eprintln!(
        "pending after {REFRESHES} refreshes of {NAMES} names: {left}; quiet calls p99 {base:?} before, {churning:?} while churning ({} calls, slowest {:?})",
        during.len(),
        during.last().copied().unwrap_or_default()
    );
    // At the bound, not past it: the names it lists now wait for review
    // (the first ones listed), the names it dropped wait for no one.
    let cap = airlock_core::store::pins::MAX_PENDING_CHANGES_PER_SERVER;
    assert_eq!(left, cap, "pending changes of one server");
    let waiting = h.core.pending_pin_changes(Some("churn")).unwrap();
    let last = REFRESHES - 1;
    assert!(
        waiting
            .iter()
            .all(|c| c.name.starts_with(&format!("t{last}_"))),
        "only names it lists now wait"
    );
    // A name past the bound is held too, and its call says why.
    let past = call(&app, &format!("churn__t{last}_{}", NAMES - 1), "x")
        .await
        .unwrap();
    assert_eq!(past.is_error, Some(true));
    let why = text(&past);
    assert!(
        why.contains(&format!(
            "{cap} changes of churn already wait for your review"
        )),
        "{why}"
    );
    // One within the bound is held with its own change to review.
    let within = call(&app, &format!("churn__t{last}_0"), "x").await.unwrap();
    assert!(
        text(&within).contains("churn added tool t5_0, which waits for your approval"),
        "{}",
        text(&within)
    );
    assert!(
        churning <= base + Duration::from_millis(50),
        "a quiet server's calls stalled: p99 {churning:?} while churning, {base:?} before"
    );
}
