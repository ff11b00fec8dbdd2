//! `airlock apps connect|disconnect|available` with a temporary HOME: what a
//! user sees and what lands in the app's config file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        fs::create_dir_all(dir.path().join("home")).expect("home");
        Sandbox { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn run_env(&self, args: &[&str], xdg: Option<&Path>) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_airlock"));
        cmd.arg("--data-dir")
            .arg(self.dir.path().join("data"))
            .args(args)
            .env("HOME", self.home())
            .env_remove("XDG_CONFIG_HOME")
            .stdin(Stdio::null());
        if let Some(x) = xdg {
            cmd.env("XDG_CONFIG_HOME", x);
        }
        cmd.output().expect("run airlock")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_env(args, None)
    }

    fn put(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.home().join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        fs::write(&path, text).expect("write");
        path
    }
}

fn utf8(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn airlock_path() -> String {
    fs::canonicalize(env!("CARGO_BIN_EXE_airlock"))
        .expect("canonical")
        .display()
        .to_string()
}

const CURSOR: &str = "{\n  \"mcpServers\": {\n    \"notes\": {\"command\": \"notes-server\", \"args\": [\"--dir\", \"/tmp\"]}\n  }\n}\n";

#[test]
fn connect_without_a_terminal_shows_the_diff_and_refuses_without_yes() {
    let sb = Sandbox::new();
    let path = sb.put(".cursor/mcp.json", CURSOR);
    let out = sb.run(&["apps", "connect", "cursor"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stdout = utf8(&out.stdout);
    assert!(stdout.contains("+    \"airlock\": {"), "{stdout}");
    assert!(stdout.contains(&airlock_path()), "{stdout}");
    assert!(utf8(&out.stderr).contains("--yes"), "{}", utf8(&out.stderr));
    assert_eq!(
        fs::read_to_string(&path).expect("read"),
        CURSOR,
        "untouched"
    );
}

#[test]
fn connect_twice_then_disconnect_restores_the_file() {
    let sb = Sandbox::new();
    let path = sb.put(".cursor/mcp.json", CURSOR);
    let out = sb.run(&["apps", "connect", "cursor", "--yes"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        utf8(&out.stdout).contains("Cursor connected"),
        "{}",
        utf8(&out.stdout)
    );
    let config: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        config["mcpServers"]["airlock"]["command"],
        airlock_path().as_str()
    );
    assert_eq!(
        config["mcpServers"]["airlock"]["args"],
        serde_json::json!(["gateway", "--stdio", "--app", "cursor"])
    );
    assert_eq!(config["mcpServers"]["notes"]["command"], "notes-server");
    let connected = fs::read_to_string(&path).expect("read");

    let again = sb.run(&["apps", "connect", "cursor"]);
    assert!(again.status.success(), "{again:?}");
    assert!(utf8(&again.stdout).contains("already connected"));
    assert_eq!(fs::read_to_string(&path).expect("read"), connected);

    let apps = sb.run(&["--json", "apps", "available"]);
    let list: serde_json::Value = serde_json::from_slice(&apps.stdout).expect("json");
    let cursor = list
        .as_array()
        .expect("array")
        .iter()
        .find(|a| a["app"] == "cursor")
        .expect("cursor listed");
    assert_eq!(cursor["connected"], true);
    assert_eq!(cursor["up_to_date"], true);
    assert_eq!(
        list.as_array().expect("array").len(),
        airlock_apps::ALL_APPS.len()
    );

    let off = sb.run(&["apps", "disconnect", "cursor", "--yes"]);
    assert!(off.status.success(), "{off:?}");
    assert_eq!(fs::read_to_string(&path).expect("read"), CURSOR);
}

#[test]
fn move_servers_imports_them_into_airlock_first() {
    let sb = Sandbox::new();
    let path = sb.put(".cursor/mcp.json", CURSOR);
    let out = sb.run(&["apps", "connect", "cursor", "--yes", "--move-servers"]);
    assert!(out.status.success(), "{out:?}");
    assert!(utf8(&out.stdout).contains("imported into Airlock: notes"));
    let config: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    let servers = config["mcpServers"].as_object().expect("object");
    assert_eq!(servers.keys().collect::<Vec<_>>(), vec!["airlock"]);
    let list = sb.run(&["--json", "servers", "list"]);
    assert!(
        utf8(&list.stdout).contains("notes-server"),
        "{}",
        utf8(&list.stdout)
    );
}

#[test]
fn a_malformed_config_is_refused_with_its_path_and_left_untouched() {
    let sb = Sandbox::new();
    let broken = "{\"mcpServers\": {\"a\": {\"command\": \"x\"},}}";
    let path = sb.put(".codeium/windsurf/mcp_config.json", broken);
    let out = sb.run(&["apps", "connect", "windsurf", "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = utf8(&out.stderr);
    assert!(
        err.contains("mcp_config.json") && err.contains("left it untouched"),
        "{err}"
    );
    assert_eq!(fs::read(&path).expect("read"), broken.as_bytes());
    let unknown = sb.run(&["apps", "connect", "notepad", "--yes"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(utf8(&unknown.stderr).contains("known apps"));
}

#[test]
fn xdg_config_home_decides_where_vscode_is_connected() {
    let sb = Sandbox::new();
    let xdg = sb.dir.path().join("xdg");
    let out = sb.run_env(&["apps", "connect", "vscode", "--yes"], Some(&xdg));
    assert!(out.status.success(), "{out:?}");
    let written = fs::read_to_string(xdg.join("Code/User/mcp.json")).expect("created");
    assert!(written.contains("\"--app\", \"vscode\""), "{written}");
    assert!(!sb.home().join(".config").exists());
}

/// Every file under `dir`, with its bytes.
fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = fs::read(&p) {
                out.push((p, bytes));
            }
        }
    }
    out
}

/// Airlock's keychain entries (service dev.airlock) as `secret-tool`
/// prints them: attributes and secrets.
fn keychain_dump() -> String {
    let out = Command::new("secret-tool")
        .args(["search", "--all", "--unlock", "service", "dev.airlock"])
        .stdin(Stdio::null())
        .output()
        .expect("secret-tool (libsecret-tools)");
    format!("{}{}", utf8(&out.stdout), utf8(&out.stderr))
}

#[test]
fn moved_env_secrets_live_only_in_the_keychain_and_disconnect_puts_them_back() {
    assert!(
        std::env::var_os("AIRLOCK_SESSION_DIR").is_some(),
        "this test stores secrets in the OS keychain: run it under `scripts/with-session.sh`"
    );
    let sb = Sandbox::new();
    let nonce = format!(
        "{:032x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("time")
            .as_nanos()
            ^ u128::from(std::process::id())
    );
    let secret = format!("ghp_{nonce}abcd");
    let config = format!(
        "{{\n  \"mcpServers\": {{\n    \"github\": {{\"command\": \"github-mcp\", \"env\": {{\"GITHUB_TOKEN\": \"{secret}\"}}}}\n  }}\n}}\n"
    );
    let path = sb.put(".cursor/mcp.json", &config);
    let out = sb.run(&["apps", "connect", "cursor", "--yes", "--move-servers"]);
    assert!(out.status.success(), "{out:?}");
    assert!(!utf8(&out.stdout).contains(&secret), "the diff hides it");
    for (p, bytes) in all_files(&sb.dir.path().join("data"))
        .into_iter()
        .chain([(path.clone(), fs::read(&path).expect("read"))])
    {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the secret is in {}",
            p.display()
        );
    }
    let dump = keychain_dump();
    assert!(dump.contains("app-config/cursor/"), "{dump}");
    assert!(dump.contains(&secret), "the keychain holds it");

    // The user edits the file; disconnect merges the server back.
    let edited = fs::read_to_string(&path)
        .expect("read")
        .replacen('{', "{\n  \"myKey\": true,", 1);
    fs::write(&path, &edited).expect("edit");
    let off = sb.run(&["apps", "disconnect", "cursor", "--yes"]);
    assert!(off.status.success(), "{off:?}");
    assert!(
        !utf8(&off.stdout).contains(&secret),
        "{}",
        utf8(&off.stdout)
    );
    let back: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        back["mcpServers"]["github"]["env"]["GITHUB_TOKEN"],
        secret.as_str()
    );
    assert_eq!(back["myKey"], true);
    assert!(back["mcpServers"].get("airlock").is_none());
    assert!(
        !keychain_dump().contains("app-config/cursor/"),
        "the references are gone from the keychain"
    );
}

/// Airlock moved (an upgrade into another folder): the same binary under
/// another path, so a second connect rewrites the entry.
fn moved_airlock(sb: &Sandbox) -> PathBuf {
    let dir = sb.dir.path().join("new-place");
    fs::create_dir_all(&dir).expect("dir");
    let moved = dir.join("airlock");
    fs::hard_link(env!("CARGO_BIN_EXE_airlock"), &moved)
        .or_else(|_| fs::copy(env!("CARGO_BIN_EXE_airlock"), &moved).map(|_| ()))
        .expect("link airlock");
    moved
}

#[test]
fn an_edit_made_before_a_second_connect_survives_disconnect() {
    let sb = Sandbox::new();
    let path = sb.put(".cursor/mcp.json", CURSOR);
    let out = sb.run(&["apps", "connect", "cursor", "--yes", "--move-servers"]);
    assert!(out.status.success(), "{out:?}");
    let edited = fs::read_to_string(&path)
        .expect("read")
        .replacen('{', "{\n  \"myKey\": 1,", 1);
    fs::write(&path, &edited).expect("user edit");

    let moved = moved_airlock(&sb);
    let again = Command::new(&moved)
        .arg("--data-dir")
        .arg(sb.dir.path().join("data"))
        .args(["apps", "connect", "cursor", "--yes"])
        .env("HOME", sb.home())
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("run the moved airlock");
    assert!(again.status.success(), "{again:?}");
    let now = fs::read_to_string(&path).expect("read");
    assert!(
        now.contains("new-place"),
        "the entry follows Airlock: {now}"
    );

    // The file is exactly what Airlock wrote last, yet the first backup is
    // stale: restoring it would lose the user's edit.
    let off = sb.run(&["apps", "disconnect", "cursor", "--yes"]);
    assert!(off.status.success(), "{off:?}");
    let back: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(back["myKey"], 1, "the user's edit is kept: {back}");
    assert_eq!(back["mcpServers"]["notes"]["command"], "notes-server");
    assert!(back["mcpServers"].get("airlock").is_none(), "{back}");
}

/// What an older Airlock wrote and older scripts type still work: the
/// `clients` command (now `apps`), `--client` (now `--app`) on `gateway`
/// and `history`, and an app config whose entry says `--client`: it is
/// connected (the gateway takes either spelling), shown as not up to date,
/// and a connect rewrites it to `--app` after showing the change.
#[test]
fn older_spellings_still_work_and_an_old_entry_is_updated_on_connect() {
    let sb = Sandbox::new();
    let old = format!(
        "{{\n  \"mcpServers\": {{\n    \"airlock\": {{\"command\": {}, \"args\": [\"gateway\", \"--stdio\", \"--client\", \"cursor\"]}}\n  }}\n}}\n",
        serde_json::Value::from(airlock_path())
    );
    let path = sb.put(".cursor/mcp.json", &old);

    let listed = sb.run(&["--json", "clients", "apps"]);
    assert!(listed.status.success(), "{listed:?}");
    let list: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("json");
    let cursor = list
        .as_array()
        .expect("array")
        .iter()
        .find(|a| a["app"] == "cursor")
        .expect("cursor listed");
    assert_eq!(cursor["connected"], true, "{cursor}");
    assert_eq!(cursor["up_to_date"], false, "{cursor}");

    let added = sb.run(&["clients", "add", "old-script"]);
    assert!(added.status.success(), "{added:?}");
    assert!(utf8(&added.stdout).contains("added app old-script"));
    let history = sb.run(&["--json", "history", "--client", "old-script"]);
    assert!(history.status.success(), "{history:?}");

    let out = sb.run(&["apps", "connect", "cursor", "--yes"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = utf8(&out.stdout);
    assert!(
        stdout.contains("-") && stdout.contains("\"--client\""),
        "{stdout}"
    );
    let config: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        config["mcpServers"]["airlock"]["args"],
        serde_json::json!(["gateway", "--stdio", "--app", "cursor"])
    );

    // Help shows one word: `apps`.
    let help = utf8(&sb.run(&["--help"]).stdout);
    assert!(help.contains("\n  apps "), "{help}");
    assert!(!help.contains("clients"), "{help}");
}
