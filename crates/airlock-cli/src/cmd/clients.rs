//! `clients`: the apps that attach to the gateway (issue 12): a name, an
//! optional HTTP bearer token (kept in the OS keychain, shown once when
//! made), and a profile: which servers and tools the app sees.

use std::sync::Arc;

use airlock_core::clients::{ClientInfo, ClientProfile};
use airlock_core::Airlock;
use clap::Subcommand;

use crate::failure::{usage, Failure};
use crate::output::{plain, print_json};

#[derive(Subcommand)]
pub(crate) enum ClientsCmd {
    /// Connect, disconnect and list apps (crates/airlock-apps).
    #[command(flatten)]
    Apps(crate::cmd::apps::AppsCmd),
    /// Add a client; with --token, make its HTTP bearer token (shown once)
    Add {
        name: String,
        /// Make a bearer token for `airlock daemon --http-port`
        #[arg(long)]
        token: bool,
    },
    /// List the clients
    List,
    /// Show a client and its profile
    Show { name: String },
    /// Remove a client (and its token from the keychain)
    Remove { name: String },
    /// Pause a client: its calls are refused ("paused in Airlock") until resumed
    Pause { name: String },
    /// Resume a paused client
    Resume { name: String },
    /// Set which servers (and tools) a client sees; with no flags, show it
    Profile {
        name: String,
        /// Only this server (repeat for more)
        #[arg(long = "server", value_name = "SERVER")]
        servers: Vec<String>,
        /// Of SERVER, only this tool (its own name; repeat for more)
        #[arg(long = "tool", value_name = "SERVER/TOOL")]
        tools: Vec<String>,
        /// Every enabled server and tool again (the default)
        #[arg(long, conflicts_with_all = ["servers", "tools"])]
        all: bool,
    },
}

pub(crate) fn run(core: &Arc<Airlock>, cmd: ClientsCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        // Handled in main before a core is opened (cmd::apps).
        ClientsCmd::Apps(_) => Ok(0),
        ClientsCmd::Add { name, token } => {
            let t = core.add_client(&name, token)?;
            if json {
                print_json(&serde_json::json!({
                    "name": name,
                    "token": t.as_ref().map(|t| t.expose()),
                }));
            } else {
                say!("added client {}", plain(&name));
                if let Some(t) = t {
                    say!("token (shown only now; put it in the app's config as `Authorization: Bearer <token>`):");
                    say!("{}", t.expose());
                }
            }
            Ok(0)
        }
        ClientsCmd::List => {
            let all = core.clients()?;
            if json {
                print_json(&all);
            } else if all.is_empty() {
                say!("no clients yet: `airlock clients add NAME [--token]`");
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
        ClientsCmd::Show { name } => show(core, &name, json),
        ClientsCmd::Remove { name } => {
            core.remove_client(&name)?;
            if json {
                print_json(&serde_json::json!({"removed": name}));
            } else {
                say!("removed client {}", plain(&name));
            }
            Ok(0)
        }
        ClientsCmd::Pause { name } => {
            core.set_client_paused(&name, true)?;
            if !json {
                say!(
                    "paused {}: its calls are refused until `airlock clients resume {}`",
                    plain(&name),
                    plain(&name)
                );
            }
            show_if(core, &name, json)
        }
        ClientsCmd::Resume { name } => {
            core.set_client_paused(&name, false)?;
            if !json {
                say!("resumed {}", plain(&name));
            }
            show_if(core, &name, json)
        }
        ClientsCmd::Profile {
            name,
            servers,
            tools,
            all,
        } => {
            if !all && servers.is_empty() && tools.is_empty() {
                return show(core, &name, json);
            }
            let profile = to_profile(servers, &tools)?;
            core.set_client_profile(&name, &profile)?;
            show(core, &name, json)
        }
    }
}

fn to_profile(servers: Vec<String>, tools: &[String]) -> Result<ClientProfile, Failure> {
    let mut p = ClientProfile::default();
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

fn token_word(c: &ClientInfo) -> &'static str {
    if c.has_token {
        "token"
    } else {
        "no token"
    }
}

fn summary(p: &ClientProfile) -> String {
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

/// After pause/resume: the JSON form prints the client; the text form said it.
fn show_if(core: &Arc<Airlock>, name: &str, json: bool) -> Result<u8, Failure> {
    if json {
        show(core, name, json)
    } else {
        Ok(0)
    }
}

fn show(core: &Arc<Airlock>, name: &str, json: bool) -> Result<u8, Failure> {
    let Some(c) = core.client(name)? else {
        return Err(usage(format!(
            "no client named {name:?}; `airlock clients list` shows them"
        )));
    };
    if json {
        print_json(&c);
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
        say!(
            "  state:   {}",
            if c.paused {
                "paused (its calls are refused; `airlock clients resume NAME`)"
            } else {
                "active"
            }
        );
    }
    Ok(0)
}
