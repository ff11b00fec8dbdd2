//! The command line: global flags, commands and their arguments (clap).

pub(crate) mod apps;

use std::path::PathBuf;

use airlock_core::limits;
use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
// `--version` prints the version and the MCP revisions (airlock_core::about,
// the same line as the window's About).
#[command(name = "airlock", version = airlock_core::about::version_line(), about = "Airlock: the MCP host you can trust with sign-ins, secrets and payments", long_about = None)]
pub(crate) struct Cli {
    /// Where Airlock keeps its database (default: the platform data dir; env AIRLOCK_DATA_DIR)
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) data_dir: Option<PathBuf>,
    /// Print machine-readable JSON (JSON lines for elicitation events)
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// How to answer URL elicitations: ask in the terminal, or a fixed answer for scripts
    #[arg(long, global = true, value_enum, default_value_t = ConsentMode::Ask)]
    pub(crate) consent: ConsentMode,
    /// How to open an accepted URL: the system browser, print it, or not at all
    #[arg(long, global = true, value_enum, default_value_t = OpenMode::System)]
    pub(crate) open: OpenMode,
    /// Seconds the MCP handshake may take
    #[arg(long, global = true, default_value_t = limits::CONNECT_TIMEOUT_SECS.default)]
    pub(crate) connect_timeout: u64,
    /// Seconds after which an accepted elicitation without completion is late
    #[arg(long, global = true, default_value_t = limits::LATE_AFTER_SECS.default)]
    pub(crate) late_after: u64,
    /// Seconds after which Airlock stops waiting for a completion
    #[arg(long, global = true, default_value_t = limits::GIVE_UP_AFTER_SECS.default)]
    pub(crate) give_up_after: u64,
    #[command(subcommand)]
    pub(crate) command: Command,
    /// The person's settings given on this command line (`--consent`,
    /// `--open`), which `gateway --stdio` refuses: see [`parse`].
    #[arg(skip)]
    pub(crate) person_settings_given: Vec<&'static str>,
}

/// The person's settings among the global flags: how URLs are answered and
/// opened. An app's config must not set them for a shared host.
pub(crate) const PERSON_SETTINGS: [&str; 2] = ["consent", "open"];

/// The command line, noting which of [`PERSON_SETTINGS`] were given on it
/// (their defaults cannot be told apart from a value otherwise).
pub(crate) fn parse() -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().try_get_matches()?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    cli.person_settings_given = PERSON_SETTINGS
        .into_iter()
        .filter(|id| given_on_command_line(&matches, id))
        .collect();
    Ok(cli)
}

/// Whether the global flag `id` was typed, before or after the subcommand
/// (clap records a global in the matches of the command it was given to).
fn given_on_command_line(matches: &clap::ArgMatches, id: &str) -> bool {
    let mut m = Some(matches);
    while let Some(here) = m {
        if here.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
            return true;
        }
        m = here.subcommand().map(|(_, sub)| sub);
    }
    false
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ConsentMode {
    Ask,
    Accept,
    Decline,
    Cancel,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum OpenMode {
    System,
    Print,
    None,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Add, list, show, remove, import and export server definitions
    #[command(subcommand)]
    Servers(ServersCmd),
    /// The apps that use Airlock through its gateway: connect an app's MCP
    /// config (connect, disconnect, available); names, HTTP tokens, profiles
    #[command(subcommand, alias = "clients")]
    Apps(apps::AppsCmd),
    /// Connect to a server and show its status, protocol revision and capabilities
    Connect { server: String },
    /// Sign in to an OAuth-protected HTTP server in the browser; tokens go to the OS keychain
    Login {
        server: String,
        /// Use this client, registered with the provider beforehand, instead
        /// of dynamic registration (kept for later sign-ins)
        #[arg(long)]
        client_id: Option<String>,
        /// With --client-id: read the client's secret from the first line of
        /// stdin (kept in the OS keychain only)
        #[arg(long, requires = "client_id")]
        client_secret_stdin: bool,
        /// With --client-id: the port of the redirect URI registered with the
        /// provider, http://127.0.0.1:<PORT>/callback (default: any free port)
        #[arg(long, requires = "client_id")]
        redirect_port: Option<u16>,
    },
    /// Forget a server's OAuth tokens (OS keychain)
    Logout {
        server: String,
        /// Also forget the client set with `login --client-id`
        #[arg(long)]
        forget_client: bool,
    },
    /// List a server's tools, or review the changes of tools and prompts
    /// held for apps (`tools review [SERVER]`, `tools approve|reject SERVER NAME`)
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Tools {
        #[command(subcommand)]
        action: Option<ToolsCmd>,
        /// The server whose tools to list
        #[arg(required = true)]
        server: Option<String>,
    },
    /// Servers from MCP registries: read a registry into the cache, search
    /// it and show an entry (offline, from the cache)
    #[command(subcommand)]
    Catalog(CatalogCmd),
    /// Your organization's policy (/etc/airlock/policy.json and policy.d):
    /// what it says, and the managed settings that make other apps go
    /// through Airlock
    #[command(subcommand)]
    Policy(PolicyCmd),
    /// List a server's prompts
    Prompts { server: String },
    /// List a server's resources
    Resources { server: String },
    /// Read a resource
    Read { server: String, uri: String },
    /// Get a prompt
    Prompt {
        server: String,
        name: String,
        /// Prompt arguments as a JSON object
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
    },
    /// Call a tool
    Call {
        server: String,
        tool: String,
        /// Tool arguments as a JSON object
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
    },
    /// Show the history of tool calls, newest first
    History {
        #[arg(long)]
        server: Option<String>,
        /// Only calls this app made through the gateway (its name in Airlock)
        #[arg(long, alias = "client", value_name = "NAME")]
        app: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Text searched in tool names, arguments, results and errors
        #[arg(long)]
        search: Option<String>,
        /// Only calls with this outcome
        #[arg(long, value_enum)]
        outcome: Option<OutcomeArg>,
    },
    /// Show a server's log (stderr, notifications/message, connection events)
    Logs {
        server: String,
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Show the elicitations (URL and form) Airlock handled, newest first
    Elicitations {
        #[arg(long)]
        server: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Show the audit trail, newest first
    Audit {
        #[arg(long)]
        server: Option<String>,
        /// Only events of this kind (elicitation, server_added, ...)
        #[arg(long)]
        kind: Option<String>,
        /// Only events about this app
        #[arg(long, alias = "client", value_name = "NAME")]
        app: Option<String>,
        /// Only events whose server, kind or detail contains this text
        #[arg(long)]
        search: Option<String>,
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Write every matching event to stdout as JSON lines or CSV (for a
        /// collector or a spreadsheet); --limit does not apply
        #[arg(long, value_enum, value_name = "FORMAT")]
        export: Option<ExportArg>,
    },
    /// Serve the servers Airlock manages to other apps as one MCP server
    /// over stdio: the command an app puts in its MCP config. Attaches to
    /// the running Airlock host (starting `airlock daemon` if none runs).
    /// It refuses --consent and --open: the host is shared by every app, and
    /// how URLs are answered and opened is the person's setting, not an
    /// app's (a host it starts asks in desktop notifications; set them on
    /// `airlock daemon` or use the window)
    Gateway(GatewayArgs),
    /// The headless Airlock host: owns the server connections, consent and
    /// history for every app attached with `airlock gateway --stdio`
    Daemon(DaemonArgs),
    /// Client for the official MCP conformance suite (`npx conformance client
    /// --command "airlock conformance-client"`): a throw-away data dir, forms
    /// answered with their defaults, nothing opened. Reads MCP_CONFORMANCE_SCENARIO.
    #[command(hide = true)]
    ConformanceClient { url: String },
    /// Inspect a URL the way a consent prompt does (no network access)
    UrlCheck {
        url: String,
        /// Block http:// even to loopback hosts
        #[arg(long)]
        no_http_loopback: bool,
        /// The message that came with the URL: a site it names that is not
        /// the page's own is a warning (names_other_site)
        #[arg(long, value_name = "TEXT")]
        message: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ExportArg {
    Jsonl,
    Csv,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum OutcomeArg {
    Ok,
    ToolError,
    Failed,
}

#[derive(Subcommand)]
pub(crate) enum ServersCmd {
    /// Add a server: `--command CMD [-- ARGS...]` (stdio) or `--url URL` (Streamable HTTP)
    Add(Box<AddArgs>),
    /// Replace a server's definition (same flags as add)
    Edit(Box<AddArgs>),
    /// List configured servers
    List,
    /// Show one server (secret values are never shown)
    Show { name: String },
    /// Remove a server and its secrets from the keychain
    Remove { name: String },
    /// Pause a server: disconnect it; it asks nothing until resumed (remembered)
    Pause { name: String },
    /// Resume a paused server
    Resume { name: String },
    /// Import Claude Desktop / Cursor (`mcpServers`) or VS Code (`servers`, `inputs`) JSON
    Import {
        file: PathBuf,
        /// Answer a VS Code input without a prompt: ID=VALUE (repeatable)
        #[arg(long = "input", value_name = "ID=VALUE")]
        inputs: Vec<String>,
    },
    /// Export to `mcpServers` JSON (secrets are left out)
    Export,
    /// Show a stdio server's room (what it may read, write and reach, and
    /// where each entry came from), or change it
    Sandbox {
        name: String,
        #[command(subcommand)]
        change: Option<SandboxChange>,
    },
    /// Give a resource URI (or, with --template, a template pattern) that
    /// two servers list to this server: apps read it from this one
    Own {
        name: String,
        uri: String,
        #[arg(long)]
        template: bool,
    },
}

#[derive(Args)]
pub(crate) struct AddArgs {
    pub(crate) name: String,
    /// Command of a stdio server
    #[arg(long, conflicts_with = "url", required_unless_present = "url")]
    pub(crate) command: Option<String>,
    /// Arguments of the stdio command (after `--`)
    #[arg(last = true)]
    pub(crate) args: Vec<String>,
    /// Environment variable NAME=VALUE (secret-looking names go to the keychain)
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub(crate) env: Vec<String>,
    /// Environment variable stored in the OS keychain: NAME=VALUE
    #[arg(long = "secret-env", value_name = "NAME=VALUE")]
    pub(crate) secret_env: Vec<String>,
    /// Working directory of the stdio command
    #[arg(long)]
    pub(crate) cwd: Option<String>,
    /// URL of a Streamable HTTP server
    #[arg(long)]
    pub(crate) url: Option<String>,
    /// HTTP header NAME=VALUE (Authorization and other secret-looking names go to the keychain)
    #[arg(long = "header", value_name = "NAME=VALUE")]
    pub(crate) header: Vec<String>,
    /// HTTP header stored in the OS keychain: NAME=VALUE
    #[arg(long = "secret-header", value_name = "NAME=VALUE")]
    pub(crate) secret_header: Vec<String>,
    /// MCP protocol revision: auto (2026-07-28 when the server offers it,
    /// else 2025-11-25; a server that sends requests the 2025-11-25 way is
    /// moved to 2025-11-25 and remembered), 2026-07-28, or 2025-11-25
    #[arg(long, value_name = "REVISION", default_value = "auto",
          value_parser = ["auto", "2026-07-28", "2025-11-25"])]
    pub(crate) protocol: String,
    /// Allow secret headers or a sign-in over plain http:// to another
    /// computer (they cross the network in the clear)
    #[arg(long)]
    pub(crate) allow_insecure_http: bool,
    /// Pass this variable of Airlock's own environment to a stdio server
    /// (repeatable; `*` passes all). By default a server gets only what a
    /// program needs to run (PATH, HOME, USER, LANG/LC_*, TMPDIR, XDG_*,
    /// display and proxy variables) plus its own --env
    #[arg(long = "inherit-env", value_name = "NAME")]
    pub(crate) inherit_env: Vec<String>,
    /// What a change to the server's tools and prompts does for the apps
    /// behind the gateway: hold it until you approve it (`airlock tools
    /// review`), notify only (served at once, recorded), or off
    #[arg(long, value_name = "POLICY", default_value = "hold",
          value_parser = ["hold", "notify", "off"])]
    pub(crate) pins: String,
    /// Largest message Airlock reads from this server, in bytes (default
    /// 16 MiB): a larger tool result or list fails with an error naming it
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_message_bytes: Option<u64>,
    /// Largest tool or prompt definition served to apps, in bytes (default
    /// 64 KiB): a larger one is held
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_definition_bytes: Option<u64>,
    /// Let the server read this path in its room (repeatable). A stdio
    /// server runs confined: it reads its own program, its interpreter and
    /// the paths in its arguments, and nothing else of yours
    #[arg(long = "allow-read", value_name = "PATH")]
    pub(crate) allow_read: Vec<String>,
    /// Let the server read and write this path in its room (repeatable)
    #[arg(long = "allow-write", value_name = "PATH")]
    pub(crate) allow_write: Vec<String>,
    /// Let the server reach this host through Airlock's proxy without
    /// asking: HOST, HOST:PORT or *.DOMAIN (repeatable)
    #[arg(long = "allow-host", value_name = "HOST[:PORT]")]
    pub(crate) allow_host: Vec<String>,
    /// Run the server unconfined, with all your rights (shown wherever the
    /// server is, and in the audit trail)
    #[arg(long)]
    pub(crate) no_sandbox: bool,
    /// Confine its files but share this computer's network (a server that
    /// serves a page on 127.0.0.1 for your browser)
    #[arg(long)]
    pub(crate) host_network: bool,
    /// Hand an unconfined server the session bus (it reaches the unlocked
    /// keychain); needs --no-sandbox
    #[arg(long, requires = "no_sandbox")]
    pub(crate) session_bus: bool,
}

#[derive(Subcommand)]
pub(crate) enum SandboxChange {
    /// Run it in its room (from its next start)
    On,
    /// Run it unconfined, with all your rights
    Off,
    /// Let it read PATH
    AllowRead { path: String },
    /// Let it read and write PATH
    AllowWrite { path: String },
    /// Let it reach HOST[:PORT] without asking
    AllowHost { host: String },
    /// Take back a path or host it was allowed
    Remove { entry: String },
    /// Share this computer's network (on) or go through Airlock's proxy (off)
    HostNetwork {
        #[arg(value_parser = ["on", "off"])]
        switch: String,
    },
}

#[derive(Args)]
pub(crate) struct GatewayArgs {
    /// Speak MCP on stdin/stdout (the only transport so far)
    #[arg(long, required = true)]
    pub(crate) stdio: bool,
    /// The name history records for this app's calls (default: the app's
    /// own name from its handshake). `--client` is the older spelling,
    /// still in app configs that `airlock clients connect` wrote
    #[arg(long, alias = "client", value_name = "NAME")]
    pub(crate) app: Option<String>,
    /// Never start a host: fail when none runs
    #[arg(long)]
    pub(crate) no_start: bool,
}

#[derive(Args)]
pub(crate) struct DaemonArgs {
    /// Stop after this many seconds with no app attached (default: run until stopped)
    #[arg(long, value_name = "SECS")]
    pub(crate) idle_exit: Option<u64>,
    /// Between a server's name and its tool's or prompt's name in what apps see
    #[arg(long, default_value = airlock_gateway::catalog::names::DEFAULT_SEPARATOR, value_name = "TEXT")]
    pub(crate) separator: String,
    /// Also serve MCP over Streamable HTTP on this port (0: any free one;
    /// off by default); every app needs a token (`airlock apps add NAME --token`)
    #[arg(long, value_name = "PORT")]
    pub(crate) http_port: Option<u16>,
    /// The address the HTTP endpoint listens on: loopback only (127.0.0.1 or ::1)
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1",
        requires = "http_port"
    )]
    pub(crate) http_bind: std::net::IpAddr,
    /// Ask the running host to hand its socket over instead of failing
    /// (what the desktop window does; for tests)
    #[arg(long, hide = true)]
    pub(crate) take_over: bool,
}

#[derive(Subcommand)]
pub(crate) enum PolicyCmd {
    /// The policy in force: its files, the ones refused and why, its rules
    Show,
    /// A request for an exception for a server the policy refuses: the text
    /// to send (its command, its locked hash, the rule, your reason) and a
    /// mailto: link to the policy's contact
    Exception {
        server: String,
        /// Why you need it
        #[arg(long)]
        reason: String,
    },
    /// The managed settings an app reads, admitting only Airlock
    /// (claude-code: managed-mcp.json; claude-code-settings,
    /// copilot: managed-settings.json; vscode: policy.json)
    Export {
        #[arg(value_parser = ["claude-code", "claude-code-settings", "copilot", "vscode"])]
        app: String,
    },
}

/// `catalog install`'s options.
#[derive(clap::Args)]
pub(crate) struct InstallArgs {
    /// NAME or NAME@VERSION (an exact version)
    pub(crate) name: String,
    /// The server's name in Airlock (default: the entry's last part)
    #[arg(long = "as", value_name = "SERVER")]
    pub(crate) server: Option<String>,
    /// A value the package asks for, NAME=VALUE (secret ones go to the
    /// keychain)
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub(crate) env: Vec<String>,
    /// Read the value of NAME from the first line of stdin (for a
    /// secret: it stays out of your shell's history)
    #[arg(long = "env-stdin", value_name = "NAME")]
    pub(crate) env_stdin: Option<String>,
    /// Only from this registry, when the name is in several
    #[arg(long, value_name = "URL")]
    pub(crate) registry: Option<String>,
    /// Install without asking, and let apps use the first tools that
    /// have no serious finding (serious ones still wait for review)
    #[arg(long)]
    pub(crate) yes: bool,
}

#[derive(Subcommand)]
pub(crate) enum CatalogCmd {
    /// Read a registry's latest entries into the cache (default: the
    /// official MCP Registry, or AIRLOCK_REGISTRY_URL)
    Refresh {
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
    },
    /// Search the cache by name or description (all entries without TEXT)
    Search {
        text: Option<String>,
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Show an entry: its packages, environment, status (`--version`: that
    /// version, asked of its registry)
    Show {
        name: String,
        #[arg(long, value_name = "V")]
        version: Option<String>,
    },
    /// Install a server from the catalog, locked to its exact bytes: it is
    /// downloaded and locked first (nothing of it runs), then you see the
    /// exact command, its hashes and its room, and say yes; then its first
    /// tools, for your review
    Install(InstallArgs),
    /// The servers installed from a registry: version, hash, where
    Installed,
    /// What the registries (as last read: `catalog refresh`) say of the
    /// installed servers: newer versions, deprecations, deletions. Nothing
    /// is installed
    Updates {
        /// Read the installed servers' registries first (the daemon does
        /// it at most daily)
        #[arg(long)]
        refresh: bool,
    },
    /// Install the locked bytes of a server again (after a file of it
    /// changed): the package managers check every hash
    Repair { server: String },
    /// Review an installed server's update as one change: the new version
    /// is installed beside it and locked, started once confined to list its
    /// tools, and shown (version, hashes, command, room, each tool that
    /// changed, was added or went, with findings); yes moves the server and
    /// its pins, no removes the new version
    Update {
        server: String,
        /// Approve without asking when no tool has a serious finding
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Subcommand)]
pub(crate) enum ToolsCmd {
    /// Show the changes of tools and prompts waiting for your review
    Review { server: Option<String> },
    /// Approve the change of a server's tool (or prompt) that you reviewed:
    /// apps see it again. `--change` is the number the review printed
    /// (#N): if the server changed the item again since, nothing is approved
    Approve {
        server: String,
        name: String,
        /// The change you reviewed (`airlock tools review` prints #N)
        #[arg(long, value_name = "N")]
        change: i64,
        /// It is a prompt, not a tool
        #[arg(long)]
        prompt: bool,
    },
    /// Reject it: it stays withdrawn from apps, and this version is not asked about again
    Reject {
        server: String,
        name: String,
        /// The change you reviewed (default: the one waiting now)
        #[arg(long, value_name = "N")]
        change: Option<i64>,
        #[arg(long)]
        prompt: bool,
    },
    /// Turn a server's tool off: no app sees it, no call reaches it
    Off { server: String, name: String },
    /// Turn a server's tool on again
    On { server: String, name: String },
    /// The tools of a server that are turned off
    Switched { server: String },
}
