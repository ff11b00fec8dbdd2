//! What the desktop says about a request, on each surface: the native
//! dialog, the desktop notification and the window's inbox entry. Pure: it
//! takes the core's request types and returns plain text, ready for its
//! surface (server text neutralised and bounded; the host and URL cut around
//! the registrable domain so the dialog can emphasise it; notifications
//! carry no server text but the server's defanged name, and no URL).
//! `consent.rs` and `native_dialog.rs` only show what this returns.

use airlock_core::elicitation::{FormConsentRequest, Origin, UrlConsentRequest};
use airlock_core::url_safety::{elide_middle, neutralize_for_display, Inspection};

use crate::inbox::{Answer, PendingKind, PendingView};

/// Button labels. Return activates the first button (Decline) and Escape or
/// closing the dialog gives Cancel: only a deliberate click opens.
pub const DECLINE_LABEL: &str = "Decline";
pub const OPEN_LABEL: &str = "Open in browser";
pub const CANCEL_LABEL: &str = "Cancel";
/// The only button of the dialog that says a URL was blocked.
pub const CLOSE_LABEL: &str = "Close";
/// Longest URL shown in a dialog or notification; the middle is elided
/// (the window's inbox shows all of it).
pub const DIALOG_URL_CHARS: usize = 400;
/// Longest server message shown in a dialog or notification.
pub const DIALOG_MESSAGE_CHARS: usize = 600;
/// Longest line in a dialog: GTK does not wrap a long unbroken URL, which
/// would push the buttons off the screen.
pub const DIALOG_LINE_CHARS: usize = 80;
/// Longest server name in a dialog title.
pub const TITLE_SERVER_CHARS: usize = 64;
/// Longest host or domain in a dialog (the longest DNS name).
pub const HOST_CHARS: usize = 253;

/// Longest part of a URL before its registrable domain (scheme, user
/// information, the rest of the host) shown in a dialog; the middle is
/// elided.
pub const URL_BEFORE_CHARS: usize = 300;
/// Fewest characters of a URL after its registrable domain (port, path,
/// query) shown in a dialog, however long the host is.
pub const URL_AFTER_MIN_CHARS: usize = 120;
/// Longest server name in a notification.
pub const NOTICE_SERVER_CHARS: usize = 64;

/// A host or URL cut around its registrable domain, so a surface can
/// emphasise that part (bold, colour) without interpreting any of it as
/// markup. `before + domain + after` is the text shown. When the domain
/// cannot be located, `domain` is empty and everything is in `before`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emphasis {
    pub before: String,
    pub domain: String,
    pub after: String,
}

impl Emphasis {
    fn plain(text: String) -> Self {
        Emphasis {
            before: text,
            domain: String::new(),
            after: String::new(),
        }
    }

    /// The whole text.
    pub fn text(&self) -> String {
        format!("{}{}{}", self.before, self.domain, self.after)
    }
}

/// What a native dialog about one web page says. The structured fields
/// (`heading` to `closing_line`) are for Airlock's own dialog; `body()`
/// puts the same facts in plain lines for a plain message box (the
/// fallback on platforms without Airlock's dialog).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageDialog {
    /// Unique per request for a consent dialog, so it can be found and
    /// closed when the request is answered elsewhere or ends.
    pub title: String,
    /// Who asks for what, above the domain: `The server “<server>” asks to
    /// open a web page on`. The window title says it too, but without a window manager
    /// (or in a screenshot) the title bar is not seen.
    pub heading: String,
    /// The registrable domain (or `(no domain)`), shown large and bold.
    pub domain: String,
    /// The host as displayed, cut around the registrable domain; `None`
    /// when the host is the registrable domain itself.
    pub host: Option<Emphasis>,
    /// The full URL (elided in the middle parts when very long), cut
    /// around the registrable domain of its host.
    pub url: Option<Emphasis>,
    /// The server's reason, neutralised and bounded (not wrapped: the
    /// dialog wraps it).
    pub reason: String,
    /// One sentence per warning.
    pub warnings: Vec<String>,
    /// Why the page was blocked, when it was.
    pub blocked: Option<String>,
    /// `Domain:  <registrable domain>`: always the first line of `body()`.
    pub domain_line: String,
    /// `Host:  <host>` when the host is not the registrable domain itself.
    pub host_line: Option<String>,
    /// The full URL, elided in the middle and broken into short lines.
    pub url_lines: Option<String>,
    /// `Why:  <the server's message>`.
    pub why_line: String,
    /// `⚠ <warning>`, one per warning.
    pub warning_lines: Vec<String>,
    /// Why it was blocked, or what "Open in browser" does.
    pub closing_line: String,
}

impl PageDialog {
    /// The dialog's text for a plain message box (the dialog plugin's, on
    /// platforms without Airlock's own dialog): domain first, then the full
    /// URL, the reason, every warning and the closing line. `%` is doubled
    /// because the plugin's GTK message box treats the text as a format
    /// string.
    #[cfg_attr(all(target_os = "linux", not(test)), allow(dead_code))]
    pub fn body(&self) -> String {
        let mut lines = vec![self.domain_line.clone()];
        lines.extend(self.host_line.clone());
        if let Some(url) = &self.url_lines {
            lines.push("Full URL:".into());
            lines.push(url.clone());
        }
        lines.push(String::new());
        lines.push(self.why_line.clone());
        if !self.warning_lines.is_empty() {
            lines.push(String::new());
            lines.extend(self.warning_lines.iter().cloned());
        }
        lines.push(String::new());
        lines.push(self.closing_line.clone());
        lines.join("\n").replace('%', "%%")
    }
}

/// What a desktop notification says, as plain text: the server's name
/// (defanged, see `notification_name`), the registrable domain and fixed
/// words; never the server's message or a URL. The body is escaped with
/// `escape_markup` when the daemon renders body markup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub summary: String,
    pub body: String,
    pub actions: Vec<NoticeAction>,
}

/// A notification button: the answer it gives, or `None` for "bring the
/// window forward".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeAction {
    pub id: &'static str,
    pub label: String,
    pub answer: Option<Answer>,
}

impl NoticeAction {
    fn new(id: &'static str, label: impl Into<String>, answer: Option<Answer>) -> Self {
        NoticeAction {
            id,
            label: label.into(),
            answer,
        }
    }
}

/// Everything said about a URL waiting for consent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlConsentText {
    pub dialog: PageDialog,
    /// Shown when the window is not focused (and notifications are on).
    pub notice: Notice,
    /// Whether the notification offers one-click approval ("Open <domain>"):
    /// only when nothing about the URL needs a closer look.
    pub one_click: bool,
}

/// Break text into lines of at most `width` characters (at spaces where a
/// line has one, else anywhere).
pub fn hard_wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width.max(1));
    let mut line = 0usize;
    for word in text.split(' ') {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        for c in word.chars() {
            if line == width {
                out.push('\n');
                line = 0;
            }
            out.push(c);
            line += 1;
        }
    }
    out
}

/// Escape `&`, `<` and `>` for a notification daemon that renders body
/// markup (it says so with the `body-markup` capability). There is no
/// standard hint to turn body markup off, so this, and sending no server
/// text but its name, is the defence. A summary is plain text by the
/// specification: it is never escaped.
pub fn escape_markup(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Characters that browsers (IDNA) read as a dot in a host name.
fn is_dot_like(c: char) -> bool {
    matches!(c, '.' | '\u{3002}' | '\u{FF0E}' | '\u{FF61}')
}

/// A server's name as a notification shows it: neutralised, bounded, and
/// defanged so no notification daemon can make a link or markup of it:
/// `<` and `>` become `‹` and `›`, a `:` followed by anything but a space
/// becomes `[:]` (so no `https://`, `mailto:` or `javascript:` is left),
/// and a dot between two letters or digits becomes `[.]` (so
/// `paypal.com.evil.example` cannot be read as, or turned into, a host).
pub fn notification_name(server: &str) -> String {
    let chars: Vec<char> = neutralize_for_display(server, NOTICE_SERVER_CHARS)
        .chars()
        .collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || matches!(c, '-' | '_'));
    let mut out = String::with_capacity(chars.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1);
        match c {
            '<' => out.push('‹'),
            '>' => out.push('›'),
            ':' if next.is_some_and(|n| !n.is_whitespace()) => out.push_str("[:]"),
            c if is_dot_like(c)
                && word(i.checked_sub(1).and_then(|p| chars.get(p)))
                && next.is_some_and(|n| n.is_alphanumeric()) =>
            {
                out.push_str("[.]")
            }
            c => out.push(c),
        }
    }
    out
}

/// The registrable domain as a notification may show it, or `None` when a
/// daemon could turn it into a link by itself (it starts like `www.` or
/// `ftp.`, which linkifiers match without a scheme).
pub fn notification_domain(domain: Option<&str>) -> Option<String> {
    let domain = neutralize_for_display(domain?, HOST_CHARS);
    let first = domain
        .split('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let linkable = domain.contains('.')
        && (first == "ftp"
            || first
                .strip_prefix("www")
                .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit())));
    (!linkable && !domain.is_empty()).then_some(domain)
}

/// The title of the consent dialog for this request.
pub fn dialog_title(server: &str, record_id: i64, sign_in: bool) -> String {
    let what = if sign_in {
        "asks you to sign in"
    } else {
        "asks to open a web page"
    };
    format!(
        "Airlock: {} {what} (request {record_id})",
        neutralize_for_display(server, TITLE_SERVER_CHARS)
    )
}

/// Is `suffix` the last labels of `host` (a whole number of labels)?
fn ends_with_labels(host: &str, suffix: &str) -> bool {
    !suffix.is_empty()
        && host.len() >= suffix.len()
        && host.is_char_boundary(host.len() - suffix.len())
        && host[host.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
        && (host.len() == suffix.len() || host[..host.len() - suffix.len()].ends_with('.'))
}

/// The displayed host cut around its registrable domain: the labels before
/// it, the domain's own labels in their displayed form (Unicode where the
/// core allows it) and a trailing dot if the host has one. The display form
/// has the same labels as the ASCII form the registrable domain was computed
/// from (Punycode is per label), so the domain is the display host's last
/// labels, as many as the registrable domain has. `None` when that does not
/// hold (then nothing is emphasised).
pub fn split_host(display_host: &str, ascii_host: &str, registrable: &str) -> Option<Emphasis> {
    let trailing_dot = |h: &str| h.len() > 1 && h.ends_with('.');
    let (display, ascii) = (
        display_host
            .strip_suffix('.')
            .filter(|_| trailing_dot(display_host)),
        ascii_host
            .strip_suffix('.')
            .filter(|_| trailing_dot(ascii_host)),
    );
    let after = if display.is_some() { "." } else { "" };
    let display = display.unwrap_or(display_host);
    let ascii = ascii.unwrap_or(ascii_host);
    if !ends_with_labels(ascii, registrable) {
        return None;
    }
    let labels: Vec<&str> = display.split('.').collect();
    let n = registrable.split('.').count();
    if labels.len() != ascii.split('.').count() || n > labels.len() {
        return None;
    }
    let (prefix, domain) = labels.split_at(labels.len() - n);
    let mut before = prefix.join(".");
    if !before.is_empty() {
        before.push('.');
    }
    Some(Emphasis {
        before: neutralize_for_display(&before, HOST_CHARS),
        domain: neutralize_for_display(&domain.join("."), HOST_CHARS),
        after: after.into(),
    })
}

/// A URL (the core's normalised, ASCII form) cut around the registrable
/// domain of its host, each part bounded: the part before the domain to
/// `URL_BEFORE_CHARS`, the part after it to what is left of
/// `DIALOG_URL_CHARS` (at least `URL_AFTER_MIN_CHARS`), both elided in the
/// middle. The domain itself is never cut. Without a `scheme://host` to
/// find, the whole URL is elided to `DIALOG_URL_CHARS` and nothing is
/// emphasised.
pub fn split_url(url: &str, ascii_host: Option<&str>, registrable: Option<&str>) -> Emphasis {
    let url = neutralize_for_display(url, usize::MAX);
    cut_url(&url, ascii_host, registrable)
        .unwrap_or_else(|| Emphasis::plain(elide_middle(&url, DIALOG_URL_CHARS)))
}

fn cut_url(url: &str, ascii_host: Option<&str>, registrable: Option<&str>) -> Option<Emphasis> {
    let (host, registrable) = (ascii_host?, registrable?);
    let scheme_end = url.find("://")? + 3;
    let rest = url.get(scheme_end..)?;
    let authority = rest.get(..rest.find(['/', '?', '#']).unwrap_or(rest.len()))?;
    // WHATWG serialisation percent-encodes `@` in user information: the
    // host starts after the last one.
    let host_start = scheme_end + authority.rfind('@').map_or(0, |i| i + 1);
    if !url.get(host_start..)?.starts_with(host) {
        return None;
    }
    let host = host
        .strip_suffix('.')
        .filter(|h| !h.is_empty())
        .unwrap_or(host);
    if !ends_with_labels(host, registrable) {
        return None;
    }
    let domain_end = host_start + host.len();
    let domain_start = domain_end.checked_sub(registrable.len())?;
    let before = elide_middle(url.get(..domain_start)?, URL_BEFORE_CHARS);
    let domain = url.get(domain_start..domain_end)?.to_owned();
    let used = before.chars().count() + domain.chars().count();
    let after = elide_middle(
        url.get(domain_end..)?,
        DIALOG_URL_CHARS
            .saturating_sub(used)
            .max(URL_AFTER_MIN_CHARS),
    );
    Some(Emphasis {
        before,
        domain,
        after,
    })
}

/// What a dialog about `inspection`'s URL says, under `title`.
fn page_dialog(
    title: String,
    heading: String,
    message: &str,
    inspection: &Inspection,
) -> PageDialog {
    let domain = neutralize_for_display(
        inspection
            .registrable_domain
            .as_deref()
            .unwrap_or("(no domain)"),
        HOST_CHARS,
    );
    let display_host = inspection
        .display_host
        .as_deref()
        .filter(|host| Some(*host) != inspection.registrable_domain.as_deref());
    let host_line =
        display_host.map(|host| format!("Host:  {}", neutralize_for_display(host, HOST_CHARS)));
    let host = display_host.map(|host| {
        match (
            inspection.ascii_host.as_deref(),
            inspection.registrable_domain.as_deref(),
        ) {
            (Some(ascii), Some(registrable)) => split_host(host, ascii, registrable),
            _ => None,
        }
        .unwrap_or_else(|| Emphasis::plain(neutralize_for_display(host, HOST_CHARS)))
    });
    let url_lines = inspection.url.as_deref().map(|url| {
        hard_wrap(
            &elide_middle(&neutralize_for_display(url, usize::MAX), DIALOG_URL_CHARS),
            DIALOG_LINE_CHARS,
        )
    });
    let url = inspection.url.as_deref().map(|url| {
        split_url(
            url,
            inspection.ascii_host.as_deref(),
            inspection.registrable_domain.as_deref(),
        )
    });
    let blocked = inspection
        .block_reason
        .as_ref()
        .map(|reason| reason.describe().to_owned());
    let closing_line = match &blocked {
        Some(reason) => format!("Blocked: {reason}"),
        None => "Open in browser opens this page in your system browser; Airlock does not see what you do there."
            .into(),
    };
    let reason = neutralize_for_display(message, DIALOG_MESSAGE_CHARS);
    let warnings: Vec<String> = inspection
        .warnings
        .iter()
        .map(|w| w.describe().to_owned())
        .collect();
    PageDialog {
        title,
        heading,
        domain_line: format!("Domain:  {domain}"),
        domain,
        host,
        host_line,
        url,
        url_lines,
        why_line: format!("Why:  {}", hard_wrap(&reason, DIALOG_LINE_CHARS)),
        reason,
        warning_lines: warnings.iter().map(|w| format!("⚠ {w}")).collect(),
        warnings,
        blocked,
        closing_line,
    }
}

/// What the dialog, the notification and its actions say about a URL
/// waiting for consent (a server's page, or a sign-in page). The
/// notification names the server (defanged) and the registrable domain
/// Airlock computed, nothing else: no message, no URL.
pub fn url_consent(request: &UrlConsentRequest) -> UrlConsentText {
    let sign_in = request.origin == Origin::SignIn;
    let inspection = &request.inspection;
    let server = neutralize_for_display(&request.server, TITLE_SERVER_CHARS);
    let heading = if sign_in {
        format!("The server “{server}” asks you to sign in at")
    } else {
        format!("The server “{server}” asks to open a web page on")
    };
    let dialog = page_dialog(
        dialog_title(&request.server, request.record_id, sign_in),
        heading,
        &request.message,
        inspection,
    );
    let domain = notification_domain(inspection.registrable_domain.as_deref());
    let one_click =
        inspection.warnings.is_empty() && inspection.block_reason.is_none() && domain.is_some();
    let actions = match (&domain, one_click) {
        (Some(domain), true) => vec![
            NoticeAction::new("open", format!("Open {domain}"), Some("accept")),
            NoticeAction::new("decline", DECLINE_LABEL, Some("decline")),
        ],
        _ => vec![NoticeAction::new("review", "Review", None)],
    };
    let what = if sign_in { "sign in at" } else { "open" };
    let summary = match &domain {
        Some(domain) => format!(
            "{} asks you to {what} {domain}",
            notification_name(&request.server)
        ),
        None => format!(
            "{} asks you to {what} a web page",
            notification_name(&request.server)
        ),
    };
    let body = if one_click {
        "The full address is in Airlock. Nothing opens unless you choose to."
    } else {
        "Review the full address and its warnings in Airlock. Nothing opens unless you choose to."
    };
    let notice = Notice {
        summary,
        body: body.into(),
        actions,
    };
    UrlConsentText {
        dialog,
        notice,
        one_click,
    }
}

/// The notification for an accepted URL whose completion is late.
pub fn late_notice(request: &UrlConsentRequest) -> Notice {
    let domain = notification_domain(request.inspection.registrable_domain.as_deref())
        .unwrap_or_else(|| "the web page".into());
    Notice {
        summary: format!("Still waiting for {domain}"),
        body: format!(
            "{} has not heard back yet. Continue if you finished in the browser.",
            notification_name(&request.server)
        ),
        actions: vec![
            NoticeAction::new("continue", "Continue", Some("continue")),
            NoticeAction::new("cancel", CANCEL_LABEL, Some("cancel")),
        ],
    }
}

/// The notification for a form: it is answered in the window only, so its
/// one action brings the window forward. The server's message stays in
/// the window.
pub fn form_notice(request: &FormConsentRequest) -> Notice {
    Notice {
        summary: form_notification_summary(&request.server),
        body: "Answer in the Airlock window.".into(),
        actions: vec![NoticeAction::new("review", "Review", None)],
    }
}

pub fn form_notification_summary(server: &str) -> String {
    format!("{} asks you to fill in a form", notification_name(server))
}

/// The dialog that says a URL was blocked before any consent.
pub fn blocked_dialog(server: &str, message: &str, inspection: &Inspection) -> PageDialog {
    let server = neutralize_for_display(server, TITLE_SERVER_CHARS);
    let title = format!("Airlock blocked a web page from {server}");
    // "…, on <domain>" only when there is a domain to name.
    let on = if inspection.registrable_domain.is_some() {
        ", on"
    } else {
        ":"
    };
    let heading =
        format!("Airlock blocked a web page that the server “{server}” asked to open{on}");
    page_dialog(title, heading, message, inspection)
}

/// The inbox entry for a URL waiting for consent (`Consent`) or for
/// Continue / Cancel (`Late`).
pub fn inbox_entry(request: &UrlConsentRequest, kind: PendingKind, since_ms: i64) -> PendingView {
    PendingView {
        record_id: request.record_id,
        kind,
        server: request.server.clone(),
        message: request.message.clone(),
        inspection: Some(request.inspection.clone()),
        form: None,
        secret_fields: Vec::new(),
        sign_in: request.origin == Origin::SignIn,
        since_ms,
    }
}

/// The inbox entry for a form, naming the fields that look secret.
pub fn form_inbox_entry(request: &FormConsentRequest, since_ms: i64) -> PendingView {
    PendingView {
        record_id: request.record_id,
        kind: PendingKind::Form,
        server: request.server.clone(),
        message: request.message.clone(),
        inspection: None,
        form: Some(request.schema.clone()),
        secret_fields: request
            .schema
            .secret_looking()
            .map(|f| f.name.clone())
            .collect(),
        sign_in: false,
        since_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_core::elicitation::form::parse_schema;
    use airlock_core::url_safety::{inspect, Policy};

    fn url_request(server: &str, message: &str, url: &str, origin: Origin) -> UrlConsentRequest {
        UrlConsentRequest {
            record_id: 42,
            server: server.into(),
            message: message.into(),
            elicitation_id: Some("e1".into()),
            origin,
            inspection: inspect(url, &Policy::default()),
            familiarity: Default::default(),
            code_goes_to: None,
        }
    }

    fn every_line(text: &UrlConsentText) -> Vec<String> {
        let n = &text.notice;
        let mut all = vec![text.dialog.title.clone(), text.dialog.body()];
        all.extend([n.summary.clone(), n.body.clone()]);
        all.extend(n.actions.iter().map(|a| a.label.clone()));
        all
    }

    #[test]
    fn body_puts_the_domain_first_and_escapes_format_characters() {
        let i = inspect(
            "https://accounts.google.com.evil.example/%s%n",
            &Policy::default(),
        );
        let body = blocked_dialog("s", "Sign in \u{202e}now %s", &i).body();
        assert!(body.starts_with("Domain:  evil.example"), "{body}");
        assert!(!body.contains('\u{202e}'));
        assert!(!body.replace("%%", "").contains('%'), "{body}");
    }

    #[test]
    fn a_huge_url_is_elided_in_the_middle() {
        let url = format!("https://ok.example/{}", "a".repeat(7000));
        let text = url_consent(&url_request("s", "m", &url, Origin::Request));
        let body = text.dialog.body();
        assert!(body.len() < 2000);
        assert!(body.contains("https://ok.example/"));
        assert!(
            text.notice.body.chars().count() < 1100,
            "{}",
            text.notice.body
        );
    }

    #[test]
    fn dialog_lines_stay_short() {
        let url = format!("https://ok.example/?token={}", "x".repeat(2000));
        let text = url_consent(&url_request(
            "s",
            &format!("why {}", "y".repeat(900)),
            &url,
            Origin::Request,
        ));
        let body = text.dialog.body();
        assert!(body.lines().all(|l| l.chars().count() <= 120), "{body}");
        assert_eq!(hard_wrap("ab cd ef", 5), "ab cd\nef");
        assert_eq!(hard_wrap("abcdefgh", 3), "abc\ndef\ngh");
    }

    #[test]
    fn server_text_is_never_markup_bidi_or_a_line_break_on_any_surface() {
        let server = "<b>evil</b> & \u{202e}moc.elgoog\u{202c} https://accounts.google.com";
        let message = "Click <a href=\"https://x.example\">here</a>\nnow \u{2066}%s\u{2069}";
        let text = url_consent(&url_request(
            server,
            message,
            "https://ok.example/",
            Origin::Request,
        ));
        for line in every_line(&text) {
            for c in ['\u{202e}', '\u{202c}', '\u{2066}', '\u{2069}'] {
                assert!(!line.contains(c), "{c:?} in {line}");
            }
        }
        // Notifications carry no server text but the (defanged) name: no
        // markup, no link, no message.
        let n = &text.notice;
        for s in [&n.summary, &n.body] {
            assert!(!s.contains('<') && !s.contains('>'), "{s}");
            assert!(!s.contains("://") && !s.contains("google.com"), "{s}");
            assert!(!s.contains("Click") && !s.contains("x.example"), "{s}");
        }
        assert!(n.summary.starts_with("‹b›evil‹/b› & "), "{}", n.summary);
        assert!(
            n.summary.contains("https[:]//accounts[.]googl…"),
            "{}",
            n.summary
        );
        // The summary names the page's real domain, last.
        assert!(
            n.summary.ends_with(" asks you to open ok.example"),
            "{}",
            n.summary
        );
        // The server's newline does not start a line of its own in the dialog.
        assert!(
            text.dialog.why_line.contains("here</a>\\u{A}now"),
            "{}",
            text.dialog.why_line
        );
        assert!(text.dialog.body().starts_with("Domain:  ok.example\n"));
        // The title carries the request id, after the (shortened) server name.
        assert!(text
            .dialog
            .title
            .starts_with("Airlock: <b>evil</b> & \\u{202E}moc"));
        assert!(text
            .dialog
            .title
            .ends_with(" asks to open a web page (request 42)"));
    }

    #[test]
    fn a_long_look_alike_host_shows_its_real_domain_first_and_whole() {
        let host = format!(
            "accounts.google.com.{}evil.example",
            "secure-login.".repeat(15)
        );
        let text = url_consent(&url_request(
            "s",
            "m",
            &format!("https://{host}/signin"),
            Origin::Request,
        ));
        let d = &text.dialog;
        assert_eq!(d.domain_line, "Domain:  evil.example");
        let host_line = d.host_line.as_deref().unwrap();
        assert!(host_line.starts_with("Host:  accounts.google.com.secure-login."));
        assert!(host_line.ends_with(".evil.example"), "{host_line}");
        assert!(d.body().lines().all(|l| l.chars().count() <= 260));
        assert!(text
            .notice
            .summary
            .ends_with("asks you to open evil.example"));
    }

    #[test]
    fn warnings_mean_no_one_click_approval() {
        let clean = url_consent(&url_request(
            "s",
            "m",
            "https://ok.example/",
            Origin::Request,
        ));
        assert!(clean.one_click);
        assert!(clean.dialog.warning_lines.is_empty());
        let ids: Vec<_> = clean
            .notice
            .actions
            .iter()
            .map(|a| (a.id, a.answer))
            .collect();
        assert_eq!(
            ids,
            [("open", Some("accept")), ("decline", Some("decline"))]
        );
        assert_eq!(clean.notice.actions[0].label, "Open ok.example");

        for url in [
            "http://plain.example/",
            "https://xn--80ak6aa92e.com/",
            "https://93.184.216.34/",
        ] {
            let text = url_consent(&url_request("s", "m", url, Origin::Request));
            assert!(!text.dialog.warning_lines.is_empty(), "{url}");
            assert!(text
                .dialog
                .warning_lines
                .iter()
                .all(|l| l.starts_with("⚠ ")));
            assert!(!text.one_click, "{url}");
            let actions: Vec<_> = text
                .notice
                .actions
                .iter()
                .map(|a| (a.id, a.answer))
                .collect();
            assert_eq!(
                actions,
                [("review", None)],
                "{url}: only Review, which opens nothing"
            );
            assert!(text.dialog.body().contains("\n\n⚠ "), "{url}");
        }
    }

    #[test]
    fn sign_in_and_a_server_page_are_worded_apart() {
        let page = url_consent(&url_request(
            "ex",
            "m",
            "https://ok.example/",
            Origin::Request,
        ));
        let sign_in = url_consent(&url_request(
            "ex",
            "m",
            "https://ok.example/",
            Origin::SignIn,
        ));
        assert_eq!(
            page.dialog.title,
            "Airlock: ex asks to open a web page (request 42)"
        );
        assert_eq!(
            sign_in.dialog.title,
            "Airlock: ex asks you to sign in (request 42)"
        );
        assert_eq!(page.notice.summary, "ex asks you to open ok.example");
        assert_eq!(
            sign_in.notice.summary,
            "ex asks you to sign in at ok.example"
        );
        assert_eq!(page.dialog.closing_line, sign_in.dialog.closing_line);
        assert!(page
            .dialog
            .closing_line
            .starts_with("Open in browser opens"));
        let entry = inbox_entry(
            &url_request("ex", "m", "https://ok.example/", Origin::SignIn),
            PendingKind::Consent,
            7,
        );
        assert!(entry.sign_in);
        assert_eq!((entry.record_id, entry.since_ms), (42, 7));
    }

    #[test]
    fn a_late_page_offers_continue_and_cancel() {
        let n = late_notice(&url_request(
            "<py>",
            "m",
            "https://example.com/x",
            Origin::Request,
        ));
        assert_eq!(n.summary, "Still waiting for example.com");
        assert!(n.body.starts_with("‹py› has not heard back yet."));
        let actions: Vec<_> = n
            .actions
            .iter()
            .map(|a| (a.id, a.label.as_str(), a.answer))
            .collect();
        assert_eq!(
            actions,
            [
                ("continue", "Continue", Some("continue")),
                ("cancel", "Cancel", Some("cancel"))
            ]
        );
    }

    #[test]
    fn a_blocked_page_says_why_and_offers_nothing_to_open() {
        let url = format!("https://ok.example/{}", "a".repeat(100_000));
        let i = inspect(&url, &Policy::default());
        assert!(i.block_reason.is_some());
        let d = blocked_dialog("hostile", "m", &i);
        assert_eq!(d.title, "Airlock blocked a web page from hostile");
        assert_eq!(
            d.heading,
            "Airlock blocked a web page that the server “hostile” asked to open:"
        );
        assert_eq!(d.domain, "(no domain)");
        let http = blocked_dialog(
            "h",
            "m",
            &inspect("http://evil.example/", &Policy::default()),
        );
        assert_eq!(http.domain, "evil.example");
        assert!(
            http.heading.ends_with("asked to open, on"),
            "{}",
            http.heading
        );
        assert!(http.blocked.is_some());
        assert!(
            d.closing_line.starts_with("Blocked: "),
            "{}",
            d.closing_line
        );
        assert!(!d.body().contains("Open in browser"));
    }

    #[test]
    fn a_form_is_summarised_and_its_secret_looking_fields_named() {
        let schema = parse_schema(&serde_json::json!({"properties": {
            "user": {"type": "string"},
            "pw": {"type": "string", "title": "Password"},
            "api_key": {"type": "string"}
        }}))
        .unwrap();
        let request = FormConsentRequest {
            record_id: 5,
            server: "<b>srv</b>".into(),
            message: "Sign up & go".into(),
            origin: Origin::Request,
            schema,
        };
        let v = form_inbox_entry(&request, 9);
        assert_eq!(v.kind, PendingKind::Form);
        assert!(v.inspection.is_none());
        assert_eq!(v.form.as_ref().unwrap().fields.len(), 3);
        let mut secret = v.secret_fields.clone();
        secret.sort();
        assert_eq!(secret, ["api_key", "pw"]);

        let n = form_notice(&request);
        assert_eq!(n.summary, "‹b›srv‹/b› asks you to fill in a form");
        assert_eq!(n.body, "Answer in the Airlock window.", "no server text");
        let actions: Vec<_> = n.actions.iter().map(|a| (a.id, a.answer)).collect();
        assert_eq!(actions, [("review", None)]);
    }

    #[test]
    fn body_markup_is_escaped() {
        assert_eq!(
            escape_markup("<b>x</b> & y"),
            "&lt;b&gt;x&lt;/b&gt; &amp; y"
        );
    }

    /// Everything a notification about this request shows.
    fn notice_text(n: &Notice) -> String {
        let mut all = vec![n.summary.clone(), n.body.clone()];
        all.extend(n.actions.iter().map(|a| a.label.clone()));
        all.join("\n")
    }

    #[test]
    fn a_server_name_cannot_become_a_link_or_markup_in_a_notification() {
        for (server, shown) in [
            (
                "<a href=\"https://evil.example\">click</a>",
                "‹a href=\"https[:]//evil[.]example\"›click‹/a›",
            ),
            ("paypal.com.evil.example", "paypal[.]com[.]evil[.]example"),
            ("mailto:x@evil.example", "mailto[:]x@evil[.]example"),
            ("javascript:alert(1)", "javascript[:]alert(1)"),
            (
                "evil\u{3002}example and 1.2.3.4",
                "evil[.]example and 1[.]2[.]3[.]4",
            ),
            ("www.evil.example", "www[.]evil[.]example"),
            ("Prod: files. Docs v2", "Prod: files. Docs v2"),
        ] {
            assert_eq!(notification_name(server), shown, "{server}");
            let request = url_request(
                server,
                "see https://evil.example/x",
                "https://ok.example/p?q=1",
                Origin::Request,
            );
            let texts = [
                notice_text(&url_consent(&request).notice),
                notice_text(&late_notice(&request)),
                notice_text(&form_notice(&FormConsentRequest {
                    record_id: 1,
                    server: server.into(),
                    message: "https://evil.example".into(),
                    origin: Origin::Request,
                    schema: parse_schema(&serde_json::json!({"properties": {}})).unwrap(),
                })),
            ];
            for t in texts {
                assert!(!t.contains("://"), "{t}");
                assert!(
                    !t.contains("evil.example") && !t.contains("paypal.com"),
                    "{t}"
                );
                assert!(!t.contains('<') && !t.contains('>'), "{t}");
                assert!(!t.contains("/p?q=1"), "no URL: {t}");
            }
        }
        let n = url_consent(&url_request(
            "paypal.com.evil.example",
            "m",
            "https://login.paypal.com.evil.example/",
            Origin::Request,
        ))
        .notice;
        assert_eq!(
            n.summary,
            "paypal[.]com[.]evil[.]example asks you to open evil.example"
        );
        assert_eq!(n.actions[0].label, "Open evil.example");
    }

    #[test]
    fn a_domain_a_daemon_would_linkify_is_left_out_of_a_notification() {
        assert_eq!(
            notification_domain(Some("ok.example")).as_deref(),
            Some("ok.example")
        );
        assert_eq!(notification_domain(Some("www.example")), None);
        assert_eq!(notification_domain(Some("WWW2.example")), None);
        assert_eq!(notification_domain(Some("ftp.example")), None);
        assert_eq!(
            notification_domain(Some("wwwx.example")).as_deref(),
            Some("wwwx.example")
        );
        assert_eq!(notification_domain(None), None);
        let text = url_consent(&url_request(
            "s",
            "m",
            "https://www.example/",
            Origin::Request,
        ));
        assert_eq!(text.notice.summary, "s asks you to open a web page");
        assert!(!text.one_click);
        assert_eq!(text.notice.actions[0].id, "review");
    }

    #[test]
    fn a_long_look_alike_host_is_cut_at_its_registrable_domain() {
        let host = "accounts.google.com.secure-login.verify-account.example.co.uk";
        let url = format!("https://{host}/signin?continue=https%3A%2F%2Fmail.google.com");
        let text = url_consent(&url_request("s", "m", &url, Origin::Request));
        let d = &text.dialog;
        assert_eq!(d.domain, "example.co.uk");
        assert_eq!(d.heading, "The server “s” asks to open a web page on");
        assert_eq!(
            d.host,
            Some(Emphasis {
                before: "accounts.google.com.secure-login.verify-account.".into(),
                domain: "example.co.uk".into(),
                after: String::new(),
            })
        );
        let u = d.url.as_ref().unwrap();
        assert_eq!(
            u.before,
            "https://accounts.google.com.secure-login.verify-account."
        );
        assert_eq!(u.domain, "example.co.uk");
        assert_eq!(u.after, "/signin?continue=https%3A%2F%2Fmail.google.com");
        assert_eq!(u.text(), url);
        assert_eq!(text.notice.summary, "s asks you to open example.co.uk");
    }

    #[test]
    fn hosts_are_cut_by_labels_in_their_displayed_form() {
        // A trailing dot, user information, a port.
        let i = inspect(
            "https://user:pw@a.b.example.com.:8443/x",
            &Policy::default(),
        );
        let host = split_host(
            i.display_host.as_deref().unwrap(),
            i.ascii_host.as_deref().unwrap(),
            i.registrable_domain.as_deref().unwrap(),
        )
        .unwrap();
        assert_eq!(
            (
                host.before.as_str(),
                host.domain.as_str(),
                host.after.as_str()
            ),
            ("a.b.", "example.com", ".")
        );
        let u = split_url(
            i.url.as_deref().unwrap(),
            i.ascii_host.as_deref(),
            i.registrable_domain.as_deref(),
        );
        assert_eq!(u.before, "https://user:pw@a.b.");
        assert_eq!(u.domain, "example.com");
        assert_eq!(u.after, ".:8443/x");

        // An IDN the core shows in Unicode: the domain's labels as displayed,
        // the URL in its ASCII form, both emphasised.
        let i = inspect("https://www.münchen.de/karte", &Policy::default());
        assert_eq!(i.registrable_domain.as_deref(), Some("xn--mnchen-3ya.de"));
        let text = url_consent(&url_request(
            "s",
            "m",
            "https://www.münchen.de/karte",
            Origin::Request,
        ));
        let host = text.dialog.host.unwrap();
        assert_eq!(
            (host.before.as_str(), host.domain.as_str()),
            ("www.", "münchen.de")
        );
        let u = text.dialog.url.unwrap();
        assert_eq!(
            (u.before.as_str(), u.domain.as_str(), u.after.as_str()),
            ("https://www.", "xn--mnchen-3ya.de", "/karte")
        );

        // A confusable IDN stays Punycode everywhere.
        let text = url_consent(&url_request(
            "s",
            "m",
            "https://login.xn--80ak6aa92e.com/",
            Origin::Request,
        ));
        assert_eq!(text.dialog.domain, "xn--80ak6aa92e.com");
        let host = text.dialog.host.unwrap();
        assert_eq!(
            (host.before.as_str(), host.domain.as_str()),
            ("login.", "xn--80ak6aa92e.com")
        );
        assert!(!text.dialog.warnings.is_empty());

        // An IP address and a host that is its own registrable domain.
        let text = url_consent(&url_request(
            "s",
            "m",
            "https://93.184.216.34/x",
            Origin::Request,
        ));
        assert_eq!(text.dialog.host, None);
        let u = text.dialog.url.unwrap();
        assert_eq!(
            (u.before.as_str(), u.domain.as_str()),
            ("https://", "93.184.216.34")
        );
        let text = url_consent(&url_request(
            "s",
            "m",
            "http://[::1]:8080/cb",
            Origin::Request,
        ));
        let u = text.dialog.url.unwrap();
        assert_eq!(u.text(), "http://[::1]:8080/cb");

        // Text that does not match is shown whole, with nothing emphasised.
        assert_eq!(split_host("a.example", "b.example", "c.example"), None);
        let u = split_url("https://a.example/", Some("b.example"), Some("b.example"));
        assert_eq!(
            (u.before.as_str(), u.domain.as_str()),
            ("https://a.example/", "")
        );
        assert_eq!(split_url("mailto:x@y", None, None).before, "mailto:x@y");
    }

    #[test]
    fn url_parts_are_bounded_but_the_domain_is_whole() {
        let user = "u".repeat(2000);
        let host = format!(
            "{}.evil.example",
            ["a".repeat(60), "b".repeat(60), "c".repeat(60)].join(".")
        );
        let url = format!("https://{user}@{host}/{}", "p".repeat(5000));
        let i = inspect(&url, &Policy::default());
        let u = split_url(
            i.url.as_deref().unwrap(),
            i.ascii_host.as_deref(),
            i.registrable_domain.as_deref(),
        );
        assert_eq!(u.domain, "evil.example");
        assert!(u.before.chars().count() <= URL_BEFORE_CHARS);
        assert!(
            u.before.starts_with("https://uuu")
                && u.before.ends_with(&format!("{}.", "c".repeat(60))),
            "{}",
            u.before
        );
        assert_eq!(u.after.chars().count(), URL_AFTER_MIN_CHARS);
        assert!(u.after.starts_with("/ppp") && u.after.contains('…'));
    }
}
