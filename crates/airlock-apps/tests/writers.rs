//! Golden files per app: the config before, after connect
//! (`<app>.connected.*`), and after disconnect (the file as it was). Run with
//! `UPDATE_GOLDEN=1` to rewrite the goldens, then read the diff.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use airlock_apps::fakes::{FixedRulesDetectorFake, InMemoryVaultFake};
use airlock_apps::{
    apply, plan_connect, plan_disconnect, status, AppId, AppsError, Keeper, Places, ALL_APPS,
};

const PROGRAM: &str = "/opt/airlock/bin/airlock";

static VAULT: std::sync::LazyLock<InMemoryVaultFake> =
    std::sync::LazyLock::new(InMemoryVaultFake::default);

/// The in-memory vault (a fake: the CLI's tests use the real keychain) and
/// a detector with fixed rules (a fake of the core's).
fn keeper() -> Keeper<'static> {
    Keeper {
        vault: &*VAULT,
        detector: &FixedRulesDetectorFake,
    }
}

struct Home {
    _dir: tempfile::TempDir,
    places: Places,
}

fn home() -> Home {
    let dir = tempfile::tempdir().expect("temp dir");
    let places = Places {
        home: dir.path().join("home"),
        xdg_config_home: None,
        app_data: None,
        state_dir: dir.path().join("airlock-data"),
        app_homes: Default::default(),
    };
    fs::create_dir_all(&places.home).expect("home");
    Home { _dir: dir, places }
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn ext(app: AppId) -> &'static str {
    match app {
        AppId::Vscode | AppId::Zed | AppId::GeminiCli | AppId::QwenCode | AppId::Opencode => {
            "jsonc"
        }
        AppId::Goose | AppId::Continue => "yaml",
        AppId::CodexCli => "toml",
        _ => "json",
    }
}

fn golden(app: AppId, stage: &str) -> PathBuf {
    golden_dir().join(format!("{app}.{stage}.{}", ext(app)))
}

fn check_golden(app: AppId, stage: &str, actual: &str) {
    let path = golden(app, stage);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        fs::write(&path, actual).expect("write golden");
    }
    let expected = fs::read_to_string(&path).expect("golden file (UPDATE_GOLDEN=1 writes it)");
    assert_eq!(actual, expected, "{} differs", path.display());
}

fn put(places: &Places, app: AppId, text: &str) -> PathBuf {
    let path = app.config_path(places);
    fs::create_dir_all(path.parent().expect("parent")).expect("config dir");
    fs::write(&path, text).expect("write config");
    path
}

fn program() -> &'static Path {
    Path::new(PROGRAM)
}

#[test]
fn connect_then_disconnect_matches_the_goldens_for_every_app() {
    for app in ALL_APPS {
        let h = home();
        let before = fs::read_to_string(golden(app, "before")).expect("before golden");
        let path = put(&h.places, app, &before);

        let change =
            plan_connect(app, &h.places, program(), false, keeper()).expect("plan connect");
        assert!(change.diff.contains("+"), "{app}: a diff is shown");
        let applied = apply(&change, &h.places, keeper()).expect("apply connect");
        let connected = fs::read_to_string(&path).expect("read");
        check_golden(app, "connected", &connected);
        let backup = applied.backup.expect("a backup");
        assert_eq!(
            fs::read_to_string(&backup).expect("backup"),
            before,
            "{app}"
        );
        assert_eq!(
            fs::metadata(&backup).expect("meta").permissions().mode() & 0o777,
            0o600
        );
        let st = status(app, &h.places, program());
        assert!(
            st.connected && st.up_to_date && st.problem.is_none(),
            "{app}: {st:?}"
        );

        let again = plan_connect(app, &h.places, program(), false, keeper()).expect("plan again");
        assert!(
            again.changes_nothing(),
            "{app}: connecting twice changes nothing"
        );
        assert!(again.diff.is_empty());
        apply(&again, &h.places, keeper()).expect("apply no-op");
        assert_eq!(fs::read_to_string(&path).expect("read"), connected);

        let off = plan_disconnect(app, &h.places, keeper()).expect("plan disconnect");
        apply(&off, &h.places, keeper()).expect("apply disconnect");
        assert_eq!(
            fs::read_to_string(&path).expect("read"),
            before,
            "{app}: restored"
        );
        assert!(!status(app, &h.places, program()).connected);
    }
}

#[test]
fn vscode_comments_and_trailing_commas_survive_connect_and_a_later_disconnect() {
    let h = home();
    let app = AppId::Vscode;
    let before = fs::read_to_string(golden(app, "before")).expect("before");
    let path = put(&h.places, app, &before);
    apply(
        &plan_connect(app, &h.places, program(), false, keeper()).expect("plan"),
        &h.places,
        keeper(),
    )
    .expect("apply");
    let connected = fs::read_to_string(&path).expect("read");
    assert!(connected.contains("// Search, with the key asked once"));
    assert!(connected.contains("// trailing comma kept"));
    // The user edits the file after connecting: disconnect removes only
    // Airlock's entry, and the edit and the comments stay.
    let edited = connected.replace("\"inputs\": [", "\"inputs\": [ // edited");
    fs::write(&path, &edited).expect("edit");
    apply(
        &plan_disconnect(app, &h.places, keeper()).expect("plan"),
        &h.places,
        keeper(),
    )
    .expect("apply");
    let after = fs::read_to_string(&path).expect("read");
    check_golden(app, "edited-then-disconnected", &after);
    assert!(after.contains("// edited") && after.contains("// trailing comma kept"));
    assert!(!after.contains("airlock"));
}

#[test]
fn an_existing_airlock_entry_that_is_not_the_gateway_is_replaced_then_put_back() {
    let h = home();
    let app = AppId::Cursor;
    let before =
        "{\n  \"mcpServers\": {\n    \"airlock\": {\"command\": \"my-own-airlock-tool\"}\n  }\n}\n";
    let path = put(&h.places, app, before);
    let change = plan_connect(app, &h.places, program(), false, keeper()).expect("plan");
    assert!(change
        .notes
        .iter()
        .any(|n| n.contains("not Airlock's gateway")));
    apply(&change, &h.places, keeper()).expect("apply");
    check_golden(
        app,
        "replaced-own-airlock",
        &fs::read_to_string(&path).expect("read"),
    );
    // Changed by hand since: the surgical path puts the old entry back.
    let edited = fs::read_to_string(&path)
        .expect("read")
        .replace("{\n", "{\n  \"x\": 1,\n");
    fs::write(&path, &edited).expect("edit");
    apply(
        &plan_disconnect(app, &h.places, keeper()).expect("plan"),
        &h.places,
        keeper(),
    )
    .expect("apply");
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        after["mcpServers"]["airlock"]["command"],
        "my-own-airlock-tool"
    );
    assert_eq!(after["x"], 1);
}

#[test]
fn an_older_gateway_entry_is_updated_in_place() {
    let h = home();
    let app = AppId::ClaudeDesktop;
    let before = "{\"mcpServers\": {\"airlock\": {\"command\": \"/old/airlock\", \"args\": [\"gateway\", \"--stdio\"]}}}\n";
    let path = put(&h.places, app, before);
    assert!(status(app, &h.places, program()).connected);
    assert!(!status(app, &h.places, program()).up_to_date);
    let change = plan_connect(app, &h.places, program(), false, keeper()).expect("plan");
    assert!(change.diff.contains("-") && change.diff.contains(PROGRAM));
    apply(&change, &h.places, keeper()).expect("apply");
    assert!(status(app, &h.places, program()).up_to_date);
    assert!(!fs::read_to_string(&path)
        .expect("read")
        .contains("/old/airlock"));
}

#[test]
fn malformed_and_unreadable_configs_are_refused_and_left_byte_identical() {
    let broken: [(AppId, &str); 5] = [
        (
            AppId::ClaudeDesktop,
            "{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}",
        ),
        (AppId::Cursor, "{\"mcpServers\": [1, 2]}"),
        (
            AppId::Vscode,
            "{ \"servers\": { \"a\": { \"command\": \"x\" } ",
        ),
        (AppId::Goose, "extensions:\n  fetch: [unclosed\n"),
        (AppId::ClaudeCode, "[\"not an object\"]"),
    ];
    for (app, text) in broken {
        let h = home();
        let path = put(&h.places, app, text);
        let err = plan_connect(app, &h.places, program(), false, keeper()).expect_err("refused");
        assert!(matches!(err, AppsError::Malformed { .. }), "{app}: {err}");
        assert!(err.to_string().contains("left it untouched"), "{err}");
        assert!(plan_disconnect(app, &h.places, keeper()).is_err() || app == AppId::ClaudeCode);
        assert_eq!(
            fs::read(&path).expect("read"),
            text.as_bytes(),
            "{app}: untouched"
        );
        assert!(status(app, &h.places, program()).problem.is_some());
        assert!(
            !h.places.state_dir.join("apps").exists(),
            "{app}: no backup, no record"
        );
    }
    let h = home();
    let path = put(&h.places, AppId::Zed, "{}");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).expect("chmod");
    if fs::read(&path).is_err() {
        // (root reads anything: this half only runs as a normal user)
        let err =
            plan_connect(AppId::Zed, &h.places, program(), false, keeper()).expect_err("refused");
        assert!(matches!(err, AppsError::Unreadable { .. }), "{err}");
    }
    fs::create_dir_all(AppId::Cursor.config_path(&h.places)).expect("a folder where the file goes");
    let err =
        plan_connect(AppId::Cursor, &h.places, program(), false, keeper()).expect_err("refused");
    assert!(err.to_string().contains("not a regular file"), "{err}");
}

#[test]
fn a_missing_config_is_created_private_and_removed_on_disconnect() {
    let h = home();
    let app = AppId::Windsurf;
    let path = app.config_path(&h.places);
    let change = plan_connect(app, &h.places, program(), false, keeper()).expect("plan");
    assert!(change.before.is_none() && change.diff.starts_with("--- /dev/null"));
    apply(&change, &h.places, keeper()).expect("apply");
    check_golden(app, "created", &fs::read_to_string(&path).expect("read"));
    assert_eq!(
        fs::metadata(&path).expect("meta").permissions().mode() & 0o777,
        0o600
    );
    apply(
        &plan_disconnect(app, &h.places, keeper()).expect("plan"),
        &h.places,
        keeper(),
    )
    .expect("apply");
    assert!(!path.exists());
}

#[test]
fn permissions_and_symlinks_are_kept() {
    let h = home();
    let app = AppId::Zed;
    let real = h.places.home.join("dotfiles/zed-settings.json");
    fs::create_dir_all(real.parent().expect("parent")).expect("dir");
    fs::write(&real, "{}\n").expect("write");
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).expect("chmod");
    let link = app.config_path(&h.places);
    fs::create_dir_all(link.parent().expect("parent")).expect("dir");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    apply(
        &plan_connect(app, &h.places, program(), false, keeper()).expect("plan"),
        &h.places,
        keeper(),
    )
    .expect("apply");
    assert!(fs::symlink_metadata(&link)
        .expect("meta")
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&real)
        .expect("read")
        .contains("context_servers"));
    assert_eq!(
        fs::metadata(&real).expect("meta").permissions().mode() & 0o777,
        0o640
    );
    let leftovers: Vec<_> = fs::read_dir(real.parent().expect("p"))
        .expect("ls")
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind");
}

#[test]
fn a_file_changed_after_the_diff_was_shown_is_not_written() {
    let h = home();
    let app = AppId::LmStudio;
    let path = put(&h.places, app, "{\"mcpServers\": {}}\n");
    let change = plan_connect(app, &h.places, program(), false, keeper()).expect("plan");
    fs::write(&path, "{\"mcpServers\": {\"new\": {\"command\": \"x\"}}}\n").expect("app writes");
    let err = apply(&change, &h.places, keeper()).expect_err("refused");
    assert!(matches!(err, AppsError::ChangedSinceShown { .. }), "{err}");
    assert!(fs::read_to_string(&path).expect("read").contains("\"new\""));
}

#[test]
fn moving_servers_leaves_only_airlock_and_disconnect_brings_them_back() {
    let h = home();
    for app in [AppId::ClaudeCode, AppId::Goose, AppId::Zed] {
        let before = fs::read_to_string(golden(app, "before")).expect("before");
        let path = put(&h.places, app, &before);
        let change = plan_connect(app, &h.places, program(), true, keeper()).expect("plan");
        assert_eq!(change.moved.len(), 1, "{app}");
        let import: serde_json::Value =
            serde_json::from_str(&change.moved_as_import().expect("import")).expect("json");
        let servers = import["mcpServers"].as_object().expect("mcpServers");
        assert_eq!(servers.len(), 1);
        assert!(
            servers.values().all(|s| s["command"].is_string()),
            "{import}"
        );
        apply(&change, &h.places, keeper()).expect("apply");
        check_golden(app, "moved", &fs::read_to_string(&path).expect("read"));
        apply(
            &plan_disconnect(app, &h.places, keeper()).expect("plan"),
            &h.places,
            keeper(),
        )
        .expect("apply");
        assert_eq!(fs::read_to_string(&path).expect("read"), before, "{app}");
    }
}

#[test]
fn paths_follow_home_and_xdg_config_home() {
    let h = home();
    let mut places = h.places.clone();
    assert_eq!(
        AppId::Vscode.config_path(&places),
        places.home.join(".config/Code/User/mcp.json")
    );
    places.xdg_config_home = Some(PathBuf::from("/elsewhere/cfg"));
    assert_eq!(
        AppId::Zed.config_path(&places),
        PathBuf::from("/elsewhere/cfg/zed/settings.json")
    );
    assert_eq!(
        AppId::Goose.config_path(&places),
        PathBuf::from("/elsewhere/cfg/goose/config.yaml")
    );
    assert_eq!(
        AppId::ClaudeCode.config_path(&places),
        places.home.join(".claude.json")
    );
    assert!(plan_connect(
        AppId::Cursor,
        &places,
        Path::new("airlock"),
        false,
        keeper()
    )
    .is_err());
    assert_eq!(
        AppId::CodexCli.config_path(&places),
        places.home.join(".codex/config.toml")
    );
    places.app_homes.codex = Some(PathBuf::from("/work/codex-home"));
    places.app_homes.continue_dir = Some(PathBuf::from("/work/continue"));
    assert_eq!(
        AppId::CodexCli.config_path(&places),
        PathBuf::from("/work/codex-home/config.toml")
    );
    assert_eq!(
        AppId::Continue.config_path(&places),
        PathBuf::from("/work/continue/config.yaml")
    );
}

#[test]
fn a_vscode_server_that_needs_vscode_inputs_is_not_moved() {
    let h = home();
    let app = AppId::Vscode;
    put(
        &h.places,
        app,
        &fs::read_to_string(golden(app, "before")).expect("before"),
    );
    let change = plan_connect(app, &h.places, program(), true, keeper()).expect("plan");
    assert!(change.moved.is_empty() && change.moved_as_import().is_none());
    assert!(
        change
            .notes
            .iter()
            .any(|n| n.contains("\"perplexity\" stays")),
        "{:?}",
        change.notes
    );
}

#[test]
fn yaml_comments_and_layout_stay_through_connect_an_edit_and_disconnect() {
    let goose = "# my goose config\nGOOSE_PROVIDER: anthropic # the provider\nextensions:\n    # fetch, indented by four\n    fetch:\n        cmd: uvx\n        args: [mcp-server-fetch]\n        type: stdio\n        enabled: true\nGOOSE_MODEL: claude-sonnet-4-5\n";
    let cont = "name: c # mine\nversion: 1.0.0\nschema: v1\nmcpServers:\n- name: sqlite # first\n  command: npx\n  args: [-y, mcp-sqlite]\n# after the list\nrules:\n  - be brief\n";
    for (app, before) in [(AppId::Goose, goose), (AppId::Continue, cont)] {
        let h = home();
        let path = put(&h.places, app, before);
        let change = plan_connect(app, &h.places, program(), false, keeper()).expect("plan");
        assert!(change.notes.is_empty(), "{app}: {:?}", change.notes);
        apply(&change, &h.places, keeper()).expect("apply");
        let connected = fs::read_to_string(&path).expect("read");
        // Every line of the user's file is still there, in order.
        let mut lines = connected.lines();
        for line in before.lines() {
            assert!(
                lines.any(|l| l == line),
                "{app}: {line:?} lost:\n{connected}"
            );
        }
        let edited = connected.replacen("\n", "\n# my later note\n", 1);
        fs::write(&path, &edited).expect("edit");
        apply(
            &plan_disconnect(app, &h.places, keeper()).expect("plan"),
            &h.places,
            keeper(),
        )
        .expect("apply");
        let after = fs::read_to_string(&path).expect("read");
        assert_eq!(
            after,
            before.replacen("\n", "\n# my later note\n", 1),
            "{app}"
        );
    }
}
