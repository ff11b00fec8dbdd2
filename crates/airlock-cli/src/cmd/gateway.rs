//! `airlock gateway --stdio` (the shim an app starts) and `airlock daemon`
//! (the headless host that owns the connections). The work is in the
//! airlock-gateway crate; this maps flags onto it.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use airlock_core::Airlock;
use airlock_gateway::routing::router::Router;
use airlock_gateway::{HostOptions, ShimOptions};

use crate::cli::{Cli, DaemonArgs, GatewayArgs};
use crate::failure::{usage, Failure};

/// `airlock gateway --stdio`: attach to the host, starting one with the
/// person's default consent and opener when none runs. `--consent` and
/// `--open` are refused: the host serves every app, and an app's config
/// (a project's checked-in `.mcp.json`) must not decide how every app's
/// URLs are answered and opened.
pub(crate) fn shim(cli: &Cli, args: &GatewayArgs) -> Result<u8, Failure> {
    if !cli.person_settings_given.is_empty() {
        let flags: Vec<String> = cli
            .person_settings_given
            .iter()
            .map(|f| format!("--{f}"))
            .collect();
        return Err(usage(format!(
            "gateway --stdio does not take {}: the Airlock host is shared by every app, \
             and how URLs are answered and opened is your setting, not an app's. \
             Remove {} from this app's MCP config; set it on `airlock daemon` \
             (a host the gateway starts asks in desktop notifications) or use the window",
            flags.join(" or "),
            if flags.len() == 1 { "it" } else { "them" },
        )));
    }
    let data_dir = airlock_core::paths::resolve_data_dir(cli.data_dir.clone());
    let start_host = if args.no_start {
        None
    } else {
        let exe = std::env::current_exe().map_err(|e| {
            usage(format!(
                "cannot find the airlock program to start the host: {e}"
            ))
        })?;
        Some((exe, daemon_args(cli, &data_dir)))
    };
    let options = ShimOptions {
        data_dir,
        app: args.app.clone(),
        start_host,
    };
    match airlock_gateway::run_shim(options) {
        Ok(()) => Ok(0),
        Err(airlock_gateway::ShimError::Usage(m)) => Err(usage(m)),
        Err(e) => Err(Failure {
            code: 1,
            message: e.to_string(),
            error_code: "gateway",
        }),
    }
}

/// The command line of a host started by the shim: the same data dir and
/// the shim's deadline flags, the person's default consent and opener (ask,
/// in desktop notifications; the system browser); it stops when no app has
/// been attached for a while.
fn daemon_args(cli: &Cli, data_dir: &std::path::Path) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["--data-dir".into(), data_dir.as_os_str().to_owned()];
    for (flag, value) in [
        ("--connect-timeout", cli.connect_timeout.to_string()),
        ("--late-after", cli.late_after.to_string()),
        ("--give-up-after", cli.give_up_after.to_string()),
    ] {
        a.push(flag.into());
        a.push(value.into());
    }
    a.push("daemon".into());
    a.push("--idle-exit".into());
    a.push(
        airlock_gateway::limits::SHIM_DAEMON_IDLE_EXIT
            .as_secs()
            .to_string()
            .into(),
    );
    a
}

/// `airlock daemon`: own the socket and serve every app until stopped.
pub(crate) async fn daemon(
    core: &Arc<Airlock>,
    args: &DaemonArgs,
    router: Arc<Router>,
) -> Result<u8, Failure> {
    if args.separator.is_empty()
        || args.separator.len() > 8
        || !args
            .separator
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(usage(
            "--separator: 1 to 8 of the characters tool names allow (A-Z a-z 0-9 _ - .)",
        ));
    }
    if args.http_port.is_some() {
        airlock_gateway::wire::http::check_bind(args.http_bind)
            .map_err(|e| usage(format!("--http-bind: {e}")))?;
    }
    let options = HostOptions {
        separator: args.separator.clone(),
        idle_exit: args.idle_exit.map(Duration::from_secs),
        router: Some(router),
        http: args
            .http_port
            .map(|p| std::net::SocketAddr::new(args.http_bind, p)),
        attachments: None,
        // A daemon hands over to the window; one started with --take-over
        // (the window's path, for tests) takes over and keeps the socket.
        take_over: args.take_over,
        hand_over: !args.take_over,
    };
    let data_dir = core.data_dir().to_owned();
    // Changes of servers' tools held for review: a notification each burst.
    super::pin_notices::follow(core);
    airlock_gateway::run_host(core.clone(), &data_dir, options)
        .await
        .map_err(|e| Failure {
            code: 1,
            message: e.to_string(),
            error_code: "gateway",
        })?;
    Ok(0)
}
