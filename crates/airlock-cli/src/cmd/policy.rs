//! `airlock policy show|export`: the organization's policy as Airlock reads
//! it (files applied, files refused because a user could rewrite them,
//! files that do not read, which make it refuse every server), and the
//! managed settings that make other apps go through Airlock.

use std::sync::Arc;

use airlock_apps::{gateway_args, AppId};
use airlock_core::Airlock;

use crate::cli::PolicyCmd;
use crate::failure::{usage, Failure};
use crate::output::{plain, print_json};

pub(crate) fn run(core: &Arc<Airlock>, cmd: PolicyCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        PolicyCmd::Show => show(core, json),
        PolicyCmd::Export { app } => export(&app),
        PolicyCmd::Exception { server, reason } => {
            match core.policy_exception(&server, &reason)? {
                None => {
                    say!(
                        "The policy does not refuse {}: no exception needed.",
                        plain(&server)
                    );
                }
                Some((text, mail)) => {
                    if json {
                        print_json(&serde_json::json!({"text": text, "mailto": mail}));
                    } else {
                        say!("{}", plain_block(&text));
                        if let Some(m) = mail {
                            say!("\nSend it: {}", plain(&m));
                        }
                    }
                }
            }
            Ok(0)
        }
    }
}

/// Multi-line text as the terminal shows it (each line plain).
fn plain_block(text: &str) -> String {
    text.lines().map(plain).collect::<Vec<_>>().join("\n")
}

fn show(core: &Arc<Airlock>, json: bool) -> Result<u8, Failure> {
    let loaded = core.policy();
    let p = &loaded.policy;
    if json {
        print_json(&serde_json::json!({
            "active": p.is_active(),
            "files": loaded.files,
            "refused": loaded.warnings.iter().map(|w| serde_json::json!({"path": w.path, "why": w.reason})).collect::<Vec<_>>(),
            "errors": loaded.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "notes": loaded.notes,
            "require_confinement": p.requires_confinement().is_some(),
            "only_listed_servers": p.only_listed_servers().is_some(),
            "pin_mode": p.fixed_pin_mode(),
        }));
        return Ok(0);
    }
    if loaded.files.is_empty() && loaded.warnings.is_empty() && loaded.errors.is_empty() {
        say!("No policy: nothing is set by an organization on this computer.");
        for n in &loaded.notes {
            say!("  note: {}", plain(n));
        }
        return Ok(0);
    }
    for f in &loaded.files {
        say!("Policy file: {}", plain(&f.display().to_string()));
    }
    for w in &loaded.warnings {
        say!(
            "REFUSED: {}: {} (its rules do not apply)",
            plain(&w.path.display().to_string()),
            plain(&w.reason)
        );
    }
    for e in &loaded.errors {
        say!("BROKEN: {}", plain(&e.to_string()));
    }
    if let Some(why) = p.broken() {
        say!(
            "Every server is refused until the policy reads again: {}",
            plain(why)
        );
    }
    if p.requires_confinement().is_some() {
        say!("  Every stdio server runs confined.");
    }
    if p.only_listed_servers().is_some() {
        say!("  Only the servers the policy lists may be added or started.");
    }
    if let Some(mode) = p.fixed_pin_mode() {
        say!("  Tool changes: {mode} (set by your organization).");
    }
    if let Some(c) = p.contact() {
        let who = [c.name.as_deref(), c.email.as_deref(), c.url.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        say!("  Exceptions: ask {}", plain(&who));
    }
    for n in &loaded.notes {
        say!("  note: {}", plain(n));
    }
    Ok(0)
}

fn export(app: &str) -> Result<u8, Failure> {
    let program = std::env::current_exe()
        .map_err(|e| usage(format!("cannot find this program's path: {e}")))?;
    let id = match app {
        "vscode" => AppId::Vscode,
        "copilot" => AppId::Vscode,
        _ => AppId::ClaudeCode,
    };
    let entry = serde_json::json!({
        "type": "stdio",
        "command": program.display().to_string(),
        "args": gateway_args(id),
    });
    let out = match app {
        "claude-code" => airlock_policy::export_claude_code(&entry),
        "claude-code-settings" => airlock_policy::export_claude_code_settings(&entry),
        "copilot" => airlock_policy::export_copilot(&entry),
        _ => airlock_policy::export_vscode(&entry),
    };
    print_json(&out);
    Ok(0)
}
