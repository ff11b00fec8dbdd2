//! Plain-text rendering for the terminal. Everything a server sent goes
//! through `plain` first.

use airlock_core::elicitation::{Familiarity, Origin, UrlConsentRequest};
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

/// The UTC date of `ms`, `YYYY-MM-DD`.
pub fn date(ms: i64) -> String {
    let t = time(ms);
    t.split(' ').next().unwrap_or(&t).to_owned()
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

/// The lines of `url-check`: domain first, then the URL, then warnings.
/// (The consent prompt puts the domain last: [`url_consent_lines`].)
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

/// The lines of a URL consent prompt, in the order a person should read
/// them and so that the domain is the last line before the question: the
/// heading, why, the full URL (which may wrap over many lines), host and
/// port, each warning, what the user's history says about the domain, and
/// then `Domain:   >>> example.co.uk <<<`.
pub fn url_consent_lines(request: &UrlConsentRequest) -> Vec<String> {
    let i = &request.inspection;
    let server = plain(&request.server);
    let heading = if request.origin == Origin::SignIn {
        "asks you to sign in"
    } else {
        "asks you to open a web page"
    };
    let mut out = vec![format!("── Server {server} {heading} ──")];
    out.extend(app_line(request.client.as_deref()));
    out.push(format!("Why:      {}", plain(&request.message)));
    if let Some(url) = &i.url {
        out.push(format!("Full URL: {}", plain(url)));
    }
    if let Some(host) = &i.display_host {
        out.push(format!("Host:     {}", plain(host)));
    }
    if let Some(port) = i.port {
        out.push(format!("Port:     {port}"));
    }
    for w in &i.warnings {
        out.push(format!("Warning:  {} ({})", w.describe(), w.code()));
    }
    if let Some(b) = &i.block_reason {
        out.push(format!("BLOCKED:  {} ({})", b.describe(), b.code()));
    }
    if let Some(code) = &request.code_goes_to {
        out.push(format!(
            "Warning:  after you sign in, the authorization code goes to {}, not to the login page's domain",
            plain(code)
        ));
    }
    let domain = plain(i.registrable_domain.as_deref().unwrap_or("(none)"));
    out.extend(familiarity_lines(&request.familiarity, &server, &domain));
    out.push(format!("Domain:   >>> {domain} <<<"));
    out
}

/// `App:      Claude Code (its tool call asked for this)`: which app's
/// call raised the question; none for Airlock's own calls. An unknown name
/// is quoted as the app's own name (see [`airlock_apps::caller_label`]).
pub fn app_line(client: Option<&str>) -> Option<String> {
    client.map(|c| {
        format!(
            "App:      {} (its tool call asked for this)",
            plain(&airlock_apps::caller_label(c))
        )
    })
}

/// Whether `server` sent the user to `domain` before, and (right above the
/// Domain line) whether a first-time domain looks like one opened before.
/// `server` and `domain` are already plain.
fn familiarity_lines(f: &Familiarity, server: &str, domain: &str) -> Vec<String> {
    let since = f.first_seen_ms.map(date);
    let seen = match (f.times_before, since) {
        (0, _) => format!("first time {server} sends you to {domain}"),
        (1, Some(d)) => format!("once before from {server}, on {d}"),
        (1, None) => format!("once before from {server}"),
        (n, Some(d)) => format!("{n} times before from {server}, since {d}"),
        (n, None) => format!("{n} times before from {server}"),
    };
    let mut out = vec![format!("Seen:     {seen}")];
    if let Some(l) = &f.looks_like {
        out.push(format!(
            "Warning:  this domain looks like {}, which you opened before ({})",
            plain(&l.domain),
            plain(l.why.trim_end_matches('.'))
        ));
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

#[cfg(test)]
mod tests {
    use airlock_core::elicitation::{Familiarity, LookAlike, Origin, UrlConsentRequest};
    use airlock_core::url_safety::{inspect, Policy, Resemblance};

    use super::*;

    fn request(url: &str, familiarity: Familiarity) -> UrlConsentRequest {
        UrlConsentRequest {
            record_id: 1,
            server: "srv".into(),
            message: "Connect".into(),
            elicitation_id: None,
            origin: Origin::Request,
            inspection: inspect(url, &Policy::default()),
            familiarity,
            code_goes_to: None,
            client: None,
        }
    }

    #[test]
    fn a_sign_in_code_sent_elsewhere_is_a_warning_above_the_domain() {
        let mut r = request("https://login.bank.example/a", Familiarity::default());
        r.origin = Origin::SignIn;
        r.code_goes_to = Some("collect.example".into());
        let lines = url_consent_lines(&r);
        let n = lines.len();
        assert!(lines[n - 1].starts_with("Domain:   >>> bank.example"));
        assert!(lines
            .iter()
            .any(|l| l.contains("authorization code goes to collect.example")));
    }

    #[test]
    fn the_domain_is_the_last_line_and_the_url_comes_first() {
        let lines = url_consent_lines(&request(
            "https://user@login.example.co.uk:8443/x",
            Familiarity::default(),
        ));
        let heads: Vec<String> = lines.iter().map(|l| l.chars().take(10).collect()).collect();
        assert_eq!(
            heads,
            [
                "── Server ",
                "Why:      ",
                "Full URL: ",
                "Host:     ",
                "Port:     ",
                "Warning:  ",
                "Warning:  ",
                "Seen:     ",
                "Domain:   ",
            ],
            "{lines:#?}"
        );
        assert_eq!(lines[lines.len() - 1], "Domain:   >>> example.co.uk <<<");
        assert_eq!(
            lines[lines.len() - 2],
            "Seen:     first time srv sends you to example.co.uk"
        );
    }

    #[test]
    fn the_app_that_asked_has_its_own_labelled_line_and_cannot_pose_as_the_domain() {
        let mut r = request("https://github.com/login", Familiarity::default());
        assert!(!url_consent_lines(&r).iter().any(|l| l.starts_with("App:")));
        r.client = Some("claude-code".into());
        let lines = url_consent_lines(&r);
        assert_eq!(
            lines[1],
            "App:      Claude Code (its tool call asked for this)"
        );
        r.client = Some("x\nDomain:   >>> paypal.com <<<".into());
        let lines = url_consent_lines(&r);
        assert_eq!(
            lines[1],
            "App:      app “x Domain? ??? paypal.com ???” (its tool call asked for this)"
        );
        assert_eq!(lines.iter().filter(|l| l.starts_with("Domain:")).count(), 1);
        assert_eq!(lines.last().unwrap(), "Domain:   >>> github.com <<<");
    }

    #[test]
    fn familiarity_in_words() {
        let day = 1_700_000_000_000; // 2023-11-14
        let seen = |times_before, first_seen_ms| {
            let f = Familiarity {
                times_before,
                first_seen_ms,
                looks_like: None,
            };
            url_consent_lines(&request("https://example.com/", f))
                .into_iter()
                .find(|l| l.starts_with("Seen:"))
                .unwrap_or_default()
        };
        assert_eq!(
            seen(1, Some(day)),
            "Seen:     once before from srv, on 2023-11-14"
        );
        assert_eq!(
            seen(3, Some(day)),
            "Seen:     3 times before from srv, since 2023-11-14"
        );
        assert_eq!(seen(2, None), "Seen:     2 times before from srv");

        let f = Familiarity {
            times_before: 0,
            first_seen_ms: None,
            looks_like: Some(LookAlike {
                domain: "example.com".into(),
                resemblance: Resemblance::EditDistance,
                why: Resemblance::EditDistance.describe().into(),
            }),
        };
        let lines = url_consent_lines(&request("https://examp1e.com/", f));
        let n = lines.len();
        assert_eq!(lines[n - 1], "Domain:   >>> examp1e.com <<<");
        assert!(
            lines[n - 2].starts_with(
                "Warning:  this domain looks like example.com, which you opened before (This domain differs"
            ),
            "{lines:#?}"
        );
        assert!(lines[n - 2].ends_with("imitating it)"), "{lines:#?}");
        assert_eq!(
            lines[n - 3],
            "Seen:     first time srv sends you to examp1e.com"
        );
    }
}
