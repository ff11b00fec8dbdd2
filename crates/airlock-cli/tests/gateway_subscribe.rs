//! Resource subscriptions across the gateway, end to end: real apps (the
//! official TypeScript SDK client, tests/peers/gateway_client.mjs) attach
//! with `airlock gateway --stdio` to `airlock daemon`, in front of
//! server-everything (it supports resources/subscribe and, once its
//! toggle-subscriber-updates tool is called, sends an update for each
//! subscribed URI every 5 s) and py-peer (on 2025-11-25 no subscribe
//! support; on 2026-07-28 subscriptions on listen streams, and its
//! touch_resource tool sends updates). 2026-07-28 apps are the Python SDK's
//! (tests/peers/gateway_client.py), which listens with resource URIs.

mod common;

use common::gateway::*;
use common::*;
use serde_json::json;

#[test]
fn updates_reach_only_the_subscribed_app_until_it_unsubscribes() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let listed = lines(&ts_app(&sb, "lister", Some("lister"), &json!([{"op": "resources"}])).run());
    let uri = listed[0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u.as_str())
        .find(|u| u.starts_with("demo://resource/static/document/"))
        .unwrap_or_else(|| panic!("{listed:?}"))
        .to_owned();
    let ready = sb.tmp.path().join("b-ready");
    let ready = ready.to_string_lossy().into_owned();
    // A subscribes, waits until B is attached, starts the server's updates.
    let a_ops = json!([
        {"op": "subscribe", "uri": uri},
        {"op": "wait_file", "path": ready, "timeout_ms": 30000},
        {"op": "call", "name": "everything__toggle-subscriber-updates", "arguments": {}},
        {"op": "wait_updated", "uri": uri, "timeout_ms": 9000},
        {"op": "unsubscribe", "uri": uri},
        {"op": "wait_updated", "uri": uri, "timeout_ms": 7000},
        {"op": "updates"},
    ]);
    // B is attached the whole time and never subscribes.
    let b_ops = json!([
        {"op": "tools"},
        {"op": "touch", "path": ready},
        {"op": "wait_updated", "timeout_ms": 20000},
        {"op": "updates"},
    ]);
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| ts_app(&sb, "app-a", Some("app-a"), &a_ops).run());
        let b = scope.spawn(|| ts_app(&sb, "app-b", Some("app-b"), &b_ops).run());
        (lines(&a.join().unwrap()), lines(&b.join().unwrap()))
    });
    assert!(a[0].get("error").is_none(), "{a:?}");
    assert_eq!(a[1]["found"], true, "{a:?}");
    assert!(text(&a[2]["result"]).contains("Started"), "{a:?}");
    assert_eq!(a[3]["updated"], true, "A gets the update: {a:?}");
    assert!(a[4].get("error").is_none(), "{a:?}");
    assert_eq!(a[5]["updated"], false, "none after unsubscribe: {a:?}");
    let got = a[6]["updates"].as_array().unwrap();
    assert!(got.iter().all(|u| u == &json!(uri)), "{got:?}");
    assert_eq!(b[2]["updated"], false, "B is not subscribed: {b:?}");
    assert_eq!(b[3]["updates"], json!([]), "{b:?}");
    drop(daemon);
}

/// py-peer on 2025-11-25 has no resources/subscribe (on 2026-07-28 it
/// serves subscriptions on listen streams).
#[test]
fn subscribing_where_it_cannot_work_is_a_clear_error() {
    let sb = Sandbox::new();
    add_py_pinned(&sb, "py", "2025-11-25");
    let daemon = Daemon::start(&sb, "accept", None);
    let long = format!("peer://{}", "x".repeat(3000));
    let ops = json!([
        {"op": "resources"},
        {"op": "subscribe", "uri": "peer://greeting"},
        {"op": "subscribe", "uri": "peer://nobody-serves-this"},
        {"op": "subscribe", "uri": long},
        // Unsubscribing from what it never subscribed to is harmless.
        {"op": "unsubscribe", "uri": "peer://greeting"},
    ]);
    let v = lines(&ts_app(&sb, "subscriber", Some("subscriber"), &ops).run());
    assert!(
        v[0]["resources"].to_string().contains("peer://greeting"),
        "{v:?}"
    );
    let message = |i: usize| v[i]["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(
        message(1).contains("does not support resource subscriptions"),
        "{v:?}"
    );
    assert!(message(2).contains("unknown resource"), "{v:?}");
    assert!(message(3).contains("longer than"), "{v:?}");
    assert!(v[4].get("error").is_none(), "{v:?}");
    drop(daemon);
}

#[test]
fn the_last_app_detaching_unsubscribes_airlock_at_the_server() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let uri = "demo://resource/static/document/architecture.md";
    // A subscribes twice (one subscription) and detaches without unsubscribing.
    let a_ops = json!([
        {"op": "resources"},
        {"op": "subscribe", "uri": uri},
        {"op": "subscribe", "uri": uri},
    ]);
    let a = lines(&ts_app(&sb, "app-a", Some("app-a"), &a_ops).run());
    assert!(a[0]["resources"].to_string().contains(uri), "{a:?}");
    assert!(
        a[1].get("error").is_none() && a[2].get("error").is_none(),
        "{a:?}"
    );
    // The server's own log (it says what it is asked), as Airlock kept it:
    // its lines reach no app whose call did not cause them.
    let logs = || sb.run(&["logs", "everything", "--limit", "1000"]).stdout;
    let unsubscribed = wait_until(
        "the unsubscribe at the server",
        std::time::Duration::from_secs(10),
        || {
            let l = logs();
            l.contains("Received Unsubscribe Resource request")
                .then_some(l)
        },
    );
    assert_eq!(
        unsubscribed
            .matches("Received Subscribe Resource request")
            .count(),
        1,
        "{unsubscribed}"
    );
    assert_eq!(
        unsubscribed
            .matches("Received Unsubscribe Resource request")
            .count(),
        1,
        "{unsubscribed}"
    );
    drop(daemon);
}

#[test]
fn an_app_has_at_most_256_subscriptions() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    // URIs of everything's template, each its own subscription.
    let uri = |i: usize| format!("demo://resource/dynamic/text/{i}");
    let mut ops: Vec<_> = (0..257)
        .map(|i| json!({"op": "subscribe", "uri": uri(i)}))
        .collect();
    ops.push(json!({"op": "unsubscribe", "uri": uri(0)}));
    ops.push(json!({"op": "subscribe", "uri": uri(256)}));
    let v = lines(&ts_app(&sb, "greedy", Some("greedy"), &json!(ops)).run());
    assert_eq!(v.len(), 259, "{v:?}");
    assert!(v[..256].iter().all(|r| r.get("error").is_none()), "{v:?}");
    let refused = v[256]["error"]["message"].as_str().unwrap_or_default();
    assert!(refused.contains("at most 256"), "{refused}");
    // One unsubscribed frees a place.
    assert!(v[258].get("error").is_none(), "{:?}", v[258]);
    drop(daemon);
}

#[test]
fn a_server_that_reconnects_is_subscribed_again() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let uri = "demo://resource/static/document/architecture.md";
    let path = |name: &str| sb.tmp.path().join(name).to_string_lossy().into_owned();
    let (subscribed, resumed) = (path("subscribed"), path("resumed"));
    let a_ops = json!([
        {"op": "subscribe", "uri": uri},
        {"op": "touch", "path": subscribed},
        {"op": "wait_file", "path": resumed, "timeout_ms": 60000},
        // A new server process: its updates start again, for Airlock's
        // subscription made again there.
        {"op": "call", "name": "everything__toggle-subscriber-updates", "arguments": {}},
        {"op": "wait_updated", "uri": uri, "timeout_ms": 9000},
    ]);
    let a = std::thread::scope(|scope| {
        let a = scope.spawn(|| ts_app(&sb, "app-a", Some("app-a"), &a_ops).run());
        wait_until("A subscribed", std::time::Duration::from_secs(60), || {
            std::path::Path::new(&subscribed).exists().then_some(())
        });
        sb.run(&["servers", "pause", "everything"]).ok();
        std::thread::sleep(std::time::Duration::from_secs(4));
        sb.run(&["servers", "resume", "everything"]).ok();
        std::thread::sleep(std::time::Duration::from_secs(8));
        std::fs::write(&resumed, "").unwrap();
        lines(&a.join().unwrap())
    });
    assert!(a[0].get("error").is_none(), "{a:?}");
    assert!(text(&a[3]["result"]).contains("Started"), "{a:?}");
    assert_eq!(a[4]["updated"], true, "{a:?}");
    drop(daemon);
}

/// `servers add NAME --protocol P --command <venv python> -- py_server.py stdio`.
fn add_py_pinned(sb: &Sandbox, name: &str, protocol: &str) {
    sb.run(&[
        "servers",
        "add",
        name,
        "--protocol",
        protocol,
        // Its tools change in these tests; pins are the pins tests' subject.
        "--pins",
        "notify",
        "--command",
        &s(&py()),
        "--",
        &s(&py_server()),
        "stdio",
    ])
    .ok();
}

/// The URIs of an `updates` op.
fn updates_of(v: &serde_json::Value) -> Vec<String> {
    v["updates"]
        .as_array()
        .unwrap_or_else(|| panic!("{v:?}"))
        .iter()
        .filter_map(|u| u.as_str().map(str::to_owned))
        .collect()
}

/// A 2026-07-28 app (the Python SDK) names resources on its listen stream:
/// it gets the updates of a 2026-07-28 server's resource (py-peer, whose
/// own listen stream from Airlock then names it) and of a 2025-11-25
/// server's (server-everything, resources/subscribe), and not those of the
/// resources another app subscribed to on the same servers. B is a
/// 2025-11-25 app (the TypeScript SDK) subscribed with resources/subscribe
/// to those other resources; a flood of 2,000 updates of one reaches it
/// coalesced.
#[test]
fn a_listen_stream_gets_the_updates_of_the_resources_it_names_and_no_others() {
    let sb = Sandbox::new();
    add_py_pinned(&sb, "new", "2026-07-28");
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let doc = |name: &str| format!("demo://resource/static/document/{name}");
    let (mine, theirs) = (doc("architecture.md"), doc("features.md"));
    let path = |name: &str| sb.tmp.path().join(name).to_string_lossy().into_owned();
    let (a_listens, b_subscribed, a_done) =
        (path("a-listens"), path("b-subscribed"), path("a-done"));
    let touch =
        |uri: &str, times: u32| call("new__touch_resource", json!({"uri": uri, "times": times}));
    // An update may come before the call that caused it returns: "from": 0.
    let a_ops = json!([
        {"op": "listen", "uris": ["peer://note/a", mine]},
        {"op": "touch", "path": a_listens},
        {"op": "wait_file", "path": b_subscribed, "timeout_ms": 30000},
        touch("peer://note/a", 1),
        {"op": "wait_updated", "uri": "peer://note/a", "from": 0, "timeout_ms": 10000},
        // B's resource at the same server: Airlock's stream there names it.
        touch("peer://note/b", 1),
        // Updates of every resource subscribed at everything, each 5 s.
        call("everything__toggle-subscriber-updates", json!({})),
        {"op": "wait_updated", "uri": mine, "from": 0, "timeout_ms": 12000},
        touch("peer://note/b", 2000),
        {"op": "sleep", "seconds": 2},
        {"op": "updates"},
        {"op": "unlisten"},
        {"op": "touch", "path": a_done},
    ]);
    let b_ops = json!([
        {"op": "wait_file", "path": a_listens, "timeout_ms": 30000},
        {"op": "subscribe", "uri": "peer://note/b"},
        {"op": "subscribe", "uri": theirs},
        {"op": "touch", "path": b_subscribed},
        {"op": "wait_updated", "uri": "peer://note/b", "from": 0, "timeout_ms": 20000},
        {"op": "wait_file", "path": a_done, "timeout_ms": 60000},
        {"op": "updates"},
    ]);
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| py_app(&sb, "app-a", Some("app-a"), &a_ops).run());
        let b = scope.spawn(|| ts_app(&sb, "app-b", Some("app-b"), &b_ops).run());
        (lines(&a.join().unwrap()), lines(&b.join().unwrap()))
    });
    assert_eq!(a[0]["honored"], json!(["peer://note/a", mine]), "{a:?}");
    assert_eq!(a[2]["found"], true, "{a:?} / {b:?}");
    assert!(text(&a[3]["result"]).contains("touched"), "{a:?}");
    assert_eq!(
        a[4]["updated"], true,
        "the 2026-07-28 server's update: {a:?}"
    );
    assert!(text(&a[6]["result"]).contains("Started"), "{a:?}");
    assert_eq!(
        a[7]["updated"], true,
        "the 2025-11-25 server's update: {a:?}"
    );
    assert!(text(&a[8]["result"]).contains("touched"), "{a:?}");
    let got = updates_of(&a[10]);
    assert!(
        got.iter().all(|u| u == "peer://note/a" || *u == mine),
        "only what A named: {got:?}"
    );
    assert!(a[11]["error"].is_null(), "{a:?}");
    // B got its own, never A's, and the flood coalesced.
    assert!(
        b[1].get("error").is_none() && b[2].get("error").is_none(),
        "{b:?}"
    );
    assert_eq!(b[4]["updated"], true, "{b:?}");
    let got = updates_of(&b[6]);
    assert!(
        got.iter().all(|u| u == "peer://note/b" || *u == theirs),
        "only what B subscribed to: {got:?}"
    );
    let flood = got.iter().filter(|u| *u == "peer://note/b").count();
    assert!(
        (2..=80).contains(&flood),
        "2,001 updates reached B as {flood}"
    );
    drop(daemon);
}

/// A 2025-11-25 app (the TypeScript SDK) subscribes, with
/// resources/subscribe, to a resource of a 2026-07-28 server (py-peer):
/// Airlock follows it on its listen stream there; after unsubscribing, the
/// app gets no more updates (and the server's list changes still arrive on
/// the stream opened without the URI).
#[test]
fn a_2025_app_subscribes_to_a_resource_of_a_2026_server() {
    let sb = Sandbox::new();
    add_py_pinned(&sb, "new", "2026-07-28");
    let daemon = Daemon::start(&sb, "accept", None);
    let touch = call("new__touch_resource", json!({"uri": "peer://note/x"}));
    let ops = json!([
        {"op": "subscribe", "uri": "peer://note/x"},
        touch,
        {"op": "wait_updated", "uri": "peer://note/x", "from": 0, "timeout_ms": 10000},
        {"op": "unsubscribe", "uri": "peer://note/x"},
        touch,
        {"op": "sleep", "ms": 2000},
        {"op": "updates"},
        call("new__grow", json!({"name": "later_tool"})),
        {"op": "wait_tool", "name": "new__later_tool", "timeout_ms": 20000},
    ]);
    let v = lines(&ts_app(&sb, "old-app", Some("old-app"), &ops).run());
    assert!(v[0].get("error").is_none(), "{v:?}");
    assert_eq!(v[2]["updated"], true, "{v:?}");
    assert!(v[3].get("error").is_none(), "{v:?}");
    assert_eq!(
        updates_of(&v[6]),
        ["peer://note/x"],
        "none after unsubscribe: {v:?}"
    );
    assert_eq!(v[8]["found"], true, "{v:?}");
    assert_eq!(v[8]["changed"], true, "list changes still arrive: {v:?}");
    drop(daemon);
}
/// A listen stream naming 100,000 resources ends with a clear error (after
/// its acknowledgment, which names none of them), and the app goes on; one
/// naming URIs no server serves is acknowledged and quiet.
#[test]
fn a_listen_stream_naming_too_many_resources_is_a_clear_error() {
    let sb = Sandbox::new();
    add_py_pinned(&sb, "new", "2026-07-28");
    let daemon = Daemon::start(&sb, "accept", None);
    let ops = json!([
        {"op": "listen", "key": "greedy", "many": 100000},
        {"op": "listen_end", "key": "greedy", "timeout_ms": 10000},
        {"op": "listen", "key": "nowhere", "uris": ["nobody://serves/this"]},
        {"op": "tools"},
    ]);
    let v = lines(&py_app(&sb, "greedy", Some("greedy"), &ops).run());
    assert_eq!(v[0]["honored"], json!([]), "{v:?}");
    assert_eq!(v[1]["ended"], true, "{v:?}");
    let error = v[1]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("names 100000 resources") && error.contains("at most 256"),
        "{v:?}"
    );
    assert_eq!(v[2]["honored"], json!(["nobody://serves/this"]), "{v:?}");
    assert!(tool_names(&v[3]).contains(&"new__echo".to_owned()), "{v:?}");
    drop(daemon);
}
