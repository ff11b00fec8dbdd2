//! Servers written for 2025-11-25 (their tools send `elicitation/create`
//! themselves: the Python SDK's `ctx.elicit_url` / `ctx.elicit`, the
//! TypeScript SDK's `elicitInput`) work in Airlock: in automatic mode a
//! server that tries this on a 2026-07-28 connection is reconnected on
//! 2025-11-25, the call is retried once, the choice is remembered and the
//! server's log says so. `--protocol` pins a revision. Real SDK servers
//! (tests/peers/py_old_style.py, tests/peers/ts_old_style.mjs), stdio and HTTP.

mod common;

use common::*;
use serde_json::{json, Value};

const FALLBACK_LOG: &str = "sends requests the 2025-11-25 way";

fn add_py_old_stdio(sb: &Sandbox, name: &str, extra: &[&str]) {
    let mut args = vec!["servers", "add", name];
    args.extend(extra);
    let (py, script) = (s(&py()), s(&py_old_style()));
    args.extend(["--command", &py, "--", &script, "stdio"]);
    sb.run(&args).ok();
}

fn show(sb: &Sandbox, name: &str) -> Value {
    sb.run(&["--json", "servers", "show", name]).ok().json()
}

/// Call `tool` accepting every consent, with a recording browser.
fn call(sb: &Sandbox, browser: &BrowserRecorder, server: &str, tool: &str, args: Value) -> Out {
    browser
        .apply(sb.cmd())
        .consent("accept")
        .open("system")
        .call(server, tool, &args.to_string())
        .run()
}

fn fallbacks_logged(sb: &Sandbox, server: &str) -> usize {
    sb.log_texts(server)
        .iter()
        .filter(|t| t.contains(FALLBACK_LOG))
        .count()
}

#[test]
fn an_old_style_python_server_on_stdio_is_moved_to_2025_11_25_and_it_is_remembered() {
    let sb = Sandbox::new();
    let browser = BrowserRecorder::new(sb.dir());
    add_py_old_stdio(&sb, "old", &[]);
    let out = call(
        &sb,
        &browser,
        "old",
        "link_account",
        json!({"url": "https://example.com/link"}),
    );
    out.ok();
    assert!(out.stdout.contains("link_account action=accept"), "{out:?}");
    assert_eq!(browser.wait_for(1), ["https://example.com/link"]);
    assert_eq!(show(&sb, "old")["protocol_learned"], "2025-11-25");
    assert_eq!(fallbacks_logged(&sb, "old"), 1);
    // Remembered: the next process connects on 2025-11-25 at once.
    let connect = sb.run(&["--json", "connect", "old"]);
    connect.ok();
    assert_eq!(connect.json()["status"]["protocol_version"], "2025-11-25");
    let form = call(&sb, &browser, "old", "sign_up", json!({}));
    form.ok();
    assert!(
        form.stdout.contains("sign_up accepted name=Ada"),
        "{form:?}"
    );
    assert_eq!(fallbacks_logged(&sb, "old"), 1, "no second fallback");
    let text = sb.run(&["servers", "show", "old"]);
    assert!(
        text.stdout.contains("protocol:  automatic, 2025-11-25"),
        "{text:?}"
    );
}

#[test]
fn an_old_style_python_server_over_http_gets_its_form_answered() {
    let peer = start_py_old_style_http();
    let sb = Sandbox::new();
    let browser = BrowserRecorder::new(sb.dir());
    sb.add_url("oldhttp", &peer.url);
    let form = call(&sb, &browser, "oldhttp", "sign_up", json!({}));
    form.ok();
    assert!(
        form.stdout
            .contains("sign_up accepted name=Ada newsletter=False"),
        "{form:?}"
    );
    let url = call(
        &sb,
        &browser,
        "oldhttp",
        "link_account",
        json!({"url": "https://example.com/h"}),
    );
    url.ok();
    assert_eq!(browser.wait_for(1), ["https://example.com/h"]);
    assert_eq!(show(&sb, "oldhttp")["protocol_learned"], "2025-11-25");
    assert_eq!(fallbacks_logged(&sb, "oldhttp"), 1);
}

#[test]
fn a_pinned_revision_is_kept_and_a_mismatch_says_what_to_do() {
    let sb = Sandbox::new();
    let browser = BrowserRecorder::new(sb.dir());
    add_py_old_stdio(&sb, "pinned", &["--protocol", "2026-07-28"]);
    let out = call(
        &sb,
        &browser,
        "pinned",
        "link_account",
        json!({"url": "https://example.com/p"}),
    );
    out.expect_code(1);
    assert!(
        out.stderr.contains("2025-11-25"),
        "the error names the way out: {out:?}"
    );
    assert!(browser.settle().is_empty(), "nothing opened");
    assert_eq!(show(&sb, "pinned")["protocol_learned"], Value::Null);
    assert_eq!(fallbacks_logged(&sb, "pinned"), 0);
    // Editing the choice to 2025-11-25 makes it work at once.
    let (py, script) = (s(&py()), s(&py_old_style()));
    sb.run(&[
        "servers",
        "edit",
        "pinned",
        "--protocol",
        "2025-11-25",
        "--command",
        &py,
        "--",
        &script,
        "stdio",
    ])
    .ok();
    let connect = sb.run(&["--json", "connect", "pinned"]);
    assert_eq!(connect.json()["status"]["protocol_version"], "2025-11-25");
    call(
        &sb,
        &browser,
        "pinned",
        "link_account",
        json!({"url": "https://example.com/p"}),
    )
    .ok();
    assert_eq!(browser.wait_for(1), ["https://example.com/p"]);
    // A bad revision is a usage error.
    sb.run(&[
        "servers",
        "add",
        "x",
        "--protocol",
        "2024-01-01",
        "--command",
        "true",
    ])
    .expect_code(2);
}

#[test]
fn old_style_typescript_servers_work_on_stdio_and_http() {
    let peer = start_ts_old_style_http();
    let sb = Sandbox::new();
    let browser = BrowserRecorder::new(sb.dir());
    let script = s(&ts_old_style());
    sb.run(&[
        "servers",
        "add",
        "ts",
        "--command",
        "node",
        "--",
        &script,
        "stdio",
    ])
    .ok();
    sb.add_url("tshttp", &peer.url);
    for (server, url) in [
        ("ts", "https://example.com/ts"),
        ("tshttp", "https://example.com/tshttp"),
    ] {
        let out = call(&sb, &browser, server, "link_account", json!({ "url": url }));
        out.ok();
        assert!(out.stdout.contains("link_account action=accept"), "{out:?}");
        let form = call(&sb, &browser, server, "sign_up", json!({}));
        form.ok();
        assert!(
            form.stdout
                .contains("sign_up accepted name=Ada newsletter=false"),
            "{form:?}"
        );
    }
    assert_eq!(
        browser.wait_for(2),
        ["https://example.com/ts", "https://example.com/tshttp"]
    );
}
