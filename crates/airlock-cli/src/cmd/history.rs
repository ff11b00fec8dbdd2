//! What Airlock recorded: `history`, `logs`, `elicitations` and `audit`.
//! These read the store directly (`history` first asks a running host to
//! write the calls it has queued).

use std::sync::Arc;

use airlock_core::elicitation::Mode;
use airlock_core::store::{HistoryQuery, ToolCallOutcome};
use airlock_core::Airlock;

use crate::cli::OutcomeArg;
use crate::failure::Failure;
use crate::output::{self, plain, print_json};

/// The arguments of `history`.
pub(crate) struct History {
    pub(crate) server: Option<String>,
    pub(crate) app: Option<String>,
    pub(crate) limit: u32,
    pub(crate) search: Option<String>,
    pub(crate) outcome: Option<OutcomeArg>,
}

pub(crate) fn history(core: &Arc<Airlock>, args: History, json: bool) -> Result<u8, Failure> {
    let History {
        server,
        app,
        limit,
        search,
        outcome,
    } = args;
    host_writes_its_history(core);
    let page = core.history(&HistoryQuery {
        server,
        search,
        outcome: outcome.map(|o| match o {
            OutcomeArg::Ok => ToolCallOutcome::Ok,
            OutcomeArg::ToolError => ToolCallOutcome::ToolError,
            OutcomeArg::Failed => ToolCallOutcome::Failed,
        }),
        limit,
        app,
        ..HistoryQuery::default()
    })?;
    if json {
        print_json(&page);
    } else {
        output::print_history(&page.calls);
    }
    Ok(0)
}

/// A host running on this data dir (the daemon or the desktop) writes its
/// calls to history just after they return: ask it to write what is queued
/// before reading, so a call an app just got its answer for is listed.
/// (Audit events, logs and elicitations are written on the spot.)
fn host_writes_its_history(core: &Airlock) {
    use airlock_gateway::wire::flush::{ask_host, Flush, FLUSH_TIMEOUT};
    if let Flush::NotWritten(why) = ask_host(core.data_dir(), FLUSH_TIMEOUT) {
        eprintln!(
            "note: the running Airlock host did not write its newest calls first ({}); they may be missing here",
            plain(&why)
        );
    }
}

pub(crate) fn logs(
    core: &Arc<Airlock>,
    server: &str,
    limit: u32,
    json: bool,
) -> Result<u8, Failure> {
    core.get_server(server)?;
    let lines = core.logs(server, limit)?;
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

pub(crate) fn elicitations(
    core: &Arc<Airlock>,
    server: Option<&str>,
    limit: u32,
    json: bool,
) -> Result<u8, Failure> {
    let rows = core.elicitations(server, limit)?;
    if json {
        print_json(&rows);
    } else {
        for r in &rows {
            say!(
                "{} {}{:<10} {:<14} {}  {}",
                output::time(r.created_at),
                r.app
                    .as_deref()
                    .map(|app| format!("[{}] ", plain(app)))
                    .unwrap_or_default(),
                plain(&r.server),
                r.state,
                plain(
                    r.registrable_domain
                        .as_deref()
                        .unwrap_or(if r.mode == Mode::Form { "(form)" } else { "-" })
                ),
                plain(r.url.as_deref().unwrap_or(""))
            );
        }
    }
    Ok(0)
}

pub(crate) fn audit(
    core: &Arc<Airlock>,
    query: &airlock_core::store::AuditQuery,
    json: bool,
) -> Result<u8, Failure> {
    let rows = core.audit_page(query)?.events;
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

/// `audit --export jsonl|csv`: every matching event to stdout.
pub(crate) fn export_audit(
    core: &Arc<Airlock>,
    query: &airlock_core::store::AuditQuery,
    format: crate::cli::ExportArg,
) -> Result<u8, Failure> {
    use airlock_core::audit_export::ExportFormat;
    let format = match format {
        crate::cli::ExportArg::Jsonl => ExportFormat::Jsonl,
        crate::cli::ExportArg::Csv => ExportFormat::Csv,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    core.export_audit(query, format, &mut out)?;
    Ok(0)
}
