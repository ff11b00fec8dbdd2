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
