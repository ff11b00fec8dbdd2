//! Resource subscriptions across the gateway, end to end: real apps (the
//! official TypeScript SDK client, tests/peers/gateway_client.mjs) attach
//! with `airlock gateway --stdio` to `airlock daemon`, in front of
//! server-everything (it supports resources/subscribe and, once its
//! toggle-subscriber-updates tool is called, sends an update for each
//! subscribed URI every 5 s) and py-peer (on 2025-11-25 no subscribe
//! support).

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
    sb.run(&[
        "servers",
        "add",
        "py",
        "--protocol",
        "2025-11-25",
        "--command",
        &s(&py()),
        "--",
        &s(&py_server()),
        "stdio",
    ])
    .ok();
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
    let path = |name: &str| sb.tmp.path().join(name).to_string_lossy().into_owned();
    let (watching, detached) = (path("watching"), path("detached"));
    // W reads the server's log lines (it says what it is asked).
    let w_ops = json!([
        {"op": "set_level", "level": "debug"},
        {"op": "touch", "path": watching},
        {"op": "wait_file", "path": detached, "timeout_ms": 30000},
        {"op": "sleep", "ms": 1500},
        {"op": "logs"},
    ]);
    // A subscribes twice (one subscription) and detaches without unsubscribing.
    let a_ops = json!([
        {"op": "wait_file", "path": watching, "timeout_ms": 30000},
        {"op": "resources"},
        {"op": "subscribe", "uri": uri},
        {"op": "subscribe", "uri": uri},
    ]);
    let (w, a) = std::thread::scope(|scope| {
        let w = scope.spawn(|| ts_app(&sb, "watcher", Some("watcher"), &w_ops).run());
        let a = lines(&ts_app(&sb, "app-a", Some("app-a"), &a_ops).run());
        std::fs::write(&detached, "").unwrap();
        (lines(&w.join().unwrap()), a)
    });
    assert!(a[1]["resources"].to_string().contains(uri), "{a:?}");
    assert!(
        a[2].get("error").is_none() && a[3].get("error").is_none(),
        "{a:?}"
    );
    let logs = w[4]["logs"].to_string();
    assert_eq!(
        logs.matches("Received Subscribe Resource request").count(),
        1,
        "{logs}"
    );
    assert_eq!(
        logs.matches("Received Unsubscribe Resource request")
            .count(),
        1,
        "{logs}"
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
