//! Server definitions, connections and tool calls against real peers, as a
//! user drives them from the `airlock` command line.

mod common;

/// The options of a server added without any (what `servers show --json` prints).
static DEFAULT_OPTIONS: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
    serde_json::json!({"protocol": "auto", "allow_insecure_http": false, "inherit_env": [],
            "pins": "hold", "max_message_bytes": null, "max_definition_bytes": null})
});

/// The options of a stdio server added without any: confined (issue 33).
static DEFAULT_STDIO_OPTIONS: std::sync::LazyLock<serde_json::Value> =
    std::sync::LazyLock::new(|| {
        let mut o = DEFAULT_OPTIONS.clone();
        o["sandbox"] = serde_json::json!({"enabled": true, "read": [], "write": [], "hosts": [],
            "host_network": false, "session_bus": false});
        o
    });

/// `servers show --json` without its `room` (what the room holds depends
/// on this machine's programs; tests/rooms.rs checks it), and the room's state.
fn shown(out: &Out) -> (serde_json::Value, serde_json::Value) {
    let mut v = out.json();
    let room = v
        .as_object_mut()
        .and_then(|m| m.remove("room"))
        .unwrap_or_default();
    (v, room["state"]["state"].clone())
}

use common::*;
use serde_json::json;

fn tool_names(out: &Out) -> Vec<String> {
    out.json()
        .as_array()
        .expect("tools --json is an array")
        .iter()
        .map(|t| t["name"].as_str().expect("tool name").to_owned())
        .collect()
}

/// The issue's "done when": import a Claude Desktop config, list tools, call
/// echo, find the call in history.
#[test]
fn claude_desktop_import_then_tools_call_and_history() {
    let sb = Sandbox::new();
    let config = json!({
        "mcpServers": {
            "everything": {"command": "node", "args": [s(&everything_js()), "stdio"]}
        },
        "globalShortcut": "Ctrl+Space"
    });
    let file = sb.write("claude_desktop_config.json", &config.to_string());

    let imported = sb.run(&["servers", "import", &s(&file)]);
    imported.ok();
    assert!(
        imported.stdout.contains("imported everything"),
        "{imported:?}"
    );
    assert!(
        imported.stderr.contains("globalShortcut"),
        "the ignored top-level key is mentioned in a note: {imported:?}"
    );

    let tools = sb.run(&["tools", "everything"]);
    tools.ok();
    assert!(
        tools
            .stdout
            .lines()
            .any(|l| l.split_whitespace().next() == Some("echo")),
        "`airlock tools everything` lists echo: {tools:?}"
    );

    let call = sb.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message":"hi"}"#,
    ]);
    call.ok();
    assert_eq!(call.stdout.trim(), "Echo: hi", "{call:?}");

    let calls = sb.history(&[]);
    assert_eq!(calls.len(), 1, "exactly the one call: {calls:#?}");
    let c = &calls[0];
    assert_eq!(c["server"], "everything");
    assert_eq!(c["tool"], "echo");
    assert_eq!(c["outcome"], "ok");
    assert_eq!(c["arguments"], json!({"message": "hi"}));
    assert!(c["error"].is_null(), "{c:#}");
    assert!(text(&c["result"]).contains("Echo: hi"), "{c:#}");
    assert!(c["duration_ms"].as_i64().is_some_and(|d| d >= 0), "{c:#}");
    assert!(
        c["started_at"]
            .as_i64()
            .is_some_and(|t| t > 1_600_000_000_000),
        "{c:#}"
    );

    // The text view shows the same call.
    let text = sb.run(&["history"]);
    text.ok();
    assert!(text.stdout.contains("everything/echo ok"), "{text:?}");
}

#[test]
fn everything_over_streamable_http() {
    let peer = start_everything_http();
    let sb = Sandbox::new();
    sb.add_url("everything-http", &peer.url);

    let conn = sb.run(&["--json", "connect", "everything-http"]);
    conn.ok();
    let report = conn.json();
    assert_eq!(report["status"]["state"], "ready", "{conn:?}");
    assert_eq!(report["info"]["protocol_version"], "2025-11-25", "{conn:?}");
    assert_eq!(
        report["info"]["server_name"], "mcp-servers/everything",
        "{conn:?}"
    );

    let tools = sb.run(&["--json", "tools", "everything-http"]);
    tools.ok();
    let names = tool_names(&tools);
    assert!(names.iter().any(|n| n == "echo"), "{names:?}");
    assert!(
        names.iter().any(|n| n == "trigger-url-elicitation"),
        "listed only when the client declares elicitation.url: {names:?}"
    );

    let call = sb.run(&[
        "call",
        "everything-http",
        "echo",
        "--args",
        r#"{"message":"hi"}"#,
    ]);
    call.ok();
    assert_eq!(call.stdout.trim(), "Echo: hi", "{call:?}");
    let calls = sb.history(&["--server", "everything-http"]);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["outcome"], "ok");
}

/// Everything a user does with py-peer, on an already added server.
fn exercise_py_peer(sb: &Sandbox, name: &str) {
    let conn = sb.run(&["--json", "connect", name]);
    conn.ok();
    let report = conn.json();
    assert_eq!(report["status"]["state"], "ready", "{conn:?}");
    let rev = report["info"]["protocol_version"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        rev == "2025-11-25" || rev == "2026-07-28",
        "unexpected revision {rev:?}: {conn:?}"
    );
    assert_eq!(report["status"]["protocol_version"], rev.as_str());
    assert_eq!(report["info"]["server_name"], "py-peer");

    // The text view names the revision too.
    let view = sb.run(&["connect", name]);
    view.ok();
    assert!(
        view.stdout.contains(&format!("ready (protocol {rev})")),
        "{view:?}"
    );

    let add = sb.run(&["--json", "call", name, "add", "--args", r#"{"a":2,"b":3}"#]);
    add.ok();
    let outcome = add.json_last();
    assert_eq!(outcome["is_error"], false, "{add:?}");
    assert_eq!(text(&outcome["result"]).trim(), "5", "{add:?}");
    let plain = sb.run(&["call", name, "add", "--args", r#"{"a":40,"b":2}"#]);
    plain.ok();
    assert_eq!(plain.stdout.trim(), "42", "{plain:?}");

    let prompts = sb.run(&["--json", "prompts", name]);
    prompts.ok();
    let p = prompts.json();
    let greet = p
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "greet")
        .unwrap_or_else(|| panic!("prompt greet listed: {prompts:?}"));
    assert_eq!(greet["arguments"][0]["name"], "name");

    let prompt = sb.run(&[
        "--json",
        "prompt",
        name,
        "greet",
        "--args",
        r#"{"name":"Ada"}"#,
    ]);
    prompt.ok();
    let text = prompt.json()["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(text, "Please greet Ada warmly.", "{prompt:?}");

    let resources = sb.run(&["--json", "resources", name]);
    resources.ok();
    assert!(
        resources
            .json()
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == "peer://greeting"),
        "{resources:?}"
    );
    let read = sb.run(&["--json", "read", name, "peer://greeting"]);
    read.ok();
    assert_eq!(
        read.json()["contents"][0]["text"],
        "Hello from py-peer",
        "{read:?}"
    );

    let calls = sb.history(&["--server", name]);
    assert_eq!(calls.len(), 2, "two add calls in history: {calls:#?}");
    assert!(calls.iter().all(|c| c["outcome"] == "ok"));
}

#[test]
fn python_peer_over_stdio() {
    let sb = Sandbox::new();
    sb.add_py("py", &[]);
    exercise_py_peer(&sb, "py");
    // Its stderr ready line landed in the server log.
    assert!(sb
        .log_texts("py")
        .iter()
        .any(|t| t.contains("py-peer ready")));
}

#[test]
fn python_peer_over_http() {
    let peer = start_py_http(&[]);
    let sb = Sandbox::new();
    sb.add_url("py-http", &peer.url);
    exercise_py_peer(&sb, "py-http");
}

#[test]
fn servers_add_list_show_edit_remove_round_trip() {
    let sb = Sandbox::new();
    let empty = sb.run(&["servers", "list"]);
    empty.ok();
    assert!(empty.stdout.contains("no servers yet"), "{empty:?}");

    let added = sb.run(&[
        "servers",
        "add",
        "tool box",
        "--command",
        "node",
        "--env",
        "DEBUG=1",
        "--cwd",
        "/tmp",
        "--",
        "server.js",
        "--port",
        "7",
    ]);
    added.ok();
    assert!(added.stdout.contains("added tool box (stdio)"), "{added:?}");

    let list = sb.run(&["servers", "list"]);
    list.ok();
    assert!(list.stdout.contains("tool box"), "{list:?}");
    assert!(list.stdout.contains("node server.js --port 7"), "{list:?}");

    let show = sb.run(&["--json", "servers", "show", "tool box"]);
    show.ok();
    let (def, room) = shown(&show);
    assert_eq!(
        def,
        json!({"name": "tool box", "transport": {"type": "stdio", "command": "node",
            "args": ["server.js", "--port", "7"], "env": {"DEBUG": {"value": "1"}}, "cwd": "/tmp"},
            "options": DEFAULT_STDIO_OPTIONS.clone(), "protocol_learned": null, "paused": false,
            "trust": {"pins": "hold", "pending_changes": 0, "uri_conflicts": []}}),
        "{show:?}"
    );
    assert_eq!(room, "confined", "{show:?}");
    let show_text = sb.run(&["servers", "show", "tool box"]);
    show_text.ok();
    assert!(
        show_text.stdout.contains("env        DEBUG=1"),
        "{show_text:?}"
    );

    let edited = sb.run(&[
        "servers",
        "edit",
        "tool box",
        "--url",
        "https://tools.example/mcp",
        "--header",
        "X-Team=blue",
    ]);
    edited.ok();
    assert!(
        edited.stdout.contains("updated tool box (http)"),
        "{edited:?}"
    );
    let show = sb.run(&["--json", "servers", "show", "tool box"]);
    let (def, room) = shown(&show);
    assert_eq!(room, "remote", "{show:?}");
    assert_eq!(
        def,
        json!({"name": "tool box", "transport": {"type": "http", "url": "https://tools.example/mcp",
            "headers": {"X-Team": {"value": "blue"}}},
            // HTTP servers also say whether they are signed in (OAuth).
            "oauth": {"signed_in": false, "client_id": null,
                "client_secret_in_keychain": false, "redirect_port": null},
            "options": DEFAULT_OPTIONS.clone(), "protocol_learned": null, "paused": false,
            "trust": {"pins": "hold", "pending_changes": 0, "uri_conflicts": []}}),
        "{show:?}"
    );

    sb.run(&[
        "servers",
        "add",
        "other",
        "--url",
        "https://other.example/mcp",
    ])
    .ok();
    assert_eq!(
        sb.server_names(),
        vec!["other".to_string(), "tool box".to_string()]
    );

    // Editing a server that does not exist is a usage error and creates nothing.
    sb.run(&["servers", "edit", "ghost", "--command", "x"])
        .expect_code(2);

    let removed = sb.run(&["servers", "remove", "tool box"]);
    removed.ok();
    assert!(removed.stdout.contains("removed tool box"), "{removed:?}");
    assert_eq!(sb.server_names(), vec!["other".to_string()]);
    let gone = sb.run(&["servers", "show", "tool box"]);
    gone.expect_code(2);
    assert!(gone.stderr.contains("no server named"), "{gone:?}");
    sb.run(&["servers", "remove", "tool box"]).expect_code(2);

    // Audit trail of the definition changes.
    let kinds: Vec<String> = sb
        .audit()
        .iter()
        .filter(|e| e["server"] == "tool box")
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["server_added", "server_updated", "server_removed"]);
}

#[test]
fn export_leaves_secrets_out_with_a_note_and_reimports() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("exp-{}", random_hex());
    let canary = format!("CANARY-EXPORT-{}", random_hex());
    sb.run(&[
        "servers",
        "add",
        &name,
        "--command",
        "node",
        "--env",
        &format!("GITHUB_TOKEN={canary}"),
        "--env",
        "DEBUG=1",
        "--",
        "srv.js",
    ])
    .ok();
    let http_name = format!("exp-http-{}", random_hex());
    sb.run(&[
        "servers",
        "add",
        &http_name,
        "--url",
        "https://x.example/mcp",
        "--header",
        &format!("Authorization=Bearer {canary}"),
        "--header",
        "Accept-Language=en",
    ])
    .ok();

    let export = sb.run(&["servers", "export"]);
    export.ok();
    assert!(
        !export.stdout.contains(&canary),
        "secret value exported: {export:?}"
    );
    assert!(
        !export.stderr.contains(&canary),
        "secret value on stderr: {export:?}"
    );
    let exported = export.json();
    assert_eq!(
        exported["mcpServers"][&name]["env"],
        json!({"DEBUG": "1"}),
        "{export:?}"
    );
    assert_eq!(exported["mcpServers"][&name]["command"], "node");
    assert_eq!(exported["mcpServers"][&name]["args"], json!(["srv.js"]));
    assert_eq!(
        exported["mcpServers"][&http_name]["headers"],
        json!({"Accept-Language": "en"})
    );
    assert!(
        export.stderr.contains("secrets are not exported"),
        "{export:?}"
    );
    assert!(
        export.stderr.contains(&format!("{name}: env GITHUB_TOKEN")),
        "{export:?}"
    );
    assert!(
        export
            .stderr
            .contains(&format!("{http_name}: header Authorization")),
        "{export:?}"
    );

    // The exported file imports into a fresh data dir.
    let other = Sandbox::new();
    let file = other.write("exported.json", &export.stdout);
    other.run(&["servers", "import", &s(&file)]).ok();
    let mut names = other.server_names();
    names.sort();
    let mut expected = vec![name.clone(), http_name.clone()];
    expected.sort();
    assert_eq!(names, expected);

    sb.run(&["servers", "remove", &name]).ok();
    sb.run(&["servers", "remove", &http_name]).ok();
}

#[test]
fn vscode_import_with_password_input_stores_it_in_the_keychain() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("vs-{}", random_hex());
    let value = format!("CANARY-VS-{}", random_hex());
    let config = json!({
        "inputs": [{"type": "promptString", "id": "api-key", "description": "Tools API key", "password": true}],
        "servers": {
            name.clone(): {"type": "http", "url": "https://tools.example/mcp",
                           "headers": {"X-Custom": "Bearer ${input:api-key}"}}
        }
    });
    let file = sb.write("mcp.json", &config.to_string());

    // Without an answer (stdin closed) the import fails cleanly and says how to answer.
    let unanswered = sb.run(&["servers", "import", &s(&file)]);
    unanswered.expect_code(2);
    assert!(
        unanswered.stderr.contains("--input api-key=VALUE"),
        "{unanswered:?}"
    );
    assert!(sb.server_names().is_empty());

    let imported = sb.run(&[
        "servers",
        "import",
        &s(&file),
        "--input",
        &format!("api-key={value}"),
    ]);
    imported.ok();
    assert!(
        imported.stdout.contains(&format!("imported {name}")),
        "{imported:?}"
    );
    assert!(
        imported
            .stdout
            .contains("X-Custom stored in the OS keychain"),
        "{imported:?}"
    );
    assert!(!imported.stdout.contains(&value) && !imported.stderr.contains(&value));

    let show = sb.run(&["--json", "servers", "show", &name]);
    show.ok();
    let header = &show.json()["transport"]["headers"]["X-Custom"];
    let secret_ref = header["secret_ref"]
        .as_str()
        .unwrap_or_else(|| panic!("secret_ref expected: {show:?}"));
    assert!(header.get("value").is_none(), "{show:?}");
    assert!(!show.stdout.contains(&value));
    assert_eq!(
        keychain_lookup(secret_ref).as_deref(),
        Some(format!("Bearer {value}").as_str())
    );

    for (path, bytes) in read_all_files(&sb.data) {
        assert!(
            !contains_bytes(&bytes, value.as_bytes()),
            "the input value is in {}",
            path.display()
        );
    }

    // Removing the server removes its secret.
    sb.run(&["servers", "remove", &name]).ok();
    assert_eq!(
        keychain_lookup(secret_ref),
        None,
        "keychain entry left behind after remove"
    );
}

/// VS Code configs often pass a password input on the command line
/// (`"args": ["--token", "${input:token}"]`). Airlock has no keychain slot for
/// args, so the value must not end up in SQLite (or in `servers show` /
/// `export`) in plain text: refuse the import, or keep it out of the store.
#[test]
fn vscode_password_input_in_args_is_never_stored_in_plain_text() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("vsargs-{}", random_hex());
    let value = format!("CANARY-ARGS-{}", random_hex());
    let config = json!({
        "inputs": [{"type": "promptString", "id": "tok", "description": "API token", "password": true}],
        "servers": {name.clone(): {"type": "stdio", "command": "node", "args": ["srv.js", "--token", "${input:tok}"]}}
    });
    let file = sb.write("mcp.json", &config.to_string());
    let imported = sb.run(&[
        "servers",
        "import",
        &s(&file),
        "--input",
        &format!("tok={value}"),
    ]);
    let show = sb.run(&["servers", "show", &name]);
    let export = sb.run(&["servers", "export"]);
    let leaked: Vec<String> = read_all_files(&sb.data)
        .into_iter()
        .filter(|(_, b)| contains_bytes(b, value.as_bytes()))
        .map(|(p, _)| p.display().to_string())
        .collect();
    let _ = sb.run(&["servers", "remove", &name]);
    assert!(
        leaked.is_empty() && !show.stdout.contains(&value) && !export.stdout.contains(&value),
        "password input stored/shown in plain text: files {leaked:?}; import {imported:?} show {show:?} export {export:?}"
    );
}

#[test]
fn history_filters_search_limit_server_and_outcome() {
    let sb = Sandbox::new();
    sb.add_everything("alpha");
    sb.add_everything("beta");
    sb.run(&[
        "call",
        "alpha",
        "echo",
        "--args",
        r#"{"message":"first-apple"}"#,
    ])
    .ok();
    sb.run(&[
        "call",
        "alpha",
        "echo",
        "--args",
        r#"{"message":"100% sure"}"#,
    ])
    .ok();
    sb.run(&["call", "beta", "get-sum", "--args", r#"{"a":19,"b":23}"#])
        .ok();
    sb.run(&["call", "alpha", "no-such-tool"]).expect_code(1);

    let all = sb.history(&[]);
    assert_eq!(all.len(), 4);
    let tools: Vec<&str> = all.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(
        tools,
        ["no-such-tool", "get-sum", "echo", "echo"],
        "newest first"
    );

    let page = sb.run(&["--json", "history", "--limit", "2"]);
    page.ok();
    let page = page.json();
    assert_eq!(page["calls"].as_array().unwrap().len(), 2);
    assert_eq!(page["calls"][0]["tool"], "no-such-tool");
    assert_eq!(page["calls"][1]["tool"], "get-sum");
    assert!(page["next_before_id"].is_i64(), "more pages: {page:#}");
    let last = sb.history(&["--limit", "10"]);
    assert_eq!(last.len(), 4);

    let beta = sb.history(&["--server", "beta"]);
    assert_eq!(beta.len(), 1);
    assert_eq!(beta[0]["tool"], "get-sum");
    assert!(text(&beta[0]["result"]).contains("42"), "{:#}", beta[0]);
    assert!(sb.history(&["--server", "gamma"]).is_empty());

    // Search covers arguments and results, case-insensitively.
    let apple = sb.history(&["--search", "APPLE"]);
    assert_eq!(apple.len(), 1);
    assert_eq!(apple[0]["arguments"]["message"], "first-apple");
    let by_result = sb.history(&["--search", "sum of 19"]);
    assert_eq!(
        by_result.len(),
        1,
        "search finds text in results: {by_result:#?}"
    );
    // `%` is a literal, not a wildcard.
    let percent = sb.history(&["--search", "%"]);
    assert_eq!(percent.len(), 1, "{percent:#?}");
    assert_eq!(percent[0]["arguments"]["message"], "100% sure");
    assert!(sb.history(&["--search", "no match at all"]).is_empty());
    let combined = sb.history(&["--server", "alpha", "--search", "echo", "--limit", "1"]);
    assert_eq!(combined.len(), 1);
    assert_eq!(combined[0]["arguments"]["message"], "100% sure");

    let errors = sb.history(&["--outcome", "tool-error"]);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["tool"], "no-such-tool");
    assert_eq!(sb.history(&["--outcome", "ok"]).len(), 3);
}

#[test]
fn exit_codes_for_bad_usage_and_failing_servers() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let marker = sb.dir().join("started");
    sb.run(&[
        "servers",
        "add",
        "probe",
        "--command",
        "sh",
        "--",
        "-c",
        &format!("touch '{}'; exec cat", marker.display()),
    ])
    .ok();

    // Unknown server: usage error, text and JSON.
    let unknown = sb.run(&["call", "nope", "echo"]);
    unknown.expect_code(2);
    assert!(
        unknown.stderr.contains("no server named \"nope\""),
        "{unknown:?}"
    );
    let unknown_json = sb.run(&["--json", "call", "nope", "echo"]);
    unknown_json.expect_code(2);
    assert_eq!(
        unknown_json.json()["error"]["code"],
        "unknown_server",
        "{unknown_json:?}"
    );
    for sub in [
        &["tools", "nope"][..],
        &["connect", "nope"],
        &["logs", "nope"],
        &["servers", "show", "nope"],
    ] {
        sb.run(sub).expect_code(2);
    }

    // Bad --args: usage error before anything is started.
    let bad_json = sb.run(&["call", "probe", "echo", "--args", "{bad"]);
    bad_json.expect_code(2);
    assert!(bad_json.stderr.contains("not valid JSON"), "{bad_json:?}");
    let not_object = sb.run(&["call", "probe", "echo", "--args", "[1,2]"]);
    not_object.expect_code(2);
    assert!(not_object.stderr.contains("JSON object"), "{not_object:?}");
    assert!(
        !marker.exists(),
        "the server was started although the arguments were invalid"
    );

    // Missing or conflicting flags.
    sb.run(&["servers", "add", "incomplete"]).expect_code(2);
    sb.run(&["call"]).expect_code(2);
    sb.run(&["call", "everything"]).expect_code(2);
    sb.run(&[
        "servers",
        "add",
        "both",
        "--command",
        "x",
        "--url",
        "https://x.example/",
    ])
    .expect_code(2);
    let header_on_stdio = sb.run(&["servers", "add", "h", "--command", "x", "--header", "A=b"]);
    header_on_stdio.expect_code(2);
    let no_equals = sb.run(&["servers", "add", "e", "--command", "x", "--env", "NOEQUALS"]);
    no_equals.expect_code(2);
    assert!(no_equals.stderr.contains("NAME=VALUE"), "{no_equals:?}");
    let dup = sb.run(&["servers", "add", "everything", "--command", "x"]);
    dup.expect_code(2);
    assert!(dup.stderr.contains("already exists"), "{dup:?}");
    sb.run(&["servers", "add", "bad/name", "--command", "x"])
        .expect_code(2);
    let ftp = sb.run(&["servers", "add", "f", "--url", "ftp://files.example/"]);
    ftp.expect_code(2);
    assert!(ftp.stderr.contains("http or https"), "{ftp:?}");
    let reserved = sb.run(&[
        "servers",
        "add",
        "r",
        "--url",
        "https://x.example/mcp",
        "--header",
        "Mcp-Session-Id=1",
    ]);
    reserved.expect_code(2);
    sb.run(&["history", "--outcome", "maybe"]).expect_code(2);
    sb.run(&["--consent", "always", "servers", "list"])
        .expect_code(2);
    assert_eq!(
        sb.server_names(),
        vec!["everything".to_string(), "probe".to_string()]
    );

    // Help and version are not errors.
    sb.run(&["--help"]).ok();
    sb.run(&["--version"]).ok();

    // A failing server or tool: exit 1.
    sb.run(&[
        "servers",
        "add",
        "crash",
        "--command",
        "python3",
        "--",
        &s(&bad_server()),
        "exit",
    ])
    .ok();
    sb.run(&["call", "crash", "echo"]).expect_code(1);
    let missing_tool = sb.run(&["call", "everything", "no-such-tool"]);
    missing_tool.expect_code(1);
    assert!(
        missing_tool.stdout.contains("not found"),
        "{missing_tool:?}"
    );
    let invalid = sb.run(&["call", "everything", "get-sum", "--args", r#"{"a":"x"}"#]);
    invalid.expect_code(1);

    // Usage errors are not calls: only the three real attempts are in history.
    let calls = sb.history(&[]);
    let summary: Vec<(String, String)> = calls
        .iter()
        .map(|c| {
            (
                c["server"].as_str().unwrap().into(),
                c["outcome"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("everything".to_string(), "tool_error".to_string()),
            ("everything".to_string(), "tool_error".to_string()),
            ("crash".to_string(), "failed".to_string())
        ],
        "{calls:#?}"
    );
}

/// `airlock tools off|on SERVER TOOL`: a tool that is off cannot be called
/// (nor from an app: the gateway's tests), is listed by `tools switched`,
/// and is back once on.
#[test]
fn a_tool_turned_off_cannot_be_called_until_it_is_on() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let off = sb.run(&["tools", "off", "everything", "echo"]);
    off.ok();
    assert!(off.stdout.contains("everything echo: off"), "{off:?}");
    let listed = sb.run(&["--json", "tools", "switched", "everything"]);
    listed.ok();
    assert_eq!(listed.json()["off"], json!(["echo"]));

    let refused = sb.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message":"hi"}"#,
    ]);
    assert_ne!(refused.code, Some(0), "{refused:?}");
    assert!(
        refused.stderr.contains("turned off in Airlock"),
        "{refused:?}"
    );
    assert!(sb.history(&[]).is_empty(), "nothing reached the server");

    let unknown = sb.run(&["tools", "off", "nobody", "echo"]);
    assert_ne!(unknown.code, Some(0), "{unknown:?}");

    sb.run(&["tools", "on", "everything", "echo"]).ok();
    let call = sb.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message":"hi"}"#,
    ]);
    call.ok();
    assert_eq!(call.stdout.trim(), "Echo: hi", "{call:?}");
    let audit = sb.run(&["--json", "audit", "--limit", "20"]).json();
    let switched = audit
        .as_array()
        .map(|a| a.iter().filter(|e| e["kind"] == "tool_switched").count())
        .unwrap_or(0);
    assert_eq!(switched, 2, "{audit:#}");
}

/// `airlock audit --export jsonl|csv`: every event, the same ones the audit
/// lists, one per line (JSON lines) or per CSV row, with a header.
#[test]
fn the_audit_trail_exports_as_json_lines_and_csv() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    sb.run(&["tools", "off", "everything", "echo"]).ok();
    sb.run(&["tools", "on", "everything", "echo"]).ok();
    let listed = sb.run(&["--json", "audit", "--limit", "1000"]).json();
    let ids: Vec<i64> = listed
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["id"].as_i64())
        .collect();
    assert!(ids.len() >= 3, "{listed:#}");

    let jsonl = sb.run(&["audit", "--export", "jsonl", "--limit", "1"]);
    jsonl.ok();
    let exported: Vec<i64> = jsonl
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("a JSON line")["id"]
                .as_i64()
                .expect("id")
        })
        .collect();
    assert_eq!(exported, ids, "every event, newest first, --limit ignored");

    let csv = sb.run(&["audit", "--export", "csv", "--kind", "tool_switched"]);
    csv.ok();
    let lines: Vec<&str> = csv.stdout.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines[0], "id,time_utc,server,kind,detail");
    assert_eq!(lines.len(), 3, "a header and the two switches: {lines:?}");
    assert!(
        lines[1].contains("\"everything\",\"tool_switched\""),
        "{lines:?}"
    );
    assert!(
        lines[1].contains("T") && lines[1].contains("Z\""),
        "ISO times: {lines:?}"
    );
}
