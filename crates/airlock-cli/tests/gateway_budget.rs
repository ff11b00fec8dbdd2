//! A tool budget per app (issue 26, item 3), end to end: an app on the
//! official TypeScript SDK and one on the official Python SDK attach with
//! `airlock gateway --stdio` to `airlock daemon` in front of 313 tools on
//! three real servers (two Python SDK servers of 150 tools,
//! tests/peers/py_many_tools.py, and server-everything). With a budget of
//! 12 each lists Airlock's two and ten others, finds a tool by a word in its
//! description only, calls it through airlock__call_tool (recorded as that
//! tool, with the app), has bad arguments refused before the server and a
//! tool its profile hides refused exactly as a direct call; the tool it
//! used comes first in its next list.

mod common;

use std::time::Duration;

use common::gateway::*;
use common::*;
use serde_json::{json, Value};

const BUDGET: usize = 12;

fn add_many(sb: &Sandbox, name: &str, word: Option<&str>) {
    // 2026-07-28 outright: on `auto`, a server slower than rmcp's 10 s
    // discovery wait (four Python servers starting at once on a busy
    // machine) fails its handshake when the late answer comes.
    let mut args: Vec<String> = vec!["servers".into(), "add".into(), name.into()];
    args.extend(["--protocol".into(), "2026-07-28".into()]);
    args.extend(["--env".into(), "AIRLOCK_PEER_TOOLS=150".into()]);
    if let Some(w) = word {
        args.extend(["--env".into(), format!("AIRLOCK_PEER_WORD={w}")]);
    }
    args.extend([
        "--command".into(),
        s(&py()),
        "--".into(),
        s(&peers_dir().join("py_many_tools.py")),
        "stdio".into(),
    ]);
    sb.cmd().args(&args).run().ok();
}

fn through(name: &str, arguments: Value) -> Value {
    call(
        "airlock__call_tool",
        json!({"name": name, "arguments": arguments}),
    )
}

/// The whole story for one SDK's app (`app` makes its command).
fn budget_from(app: fn(&Sandbox, &str, Option<&str>, &Value) -> Cmd, client: &str) {
    let sb = Sandbox::new();
    add_many(&sb, "crm", None);
    add_many(&sb, "ops", Some("aurora"));
    sb.add_everything("everything");
    sb.run(&["apps", "add", client]).ok();
    // Of crm, only invoice_000; a budget of 12.
    sb.run(&["apps", "profile", client, "--tool", "crm/invoice_000"])
        .ok();
    let shown = sb.run(&["apps", "profile", client, "--tool-budget", "12"]);
    assert!(
        shown.stdout.contains("budget 12 (set in its profile"),
        "{shown:?}"
    );
    let daemon = Daemon::start(&sb, "accept", None);
    let ops = json!([
        {"op": "tools"},
        call("airlock__find_tools", json!({"query": "aurora"})),
        through("ops__invoice_042", json!({"title": "north", "count": 2})),
        through("ops__invoice_042", json!({"title": "ab", "count": 9})),
        through("crm__ticket_001", json!({"title": "abc"})),
        call("crm__ticket_001", json!({"title": "abc"})),
    ]);
    let v = lines(&app(&sb, "budget-app", Some(client), &ops).run());
    let names = tool_names(&v[0]);
    assert_eq!(names.len(), BUDGET, "{names:?}");
    assert_eq!(names[..2], ["airlock__find_tools", "airlock__call_tool"]);
    assert!(!names.contains(&"ops__invoice_042".to_owned()), "{names:?}");
    // Found by the word in its description, with its schema.
    let found = &v[1]["result"]["structuredContent"]["tools"];
    assert_eq!(found[0]["name"], "ops__invoice_042", "{v:?}");
    assert_eq!(found[0]["inputSchema"]["properties"]["count"]["maximum"], 5);
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
    // Called through airlock__call_tool.
    assert_eq!(text(&v[2]["result"]), "invoice_042: north x2", "{v:?}");
    // Arguments that do not fit: each violation said, the server not asked.
    assert_eq!(v[3]["result"]["isError"], true, "{v:?}");
    let why = text(&v[3]["result"]);
    assert!(
        why.contains("`title` must be at least 3 characters long (got 2)")
            && why.contains("`count` must be at most 5 (got 9)"),
        "{why}"
    );
    // Hidden by the profile: refused through it exactly as directly.
    let (hidden, direct) = (&v[4]["error"]["message"], &v[5]["error"]["message"]);
    assert!(
        hidden.as_str().is_some_and(|m| m.contains("unknown tool")),
        "{v:?}"
    );
    assert_eq!(hidden, direct);
    // History: the tool itself, with the app; the misfit refused.
    let rows = wait_until("two history rows", Duration::from_secs(10), || {
        let rows = sb.history(&["--app", client]);
        (rows.len() >= 2).then_some(rows)
    });
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows.iter()
            .all(|r| r["server"] == "ops" && r["tool"] == "invoice_042"),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r["outcome"] == "ok"), "{rows:?}");
    assert!(
        rows.iter().any(|r| r["outcome"] == "failed"
            && r["error"]
                .as_str()
                .is_some_and(|e| e.contains("do not fit"))),
        "{rows:?}"
    );
    // Its next list: the tool it used most, right after Airlock's two.
    let again = lines(&app(&sb, "budget-app", Some(client), &json!([{"op": "tools"}])).run());
    assert_eq!(tool_names(&again[0])[2], "ops__invoice_042", "{again:?}");
    drop(daemon);
}

#[test]
fn the_budget_works_from_a_typescript_sdk_app() {
    budget_from(ts_app, "ts-budget");
}

#[test]
fn the_budget_works_from_a_python_sdk_app() {
    budget_from(py_app, "py-budget");
}
