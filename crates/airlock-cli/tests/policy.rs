//! A team's policy (issue 36), through the real `airlock` binary: a server
//! the policy refuses is not added, imported or started, and the refusal
//! names the rule and its file; a policy file a user could rewrite is
//! refused with a warning; a broken one refuses every server; the catalog
//! reads only the registries it lists; `policy export` writes what the apps
//! read.
//!
//! The files are put in a folder of the test's own
//! (`AIRLOCK_TEST_POLICY_ROOT`, read by debug builds only: a release build
//! reads /etc/airlock and nothing a user can set moves it).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};

fn policy_root(sb: &Sandbox, policy: &Value) -> PathBuf {
    let root = sb.dir().join("etc-airlock");
    std::fs::create_dir_all(root.join("policy.d")).expect("policy.d");
    std::fs::write(root.join("policy.json"), policy.to_string()).expect("policy.json");
    root
}

fn with_policy(sb: &Sandbox, root: &Path) -> Cmd {
    sb.cmd().env("AIRLOCK_TEST_POLICY_ROOT", root)
}

fn everything_argv() -> Vec<String> {
    vec!["node".into(), s(&everything_js()), "stdio".into()]
}

fn add_everything(cmd: Cmd, name: &str) -> Out {
    let argv = everything_argv();
    cmd.args(["servers", "add", name, "--command", &argv[0], "--"])
        .args(&argv[1..])
        .run()
}

#[test]
fn a_denied_server_is_not_added_imported_or_started_and_the_rule_is_named() {
    let sb = Sandbox::new();
    let root = policy_root(
        &sb,
        &json!({
            "deniedServers": [{"url": "https://evil.example/*"}, {"command": everything_argv()}],
            "contact": {"name": "IT", "email": "it@corp.example"}
        }),
    );
    let added = add_everything(with_policy(&sb, &root), "ev");
    assert_ne!(added.code, Some(0), "{added:?}");
    let policy_file = root.join("policy.json");
    assert!(
        added
            .stderr
            .contains("denied by your organization's policy: deniedServers[1]")
            && added.stderr.contains(&s(&policy_file)),
        "the rule and its file are named: {added:?}"
    );
    let list = with_policy(&sb, &root)
        .args(["--json", "servers", "list"])
        .run();
    assert_eq!(list.json(), json!([]), "nothing was kept");

    // Import: the same rule, nothing of the file added.
    let config = sb.write(
        "mcp.json",
        &json!({"mcpServers": {
            "fine": {"command": "node", "args": [s(&everything_js()), "stdio", "--other"]},
            "ev": {"command": "node", "args": [s(&everything_js()), "stdio"]}
        }})
        .to_string(),
    );
    let imported = with_policy(&sb, &root)
        .args(["servers", "import"])
        .arg(&config)
        .run();
    assert_ne!(imported.code, Some(0), "{imported:?}");
    assert!(imported.stderr.contains("deniedServers[1]"), "{imported:?}");
    let list = with_policy(&sb, &root)
        .args(["--json", "servers", "list"])
        .run();
    assert_eq!(list.json(), json!([]), "all or nothing");

    // Added before the policy said no: not started after it does.
    let unrestricted = sb.dir().join("no-policy");
    std::fs::create_dir_all(&unrestricted).expect("empty root");
    add_everything(with_policy(&sb, &unrestricted), "ev").ok();
    let call = with_policy(&sb, &root)
        .args(["--json"])
        .call("ev", "echo", r#"{"message":"hi"}"#)
        .run();
    assert_ne!(call.code, Some(0), "{call:?}");
    assert!(
        call.stdout.contains("deniedServers[1]"),
        "the error an app or the CLI gets names the rule: {call:?}"
    );
    assert!(!call.stdout.contains("\"hi\""), "the server never answered");
    let fine = with_policy(&sb, &unrestricted)
        .args(["--json"])
        .call("ev", "echo", r#"{"message":"hi"}"#)
        .run();
    fine.ok();
}

#[test]
fn only_listed_servers_and_confinement_required() {
    let sb = Sandbox::new();
    let root = policy_root(
        &sb,
        &json!({
            "onlyListedServers": true,
            "allowedServers": [{"url": "https://mcp.corp.example/*"}, {"command": everything_argv()}],
            "requireConfinement": true
        }),
    );
    let other = with_policy(&sb, &root)
        .args([
            "servers",
            "add",
            "other",
            "--command",
            "node",
            "--",
            "other.js",
        ])
        .run();
    assert_ne!(other.code, Some(0), "{other:?}");
    assert!(other.stderr.contains("onlyListedServers"), "{other:?}");
    with_policy(&sb, &root)
        .args([
            "servers",
            "add",
            "corp",
            "--url",
            "https://mcp.corp.example/mcp",
        ])
        .run()
        .ok();
    let lookalike = with_policy(&sb, &root)
        .args([
            "servers",
            "add",
            "lookalike",
            "--url",
            "https://mcp.corp.example.evil.test/mcp",
        ])
        .run();
    assert_ne!(lookalike.code, Some(0), "{lookalike:?}");
    // Listed, but unconfined: refused; confined: added; then confinement
    // cannot be switched off.
    let argv = everything_argv();
    let bare = with_policy(&sb, &root)
        .args([
            "servers",
            "add",
            "ev",
            "--no-sandbox",
            "--command",
            &argv[0],
            "--",
        ])
        .args(&argv[1..])
        .run();
    assert_ne!(bare.code, Some(0), "{bare:?}");
    assert!(bare.stderr.contains("requireConfinement"), "{bare:?}");
    add_everything(with_policy(&sb, &root), "ev").ok();
    let off = with_policy(&sb, &root)
        .args(["servers", "sandbox", "ev", "off"])
        .run();
    assert_ne!(off.code, Some(0), "{off:?}");
    assert!(off.stderr.contains("requireConfinement"), "{off:?}");
    let room = with_policy(&sb, &root)
        .args(["--json", "servers", "sandbox", "ev"])
        .run();
    assert_eq!(room.json()["settings"]["enabled"], true, "still confined");
}

#[test]
fn a_policy_a_user_could_write_is_refused_and_a_broken_one_refuses_everything() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let root = policy_root(
        &sb,
        &json!({"deniedServers": [{"command": everything_argv()}]}),
    );
    let file = root.join("policy.json");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    let shown = with_policy(&sb, &root).args(["policy", "show"]).run();
    shown.ok();
    assert!(
        shown.stdout.contains(&format!("REFUSED: {}", s(&file))),
        "{shown:?}"
    );
    add_everything(with_policy(&sb, &root), "ev").ok();

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    std::fs::write(
        root.join("policy.d/20-typo.json"),
        r#"{"deniedServer": []}"#,
    )
    .expect("a broken file");
    let shown = with_policy(&sb, &root).args(["policy", "show"]).run();
    assert!(
        shown.stdout.contains("BROKEN") && shown.stdout.contains("deniedServer"),
        "the file and the unknown key are named: {shown:?}"
    );
    let refused = with_policy(&sb, &root)
        .args([
            "servers",
            "add",
            "remote",
            "--url",
            "https://mcp.example.com/mcp",
        ])
        .run();
    assert_ne!(refused.code, Some(0), "fails closed: {refused:?}");
    assert!(refused.stderr.contains("20-typo.json"), "{refused:?}");
}

#[test]
fn the_catalog_reads_only_the_registries_the_policy_lists() {
    let sb = Sandbox::new();
    let root = policy_root(
        &sb,
        &json!({"registries": ["https://registry.corp.example/"]}),
    );
    let out = with_policy(&sb, &root)
        .args([
            "catalog",
            "refresh",
            "--registry",
            "https://registry.modelcontextprotocol.io",
        ])
        .run();
    assert_ne!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("registries"), "{out:?}");
}

#[test]
fn the_export_makes_claude_code_load_only_airlock() {
    let sb = Sandbox::new();
    let out = sb.run(&["policy", "export", "claude-code"]);
    out.ok();
    let v = out.json();
    let servers = v["mcpServers"].as_object().expect("mcpServers");
    assert_eq!(servers.len(), 1, "{v}");
    assert_eq!(servers["airlock"]["command"], s(&airlock_bin()));
    assert_eq!(
        servers["airlock"]["args"],
        json!(["gateway", "--stdio", "--app", "claude-code"])
    );
    let settings = sb.run(&["policy", "export", "claude-code-settings"]).json();
    assert_eq!(settings["allowManagedMcpServersOnly"], true);
}

#[test]
fn a_page_on_a_domain_the_policy_refuses_is_never_asked_about_or_opened() {
    let sb = Sandbox::new();
    let root = policy_root(
        &sb,
        &json!({"elicitationDomains": {"deny": ["evil.example"]}}),
    );
    sb.add_everything("everything");
    let browser = BrowserRecorder::new(sb.dir());
    let out = browser
        .apply(with_policy(&sb, &root))
        .consent("accept")
        .open("system")
        .arg("--json")
        .call(
            "everything",
            URL_TRIGGER,
            &url_args("https://login.evil.example/connect"),
        )
        .run();
    let record = sb.newest_elicitation();
    assert_eq!(record["state"], "blocked", "{record}");
    let audit = serde_json::to_string(&sb.audit()).unwrap_or_default();
    assert!(
        audit.contains("elicitationDomains.deny"),
        "the rule is named in the audit trail: {audit}"
    );
    assert!(
        out.stdout.contains("\"action\": \"decline\"")
            || out.stdout.contains(r#"\"action\": \"decline\""#),
        "the server was told no: {out:?}"
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(browser.lines().is_empty(), "nothing was opened");
    // Another domain is asked about as usual.
    let fine = browser
        .apply(with_policy(&sb, &root))
        .consent("accept")
        .open("system")
        .arg("--json")
        .call(
            "everything",
            URL_TRIGGER,
            &url_args("https://example.com/connect"),
        )
        .run();
    fine.ok();
    assert_eq!(browser.wait_for(1), vec!["https://example.com/connect"]);
}

#[test]
fn an_app_the_policy_does_not_list_sees_nothing_and_is_told_why() {
    use common::gateway::{ts_app, Daemon};
    let sb = Sandbox::new();
    let root = policy_root(&sb, &json!({"apps": {"allow": ["claude-code"]}}));
    sb.add_py("py", &[]);
    let _daemon = Daemon::spawn(
        &sb,
        with_policy(&sb, &root).consent("decline").arg("daemon"),
    );
    let ops = json!([
        {"op": "tools"},
        {"op": "call", "name": "py__log_something", "arguments": {"text": "from-cursor-9c1d"}}
    ]);
    let cursor = ts_app(&sb, "cursor-like", Some("cursor"), &ops).run();
    let said = cursor.stdout.clone() + &cursor.stderr;
    assert!(said.contains("apps.allow"), "the rule is named: {cursor:?}");
    assert!(
        !sb.run(&["logs", "py"]).stdout.contains("from-cursor-9c1d"),
        "nothing reached the server"
    );
    let claude = ts_app(
        &sb,
        "claude-like",
        Some("claude-code"),
        &json!([
            {"op": "call", "name": "py__log_something", "arguments": {"text": "from-claude"}}
        ]),
    )
    .run();
    claude.ok();
    assert_eq!(
        text(&claude.json_lines()[0]["result"]),
        "logged",
        "{claude:?}"
    );
}

#[test]
fn a_policy_changed_while_the_daemon_runs_stops_the_server_it_denies() {
    use common::gateway::{ts_app, Daemon};
    let sb = Sandbox::new();
    let root = policy_root(&sb, &json!({"contact": {"name": "IT"}}));
    sb.add_py("py", &[]);
    let daemon = Daemon::spawn(
        &sb,
        with_policy(&sb, &root).consent("decline").arg("daemon"),
    );
    let tools = || {
        let out = ts_app(&sb, "app", Some("claude-code"), &json!([{"op": "tools"}])).run();
        out.ok();
        out.json_lines()[0].to_string()
    };
    assert!(tools().contains("py__log_something"), "served before");
    let def = sb.run(&["--json", "servers", "show", "py"]).json();
    let mut argv = vec![def["transport"]["command"].clone()];
    argv.extend(
        def["transport"]["args"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    );
    std::fs::write(
        root.join("policy.d/50-deny.json"),
        json!({"deniedServers": [{"command": argv}]}).to_string(),
    )
    .expect("a new policy file");
    wait_until(
        "the daemon to stop the denied server",
        std::time::Duration::from_secs(20),
        || daemon.log().contains("deniedServers[0]").then_some(()),
    );
    wait_until(
        "its tools to go",
        std::time::Duration::from_secs(20),
        || (!tools().contains("py__log_something")).then_some(()),
    );
}

#[test]
fn a_refused_person_gets_the_exception_request_to_send() {
    let sb = Sandbox::new();
    let unrestricted = sb.dir().join("no-policy");
    std::fs::create_dir_all(&unrestricted).expect("empty root");
    add_everything(with_policy(&sb, &unrestricted), "ev").ok();
    let root = policy_root(
        &sb,
        &json!({
            "deniedServers": [{"command": everything_argv()}],
            "contact": {"name": "IT", "email": "it@corp.example"}
        }),
    );
    let out = with_policy(&sb, &root)
        .args([
            "policy",
            "exception",
            "ev",
            "--reason",
            "I test MCP clients",
        ])
        .run();
    out.ok();
    for needle in [
        "Server: ev",
        &s(&everything_js()),
        "deniedServers[0]",
        "I test MCP clients",
        "mailto:it@corp.example?",
    ] {
        assert!(out.stdout.contains(needle), "{needle}: {out:?}");
    }
}

#[test]
fn a_room_never_gets_a_host_or_path_the_policy_denies() {
    let sb = Sandbox::new();
    let secrets = sb.dir().join("corp-secrets");
    std::fs::create_dir_all(secrets.join("inner")).expect("secrets");
    let root = policy_root(
        &sb,
        &json!({
            "deniedHosts": ["169.254.169.254", "*.internal.corp.example"],
            "deniedPaths": [s(&secrets)]
        }),
    );
    add_everything(with_policy(&sb, &root), "ev").ok();
    let sandbox = |args: &[&str]| {
        with_policy(&sb, &root)
            .args(["servers", "sandbox", "ev"])
            .args(args)
            .run()
    };
    for (args, rule) in [
        (vec!["allow-host", "169.254.169.254"], "deniedHosts[0]"),
        (
            vec!["allow-host", "db.internal.corp.example"],
            "deniedHosts[1]",
        ),
        (
            vec!["allow-read", &s(&secrets.join("inner"))],
            "deniedPaths[0]",
        ),
        // A folder holding a denied path would grant it too.
        (vec!["allow-write", &s(sb.dir())], "deniedPaths[0]"),
    ] {
        let out = sandbox(&args);
        assert_ne!(out.code, Some(0), "{args:?}: {out:?}");
        assert!(out.stderr.contains(rule), "{args:?}: {out:?}");
    }
    let room = with_policy(&sb, &root)
        .args(["--json", "servers", "sandbox", "ev"])
        .run();
    let settings = &room.json()["settings"];
    assert_eq!(settings["hosts"], json!([]), "{settings}");
    assert_eq!(settings["read"], json!([]), "{settings}");
    assert_eq!(settings["write"], json!([]), "{settings}");
    // Another host is kept as usual.
    sandbox(&["allow-host", "api.example.com"]).ok();
}
