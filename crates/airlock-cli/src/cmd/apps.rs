//! `apps`: the apps that attach to the gateway (issue 12): a name, an
//! optional HTTP bearer token (kept in the OS keychain, shown once when
//! made), and a profile: which servers and tools the app sees.

use std::sync::Arc;

use airlock_core::apps::{AppInfo, AppProfile};
use airlock_core::tool_budget::{self, ToolBudget};
use airlock_core::Airlock;

use crate::cli::apps::{AppsCmd, BudgetArg};
use crate::failure::{usage, Failure};
use crate::output::{plain, print_json};

pub(crate) fn run(core: &Arc<Airlock>, cmd: AppsCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        // Handled in main before a core is opened (cmd::apps).
        AppsCmd::Connecting(_) => Ok(0),
        AppsCmd::Add { name, token } => {
            let t = core.add_app(&name, token)?;
            if json {
                print_json(&serde_json::json!({
                    "name": name,
                    "token": t.as_ref().map(|t| t.expose()),
                }));
            } else {
                say!("added app {}", plain(&name));
                if let Some(t) = t {
                    say!("token (shown only now; put it in the app's config as `Authorization: Bearer <token>`):");
                    say!("{}", t.expose());
                }
            }
            Ok(0)
        }
        AppsCmd::List => {
            let all = core.apps()?;
            if json {
                print_json(&all);
            } else if all.is_empty() {
                say!("no apps have a name in Airlock yet: `airlock apps add NAME [--token]`, or `airlock apps connect APP`");
            } else {
                for c in &all {
                    say!(
                        "{:<24} {:<7} {:<9} {}",
                        plain(&c.name),
                        if c.paused { "paused" } else { "active" },
                        token_word(c),
                        summary(&c.profile)
                    );
                }
            }
            Ok(0)
        }
        AppsCmd::Show { name } => show(core, &name, json),
        AppsCmd::Remove { name } => {
            core.remove_app(&name)?;
            if json {
                print_json(&serde_json::json!({"removed": name}));
            } else {
                say!("removed app {}", plain(&name));
            }
            Ok(0)
        }
        AppsCmd::Pause { name } => {
            core.set_app_paused(&name, true)?;
            if !json {
                say!(
                    "paused {}: its calls are refused until `airlock apps resume {}`",
                    plain(&name),
                    plain(&name)
                );
            }
            show_if(core, &name, json)
        }
        AppsCmd::Resume { name } => {
            core.set_app_paused(&name, false)?;
            if !json {
                say!("resumed {}", plain(&name));
            }
            show_if(core, &name, json)
        }
        AppsCmd::Profile {
            name,
            servers,
            tools,
            all,
            tool_budget,
        } => {
            let sees = all || !servers.is_empty() || !tools.is_empty();
            if !sees && tool_budget.is_none() {
                return show(core, &name, json);
            }
            let Some(current) = core.app(&name)? else {
                return Err(unknown_app(&name));
            };
            // Each part changes only when its flags are given.
            let mut profile = if sees {
                to_profile(servers, &tools)?
            } else {
                current.profile.clone()
            };
            profile.tool_budget = match tool_budget {
                Some(BudgetArg(b)) => b,
                None => current.profile.tool_budget,
            };
            core.set_app_profile(&name, &profile)?;
            show(core, &name, json)
        }
    }
}

fn unknown_app(name: &str) -> Failure {
    usage(format!(
        "no app named {name:?}; `airlock apps list` shows them"
    ))
}

/// The tool budget that applies to `c`, and where it comes from: a line,
/// then the app's cap and its source when it has one.
fn budget_lines(c: &AppInfo) -> Vec<String> {
    let cap = tool_budget::app_cap(&c.name);
    let default = cap.map_or_else(
        || "no default for this app".to_owned(),
        |cap| format!("the app's default is {}", cap.budget()),
    );
    let mut lines = vec![match c.profile.tool_budget {
        Some(ToolBudget::Tools(n)) => format!("budget {n} (set in its profile; {default})"),
        Some(ToolBudget::Off) => format!("no budget (set in its profile; {default})"),
        None => match cap {
            Some(cap) => format!("budget {} (the app's default)", cap.budget()),
            None => format!("no budget ({default})"),
        },
    }];
    if let Some(cap) = cap {
        lines.push(format!("the app's cap: {} tools: {}", cap.cap, cap.what));
        lines.push(format!("source: {}", cap.source));
    }
    lines
}

fn to_profile(servers: Vec<String>, tools: &[String]) -> Result<AppProfile, Failure> {
    let mut p = AppProfile::default();
    if !servers.is_empty() {
        p.servers = Some(servers);
    }
    for t in tools {
        let Some((server, tool)) = t.split_once('/') else {
            return Err(usage(format!("--tool {t:?}: write SERVER/TOOL")));
        };
        p.tools
            .entry(server.to_owned())
            .or_default()
            .push(tool.to_owned());
    }
    Ok(p)
}

fn token_word(c: &AppInfo) -> &'static str {
    if c.has_token {
        "token"
    } else {
        "no token"
    }
}

fn summary(p: &AppProfile) -> String {
    let servers = match &p.servers {
        None => "all enabled servers".to_owned(),
        Some(s) if s.is_empty() => "no servers".to_owned(),
        Some(s) => format!("servers: {}", plain(&s.join(", "))),
    };
    if p.tools.is_empty() {
        servers
    } else {
        let tools: Vec<String> = p
            .tools
            .iter()
            .map(|(s, t)| format!("{s}: {}", t.join(", ")))
            .collect();
        format!("{servers}; only tools {}", plain(&tools.join("; ")))
    }
}

/// After pause/resume: the JSON form prints the app; the text form said it.
fn show_if(core: &Arc<Airlock>, name: &str, json: bool) -> Result<u8, Failure> {
    if json {
        show(core, name, json)
    } else {
        Ok(0)
    }
}

fn show(core: &Arc<Airlock>, name: &str, json: bool) -> Result<u8, Failure> {
    let Some(c) = core.app(name)? else {
        return Err(unknown_app(name));
    };
    if json {
        let mut v = serde_json::to_value(&c).unwrap_or_default();
        v["tool_budget"] = serde_json::json!(c.profile.tool_budget_for(&c.name));
        v["tool_budget_default"] = serde_json::json!(tool_budget::default_budget(&c.name));
        print_json(&v);
    } else {
        say!("{}", plain(&c.name));
        say!(
            "  token:   {}",
            if c.has_token {
                "yes (in the OS keychain)"
            } else {
                "no (stdio only)"
            }
        );
        say!("  sees:    {}", summary(&c.profile));
        for (i, line) in budget_lines(&c).iter().enumerate() {
            say!("  {:<9}{line}", if i == 0 { "tools:" } else { "" });
        }
        say!(
            "  state:   {}",
            if c.paused {
                "paused (its calls are refused; `airlock apps resume NAME`)"
            } else {
                "active"
            }
        );
    }
    Ok(0)
}
