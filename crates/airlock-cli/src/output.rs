//! Plain-text rendering for the terminal. Everything a server sent goes
//! through `plain` first.

use airlock_core::mcp::ConnStatus;
use airlock_core::servers::{ProtocolChoice, ServerDef, StoredValue, Transport};
use airlock_core::store::ToolCallRecord;
use airlock_core::url_safety::{neutralize_for_display, Inspection, Verdict};
use airlock_core::ConnectionReport;

/// Longest piece of server text printed in one place.
const MAX_PRINT_CHARS: usize = 20_000;

pub fn plain(s: &str) -> String {
    neutralize_for_display(s, MAX_PRINT_CHARS)
}

/// Like `plain`, but keeps line breaks (tool output is often several lines).
pub fn plain_lines(s: &str) -> String {
    s.lines().map(plain).collect::<Vec<_>>().join("\n")
}

pub fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_owned()
}

pub fn print_json<T: serde::Serialize + ?Sized>(v: &T) {
    match serde_json::to_string(v) {
        Ok(s) => say!("{s}"),
        Err(e) => eprintln!("airlock: cannot encode JSON: {e}"),
    }
}

pub fn time(ms: i64) -> String {
    // UTC, to the second, without a date library: days since epoch -> civil date.
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

pub fn target(d: &ServerDef) -> String {
    match &d.transport {
        Transport::Stdio { command, args, .. } => {
            let mut s = command.clone();
            for a in args {
                s.push(' ');
                s.push_str(a);
            }
            s
        }
        Transport::Http { url, .. } => url.clone(),
    }
}

pub fn print_server(d: &ServerDef) {
    say!("name:      {}", plain(&d.name));
    say!("transport: {}", d.transport.kind());
    match &d.transport {
        Transport::Stdio {
            command, args, cwd, ..
        } => {
            say!("command:   {}", plain(command));
            for a in args {
                say!("arg:       {}", plain(a));
            }
            if let Some(c) = cwd {
                say!("cwd:       {}", plain(c));
            }
        }
        Transport::Http { url, .. } => say!("url:       {}", plain(url)),
    }
    let label = if matches!(d.transport, Transport::Stdio { .. }) {
        "env"
    } else {
        "header"
    };
    for (k, v) in d.transport.values() {
        match v {
            StoredValue::Plain { value } => say!("{label:<10} {}={}", plain(k), plain(value)),
            StoredValue::Secret { .. } => {
                say!("{label:<10} {}=<secret, in the OS keychain>", plain(k))
            }
        }
    }
    match (d.options.protocol, d.protocol_learned.as_deref()) {
        (ProtocolChoice::Auto, Some(learned)) => say!(
            "protocol:  automatic, {} (learned: the server sends requests the 2025-11-25 way)",
            plain(learned)
        ),
        (ProtocolChoice::Auto, None) => say!("protocol:  automatic"),
        (p, _) => say!("protocol:  {}", p.as_str()),
    }
    if d.paused {
        say!(
            "paused:    yes (`airlock servers resume {}`)",
            plain(&d.name)
        );
    }
}

pub fn print_secret_note(d: &ServerDef) {
    for (k, v) in d.transport.values() {
        if v.is_secret() {
            say!("  {} stored in the OS keychain", plain(k));
        }
    }
}

pub fn print_connection(r: &ConnectionReport) {
    match &r.status {
        ConnStatus::Ready { protocol_version } => {
            say!(
                "{}: ready (protocol {})",
                plain(&r.server),
                plain(protocol_version)
            )
        }
        ConnStatus::SignInRequired { reason } => {
            say!("{}: sign-in required ({})", plain(&r.server), plain(reason))
        }
        other => say!("{}: {:?}", plain(&r.server), other),
    }
    if let Some(info) = &r.info {
        if let Some(n) = &info.server_name {
            say!(
                "server:       {} {}",
                plain(n),
                plain(info.server_version.as_deref().unwrap_or(""))
            );
        }
        if let serde_json::Value::Object(caps) = &info.capabilities {
            let names: Vec<&str> = caps.keys().map(String::as_str).collect();
            say!("capabilities: {}", plain(&names.join(", ")));
        }
    }
}

pub fn print_tool_result(result: &serde_json::Value) {
    let mut printed = false;
    if let Some(items) = result.get("content").and_then(|c| c.as_array()) {
        for item in items {
            match item.get("type").and_then(|t| t.as_str()) {
                Some("text") => {
                    say!(
                        "{}",
                        plain_lines(item.get("text").and_then(|t| t.as_str()).unwrap_or(""))
                    );
                    printed = true;
                }
                Some(kind) => {
                    say!("[{} content]", plain(kind));
                    printed = true;
                }
                None => {}
            }
        }
    }
    if !printed {
        say!("{}", plain(&result.to_string()));
    }
}

pub fn print_history(calls: &[ToolCallRecord]) {
    for c in calls {
        say!(
            "#{} {} {}{}/{} {} {} ms  args={}",
            c.id,
            time(c.started_at),
            c.client
                .as_deref()
                .map(|app| format!("[{}] ", plain(app)))
                .unwrap_or_default(),
            plain(&c.server),
            plain(&c.tool),
            match c.outcome {
                airlock_core::store::ToolCallOutcome::Ok => "ok",
                airlock_core::store::ToolCallOutcome::ToolError => "tool_error",
                airlock_core::store::ToolCallOutcome::Failed => "failed",
            },
            c.duration_ms,
            plain(&c.arguments.to_string()),
        );
        if let Some(e) = &c.error {
            say!("    error: {}", plain(e));
        }
    }
}

/// The lines of a consent prompt or `url-check`: domain first, then the URL, then warnings.
pub fn describe_inspection(i: &Inspection) -> Vec<String> {
    let mut out = Vec::new();
    let domain = i.registrable_domain.as_deref().unwrap_or("(none)");
    out.push(format!("Domain:   >>> {} <<<", plain(domain)));
    if let Some(host) = &i.display_host {
        out.push(format!("Host:     {}", plain(host)));
    }
    if let Some(port) = i.port {
        out.push(format!("Port:     {port}"));
    }
    if let Some(url) = &i.url {
        out.push(format!("Full URL: {}", plain(url)));
    }
    for w in &i.warnings {
        out.push(format!("Warning:  {} ({})", w.describe(), w.code()));
    }
    if let Some(b) = &i.block_reason {
        out.push(format!("BLOCKED:  {} ({})", b.describe(), b.code()));
    }
    out
}

pub fn print_inspection(i: &Inspection) {
    let verdict = match i.verdict {
        Verdict::Ok => "ok",
        Verdict::Warn => "warn",
        Verdict::Block => "block",
    };
    say!("Verdict:  {verdict}");
    for line in describe_inspection(i) {
        say!("{line}");
    }
}
