//! The arguments of `airlock apps` (`airlock clients` before: still
//! accepted): the apps that attach to the gateway (names, tokens,
//! profiles) and connecting an app's own MCP config.

use airlock_core::tool_budget::ToolBudget;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub(crate) enum AppsCmd {
    /// Connect, disconnect and list the apps Airlock can connect (crates/airlock-apps).
    #[command(flatten)]
    Connecting(AppConfigCmd),
    /// Add an app by name; with --token, make its HTTP bearer token (shown once)
    Add {
        name: String,
        /// Make a bearer token for `airlock daemon --http-port`
        #[arg(long)]
        token: bool,
    },
    /// List the apps that have a name in Airlock (profiles, tokens)
    List,
    /// Show an app and its profile
    Show { name: String },
    /// Remove an app's name and profile (and its token from the keychain)
    Remove { name: String },
    /// Pause an app: its calls are refused ("paused in Airlock") until resumed
    Pause { name: String },
    /// Resume a paused app
    Resume { name: String },
    /// Set which servers (and tools) an app sees and its tool budget;
    /// with no flags, show it
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
        /// The most tools its tools/list holds (Airlock's two to find and
        /// call the others included), `none` for no budget, or `default`
        /// for the app's own (kept when not given)
        #[arg(long = "tool-budget", value_name = "N|none|default")]
        tool_budget: Option<BudgetArg>,
    },
}

#[derive(Subcommand)]
pub(crate) enum AppConfigCmd {
    /// Connect an app (`airlock apps available` lists their ids): its MCP
    /// config gets one entry, `airlock`, running `airlock gateway --stdio
    /// --app <app>`. Shows the diff and asks
    Connect(ConnectArgs),
    /// Disconnect an app: remove Airlock's entry and put back what it moved
    /// or replaced (secrets from the keychain); your later edits stay
    Disconnect(DisconnectArgs),
    /// The apps Airlock can connect: detected, connected, where their config is
    #[command(alias = "apps")]
    Available,
}

#[derive(Args)]
pub(crate) struct ConnectArgs {
    /// The app's id
    pub(crate) app: String,
    /// Apply without asking (needed when stdin is not a terminal)
    #[arg(long)]
    pub(crate) yes: bool,
    /// Also move the app's other MCP servers into Airlock (imported first,
    /// then removed from the app's config; their secrets go to the OS
    /// keychain, and disconnect puts them back)
    #[arg(long)]
    pub(crate) move_servers: bool,
}

#[derive(Args)]
pub(crate) struct DisconnectArgs {
    pub(crate) app: String,
    /// Apply without asking (needed when stdin is not a terminal)
    #[arg(long)]
    pub(crate) yes: bool,
}

/// `--tool-budget`: a number, `none`, or `default` (the app's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BudgetArg(pub(crate) Option<ToolBudget>);

impl std::str::FromStr for BudgetArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim().eq_ignore_ascii_case("default") {
            return Ok(Self(None));
        }
        s.parse::<ToolBudget>()
            .map(|b| Self(Some(b)))
            .map_err(|e| format!("{e}, or `default`"))
    }
}
