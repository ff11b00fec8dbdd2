//! `airlock`: Airlock's core from a terminal. Exit codes: 0 success, 1 the
//! server or tool failed, 2 bad usage.

/// `println!` that ignores a closed stdout (`airlock tools x | head`) instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod cli;
mod cmd;
mod conformance;
mod consent;
mod failure;
mod output;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use airlock_core::auth::LoopbackBrowser;
use airlock_core::elicitation::{
    BrokerSettings, Consent, ConsentDecision, FixedConsent, Opener, PrintOpener, SystemBrowser,
};
use airlock_core::{limits, Airlock, AirlockOptions};
use cli::{Cli, Command, ConsentMode, OpenMode};
use failure::{usage, Failure};
use output::{plain, print_json};

fn main() -> ExitCode {
    // Inside a server's room this binary is the room's helper: before any
    // thread exists (it forks).
    if let Some(code) = airlock_sandbox::helper::run_if_asked() {
        return ExitCode::from(u8::try_from(code).unwrap_or(126));
    }
    let cli = match cli::parse() {
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
    open_core_with(cli, consent_for(cli), None)
}

/// The consent port the flags ask for.
fn consent_for(cli: &Cli) -> Arc<dyn Consent> {
    let consent: Arc<dyn Consent> = match cli.consent {
        // The daemon has no terminal: it asks in desktop notifications
        // when it can, else it refuses, saying where to approve.
        ConsentMode::Ask if matches!(cli.command, Command::Daemon(_)) => {
            airlock_gateway::consent::notify::daemon_consent(Duration::from_secs(cli.give_up_after))
        }
        ConsentMode::Ask => Arc::new(consent::TerminalConsent),
        ConsentMode::Accept => Arc::new(FixedConsent(ConsentDecision::Accept)),
        ConsentMode::Decline => Arc::new(FixedConsent(ConsentDecision::Decline)),
        ConsentMode::Cancel => Arc::new(FixedConsent(ConsentDecision::Cancel)),
    };
    // In JSON mode, form requests and answers are JSON lines too.
    if cli.json {
        Arc::new(consent::JsonFormEcho(consent))
    } else {
        consent
    }
}

/// `app_requests`: where servers' sampling and roots requests go (the
/// daemon's apps); `None` elsewhere.
fn open_core_with(
    cli: &Cli,
    consent: Arc<dyn Consent>,
    app_requests: Option<Arc<dyn airlock_core::forward::AppRequests>>,
) -> Result<Arc<Airlock>, Failure> {
    let data_dir = airlock_core::paths::resolve_data_dir(cli.data_dir.clone());
    let opener = opener_for(cli);
    let mut opts = AirlockOptions::new(data_dir, consent, opener.clone());
    opts.sandbox_helper = std::env::current_exe().ok();
    // A server that answers 401 is signed in to on the spot: the sign-in
    // page is shown like a URL elicitation and opens only after consent.
    opts.oauth_browser = Some(Arc::new(LoopbackBrowser::new(opener)));
    opts.app_requests = app_requests;
    // The same bounds as the desktop's settings (airlock_core::limits).
    let connect_timeout = limits::CONNECT_TIMEOUT_SECS
        .check(cli.connect_timeout)
        .map_err(|e| usage(format!("--connect-timeout: {e}")))?;
    opts.connect_timeout = Duration::from_secs(connect_timeout);
    opts.broker = BrokerSettings {
        late_after: Duration::from_secs(cli.late_after),
        give_up_after: Duration::from_secs(cli.give_up_after),
        ..BrokerSettings::default()
    };
    opts.broker
        .validate()
        .map_err(|e| usage(format!("--late-after / --give-up-after: {e}")))?;
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

/// In `--json` mode, print each elicitation transition as a JSON line: the
/// record as it is after the transition, and why it ended so (if it did).
fn stream_elicitation_events(core: &Arc<Airlock>) {
    let mut rx = core.subscribe();
    tokio::spawn(async move {
        while let Ok(ev) = rx.recv().await {
            if let airlock_core::events::CoreEvent::Elicitation(e) = &ev {
                print_json(&serde_json::json!({
                    "event": "elicitation",
                    "state": e.record.state,
                    "reason": e.reason,
                    "elicitation": e.record,
                }));
            }
        }
    });
}

async fn run(cli: Cli) -> Result<u8, Failure> {
    if let Command::UrlCheck {
        url,
        no_http_loopback,
        message,
    } = &cli.command
    {
        return Ok(cmd::url_check(
            url,
            message.as_deref(),
            *no_http_loopback,
            cli.json,
        ));
    }
    if let Command::ConformanceClient { url } = &cli.command {
        return conformance::run(url).await.map_err(|message| Failure {
            code: 1,
            message,
            error_code: "conformance",
        });
    }
    if let Command::Gateway(args) = &cli.command {
        // The shim owns nothing: no core, no database; the host does.
        return cmd::gateway::shim(&cli, args);
    }
    if let Command::Apps(cli::apps::AppsCmd::Connecting(sub)) = &cli.command {
        // Only a move of servers opens Airlock's database (cmd::app_configs).
        return cmd::app_configs::run(&cli, sub);
    }
    if let Command::Daemon(args) = &cli.command {
        // Forms go to the app that asked when it can show them: the host
        // needs the consent's routes.
        let (consent, router) =
            airlock_gateway::routing::forms::HostConsent::wrap(consent_for(&cli));
        let core = open_core_with(&cli, consent, Some(router.clone()))?;
        let result = cmd::gateway::daemon(&core, args, router).await;
        core.close();
        return result;
    }
    let core = open_core(&cli)?;
    if matches!(cli.consent, ConsentMode::Ask)
        && matches!(
            cli.command,
            Command::Call { .. }
                | Command::Connect { .. }
                | Command::Read { .. }
                | Command::Login { .. }
        )
    {
        // A server may ask for consent at any moment of these commands.
        consent::prepare_terminal();
    }
    if cli.json {
        stream_elicitation_events(&core);
    }
    let json = cli.json;
    let opener = opener_for(&cli);
    let result = dispatch(&core, cli, opener, json).await;
    // A clean end: what this run leaves open is not a crash.
    core.close();
    result
}

async fn dispatch(
    core: &Arc<Airlock>,
    cli: Cli,
    opener: Arc<dyn Opener>,
    json: bool,
) -> Result<u8, Failure> {
    let core = core.clone();
    match cli.command {
        Command::UrlCheck { .. }
        | Command::ConformanceClient { .. }
        | Command::Gateway(_)
        | Command::Apps(cli::apps::AppsCmd::Connecting(_))
        | Command::Daemon(_) => Ok(0),
        Command::Servers(sub) => cmd::servers::run(&core, sub, json),
        Command::Apps(sub) => cmd::apps::run(&core, sub, json),
        Command::Connect { server } => cmd::calls::connect(&core, &server, json).await,
        Command::Login {
            server,
            client_id,
            client_secret_stdin,
            redirect_port,
        } => {
            let args = cmd::auth::Login {
                server,
                client_id,
                client_secret_stdin,
                redirect_port,
            };
            cmd::auth::login(&core, opener, args, json).await
        }
        Command::Logout {
            server,
            forget_client,
        } => cmd::auth::logout(&core, server, forget_client, json),
        Command::Tools {
            action: Some(action),
            ..
        } => cmd::pins::run(&core, action, json),
        Command::Tools { server, .. } => {
            let server = server.unwrap_or_default();
            cmd::calls::tools(&core, &server, json).await
        }
        Command::Catalog(sub) => cmd::catalog::run(&core, sub, json).await,
        Command::Policy(sub) => cmd::policy::run(&core, sub, json),
        Command::Prompts { server } => cmd::calls::prompts(&core, &server, json).await,
        Command::Resources { server } => cmd::calls::resources(&core, &server, json).await,
        Command::Read { server, uri } => cmd::calls::read(&core, &server, &uri).await,
        Command::Prompt { server, name, args } => {
            cmd::calls::prompt(&core, &server, &name, args.as_deref()).await
        }
        Command::Call { server, tool, args } => {
            cmd::calls::call(&core, &server, &tool, args.as_deref(), json).await
        }
        Command::History {
            server,
            app,
            limit,
            search,
            outcome,
        } => {
            let args = cmd::history::History {
                server,
                app,
                limit,
                search,
                outcome,
            };
            cmd::history::history(&core, args, json)
        }
        Command::Logs { server, limit } => cmd::history::logs(&core, &server, limit, json),
        Command::Elicitations { server, limit } => {
            cmd::history::elicitations(&core, server.as_deref(), limit, json)
        }
        Command::Audit {
            server,
            kind,
            app,
            search,
            limit,
            export,
        } => {
            let query = airlock_core::store::AuditQuery {
                server,
                kind,
                app,
                search,
                limit,
                before_id: None,
            };
            match export {
                Some(format) => cmd::history::export_audit(&core, &query, format),
                None => cmd::history::audit(&core, &query, json),
            }
        }
    }
}
