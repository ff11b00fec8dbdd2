//! `airlock tools review [SERVER]`, `airlock tools approve|reject SERVER
//! NAME --change N`: the changes of pinned tools and prompts that wait for the user
//! (airlock_core::pins), each with its findings and its diff, hidden
//! characters made visible; and the decisions. A running host applies a
//! decision within a couple of seconds.

use std::sync::Arc;

use airlock_core::pins::{ChangeKind, Decision, PinChange, PinKind};
use airlock_core::Airlock;

use crate::cli::ToolsCmd;
use crate::failure::{usage, Failure};
use crate::output::{plain, print_json};

pub(crate) fn run(core: &Arc<Airlock>, cmd: ToolsCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        ToolsCmd::Review { server } => review(core, server.as_deref(), json),
        ToolsCmd::Approve {
            server,
            name,
            change,
            prompt,
        } => decide(
            core,
            &server,
            &name,
            Some(change),
            prompt,
            Decision::Approve,
            json,
        ),
        ToolsCmd::Reject {
            server,
            name,
            change,
            prompt,
        } => decide(core, &server, &name, change, prompt, Decision::Reject, json),
        ToolsCmd::Off { server, name } => switch(core, &server, &name, false, json),
        ToolsCmd::On { server, name } => switch(core, &server, &name, true, json),
        ToolsCmd::Switched { server } => {
            let off = core.tools_off(&server)?;
            if json {
                print_json(&serde_json::json!({"server": server, "off": off}));
            } else if off.is_empty() {
                say!("No tool of {} is turned off.", plain(&server));
            } else {
                for name in &off {
                    say!("{} {}: off", plain(&server), plain(name));
                }
            }
            Ok(0)
        }
    }
}

/// `tools off|on SERVER NAME`: a running host applies it within seconds.
fn switch(
    core: &Arc<Airlock>,
    server: &str,
    name: &str,
    on: bool,
    json: bool,
) -> Result<u8, Failure> {
    let changed = core.set_tool_on(server, name, on)?;
    if json {
        print_json(
            &serde_json::json!({"server": server, "tool": name, "on": on, "changed": changed}),
        );
    } else {
        let state = if on { "on" } else { "off" };
        let already = if changed { "" } else { " (it already was)" };
        say!(
            "{} {}: {state}{already}. {}",
            plain(server),
            plain(name),
            if on {
                "Apps see it again within seconds."
            } else {
                "No app sees it, and no call reaches it, until you turn it on."
            }
        );
    }
    Ok(0)
}

fn what(change: &PinChange) -> &'static str {
    match change.change {
        ChangeKind::FirstSight => "held at first sight",
        ChangeKind::Added => "added",
        ChangeKind::Changed => "changed since you approved it",
        ChangeKind::Removed => "removed",
    }
}

pub(crate) fn print_change(c: &PinChange) {
    say!(
        "#{} {} {} {}: {}",
        c.id,
        plain(&c.server),
        c.kind.as_str(),
        plain(&c.name),
        what(c)
    );
    for f in &c.findings {
        say!(
            "  {} {}: {} ({})",
            f.severity.as_str(),
            f.kind.as_str(),
            plain(&f.detail),
            plain(&f.field)
        );
    }
    for line in &c.diff {
        match line.tag.as_str() {
            "removed" => say!("  - {}", plain(line.old.as_deref().unwrap_or_default())),
            "added" => say!("  + {}", plain(line.new.as_deref().unwrap_or_default())),
            _ => say!("    {}", plain(line.old.as_deref().unwrap_or_default())),
        }
    }
    let prompt = if c.kind == PinKind::Prompt {
        " --prompt"
    } else {
        ""
    };
    let (server, name) = (shell_word(&c.server), shell_word(&c.name));
    if c.complete {
        say!(
            "  approve: airlock tools approve {server} {name} --change {}{prompt}",
            c.id
        );
    } else {
        say!(
            "  NOT SHOWN WHOLE (over {} lines, or a text over {} characters): it cannot be approved",
            airlock_core::pins::MAX_REVIEW_LINES,
            airlock_core::pins::MAX_VISIBLE_CHARS
        );
    }
    say!(
        "  reject:  airlock tools reject {server} {name} --change {}{prompt}",
        c.id
    );
}

/// A name as a shell reads it: quoted unless plain.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
    {
        s.to_owned()
    } else {
        format!("'{}'", plain(s).replace('\'', "'\\''"))
    }
}

fn review(core: &Arc<Airlock>, server: Option<&str>, json: bool) -> Result<u8, Failure> {
    if let Some(s) = server {
        core.get_server(s)?;
    }
    let changes = core.pending_pin_changes(server)?;
    if json {
        print_json(&changes);
        return Ok(0);
    }
    if changes.is_empty() {
        say!("nothing waits for your review");
        return Ok(0);
    }
    for c in &changes {
        print_change(c);
        say!("");
    }
    say!(
        "approve or reject each change by its number: `airlock tools approve SERVER NAME --change N` (a later change of the same item is not approved)"
    );
    Ok(0)
}

fn decide(
    core: &Arc<Airlock>,
    server: &str,
    name: &str,
    change: Option<i64>,
    prompt: bool,
    decision: Decision,
    json: bool,
) -> Result<u8, Failure> {
    core.get_server(server)?;
    let kind = if prompt {
        PinKind::Prompt
    } else {
        PinKind::Tool
    };
    let decided = match change {
        Some(id) => core.decide_reviewed_pin(server, name, kind, id, decision),
        None => core.decide_pin(server, name, Some(kind), decision),
    }
    .map_err(|e| usage(e.to_string()))?;
    if json {
        print_json(&decided);
    } else {
        let done = match decision {
            Decision::Approve => "approved",
            Decision::Reject => "rejected",
        };
        say!(
            "{done}: {} {} {} ({})",
            plain(&decided.server),
            decided.kind.as_str(),
            plain(&decided.name),
            what(&decided)
        );
    }
    Ok(0)
}
