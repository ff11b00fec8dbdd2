//! Disconnect keeps what the user changed since connect, the secrets of
//! moved servers never land in a file, and a hostile config is refused
//! untouched (issue 25, item 8). The vault here is an in-memory fake; the
//! CLI's tests run the same path against the real keychain.

use std::fs;
use std::path::{Path, PathBuf};

use airlock_apps::fakes::{FixedRulesDetectorFake, InMemoryVaultFake};
use airlock_apps::{
    apply, plan_connect, plan_disconnect, status, AppId, AppsError, Keeper, Places,
    MAX_APP_CONFIG_BYTES, MAX_MOVED_SECRETS, MAX_NESTING_DEPTH, MAX_SERVER_ENTRIES,
};

const PROGRAM: &str = "/opt/airlock/bin/airlock";
/// Airlock installed somewhere else later (an upgrade that moved it): a
/// second connect changes the entry.
const MOVED_PROGRAM: &str = "/usr/local/bin/airlock";

struct Home {
    dir: tempfile::TempDir,
    places: Places,
    vault: InMemoryVaultFake,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().expect("temp dir");
        let places = Places {
            home: dir.path().join("home"),
            xdg_config_home: None,
            app_data: None,
            state_dir: dir.path().join("airlock-data"),
            app_homes: Default::default(),
        };
        fs::create_dir_all(&places.home).expect("home");
        Home {
            dir,
            places,
            vault: InMemoryVaultFake::default(),
        }
    }

    fn keeper(&self) -> Keeper<'_> {
        Keeper {
            vault: &self.vault,
            detector: &FixedRulesDetectorFake,
        }
    }

    fn put(&self, app: AppId, text: &str) -> PathBuf {
        let path = app.config_path(&self.places);
        fs::create_dir_all(path.parent().expect("parent")).expect("config dir");
        fs::write(&path, text).expect("write config");
        path
    }

    fn connect(&self, app: AppId, program: &str, move_servers: bool) -> airlock_apps::Change {
        let change = plan_connect(
            app,
            &self.places,
            Path::new(program),
            move_servers,
            self.keeper(),
        )
        .expect("plan connect");
        apply(&change, &self.places, self.keeper()).expect("apply connect");
        change
    }

    fn disconnect(&self, app: AppId) -> airlock_apps::Change {
        let change = plan_disconnect(app, &self.places, self.keeper()).expect("plan disconnect");
        apply(&change, &self.places, self.keeper()).expect("apply disconnect");
        change
    }

    /// Every file under the data dir, and its bytes.
    fn data_files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut dirs = vec![self.places.state_dir.clone()];
        while let Some(d) = dirs.pop() {
            let Ok(rd) = fs::read_dir(&d) else { continue };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    out.push((p.clone(), fs::read(&p).expect("read")));
                }
            }
        }
        out
    }
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// An edit a user makes by hand, in the app's own format.
fn user_edit(app: AppId, text: &str, n: u32) -> String {
    match app {
        AppId::CodexCli => {
            format!("{text}\n# my note {n}\n[mcp_servers.mine{n}]\ncommand = \"mine{n}\"\n")
        }
        AppId::Continue => text.replace("rules:\n", &format!("rules:\n  - my rule {n} # mine\n")),
        _ => text.replacen('{', &format!("{{\n  \"myKey{n}\": {n},"), 1),
    }
}

/// The servers an app lists after a change, by name (the app's view).
fn names(h: &Home, app: AppId) -> Vec<String> {
    let st = status(app, &h.places, Path::new(PROGRAM));
    assert!(st.problem.is_none(), "{st:?}");
    let text = fs::read_to_string(app.config_path(&h.places)).expect("read");
    let mut out = Vec::new();
    for name in ["airlock", "github", "docs", "SQLite MCP", "mine1", "mine2"] {
        let quoted = format!("\"{name}\"");
        let toml = format!("[mcp_servers.{name}]");
        let yaml = format!("name: {name}\n");
        if text.contains(&quoted) || text.contains(&toml) || text.contains(&yaml) {
            out.push(name.to_owned());
        }
    }
    out
}

const CURSOR: &str = "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-github\"],\n      \"env\": {\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"ghp_0123456789abcdefghijABCDEFGHIJklmn\", \"GITHUB_HOST\": \"github.example.com\"}\n    }\n  }\n}\n";

fn golden(name: &str) -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name),
    )
    .expect("golden")
}

#[test]
fn edits_made_between_two_connects_and_after_survive_disconnect() {
    for (app, before) in [
        (AppId::Cursor, CURSOR.to_owned()),
        (AppId::CodexCli, golden("codex-cli.before.toml")),
        (AppId::Continue, golden("continue.before.yaml")),
    ] {
        let h = Home::new();
        let path = h.put(app, &before);
        h.connect(app, PROGRAM, true);
        let first = fs::read_to_string(&path).expect("read");
        fs::write(&path, user_edit(app, &first, 1)).expect("user edit 1");
        // A second connect that changes the entry (Airlock moved).
        let second = h.connect(app, MOVED_PROGRAM, false);
        assert!(!second.changes_nothing(), "{app}");
        let now = fs::read_to_string(&path).expect("read");
        assert!(now.contains(MOVED_PROGRAM), "{app}: {now}");
        fs::write(&path, user_edit(app, &now, 2)).expect("user edit 2");

        let off = h.disconnect(app);
        let after = fs::read_to_string(&path).expect("read");
        for n in [1, 2] {
            let mark = match app {
                AppId::CodexCli => format!("# my note {n}"),
                AppId::Continue => format!("my rule {n} # mine"),
                _ => format!("\"myKey{n}\": {n}"),
            };
            assert!(
                after.contains(&mark),
                "{app}: user edit {n} lost: {after}\n{off:?}"
            );
        }
        assert!(!after.contains("airlock"), "{app}: {after}");
        let listed = names(&h, app);
        let moved_back = match app {
            AppId::Cursor => "github",
            AppId::CodexCli => "docs",
            _ => "SQLite MCP",
        };
        assert!(
            listed.contains(&moved_back.to_owned()),
            "{app}: {listed:?}\n{after}"
        );
        if app == AppId::CodexCli {
            assert!(listed.contains(&"mine1".to_owned()) && listed.contains(&"mine2".to_owned()));
            // Comments outside the moved entries stay.
            assert!(after.starts_with("# Codex configuration"), "{after}");
        }
        if app == AppId::Cursor {
            let v: serde_json::Value = serde_json::from_str(&after).expect("json");
            assert_eq!(
                v["mcpServers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
                "ghp_0123456789abcdefghijABCDEFGHIJklmn",
                "the secret came back from the vault"
            );
        }
        assert!(
            h.vault.is_empty(),
            "{app}: the vault is emptied after disconnect"
        );
    }
}

#[test]
fn an_edit_before_a_second_connect_survives_though_the_file_is_what_airlock_wrote_last() {
    let h = Home::new();
    let app = AppId::Cursor;
    let path = h.put(app, CURSOR);
    h.connect(app, PROGRAM, true);
    let first = fs::read_to_string(&path).expect("read");
    fs::write(&path, user_edit(app, &first, 1)).expect("user edit");
    h.connect(app, MOVED_PROGRAM, false);
    // No edit since: the first backup is stale all the same.
    h.disconnect(app);
    let after = fs::read_to_string(&path).expect("read");
    assert!(after.contains("\"myKey1\": 1"), "{after}");
    assert!(!after.contains("airlock"), "{after}");
    assert!(after.contains("\"github\""), "{after}");
}

#[test]
fn untouched_since_the_last_write_the_whole_backup_comes_back_byte_for_byte() {
    let h = Home::new();
    let app = AppId::Continue;
    let before = golden("continue.before.yaml");
    let path = h.put(app, &before);
    h.connect(app, PROGRAM, true);
    // Reconnecting from Airlock's own text keeps the chain.
    h.connect(app, MOVED_PROGRAM, false);
    h.disconnect(app);
    assert_eq!(fs::read_to_string(&path).expect("read"), before);
}

#[test]
fn moved_secrets_go_to_the_vault_never_to_a_file_and_come_back() {
    let h = Home::new();
    let app = AppId::Cursor;
    let path = h.put(app, CURSOR);
    let change = h.connect(app, PROGRAM, true);
    let secret = "ghp_0123456789abcdefghijABCDEFGHIJklmn";
    assert!(
        !change.diff.contains(secret),
        "the diff shows [secret]: {}",
        change.diff
    );
    assert!(change.diff.contains("[secret]"), "{}", change.diff);
    let shown = serde_json::to_string(&change).expect("json");
    assert!(!shown.contains(secret) && !shown.contains("github.example.com"));
    let debug = format!("{change:?}");
    assert!(
        !debug.contains(secret) && !debug.contains("github.example.com"),
        "{debug}"
    );
    assert!(h.vault.values().contains(&secret.to_owned()));
    assert!(
        h.vault.values().contains(&"github.example.com".to_owned()),
        "every env value"
    );
    let files = h.data_files();
    assert!(files.len() >= 2, "a record and a backup: {files:?}");
    for (p, bytes) in &files {
        assert!(!contains(bytes, secret), "{} holds the secret", p.display());
        assert!(!contains(bytes, "github.example.com"), "{}", p.display());
    }
    assert!(
        !contains(&fs::read(&path).expect("read"), secret),
        "moved out of the app"
    );

    // The file is still what Airlock wrote: the backup comes back whole,
    // its masked secret filled in from the vault.
    let off = h.disconnect(app);
    assert_eq!(fs::read_to_string(&path).expect("read"), CURSOR);
    assert!(
        !off.diff.contains(secret) && off.diff.contains("[secret]"),
        "{}",
        off.diff
    );
    assert!(h.vault.is_empty());
}

#[test]
fn servers_moved_by_a_later_connect_leave_no_secret_in_earlier_backups() {
    let h = Home::new();
    let app = AppId::Cursor;
    let path = h.put(app, CURSOR);
    h.connect(app, PROGRAM, false);
    // The first backup is the file as it was, secret included, until...
    h.connect(app, PROGRAM, true);
    let secret = "ghp_0123456789abcdefghijABCDEFGHIJklmn";
    for (p, bytes) in h.data_files() {
        assert!(
            !contains(&bytes, secret),
            "{} holds the secret",
            p.display()
        );
    }
    // Nobody wrote in between: the original comes back whole.
    h.disconnect(app);
    assert_eq!(fs::read_to_string(&path).expect("read"), CURSOR);
}

#[test]
fn a_secret_missing_from_the_vault_is_named_and_the_server_comes_back_without_it() {
    let h = Home::new();
    let app = AppId::Cursor;
    let path = h.put(app, CURSOR);
    h.connect(app, PROGRAM, true);
    h.vault.lose("ghp_0123456789abcdefghijABCDEFGHIJklmn");
    let off = h.disconnect(app);
    assert!(
        off.notes.iter().any(|n| n.contains("\"github\"")
            && n.contains("env GITHUB_PERSONAL_ACCESS_TOKEN")
            && n.contains("not in the OS keychain")),
        "{:?}",
        off.notes
    );
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    let env = &v["mcpServers"]["github"]["env"];
    assert!(env.get("GITHUB_PERSONAL_ACCESS_TOKEN").is_none(), "{v}");
    assert_eq!(env["GITHUB_HOST"], "github.example.com", "the rest is back");
    assert!(v["mcpServers"].get("airlock").is_none());
}

#[test]
fn a_keychain_that_refuses_stops_the_connect_before_anything_is_written() {
    let mut h = Home::new();
    h.vault.broken = true;
    let app = AppId::Cursor;
    let path = h.put(app, CURSOR);
    let change = plan_connect(app, &h.places, Path::new(PROGRAM), true, h.keeper()).expect("plan");
    let err = apply(&change, &h.places, h.keeper()).expect_err("refused");
    assert!(matches!(err, AppsError::Vault { .. }), "{err}");
    assert!(err.to_string().contains("Nothing was written"), "{err}");
    assert_eq!(fs::read_to_string(&path).expect("read"), CURSOR);
    assert!(h.data_files().is_empty(), "no backup, no record");
}

#[test]
fn a_user_who_edited_or_removed_airlocks_entry_is_told_and_their_own_is_kept() {
    let h = Home::new();
    let app = AppId::ClaudeDesktop;
    let path = h.put(app, "{\"mcpServers\": {}}\n");
    h.connect(app, PROGRAM, false);
    // Their own server under Airlock's name: left alone.
    fs::write(
        &path,
        "{\"mcpServers\": {\"airlock\": {\"command\": \"my-tool\"}}}\n",
    )
    .expect("edit");
    let off = h.disconnect(app);
    assert!(
        off.notes
            .iter()
            .any(|n| n.contains("not Airlock's gateway")),
        "{:?}",
        off.notes
    );
    assert!(fs::read_to_string(&path).expect("read").contains("my-tool"));

    // Airlock's entry edited by hand (still the gateway): removed, and said.
    let h = Home::new();
    let path = h.put(app, "{\"mcpServers\": {}}\n");
    h.connect(app, PROGRAM, false);
    let edited = fs::read_to_string(&path)
        .expect("read")
        .replace("\"--app\"", "\"--verbose\", \"--app\"");
    fs::write(&path, &edited).expect("edit");
    let off = h.disconnect(app);
    assert!(
        off.notes
            .iter()
            .any(|n| n.contains("was changed since Airlock wrote it")),
        "{:?}",
        off.notes
    );
    assert!(
        off.diff.contains("--verbose"),
        "the diff shows what goes: {}",
        off.diff
    );
    assert!(!fs::read_to_string(&path).expect("read").contains("airlock"));

    let h = Home::new();
    let path = h.put(app, "{\"mcpServers\": {}}\n");
    h.connect(app, PROGRAM, false);
    fs::write(&path, "{\"mcpServers\": {}, \"x\": 1}\n").expect("removed by hand");
    let off = h.disconnect(app);
    assert!(
        off.notes.iter().any(|n| n.contains("no longer in")),
        "{:?}",
        off.notes
    );
    assert_eq!(
        fs::read_to_string(&path).expect("read"),
        "{\"mcpServers\": {}, \"x\": 1}\n"
    );
}

#[test]
fn a_moved_server_the_user_added_again_is_not_clobbered() {
    let h = Home::new();
    let app = AppId::Cursor;
    let path = h.put(app, CURSOR);
    h.connect(app, PROGRAM, true);
    let text = fs::read_to_string(&path).expect("read");
    let mine = text.replacen(
        "\"mcpServers\": {",
        "\"mcpServers\": {\n    \"github\": {\"command\": \"my-github\"},",
        1,
    );
    fs::write(&path, &mine).expect("edit");
    let off = h.disconnect(app);
    assert!(
        off.notes
            .iter()
            .any(|n| n.contains("\"github\" is in Cursor again")),
        "{:?}",
        off.notes
    );
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(v["mcpServers"]["github"]["command"], "my-github");
}

fn refused_untouched(h: &Home, app: AppId, path: &Path, expect: &str) {
    let bytes = fs::read(path).ok();
    let err =
        plan_connect(app, &h.places, Path::new(PROGRAM), false, h.keeper()).expect_err("refused");
    assert!(err.to_string().contains(expect), "{app}: {err}");
    assert!(err.to_string().contains("untouched"), "{err}");
    assert_eq!(fs::read(path).ok(), bytes, "{app}: untouched");
    assert!(h.data_files().is_empty(), "no backup, no record");
}

#[test]
fn hostile_configs_are_refused_untouched_with_a_clear_error() {
    // Nested one level past the bound (the servers map inside counts).
    let h = Home::new();
    let deep = format!(
        "{{\"mcpServers\": {{}}, \"x\": {}{}}}",
        "[".repeat(MAX_NESTING_DEPTH),
        "]".repeat(MAX_NESTING_DEPTH)
    );
    let path = h.put(AppId::Cursor, &deep);
    refused_untouched(&h, AppId::Cursor, &path, "deeper than");
    // At the bound: accepted.
    let ok = format!(
        "{{\"mcpServers\": {{}}, \"x\": {}{}}}",
        "[".repeat(MAX_NESTING_DEPTH - 1),
        "]".repeat(MAX_NESTING_DEPTH - 1)
    );
    fs::write(&path, ok).expect("write");
    plan_connect(
        AppId::Cursor,
        &h.places,
        Path::new(PROGRAM),
        false,
        h.keeper(),
    )
    .expect("at the bound");
    // YAML and TOML too.
    let h = Home::new();
    let yaml = format!(
        "extensions: {{}}\nx: {}1{}\n",
        "[".repeat(MAX_NESTING_DEPTH + 1),
        "]".repeat(MAX_NESTING_DEPTH + 1)
    );
    let path = h.put(AppId::Goose, &yaml);
    refused_untouched(&h, AppId::Goose, &path, "deeper than");
    let h = Home::new();
    let toml = format!(
        "x = {}1{}\n",
        "[".repeat(MAX_NESTING_DEPTH + 1),
        "]".repeat(MAX_NESTING_DEPTH + 1)
    );
    let path = h.put(AppId::CodexCli, &toml);
    refused_untouched(&h, AppId::CodexCli, &path, "");

    // Duplicate keys: two readers could see two different servers.
    for (app, text) in [
        (
            AppId::Cursor,
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"a\": {\"command\": \"evil\"}}}",
        ),
        (
            AppId::Vscode,
            "{\"servers\": {}, // c\n \"servers\": {\"a\": {\"command\": \"evil\"}}}",
        ),
        (
            AppId::Goose,
            "extensions:\n  a:\n    cmd: x\n  a:\n    cmd: evil\n",
        ),
        (
            AppId::CodexCli,
            "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.a]\ncommand = \"evil\"\n",
        ),
        (
            AppId::Continue,
            "name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: a\n    command: x\n  - name: a\n    command: evil\n",
        ),
    ] {
        let h = Home::new();
        let path = h.put(app, text);
        refused_untouched(&h, app, &path, "");
        assert!(
            plan_disconnect(app, &h.places, h.keeper()).is_err(),
            "{app}"
        );
    }

    // Too large: one byte past the bound is refused for its size.
    let h = Home::new();
    let path = AppId::ClaudeCode.config_path(&h.places);
    let padding = MAX_APP_CONFIG_BYTES as usize - "{\"mcpServers\": {}, \"pad\": \"\"}".len();
    let at_bound = format!(
        "{{\"mcpServers\": {{}}, \"pad\": \"{}\"}}",
        "a".repeat(padding)
    );
    assert_eq!(at_bound.len() as u64, MAX_APP_CONFIG_BYTES);
    fs::write(&path, &at_bound).expect("write");
    plan_connect(
        AppId::ClaudeCode,
        &h.places,
        Path::new(PROGRAM),
        false,
        h.keeper(),
    )
    .expect("at the bound");
    fs::write(&path, format!("{at_bound} ")).expect("write");
    refused_untouched(&h, AppId::ClaudeCode, &path, "Airlock edits files up to");
}

#[test]
fn a_config_linked_to_another_apps_file_or_outside_home_is_refused() {
    let h = Home::new();
    let claude = h.put(AppId::ClaudeDesktop, "{\"mcpServers\": {}}\n");
    let cursor = AppId::Cursor.config_path(&h.places);
    fs::create_dir_all(cursor.parent().expect("parent")).expect("dir");
    std::os::unix::fs::symlink(&claude, &cursor).expect("link");
    refused_untouched(&h, AppId::Cursor, &cursor, "the config of Claude Desktop");
    assert_eq!(
        fs::read_to_string(&claude).expect("read"),
        "{\"mcpServers\": {}}\n"
    );

    let h = Home::new();
    let outside = h.dir.path().join("elsewhere.json");
    fs::write(&outside, "{}\n").expect("write");
    let cursor = AppId::Cursor.config_path(&h.places);
    fs::create_dir_all(cursor.parent().expect("parent")).expect("dir");
    std::os::unix::fs::symlink(&outside, &cursor).expect("link");
    refused_untouched(&h, AppId::Cursor, &cursor, "outside your home folder");
    assert_eq!(fs::read_to_string(&outside).expect("read"), "{}\n");
}

#[test]
fn a_file_that_changes_between_plan_and_apply_is_not_written() {
    let h = Home::new();
    let app = AppId::Cursor;
    let path = h.put(app, CURSOR);
    let change = plan_connect(app, &h.places, Path::new(PROGRAM), true, h.keeper()).expect("plan");
    let swapped = CURSOR.replace("github.example.com", "evil.example.com");
    fs::write(&path, &swapped).expect("the app writes");
    let err = apply(&change, &h.places, h.keeper()).expect_err("refused");
    assert!(matches!(err, AppsError::ChangedSinceShown { .. }), "{err}");
    assert_eq!(fs::read_to_string(&path).expect("read"), swapped);
    assert!(
        h.data_files().is_empty() && h.vault.is_empty(),
        "nothing kept"
    );
}

#[test]
fn a_move_that_would_file_more_secrets_than_the_bound_is_refused() {
    let servers = |n: usize| {
        let entries: Vec<String> = (0..n)
            .map(|i| format!("\"s{i}\": {{\"command\": \"x\", \"env\": {{\"V\": \"value-{i}\"}}}}"))
            .collect();
        format!("{{\"mcpServers\": {{{}}}}}\n", entries.join(", "))
    };
    let h = Home::new();
    h.put(AppId::Cursor, &servers(MAX_MOVED_SECRETS));
    let change = plan_connect(
        AppId::Cursor,
        &h.places,
        Path::new(PROGRAM),
        true,
        h.keeper(),
    )
    .expect("at the bound");
    assert_eq!(change.moved.len(), MAX_MOVED_SECRETS);
    let path = h.put(AppId::Cursor, &servers(MAX_MOVED_SECRETS + 1));
    let err = plan_connect(
        AppId::Cursor,
        &h.places,
        Path::new(PROGRAM),
        true,
        h.keeper(),
    )
    .expect_err("refused");
    assert!(
        err.to_string()
            .contains(&format!("at most {MAX_MOVED_SECRETS}")),
        "{err}"
    );
    assert!(fs::read_to_string(&path)
        .expect("read")
        .contains("value-256"));
    assert!(h.vault.is_empty());
}

#[test]
fn a_config_stuffed_with_servers_is_refused_past_the_bound() {
    let servers = |n: usize| {
        let entries: Vec<String> = (0..n)
            .map(|i| format!("\"s{i}\": {{\"command\": \"x\"}}"))
            .collect();
        format!("{{\"mcpServers\": {{{}}}}}\n", entries.join(", "))
    };
    let h = Home::new();
    let path = h.put(AppId::Cursor, &servers(MAX_SERVER_ENTRIES - 1));
    // At the bound once Airlock's own entry is in; every server moved out
    // and back in well under a second each way (no per-server rescans).
    let started = std::time::Instant::now();
    h.connect(AppId::Cursor, PROGRAM, false);
    h.connect(AppId::Cursor, PROGRAM, true);
    fs::write(
        &path,
        fs::read_to_string(&path)
            .expect("read")
            .replacen('{', "{\"x\": 1, ", 1),
    )
    .expect("edit");
    h.disconnect(AppId::Cursor);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let back: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        back["mcpServers"].as_object().map(|m| m.len()),
        Some(MAX_SERVER_ENTRIES - 1)
    );
    let h = Home::new();
    let path = h.put(AppId::Windsurf, &servers(MAX_SERVER_ENTRIES + 1));
    refused_untouched(
        &h,
        AppId::Windsurf,
        &path,
        &format!("at most {MAX_SERVER_ENTRIES}"),
    );
}
