//! `airlock catalog install|installed|repair`: a server from the catalog,
//! locked to its bytes. The flow is the consent: downloaded and locked
//! first (nothing of it runs), then the exact command, its hashes and its
//! room for a yes; then, started in its room, its first tools for review.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::Arc;

use airlock_core::install::{InstallPlan, InstallRequest};
use airlock_core::pins::{Decision, PinChange};
use airlock_core::Airlock;
use airlock_scan::Severity;

use crate::cli::InstallArgs;
use crate::failure::{usage, Failure};
use crate::output::{plain, print_json};

/// `NAME@VERSION` → (NAME, VERSION). Registry names have no `@`.
fn split_version(s: &str) -> (String, Option<String>) {
    match s.rsplit_once('@') {
        Some((name, v)) if !v.is_empty() => (name.to_owned(), Some(v.to_owned())),
        _ => (s.to_owned(), None),
    }
}

fn ask(question: &str) -> Result<bool, Failure> {
    crate::output::ask_yes_no(
        question,
        &format!(
            "not done: stdin is not a terminal, so Airlock cannot ask \"{question}\". Read what is shown above and run again with --yes to say yes"
        ),
    )
}

fn print_plan(p: &InstallPlan) {
    say!(
        "Install {} {} as server {}?",
        plain(&p.entry_name),
        plain(&p.version),
        plain(&p.server)
    );
    if let Some(d) = &p.deprecated {
        say!("  DEPRECATED by its registry: {}", plain(d));
    }
    say!("  From:      {}", plain(&p.registry));
    say!(
        "  Package:   {} {}@{}{}",
        p.kind,
        plain(&p.identifier),
        plain(&p.version),
        p.package_hash
            .as_deref()
            .map(|h| format!("  {}", plain(h)))
            .unwrap_or_default()
    );
    say!(
        "  Locked:    {} package{}, {} files, {}",
        p.packages,
        if p.packages == 1 { "" } else { "s" },
        p.files,
        p.digest
    );
    say!("  Folder:    {}", plain(&p.dir));
    say!("  Command:   {}", plain(&p.command.join(" ")));
    for (k, v) in &p.env {
        say!("  Env:       {}={}", plain(k), plain(v));
    }
    for v in &p.asked {
        let mut marks = Vec::new();
        if v.required {
            marks.push("required");
        }
        if v.secret {
            marks.push("secret: kept in the keychain");
        }
        marks.push(if v.given { "given" } else { "not given" });
        say!(
            "  Asks for:  {} ({}){}",
            plain(&v.name),
            marks.join(", "),
            if v.description.is_empty() {
                String::new()
            } else {
                format!(": {}", plain(&airlock_scan::visible(&v.description)))
            }
        );
    }
    if !p.scripts_skipped.is_empty() {
        say!(
            "  Install scripts did NOT run for: {} (the server may need them; Airlock never runs them unasked)",
            plain(&p.scripts_skipped.join(", "))
        );
    }
    crate::cmd::servers::print_room(&p.room);
}

pub(crate) async fn install(
    core: &Arc<Airlock>,
    a: InstallArgs,
    json: bool,
) -> Result<u8, Failure> {
    let (name, version) = split_version(&a.name);
    let mut env = BTreeMap::new();
    for pair in &a.env {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| usage(format!("--env {pair}: expected NAME=VALUE")))?;
        env.insert(k.to_owned(), v.to_owned());
    }
    if let Some(k) = &a.env_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| usage(format!("cannot read {k} from stdin: {e}")))?;
        env.insert(k.clone(), line.trim_end_matches(['\r', '\n']).to_owned());
    }
    let req = InstallRequest {
        name,
        version,
        server: a.server,
        registry: a.registry,
        env,
    };
    eprintln!(
        "Downloading and locking {} (nothing of it runs yet)...",
        plain(&req.name)
    );
    let staged = core.prepare_install(&req).await?;
    if json {
        eprintln!(
            "{}",
            serde_json::to_string(&staged.plan).unwrap_or_default()
        );
    } else {
        print_plan(&staged.plan);
    }
    if !a.yes && !ask("Install it?")? {
        say!("Not installed; nothing was kept.");
        return Ok(1);
    }
    let server = staged.plan.server.clone();
    let plan = staged.plan.clone();
    core.commit_install(staged)?;
    say!("Installed as {}.", plain(&server));
    say!("Starting it in its room to see its tools (apps see none of them yet)...");
    let changes = match core.first_sight(&server).await {
        Ok(c) => c,
        Err(e) => {
            say!(
                "It did not start: {}. It stays installed, its tools unseen; `airlock catalog repair {}` or `airlock servers remove {}`",
                plain(&e.to_string()),
                plain(&server),
                plain(&server)
            );
            return Ok(1);
        }
    };
    let approved = first_sight(core, &server, &changes, a.yes)?;
    core.first_sight_done(&server)?;
    if json {
        print_json(&serde_json::json!({
            "installed": plan,
            "first_sight": changes.iter().map(|c| serde_json::json!({
                "id": c.id, "kind": c.kind, "name": c.name,
                "findings": c.findings,
                "approved": approved.contains(&c.id),
            })).collect::<Vec<_>>(),
        }));
    }
    Ok(0)
}

fn serious(c: &PinChange) -> bool {
    c.findings.iter().any(|f| f.severity == Severity::Serious)
}

/// Show the first tools; approve them as the person says. The ids approved.
fn first_sight(
    core: &Arc<Airlock>,
    server: &str,
    changes: &[PinChange],
    yes: bool,
) -> Result<Vec<i64>, Failure> {
    if changes.is_empty() {
        say!("It offers no tools or prompts.");
        return Ok(Vec::new());
    }
    let flagged = changes.iter().filter(|c| serious(c)).count();
    say!(
        "{} offers {} tool{} and prompt{}{}:",
        plain(server),
        changes.len(),
        if changes.len() == 1 { "" } else { "s" },
        if changes.len() == 1 { "" } else { "s" },
        if flagged > 0 {
            format!(", {flagged} with a SERIOUS finding (first)")
        } else {
            String::new()
        }
    );
    for c in changes {
        crate::cmd::pins::print_change(c);
    }
    let mut approved = Vec::new();
    let whole: Vec<&PinChange> = changes.iter().filter(|c| c.complete).collect();
    let to_approve: Vec<&PinChange> = if yes {
        whole.into_iter().filter(|c| !serious(c)).collect()
    } else if ask(&format!(
        "Let your apps use these {} definitions as shown?",
        whole.len()
    ))? {
        whole
    } else {
        Vec::new()
    };
    for c in to_approve {
        core.decide_pin_change(c.id, Decision::Approve)?;
        approved.push(c.id);
    }
    let waiting = changes.len() - approved.len();
    if waiting == 0 {
        say!("Approved: apps can use all of them.");
    } else {
        say!(
            "{} approved; {waiting} wait for your review (`airlock tools review {}`): apps do not see those.",
            approved.len(),
            plain(server)
        );
    }
    Ok(approved)
}

pub(crate) fn installed(core: &Arc<Airlock>, json: bool) -> Result<u8, Failure> {
    let rows = core.installed_servers()?;
    if json {
        print_json(
            &rows
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "server": r.server, "registry": r.registry, "entry": r.entry_name,
                        "version": r.version, "kind": r.kind, "package": r.identifier,
                        "dir": r.dir, "digest": r.digest, "installed_at": r.installed_at,
                        "first_sight": r.first_sight,
                    })
                })
                .collect::<Vec<_>>(),
        );
        return Ok(0);
    }
    if rows.is_empty() {
        say!("No server was installed from a registry (`airlock catalog install NAME`).");
    }
    for r in &rows {
        say!(
            "{}  {} {} ({} {})\n    {}  {}",
            plain(&r.server),
            plain(&r.entry_name),
            plain(&r.version),
            r.kind,
            plain(&r.identifier),
            r.digest,
            plain(&r.dir)
        );
    }
    Ok(0)
}

pub(crate) fn updates(core: &Arc<Airlock>, json: bool) -> Result<u8, Failure> {
    let updates = core.catalog_updates()?;
    if json {
        print_json(&updates);
        return Ok(0);
    }
    if updates.is_empty() {
        say!("No server was installed from a registry.");
    }
    for u in &updates {
        let what = match (u.status.as_str(), &u.available) {
            ("deleted", _) => {
                "DELETED by its registry: remove it, or keep it knowing that".to_owned()
            }
            ("unlisted", _) => "no longer listed by its registry (as of the last read)".to_owned(),
            (_, Some(v)) => format!(
                "{} → {} available (review it before it runs: not installed)",
                plain(&u.installed),
                plain(v)
            ),
            (_, None) => format!("{} is the registry's latest", plain(&u.installed)),
        };
        say!("{}  {}: {}", plain(&u.server), plain(&u.entry_name), what);
        if u.status == "deprecated" {
            say!(
                "    DEPRECATED{}",
                u.status_message
                    .as_deref()
                    .map(|m| format!(": {}", plain(m)))
                    .unwrap_or_default()
            );
        }
    }
    Ok(0)
}

pub(crate) async fn update(
    core: &Arc<Airlock>,
    server: &str,
    yes: bool,
    json: bool,
) -> Result<u8, Failure> {
    eprintln!(
        "Installing the newer version of {} beside it and starting it once in its room (apps see nothing of it)...",
        plain(server)
    );
    let staged = core.prepare_update(server).await?;
    let p = &staged.plan;
    if json {
        eprintln!("{}", serde_json::to_string(p).unwrap_or_default());
    }
    say!(
        "Update {} ({}) from {} to {}?",
        plain(&p.server),
        plain(&p.entry_name),
        plain(&p.from_version),
        plain(&p.to_version)
    );
    say!(
        "  Package:   {}{}",
        plain(&p.package),
        p.package_hash
            .as_deref()
            .map(|h| format!("  {}", plain(h)))
            .unwrap_or_default()
    );
    say!("  Locked:    {} files, {}", p.files, p.digest);
    say!("  Command:   {}", plain(&p.command.join(" ")));
    if !p.scripts_skipped.is_empty() {
        say!(
            "  Install scripts did NOT run for: {}",
            plain(&p.scripts_skipped.join(", "))
        );
    }
    crate::cmd::servers::print_room(&p.room);
    say!(
        "Its tools: {} unchanged, {} differ{}",
        p.unchanged,
        p.changes.len(),
        if p.changes.is_empty() { "." } else { ":" }
    );
    for c in &p.changes {
        let what = match c.change {
            airlock_core::pins::ChangeKind::Removed => "removed",
            airlock_core::pins::ChangeKind::Added | airlock_core::pins::ChangeKind::FirstSight => {
                "added"
            }
            airlock_core::pins::ChangeKind::Changed => "changed",
        };
        say!("tool {}: {what}", plain(&c.name));
        for f in &c.findings {
            say!(
                "  {} {}: {}",
                f.severity.as_str(),
                f.kind.as_str(),
                plain(&f.detail)
            );
        }
        for line in &c.diff {
            match line.tag.as_str() {
                "removed" => say!("  - {}", plain(line.old.as_deref().unwrap_or_default())),
                "added" => say!("  + {}", plain(line.new.as_deref().unwrap_or_default())),
                _ => {}
            }
        }
    }
    let flagged = p.changes.iter().any(serious);
    let approve = if yes {
        if flagged {
            say!("Not updated: a tool of the new version has a SERIOUS finding; review it without --yes.");
            return Ok(1);
        }
        true
    } else {
        ask("Update it, and let your apps use these tools?")?
    };
    if !approve {
        say!(
            "Not updated; {} {} runs on, the new version was removed.",
            plain(server),
            plain(&p.from_version)
        );
        return Ok(1);
    }
    let to = p.to_version.clone();
    core.commit_update(staged)?;
    say!(
        "{} is at {} now; it starts the new version at its next use.",
        plain(server),
        plain(&to)
    );
    Ok(0)
}

pub(crate) async fn repair(core: &Arc<Airlock>, server: &str) -> Result<u8, Failure> {
    eprintln!("Installing the locked bytes of {} again...", plain(server));
    core.repair_install(server).await?;
    say!(
        "{} holds its locked bytes again; it starts at its next use.",
        plain(server)
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_split_off() {
        assert_eq!(
            split_version("io.github.x/y@1.2.3"),
            ("io.github.x/y".into(), Some("1.2.3".into()))
        );
        assert_eq!(
            split_version("io.github.x/y"),
            ("io.github.x/y".into(), None)
        );
        assert_eq!(
            split_version("io.github.x/y@"),
            ("io.github.x/y@".into(), None)
        );
    }
}
