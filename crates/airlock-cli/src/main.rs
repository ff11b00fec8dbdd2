//! `airlock`: Airlock's core from a terminal. Exit codes: 0 success, 1 the
//! server or tool failed, 2 bad usage.

/// `println!` that ignores a closed stdout (`airlock tools x | head`) instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod conformance;
mod consent;
mod output;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use airlock_core::auth::store::RegisteredClient;
use airlock_core::auth::LoopbackBrowser;
use airlock_core::elicitation::{
    BrokerSettings, Consent, ConsentDecision, FixedConsent, Opener, PrintOpener, SystemBrowser,
};
use airlock_core::servers::{parse_config, InputValue, ServerInput, Transport};
use airlock_core::store::{HistoryQuery, ToolCallOutcome};
use airlock_core::url_safety::{inspect, Policy};
use airlock_core::{Airlock, AirlockOptions, CoreError};
use clap::{Args, Parser, Subcommand, ValueEnum};

use output::{plain, print_json};

#[derive(Parser)]
// `--version` prints the version and the MCP revisions (airlock_core::about,
// the same line as the window's About).
#[command(name = "airlock", version = airlock_core::about::version_line(), about = "Airlock: the MCP host you can trust with sign-ins, secrets and payments", long_about = None)]
struct Cli {
    /// Where Airlock keeps its database (default: the platform data dir; env AIRLOCK_DATA_DIR)
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Print machine-readable JSON (JSON lines for elicitation events)
    #[arg(long, global = true)]
    json: bool,
    /// How to answer URL elicitations: ask in the terminal, or a fixed answer for scripts
    #[arg(long, global = true, value_enum, default_value_t = ConsentMode::Ask)]
    consent: ConsentMode,
    /// How to open an accepted URL: the system browser, print it, or not at all
    #[arg(long, global = true, value_enum, default_value_t = OpenMode::System)]
    open: OpenMode,
    /// Seconds the MCP handshake may take
    #[arg(long, global = true, default_value_t = 30)]
    connect_timeout: u64,
    /// Seconds after which an accepted elicitation without completion is late
    #[arg(long, global = true, default_value_t = 120)]
    late_after: u64,
    /// Seconds after which Airlock stops waiting for a completion
    #[arg(long, global = true, default_value_t = 600)]
    give_up_after: u64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum ConsentMode {
    Ask,
    Accept,
    Decline,
    Cancel,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum OpenMode {
    System,
    Print,
    None,
}

#[derive(Subcommand)]
enum Command {
    /// Add, list, show, remove, import and export server definitions
    #[command(subcommand)]
    Servers(ServersCmd),
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
    /// List a server's tools
    Tools { server: String },
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
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
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
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum OutcomeArg {
    Ok,
    ToolError,
    Failed,
}

#[derive(Subcommand)]
enum ServersCmd {
    /// Add a server: `--command CMD [-- ARGS...]` (stdio) or `--url URL` (Streamable HTTP)
    Add(AddArgs),
    /// Replace a server's definition (same flags as add)
    Edit(AddArgs),
    /// List configured servers
    List,
    /// Show one server (secret values are never shown)
    Show { name: String },
    /// Remove a server and its secrets from the keychain
    Remove { name: String },
    /// Import Claude Desktop / Cursor (`mcpServers`) or VS Code (`servers`, `inputs`) JSON
    Import {
        file: PathBuf,
        /// Answer a VS Code input without a prompt: ID=VALUE (repeatable)
        #[arg(long = "input", value_name = "ID=VALUE")]
        inputs: Vec<String>,
    },
    /// Export to `mcpServers` JSON (secrets are left out)
    Export,
}

#[derive(Args)]
struct AddArgs {
    name: String,
    /// Command of a stdio server
    #[arg(long, conflicts_with = "url", required_unless_present = "url")]
    command: Option<String>,
    /// Arguments of the stdio command (after `--`)
    #[arg(last = true)]
    args: Vec<String>,
    /// Environment variable NAME=VALUE (secret-looking names go to the keychain)
    #[arg(long = "env", value_name = "NAME=VALUE")]
    env: Vec<String>,
    /// Environment variable stored in the OS keychain: NAME=VALUE
    #[arg(long = "secret-env", value_name = "NAME=VALUE")]
    secret_env: Vec<String>,
    /// Working directory of the stdio command
    #[arg(long)]
    cwd: Option<String>,
    /// URL of a Streamable HTTP server
    #[arg(long)]
    url: Option<String>,
    /// HTTP header NAME=VALUE (Authorization and other secret-looking names go to the keychain)
    #[arg(long = "header", value_name = "NAME=VALUE")]
    header: Vec<String>,
    /// HTTP header stored in the OS keychain: NAME=VALUE
    #[arg(long = "secret-header", value_name = "NAME=VALUE")]
    secret_header: Vec<String>,
}

/// A failure with the exit code it maps to.
struct Failure {
    code: u8,
    message: String,
    error_code: &'static str,
}

impl From<CoreError> for Failure {
    fn from(e: CoreError) -> Self {
        Failure {
            code: if e.is_usage() { 2 } else { 1 },
            message: e.to_string(),
            error_code: e.code(),
        }
    }
}

fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
        error_code: "bad_usage",
    }
}

fn split_pair(s: &str, what: &str) -> Result<(String, String), Failure> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| usage(format!("{what} must look like NAME=VALUE (got {s:?})")))
}

fn to_input(a: &AddArgs) -> Result<ServerInput, Failure> {
    let values = |plain_pairs: &[String], secret_pairs: &[String], what: &str| {
        let mut m = BTreeMap::new();
        for p in plain_pairs {
            let (k, v) = split_pair(p, what)?;
            let secret = airlock_core::servers::looks_secret(&k);
            m.insert(k, InputValue { value: v, secret });
        }
        for p in secret_pairs {
            let (k, v) = split_pair(p, what)?;
            m.insert(k, InputValue::secret(v));
        }
        Ok::<_, Failure>(m)
    };
    let transport = match (&a.command, &a.url) {
        (Some(command), None) => Transport::Stdio {
            command: command.clone(),
            args: a.args.clone(),
            env: values(&a.env, &a.secret_env, "--env")?,
            cwd: a.cwd.clone(),
        },
        (None, Some(url)) => {
            if !a.args.is_empty()
                || !a.env.is_empty()
                || !a.secret_env.is_empty()
                || a.cwd.is_some()
            {
                return Err(usage(
                    "args, --env and --cwd are for stdio servers (--command), not --url",
                ));
            }
            Transport::Http {
                url: url.clone(),
                headers: values(&a.header, &a.secret_header, "--header")?,
            }
        }
        _ => {
            return Err(usage(
                "give either --command (stdio) or --url (Streamable HTTP)",
            ))
        }
    };
    if matches!(transport, Transport::Stdio { .. })
        && (!a.header.is_empty() || !a.secret_header.is_empty())
    {
        return Err(usage("--header is for HTTP servers (--url)"));
    }
    Ok(ServerInput {
        name: a.name.clone(),
        transport,
    })
}

fn parse_object(
    text: Option<&str>,
    what: &str,
) -> Result<Option<serde_json::Map<String, serde_json::Value>>, Failure> {
    match text {
        None => Ok(None),
        Some(t) => match serde_json::from_str::<serde_json::Value>(t) {
            Ok(serde_json::Value::Object(m)) => Ok(Some(m)),
            Ok(_) => Err(usage(format!(
                "{what} must be a JSON object, like '{{\"message\":\"hi\"}}'"
            ))),
            Err(e) => Err(usage(format!("{what} is not valid JSON: {e}"))),
        },
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    // One thread: the protocol's hot path is fastest without cross-thread wake-ups.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("airlock: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let json = cli.json;
    match runtime.block_on(run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            if json {
                print_json(
                    &serde_json::json!({"error": {"code": f.error_code, "message": f.message}}),
                );
            } else {
                eprintln!("airlock: {}", plain(&f.message));
            }
            ExitCode::from(f.code)
        }
    }
}

fn open_core(cli: &Cli) -> Result<Arc<Airlock>, Failure> {
    let data_dir = airlock_core::paths::resolve_data_dir(cli.data_dir.clone());
    let consent: Arc<dyn Consent> = match cli.consent {
        ConsentMode::Ask => Arc::new(consent::TerminalConsent),
        ConsentMode::Accept => Arc::new(FixedConsent(ConsentDecision::Accept)),
        ConsentMode::Decline => Arc::new(FixedConsent(ConsentDecision::Decline)),
        ConsentMode::Cancel => Arc::new(FixedConsent(ConsentDecision::Cancel)),
    };
    // In JSON mode, form requests and answers are JSON lines too.
    let consent: Arc<dyn Consent> = if cli.json {
        Arc::new(consent::JsonFormEcho(consent))
    } else {
        consent
    };
    let opener = opener_for(cli);
    let mut opts = AirlockOptions::new(data_dir, consent, opener.clone());
    // A server that answers 401 is signed in to on the spot: the sign-in
    // page is shown like a URL elicitation and opens only after consent.
    opts.oauth_browser = Some(Arc::new(LoopbackBrowser::new(opener)));
    opts.connect_timeout = Duration::from_secs(cli.connect_timeout.max(1));
    opts.broker = BrokerSettings {
        late_after: Duration::from_secs(cli.late_after),
        give_up_after: Duration::from_secs(cli.give_up_after.max(cli.late_after)),
        ..BrokerSettings::default()
    };
    Ok(Airlock::open(opts)?)
}

fn opener_for(cli: &Cli) -> Arc<dyn Opener> {
    match cli.open {
        OpenMode::System => Arc::new(SystemBrowser),
        // In JSON mode stdout carries JSON only; the URL is in the event lines.
        OpenMode::Print => Arc::new(PrintOpener { print: !cli.json }),
        OpenMode::None => Arc::new(PrintOpener { print: false }),
    }
}

/// In `--json` mode, print each elicitation transition as a JSON line.
fn stream_elicitation_events(core: &Arc<Airlock>) {
    let mut rx = core.subscribe();
    let store = core.store().clone();
    tokio::spawn(async move {
        while let Ok(ev) = rx.recv().await {
            if let airlock_core::events::CoreEvent::Elicitation {
                record_id, state, ..
            } = &ev
            {
                // The line describes this transition: the stored row may have moved on.
                let record = store.elicitation(*record_id).ok().flatten().map(|mut r| {
                    r.state = state.clone();
                    r
                });
                print_json(
                    &serde_json::json!({"event": "elicitation", "state": state, "elicitation": record}),
                );
            }
        }
    });
}

async fn run(cli: Cli) -> Result<u8, Failure> {
    if let Command::UrlCheck {
        url,
        no_http_loopback,
    } = &cli.command
    {
        let report = inspect(
            url,
            &Policy {
                allow_http_loopback: !no_http_loopback,
            },
        );
        if cli.json {
            print_json(&report);
        } else {
            output::print_inspection(&report);
        }
        return Ok(if report.block_reason.is_some() { 1 } else { 0 });
    }
    if let Command::ConformanceClient { url } = &cli.command {
        return conformance::run(url).await.map_err(|message| Failure {
            code: 1,
            message,
            error_code: "conformance",
        });
    }
    let core = open_core(&cli)?;
    if cli.json {
        stream_elicitation_events(&core);
    }
    let json = cli.json;
    let opener = opener_for(&cli);
    match cli.command {
        Command::UrlCheck { .. } | Command::ConformanceClient { .. } => Ok(0),
        Command::Servers(cmd) => servers(&core, cmd, json),
        Command::Connect { server } => {
            let report = core.connect(&server).await?;
            if json {
                print_json(&report);
            } else {
                output::print_connection(&report);
            }
            core.disconnect(&server);
            Ok(0)
        }
        Command::Login {
            server,
            client_id,
            client_secret_stdin,
            redirect_port,
        } => {
            if let Some(id) = client_id {
                let secret = if client_secret_stdin {
                    let mut line = String::new();
                    std::io::stdin().read_line(&mut line).map_err(|e| {
                        usage(format!("cannot read the client secret from stdin: {e}"))
                    })?;
                    Some(line)
                } else {
                    None
                };
                let client = RegisteredClient::new(&id, secret.as_deref(), redirect_port)
                    .map_err(|e| usage(format!("--client-id: {e}")))?;
                core.set_oauth_client(&server, Some(&client))?;
            }
            let browser = LoopbackBrowser::new(opener);
            if !json {
                eprintln!(
                    "airlock: opening the browser to sign in to {}; waiting up to {} s",
                    plain(&server),
                    browser.wait.as_secs()
                );
            }
            core.login(&server, &browser).await?;
            if json {
                print_json(&serde_json::json!({"server": server, "logged_in": true}));
            } else {
                say!(
                    "signed in to {}; tokens are in the OS keychain",
                    plain(&server)
                );
            }
            Ok(0)
        }
        Command::Logout {
            server,
            forget_client,
        } => {
            let had = core.logout(&server)?;
            if forget_client {
                core.set_oauth_client(&server, None)?;
            }
            if json {
                print_json(&serde_json::json!({"server": server, "had_tokens": had}));
            } else if had {
                say!(
                    "signed out of {}; its tokens were removed from the OS keychain",
                    plain(&server)
                );
            } else {
                say!("{} had no stored tokens", plain(&server));
            }
            Ok(0)
        }
        Command::Tools { server } => {
            let tools = core.list_tools(&server).await?;
            if json {
                print_json(&tools);
            } else {
                for t in &tools {
                    let desc = t.description.as_deref().unwrap_or("");
                    say!("{}  {}", plain(&t.name), plain(&output::first_line(desc)));
                }
            }
            core.disconnect(&server);
            Ok(0)
        }
        Command::Prompts { server } => {
            let prompts = core.list_prompts(&server).await?;
            if json {
                print_json(&prompts);
            } else {
                for p in &prompts {
                    say!(
                        "{}  {}",
                        plain(&p.name),
                        plain(&output::first_line(p.description.as_deref().unwrap_or("")))
                    );
                }
            }
            core.disconnect(&server);
            Ok(0)
        }
        Command::Resources { server } => {
            let resources = core.list_resources(&server).await?;
            if json {
                print_json(&resources);
            } else {
                for r in &resources {
                    say!("{}  {}", plain(&r.uri), plain(&r.name));
                }
            }
            core.disconnect(&server);
            Ok(0)
        }
        Command::Read { server, uri } => {
            let r = core.read_resource(&server, &uri).await?;
            print_json(&r);
            core.disconnect(&server);
            Ok(0)
        }
        Command::Prompt { server, name, args } => {
            let args = parse_object(args.as_deref(), "--args")?;
            let r = core.get_prompt(&server, &name, args).await?;
            print_json(&r);
            core.disconnect(&server);
            Ok(0)
        }
        Command::Call { server, tool, args } => {
            let args = parse_object(args.as_deref(), "--args")?;
            let outcome = core.call_tool(&server, &tool, args).await;
            core.disconnect(&server);
            // Let the --json event printer catch up with the last transitions.
            for _ in 0..16 {
                tokio::task::yield_now().await;
            }
            let outcome = outcome?;
            if json {
                print_json(&outcome);
            } else {
                output::print_tool_result(&outcome.result);
            }
            Ok(if outcome.is_error { 1 } else { 0 })
        }
        Command::History {
            server,
            limit,
            search,
            outcome,
        } => {
            let page = core
                .store()
                .history(&HistoryQuery {
                    server,
                    search,
                    outcome: outcome.map(|o| match o {
                        OutcomeArg::Ok => ToolCallOutcome::Ok,
                        OutcomeArg::ToolError => ToolCallOutcome::ToolError,
                        OutcomeArg::Failed => ToolCallOutcome::Failed,
                    }),
                    limit,
                    ..HistoryQuery::default()
                })
                .map_err(CoreError::from)?;
            if json {
                print_json(&page);
            } else {
                output::print_history(&page.calls);
            }
            Ok(0)
        }
        Command::Logs { server, limit } => {
            core.get_server(&server)?;
            let lines = core.store().logs(&server, limit).map_err(CoreError::from)?;
            if json {
                print_json(&lines);
            } else {
                for l in &lines {
                    say!(
                        "{} {:<12} {:<7} {}",
                        output::time(l.at),
                        l.source,
                        l.level,
                        plain(&l.text)
                    );
                }
            }
            Ok(0)
        }
        Command::Elicitations { server, limit } => {
            let rows = core
                .store()
                .elicitations(server.as_deref(), limit)
                .map_err(CoreError::from)?;
            if json {
                print_json(&rows);
            } else {
                for r in &rows {
                    say!(
                        "{} {:<10} {:<14} {}  {}",
                        output::time(r.created_at),
                        plain(&r.server),
                        r.state,
                        plain(
                            r.registrable_domain
                                .as_deref()
                                .unwrap_or(if r.mode == "form" { "(form)" } else { "-" })
                        ),
                        plain(r.url.as_deref().unwrap_or(""))
                    );
                }
            }
            Ok(0)
        }
        Command::Audit { server, limit } => {
            let rows = core
                .store()
                .audit_events(server.as_deref(), limit)
                .map_err(CoreError::from)?;
            if json {
                print_json(&rows);
            } else {
                for e in &rows {
                    say!(
                        "{} {:<10} {:<28} {}",
                        output::time(e.at),
                        plain(e.server.as_deref().unwrap_or("-")),
                        e.kind,
                        plain(&e.detail.to_string())
                    );
                }
            }
            Ok(0)
        }
    }
}

fn servers(core: &Arc<Airlock>, cmd: ServersCmd, json: bool) -> Result<u8, Failure> {
    match cmd {
        ServersCmd::Add(a) => {
            let input = to_input(&a)?;
            let def = core.add_server(&input)?;
            if json {
                print_json(&def);
            } else {
                say!("added {} ({})", plain(&def.name), def.transport.kind());
                output::print_secret_note(&def);
            }
            Ok(0)
        }
        ServersCmd::Edit(a) => {
            let input = to_input(&a)?;
            let def = core.update_server(&input)?;
            if json {
                print_json(&def);
            } else {
                say!("updated {} ({})", plain(&def.name), def.transport.kind());
                output::print_secret_note(&def);
            }
            Ok(0)
        }
        ServersCmd::List => {
            let defs = core.list_servers()?;
            if json {
                print_json(&defs);
            } else if defs.is_empty() {
                say!("no servers yet: `airlock servers add` or `airlock servers import <file>`");
            } else {
                for d in &defs {
                    say!(
                        "{:<24} {:<6} {}",
                        plain(&d.name),
                        d.transport.kind(),
                        plain(&output::target(d))
                    );
                }
            }
            Ok(0)
        }
        ServersCmd::Show { name } => {
            let def = core.get_server(&name)?;
            // For HTTP servers: whether OAuth tokens are stored, and the
            // client registered by hand (never its secret).
            let oauth = matches!(def.transport, Transport::Http { .. }).then(|| {
                let o = core.oauth_summary(&name);
                serde_json::json!({
                    "signed_in": o.signed_in,
                    "client_id": o.client_id,
                    "client_secret_in_keychain": o.client_has_secret,
                    "redirect_port": o.redirect_port,
                })
            });
            if json {
                let mut v = serde_json::to_value(&def).unwrap_or_default();
                if let (serde_json::Value::Object(m), Some(o)) = (&mut v, &oauth) {
                    m.insert("oauth".into(), o.clone());
                }
                print_json(&v);
            } else {
                output::print_server(&def);
                if let Some(o) = oauth {
                    let signed_in = o["signed_in"].as_bool().unwrap_or(false);
                    say!(
                        "oauth:     {}",
                        if signed_in {
                            "signed in (tokens in the OS keychain)"
                        } else {
                            "not signed in"
                        }
                    );
                    if let Some(id) = o["client_id"].as_str() {
                        say!("  client:  {} (registered by hand)", plain(id));
                    }
                }
            }
            Ok(0)
        }
        ServersCmd::Remove { name } => {
            core.remove_server(&name)?;
            if !json {
                say!("removed {}", plain(&name));
            } else {
                print_json(&serde_json::json!({"removed": name}));
            }
            Ok(0)
        }
        ServersCmd::Import { file, inputs } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| usage(format!("cannot read {}: {e}", file.display())))?;
            let plan =
                parse_config(&text).map_err(|e| usage(format!("{}: {e}", file.display())))?;
            let mut answers = BTreeMap::new();
            for pair in &inputs {
                let (k, v) = split_pair(pair, "--input")?;
                answers.insert(k, v);
            }
            for p in &plan.prompts {
                if !answers.contains_key(&p.id) {
                    let v = consent::prompt_input(&p.description, p.password).map_err(|e| {
                        usage(format!(
                            "input {:?} ({}) needs a value: {e}; pass --input {}=VALUE",
                            p.id, p.description, p.id
                        ))
                    })?;
                    answers.insert(p.id.clone(), v);
                }
            }
            let inputs = plan.resolve(&answers).map_err(|e| usage(e.to_string()))?;
            let names = core.import_servers(&inputs)?;
            if json {
                print_json(&serde_json::json!({"imported": names, "notes": plan.notes}));
            } else {
                for n in &plan.notes {
                    eprintln!("note: {}", plain(n));
                }
                for n in &names {
                    say!("imported {}", plain(n));
                }
                for i in &inputs {
                    for (k, v) in i.transport.values() {
                        if v.secret {
                            say!(
                                "  {}: {} stored in the OS keychain",
                                plain(&i.name),
                                plain(k)
                            );
                        }
                    }
                }
            }
            Ok(0)
        }
        ServersCmd::Export => {
            let out = core.export_servers()?;
            print_json(&out.json);
            if !out.omitted_secrets.is_empty() {
                eprintln!(
                    "note: secrets are not exported; add them again where you import this file:"
                );
                for s in &out.omitted_secrets {
                    eprintln!("  {}", plain(s));
                }
            }
            Ok(0)
        }
    }
}
