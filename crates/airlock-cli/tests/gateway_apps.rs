//! MCP Apps (`io.modelcontextprotocol/ui`, issue 26 item 5) through the
//! gateway, whole: two servers that ship an App, the official example
//! server-basic-vanillajs (TypeScript SDK, npm, pinned in tests/peers) and
//! py-apps (the Python SDK's own Apps extension), seen by an app on the
//! official Python SDK that declares the extension, through
//! `airlock gateway --stdio`, against the same app talking to each server
//! directly: the tools' `_meta` (`ui.resourceUri`, visibility, the server's
//! own keys), the `ui://` resources (content, mimeType, `_meta.ui` CSP) and
//! the results' `_meta` are the server's; the only differences are the
//! names (`<server>__`), the server's identity in result `_meta`, and a
//! link to another server's App, which is not passed on.

mod common;

use common::gateway::*;
use common::*;
use serde_json::{json, Value};

const VANILLA_APP: &str = "ui://get-time/mcp-app.html";
const PY_APP: &str = "ui://py-apps/weather.html";
const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

fn vanilla_argv() -> Vec<String> {
    let js =
        peers_dir().join("node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js");
    assert!(
        js.exists(),
        "run `bash scripts/setup.sh`: {} is missing",
        js.display()
    );
    vec!["node".into(), s(&js), "--stdio".into()]
}

fn py_apps_argv() -> Vec<String> {
    vec![s(&py()), s(&peers_dir().join("py_apps.py"))]
}

/// The Python SDK app declaring MCP Apps, running `ops` against `argv`.
fn ui_app(argv: &[String], ops: &Value) -> Vec<Value> {
    let out = Cmd::new(py())
        .arg(peers_dir().join("gateway_client.py"))
        .args([
            "--name",
            "apps-host",
            "--extension",
            "ui",
            "--ops",
            &ops.to_string(),
            "--",
        ])
        .args(argv)
        .timeout(std::time::Duration::from_secs(90))
        .run();
    lines(&out)
}

fn tool<'a>(defs: &'a Value, name: &str) -> &'a Value {
    defs["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool {name} in {defs}"))
}

/// A result's `_meta` without the server's identity (the app talks to Airlock).
fn own_meta(result: &Value) -> Value {
    let mut meta = result["_meta"].clone();
    if let Some(m) = meta.as_object_mut() {
        m.remove(SERVER_INFO_META);
        if m.is_empty() {
            return Value::Null;
        }
    }
    meta
}

#[test]
fn mcp_apps_reach_an_app_that_renders_them_as_from_the_server() {
    let sb = Sandbox::new();
    for (name, argv) in [("vanilla", vanilla_argv()), ("pyapps", py_apps_argv())] {
        let mut add = vec!["servers", "add", name, "--command", &argv[0], "--"];
        add.extend(argv[1..].iter().map(String::as_str));
        sb.run(&add).ok();
    }
    // Each server as the app sees it directly.
    let direct_vanilla = ui_app(
        &vanilla_argv(),
        &json!([{"op": "tool_defs"}, {"op": "read", "uri": VANILLA_APP}]),
    );
    let direct_py = ui_app(
        &py_apps_argv(),
        &json!([
            {"op": "tool_defs"},
            {"op": "read", "uri": PY_APP},
            {"op": "call", "name": "weather", "arguments": {"city": "Paris"}},
        ]),
    );

    let daemon = Daemon::start(&sb, "decline", None);
    let v = ui_app(
        &shim_argv(&sb, Some("apps-host"), &[]),
        &json!([
            {"op": "info"},
            {"op": "tool_defs"},
            {"op": "resources"},
            {"op": "read", "uri": VANILLA_APP},
            {"op": "read", "uri": PY_APP},
            {"op": "call", "name": "pyapps__weather", "arguments": {"city": "Paris"}},
            {"op": "call", "name": "vanilla__get-time", "arguments": {}},
        ]),
    );
    let log = daemon.log();
    assert!(
        v[0]["extensions"]
            .as_object()
            .is_some_and(|e| e.contains_key("io.modelcontextprotocol/ui")),
        "the gateway says it serves Apps: {}",
        v[0]
    );
    let defs = &v[1];
    // Tools: `_meta` exactly as the server listed it.
    for (server, direct, names) in [
        ("vanilla", &direct_vanilla[0], &["get-time"][..]),
        ("pyapps", &direct_py[0], &["weather", "refresh"][..]),
    ] {
        for name in names {
            let own = tool(direct, name);
            assert!(own["_meta"]["ui"]["resourceUri"].is_string(), "{own}");
            let served = tool(defs, &format!("{server}__{name}"));
            assert_eq!(served["_meta"], own["_meta"], "{server} {name}");
        }
    }
    assert_eq!(
        tool(defs, "pyapps__refresh")["_meta"]["ui"]["visibility"],
        json!(["app"])
    );
    // A link to another server's App is not passed on (the tool stays).
    assert_eq!(
        tool(&direct_py[0], "borrowed")["_meta"]["ui"]["resourceUri"],
        VANILLA_APP
    );
    assert!(
        tool(defs, "pyapps__borrowed").get("_meta").is_none(),
        "{}",
        tool(defs, "pyapps__borrowed")
    );
    assert!(
        log.contains(
            "its MCP App \"ui://get-time/mcp-app.html\" is not passed on: vanilla serves that URI"
        ),
        "{log}"
    );
    // The ui:// resources: listed, and read with the server's content,
    // mimeType and `_meta` (the CSP the app enforces).
    let listed = v[2]["resources"].as_array().expect("resources");
    for uri in [VANILLA_APP, PY_APP] {
        assert!(listed.iter().any(|r| r == uri), "{listed:?}");
    }
    for (served, direct) in [(&v[3], &direct_vanilla[1]), (&v[4], &direct_py[1])] {
        let contents = &served["result"]["contents"];
        assert_eq!(contents, &direct["result"]["contents"]);
        assert_eq!(contents[0]["mimeType"], "text/html;profile=mcp-app");
        assert!(contents[0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("<html")));
    }
    assert_eq!(
        v[4]["result"]["contents"][0]["_meta"]["ui"]["csp"]["connectDomains"],
        json!(["https://api.weather.example"])
    );
    // Results: structured content and `_meta` kept (the server's identity
    // aside); Airlock declared the extension to the server, as the app did.
    let (served, own) = (&v[5]["result"], &direct_py[2]["result"]);
    assert_eq!(served["structuredContent"], own["structuredContent"]);
    assert_eq!(own_meta(served), own_meta(own), "{served}");
    assert_eq!(served["_meta"]["py-apps/client-renders-apps"], true);
    assert!(served["_meta"].get(SERVER_INFO_META).is_none());
    assert!(
        v[6]["result"]["structuredContent"]["time"].is_string(),
        "{}",
        v[6]
    );
}
