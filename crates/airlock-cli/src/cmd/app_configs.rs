//! `airlock apps connect|disconnect|available`: write Airlock's gateway into
//! an app's own MCP config (airlock-apps), after showing the diff and asking.

use std::path::PathBuf;

use airlock_apps::{AppId, AppsError, Change, Keeper, Places, ALL_APPS};

use crate::cli::apps::AppConfigCmd;
use crate::cli::Cli;
use crate::failure::{usage, Failure};
use crate::output::{plain, print_json};

fn failed(e: AppsError) -> Failure {
    let code = match e {
        AppsError::Write { .. } => 1,
        _ => 2,
    };
    Failure {
        code,
        message: e.to_string(),
        error_code: "app_config",
    }
}

fn places(cli: &Cli) -> Result<Places, Failure> {
    let data_dir = airlock_core::paths::resolve_data_dir(cli.data_dir.clone());
    Places::from_env(data_dir).map_err(failed)
}

fn app_id(name: &str) -> Result<AppId, Failure> {
    name.parse()
        .map_err(|e: airlock_apps::UnknownApp| usage(e.to_string()))
}

/// The absolute path of this `airlock`, which the apps will run.
fn program() -> Result<PathBuf, Failure> {
    std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| Failure {
            code: 1,
            message: format!("cannot tell where this airlock program is: {e}"),
            error_code: "app_config",
        })
}

pub(crate) fn run(cli: &Cli, cmd: &AppConfigCmd) -> Result<u8, Failure> {
    let places = places(cli)?;
    match cmd {
        AppConfigCmd::Available => list(&places, cli.json),
        AppConfigCmd::Connect(args) => {
            let app = app_id(&args.app)?;
            let program = program()?;
            let keeper = airlock_core::app_configs::keeper();
            let change =
                airlock_apps::plan_connect(app, &places, &program, args.move_servers, keeper)
                    .map_err(failed)?;
            settle(cli, &places, &change, args.yes, keeper)
        }
        AppConfigCmd::Disconnect(args) => {
            let app = app_id(&args.app)?;
            let keeper = airlock_core::app_configs::keeper();
            let change = airlock_apps::plan_disconnect(app, &places, keeper).map_err(failed)?;
            settle(cli, &places, &change, args.yes, keeper)
        }
    }
}

fn list(places: &Places, json: bool) -> Result<u8, Failure> {
    let program = program()?;
    let all: Vec<_> = ALL_APPS
        .iter()
        .map(|app| airlock_apps::status(*app, places, &program))
        .collect();
    if json {
        print_json(&all);
        return Ok(0);
    }
    for s in &all {
        let state = match (&s.problem, s.connected, s.up_to_date) {
            (Some(_), _, _) => "config unreadable",
            (None, true, true) => "connected",
            (None, true, false) => "connected (older entry: connect again to update)",
            (None, false, _) if s.config_found => "config found",
            (None, false, _) if s.installed => "installed",
            _ => "not found",
        };
        say!("{:<15} {:<24} {}", s.app.as_str(), s.name, state);
        say!("{:<15} {}", "", plain(&s.path.display().to_string()));
        if let Some(p) = &s.problem {
            say!("{:<15} {}", "", plain(p));
        }
    }
    Ok(0)
}

/// Show the change, ask (or take `--yes`), import moved servers, write.
fn settle(
    cli: &Cli,
    places: &Places,
    change: &Change,
    yes: bool,
    keeper: Keeper<'_>,
) -> Result<u8, Failure> {
    let verb = match change.action {
        airlock_apps::Action::Connect => "connected",
        airlock_apps::Action::Disconnect => "disconnected",
    };
    if change.changes_nothing() {
        airlock_apps::apply(change, places, keeper).map_err(failed)?;
        report(
            cli,
            change,
            None,
            &format!(
                "{} is already {verb}: nothing to change",
                change.app.display_name()
            ),
        );
        return Ok(0);
    }
    if !cli.json {
        say!("{}", plain_diff(&change.diff));
        for note in &change.notes {
            say!("note: {}", plain(note));
        }
        for m in &change.moved {
            say!("moves into Airlock: {}", plain(&m.name));
        }
    }
    if !yes && !confirm(change)? {
        say!("nothing written");
        return Ok(1);
    }
    if let Some(import) = change.moved_as_import() {
        import_moved(cli, &import)?;
    }
    let applied = airlock_apps::apply(change, places, keeper).map_err(failed)?;
    let mut line = format!(
        "{} {verb}: {}",
        change.app.display_name(),
        change.path.display()
    );
    if let Some(b) = &applied.backup {
        line.push_str(&format!(" (backup: {})", b.display()));
    }
    report(cli, change, applied.backup, &line);
    Ok(0)
}

/// The diff as printed: the app's text made safe for a terminal, line by line.
fn plain_diff(diff: &str) -> String {
    diff.lines().map(plain).collect::<Vec<_>>().join("\n")
}

fn report(cli: &Cli, change: &Change, backup: Option<PathBuf>, line: &str) {
    if cli.json {
        print_json(&serde_json::json!({
            "app": change.app,
            "action": change.action,
            "path": change.path,
            "changed": !change.changes_nothing(),
            "diff": change.diff,
            "notes": change.notes,
            "moved": change.moved.iter().map(|m| &m.name).collect::<Vec<_>>(),
            "backup": backup,
        }));
    } else {
        say!("{}", plain(line));
    }
}

fn confirm(change: &Change) -> Result<bool, Failure> {
    crate::output::ask_yes_no(
        &format!("Apply this change to {}?", change.path.display()),
        &format!(
            "not applied: stdin is not a terminal, so Airlock cannot ask before changing {}. Run again with --yes to apply the change shown",
            change.path.display()
        ),
    )
}

/// Import the moved servers through Airlock's own import (secrets to the
/// keychain), before the app's config loses them.
fn import_moved(cli: &Cli, import: &str) -> Result<(), Failure> {
    let plan = airlock_core::servers::parse_config(import).map_err(|e| usage(e.to_string()))?;
    let inputs = plan
        .resolve(&Default::default())
        .map_err(|e| usage(e.to_string()))?;
    let core = crate::open_core(cli)?;
    let result = core.import_servers(&inputs);
    core.close();
    let names = result?;
    if !cli.json {
        for n in &names {
            say!("imported into Airlock: {}", plain(n));
        }
    }
    Ok(())
}
