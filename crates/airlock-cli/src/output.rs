//! Plain-text rendering for the terminal. Everything a server sent goes
//! through `plain` first.

use airlock_core::elicitation::view::{sentences as s, ConsentView, ViewLine, Weight};
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
            say!(
                "{}: sign-in required ({}); sign in with `airlock login {}`",
                plain(&r.server),
                plain(reason),
                plain(&r.server)
            )
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
            c.app
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

/// `Why:      <text>`: the label and its colon in a column of ten, so the
/// values line up.
fn labelled(label: &str, text: &str) -> String {
    format!("{:<10}{text}", format!("{label}:"))
}

/// The lines of `url-check`: domain first, then the URL, then warnings, in
/// the words of the consent's sentence table. (The consent prompt puts the
/// domain last: [`consent_lines`].)
pub fn describe_inspection(i: &Inspection) -> Vec<String> {
    let mut out = Vec::new();
    let domain = i.registrable_domain.as_deref().unwrap_or(s::NO_DOMAIN);
    out.push(labelled(
        s::LABEL_DOMAIN,
        &format!(">>> {} <<<", plain(domain)),
    ));
    if let Some(host) = &i.display_host {
        out.push(labelled(s::LABEL_HOST, &plain(host)));
    }
    if let Some(port) = i.port {
        out.push(labelled(s::LABEL_PORT, &port.to_string()));
    }
    if let Some(url) = &i.url {
        out.push(labelled(s::LABEL_URL, &plain(url)));
    }
    for w in &i.warnings {
        out.push(labelled(
            s::LABEL_WARNING,
            &format!("{} ({})", s::url_warning(*w, i), w.code()),
        ));
    }
    if let Some(b) = &i.block_reason {
        out.push(labelled(
            &s::LABEL_BLOCKED.to_uppercase(),
            &format!("{} ({})", s::block(*b), b.code()),
        ));
    }
    out
}

/// The lines of a consent prompt, in the order a person should read them
/// and so that the domain is the last line before the question: the
/// heading, the view's lines (app, why, the full URL, which may wrap over
/// many lines, host, port, what the user's history says), each warning,
/// and then `Domain:   >>> example.co.uk <<<`.
pub fn consent_lines(view: &ConsentView) -> Vec<String> {
    let mut out = vec![format!("── {} ──", view.heading_text())];
    out.extend(view.lines.iter().map(view_line));
    for w in &view.warnings {
        // A danger shouts; a neutral note (a page on this computer) does not
        // wear the word "Warning".
        let label = match w.weight {
            Weight::Danger => s::LABEL_DANGER,
            Weight::Caution => s::LABEL_WARNING,
            Weight::Note => s::LABEL_NOTE,
        };
        out.push(labelled(
            label,
            &format!("{} ({})", w.sentence, w.code.code()),
        ));
    }
    if let Some(b) = &view.blocked {
        out.push(labelled(&s::LABEL_BLOCKED.to_uppercase(), b));
    }
    if let Some(d) = &view.domain {
        out.push(labelled(&d.label, &format!(">>> {} <<<", d.text)));
    }
    out
}

/// One labelled line of a view: `App:      Claude Code (its tool call asked for this)`.
pub fn view_line(line: &ViewLine) -> String {
    let text = match &line.note {
        Some(note) => format!("{} ({note})", line.text),
        None => line.text.clone(),
    };
    labelled(&line.label, &text)
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

/// Ask `question` on the terminal, `[y/N]` (no is the default). Without a
/// terminal nothing is asked: `no_terminal` is the error (it says what to
/// run instead).
pub(crate) fn ask_yes_no(
    question: &str,
    no_terminal: &str,
) -> Result<bool, crate::failure::Failure> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return Err(crate::failure::usage(no_terminal));
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| crate::failure::usage(format!("cannot read the answer: {e}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

#[cfg(test)]
mod tests {
    use airlock_core::elicitation::{
        ConsentView, Familiarity, LookAlike, Origin, UrlConsentRequest,
    };
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
            app: None,
        }
    }

    fn lines(r: &UrlConsentRequest) -> Vec<String> {
        consent_lines(&ConsentView::url(r))
    }

    #[test]
    fn a_sign_in_code_sent_elsewhere_is_a_warning_above_the_domain() {
        let mut r = request("https://login.bank.example/a", Familiarity::default());
        r.origin = Origin::SignIn;
        r.code_goes_to = Some("collect.example".into());
        let lines = lines(&r);
        let n = lines.len();
        assert_eq!(lines[0], "── The server “srv” asks you to sign in ──");
        assert!(lines[n - 1].starts_with("Domain:   >>> bank.example"));
        assert!(
            lines[n - 2].starts_with(
                "DANGER:   After you sign in, the authorization code goes to collect.example"
            ),
            "{lines:#?}"
        );
    }

    #[test]
    fn the_domain_is_the_last_line_and_the_url_comes_first() {
        let lines = lines(&request(
            "https://user@login.example.co.uk:8443/x",
            Familiarity::default(),
        ));
        let heads: Vec<String> = lines.iter().map(|l| l.chars().take(10).collect()).collect();
        assert_eq!(
            heads,
            [
                "── The ser",
                "Why:      ",
                "Full URL: ",
                "Host:     ",
                "Port:     ",
                "Seen:     ",
                "DANGER:   ",
                "Warning:  ",
                "Domain:   ",
            ],
            "{lines:#?}"
        );
        assert_eq!(lines[lines.len() - 1], "Domain:   >>> example.co.uk <<<");
        assert_eq!(
            lines[5],
            "Seen:     first time this server sends you to this domain"
        );
        assert!(lines[6].ends_with("(userinfo)"), "{lines:#?}");
    }

    #[test]
    fn the_app_that_asked_has_its_own_labelled_line_and_cannot_pose_as_the_domain() {
        let mut r = request("https://github.com/login", Familiarity::default());
        assert!(!lines(&r).iter().any(|l| l.starts_with("App:")));
        r.app = Some("claude-code".into());
        let out = lines(&r);
        assert_eq!(
            out[1],
            "App:      Claude Code (its tool call asked for this)"
        );
        r.app = Some("x\nDomain:   >>> paypal.com <<<".into());
        let out = lines(&r);
        assert_eq!(
            out[1],
            "App:      app “x Domain? ??? paypal.com ???” (its tool call asked for this)"
        );
        assert_eq!(out.iter().filter(|l| l.starts_with("Domain:")).count(), 1);
        assert_eq!(out.last().unwrap(), "Domain:   >>> github.com <<<");
    }

    #[test]
    fn familiarity_in_words_and_a_look_alike_right_above_the_domain() {
        let day = 1_700_000_000_000; // 2023-11-14
        let seen = |times_before, first_seen_ms| {
            let f = Familiarity {
                times_before,
                first_seen_ms,
                looks_like: None,
            };
            lines(&request("https://example.com/", f))
                .into_iter()
                .find(|l| l.starts_with("Seen:"))
                .unwrap_or_default()
        };
        assert_eq!(
            seen(1, Some(day)),
            "Seen:     this server sent you here once before, on 2023-11-14"
        );
        assert_eq!(
            seen(3, Some(day)),
            "Seen:     this server sent you here 3 times before, first on 2023-11-14"
        );

        let f = Familiarity {
            times_before: 0,
            first_seen_ms: None,
            looks_like: Some(LookAlike {
                domain: "example.com".into(),
                resemblance: Resemblance::EditDistance,
            }),
        };
        let lines = lines(&request("https://examp1e.com/", f));
        let n = lines.len();
        assert_eq!(lines[n - 1], "Domain:   >>> examp1e.com <<<");
        assert!(
            lines[n - 2].starts_with(
                "DANGER:   This domain looks like example.com, which you opened before. It differs"
            ),
            "{lines:#?}"
        );
        assert!(lines[n - 2].ends_with("(looks_like)"), "{lines:#?}");
        assert_eq!(
            lines[n - 3],
            "Seen:     first time this server sends you to this domain"
        );
    }
}
