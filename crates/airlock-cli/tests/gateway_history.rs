//! History of gateway calls as another process reads it: the host records
//! a call just after the app has its answer (off the call's path), so
//! `airlock history` in another process asks the host to write what it has
//! queued before reading (airlock_gateway::flush). A real app (the official
//! TypeScript SDK client, tests/peers/gateway_client.mjs) calls
//! server-everything through `airlock gateway --stdio` and `airlock daemon`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::gateway::*;
use common::*;
use serde_json::json;

/// Rounds of call, then read from another process: each a chance for the
/// read to come before the row is written.
const ROUNDS: usize = 25;

fn wait_for_file(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the app never wrote {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn history_in_another_process_lists_the_call_the_app_just_got_its_answer_for() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let signals = sb.dir().join("signals");
    std::fs::create_dir_all(&signals).unwrap();
    let answered = |i: usize| signals.join(format!("answered-{i}"));
    let read = |i: usize| signals.join(format!("read-{i}"));
    let mut ops = Vec::new();
    for i in 0..ROUNDS {
        // Calls in a stream first: the host's writer is gathering records
        // (airlock_core::store::HISTORY_GATHER) when the round's call returns.
        ops.push(json!({"op": "bench", "name": "everything__echo", "arguments": {"message": "load"}, "calls": 20, "warmup": 0}));
        ops.push(json!({"op": "call", "name": "everything__echo", "arguments": {"message": format!("round {i} of the race")}}));
        ops.push(json!({"op": "touch", "path": answered(i)}));
        ops.push(json!({"op": "wait_file", "path": read(i), "timeout_ms": 60000}));
    }
    let app = ts_app(&sb, "racer-app", Some("racer"), &json!(ops));
    let app = std::thread::spawn(move || app.run());
    for i in 0..ROUNDS {
        // The app has its answer: `airlock history`, another process, lists it.
        wait_for_file(&answered(i));
        let rows = sb.history(&["--app", "racer", "--limit", "1"]);
        let newest = rows.first().map(|r| r["arguments"]["message"].clone());
        assert_eq!(
            newest,
            Some(json!(format!("round {i} of the race"))),
            "round {i}: {rows:?}"
        );
        assert_eq!(rows[0]["outcome"], "ok", "{rows:?}");
        std::fs::write(read(i), "").unwrap();
    }
    let out = app.join().expect("the app's thread");
    let v = lines(&out);
    let echoed: Vec<String> = v
        .iter()
        .filter(|r| r.get("result").is_some())
        .map(|r| text(&r["result"]))
        .collect();
    assert_eq!(echoed.len(), ROUNDS, "{v:?}");
    assert!(
        echoed[ROUNDS - 1].contains(&format!("round {} of the race", ROUNDS - 1)),
        "{echoed:?}"
    );
    let load = sb.history(&["--app", "racer", "--search", "load", "--limit", "1000"]);
    assert_eq!(load.len(), ROUNDS * 20);
    drop(daemon);
}

#[test]
fn history_without_a_running_host_reads_at_once() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    // A socket file left behind by a host that is gone: nobody listens.
    let sock = std::os::unix::net::UnixListener::bind(socket(&sb)).unwrap();
    drop(sock);
    let out = sb.run(&["--json", "history"]);
    out.ok();
    assert!(
        out.json()["calls"].as_array().is_some_and(|c| c.is_empty()),
        "{out:?}"
    );
    // No host: nothing to flush, and nothing to warn about.
    assert!(!out.stderr.contains("note:"), "{out:?}");
}
