//! What the desktop says about a request, on each surface: the native
//! dialog, the desktop notification and the window's inbox entry. Pure: it
//! takes the core's request types and returns plain text, ready for its
//! surface (server text neutralised and bounded; the host and URL cut around
//! the registrable domain so the dialog can emphasise it; notifications
//! carry no server text but the server's defanged name, and no URL).
//! `consent.rs` and `native_dialog.rs` only show what this returns.

use airlock_core::elicitation::{Familiarity, FormConsentRequest, Origin, UrlConsentRequest};
use airlock_core::url_safety::{elide_middle, neutralize_for_display, Inspection};
// What a notification may say of a server or domain: shared with the
// daemon's notifications (the gateway crate).
pub use airlock_core::url_safety::notice::{escape_markup, notification_domain, notification_name};

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
    /// What the user's own history says about the domain (`Seen:` line):
    /// first time from this server, or how often and since when.
    pub seen: Option<String>,
    /// Why the page was blocked, when it was.
    pub blocked: Option<String>,
    /// `Domain:  <registrable domain>`: always the first line of `body()`.
    pub domain_line: String,
    /// `Host:  <host>` when the host is not the registrable domain itself.
    pub host_line: Option<String>,
    /// The full URL, elided in the middle and broken into short lines.
    pub url_lines: Option<String>,
    /// `App:  Claude Code`: the app whose tool call raised the request
    /// (through the gateway); `None` for Airlock's own calls.
    pub app_line: Option<String>,
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
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn body(&self) -> String {
        let mut lines = vec![self.domain_line.clone()];
        lines.extend(self.host_line.clone());
        if let Some(url) = &self.url_lines {
            lines.push("Full URL:".into());
            lines.push(url.clone());
        }
        lines.push(String::new());
        lines.extend(self.app_line.clone());
        lines.push(self.why_line.clone());
        if let Some(seen) = &self.seen {
            lines.push(format!("Seen:  {seen}"));
        }
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

/// The app whose tool call raised a request, as a dialog shows it: a
/// friendly name for a known app, any other name quoted and labelled as
/// the app's own (see `airlock_apps::caller_label`), neutralised, bounded.
pub fn app_label(client: &str) -> String {
    neutralize_for_display(
        &airlock_apps::caller_label(client),
        airlock_apps::MAX_CALLER_LABEL_CHARS,
    )
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
        app_line: None,
        why_line: format!("Why:  {}", hard_wrap(&reason, DIALOG_LINE_CHARS)),
        reason,
        warning_lines: warnings.iter().map(|w| format!("⚠ {w}")).collect(),
        warnings,
        seen: None,
        blocked,
        closing_line,
    }
}

/// `Seen:` words for a domain: first time from this server, or how often.
pub fn seen_text(f: &Familiarity, now_ms: i64) -> String {
    match (f.times_before, f.first_seen_ms) {
        (0, _) => "first time this server sends you to this domain".into(),
        (n, Some(first)) => {
            let days = (now_ms - first).max(0) / 86_400_000;
            let since = match days {
                0 => "today".to_owned(),
                1 => "1 day ago".to_owned(),
                d => format!("{d} days ago"),
            };
            let times = if n == 1 {
                "once".to_owned()
            } else {
                format!("{n} times")
            };
            format!("this server sent you here {times} before, first {since}")
        }
        (n, None) => format!("this server sent you here {n} times before"),
    }
}

/// Warnings from the user's own history and the sign-in's token endpoint,
/// beyond what the URL itself shows.
pub fn extra_warnings(request: &UrlConsentRequest) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(l) = &request.familiarity.looks_like {
        out.push(format!(
            "This domain looks like {}, which you opened before ({}). Check it letter by letter.",
            neutralize_for_display(&l.domain, HOST_CHARS),
            l.why
        ));
    }
    if let Some(d) = &request.code_goes_to {
        out.push(format!(
            "After you sign in, the authorization code goes to {}, not to the login page's domain.",
            neutralize_for_display(d, HOST_CHARS)
        ));
    }
    out
}

/// What the dialog, the notification and its actions say about a URL
/// waiting for consent (a server's page, or a sign-in page). The
/// notification names the server (defanged) and the registrable domain
/// Airlock computed, nothing else: no message, no URL.
pub fn url_consent(request: &UrlConsentRequest) -> UrlConsentText {
    let sign_in = request.origin == Origin::SignIn;
    let inspection = &request.inspection;
    let server = neutralize_for_display(&request.server, TITLE_SERVER_CHARS);
    let app = request.client.as_deref().map(app_label);
    let app_first = request.client.as_deref().map(|c| {
        neutralize_for_display(
            &airlock_apps::caller_label_capitalised(c),
            airlock_apps::MAX_CALLER_LABEL_CHARS,
        )
    });
    let heading = match (&app_first, sign_in) {
        (None, true) => format!("The server “{server}” asks you to sign in at"),
        (None, false) => format!("The server “{server}” asks to open a web page on"),
        (Some(app), true) => format!("{app} → the server “{server}” asks you to sign in at"),
        (Some(app), false) => {
            format!("{app} → the server “{server}” asks to open a web page on")
        }
    };
    let mut dialog = page_dialog(
        dialog_title(&request.server, request.record_id, sign_in),
        heading,
        &request.message,
        inspection,
    );
    let extra = extra_warnings(request);
    dialog
        .warning_lines
        .extend(extra.iter().map(|w| format!("⚠ {w}")));
    dialog.warnings.extend(extra.iter().cloned());
    dialog.app_line = app.map(|a| format!("App:  {a} (its tool call asked for this)"));
    dialog.seen = Some(seen_text(
        &request.familiarity,
        airlock_core::store::now_ms(),
    ));
    let domain = notification_domain(inspection.registrable_domain.as_deref());
    // One-click approval only when nothing calls for a closer look: no
    // warning about the URL, no look-alike, no code sent elsewhere.
    let one_click = request.one_click_ok() && domain.is_some();
    let actions = match (&domain, one_click) {
        (Some(domain), true) => vec![
            NoticeAction::new("open", format!("Open {domain}"), Some("accept")),
            NoticeAction::new("decline", DECLINE_LABEL, Some("decline")),
        ],
        _ => vec![NoticeAction::new("review", "Review", None)],
    };
    let what = if sign_in { "sign in at" } else { "open" };
    let app = airlock_apps::notice_prefix(request.client.as_deref());
    let summary = match &domain {
        Some(domain) => format!(
            "{app}{} asks you to {what} {domain}",
            notification_name(&request.server)
        ),
        None => format!(
            "{app}{} asks you to {what} a web page",
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

/// The notification for a server that sends more requests than its limits
/// allow: it can be paused from here.
pub fn flood_notice(server: &str) -> Notice {
    let name = notification_name(server);
    Notice {
        summary: format!("{name} sends too many requests"),
        body: "Airlock refused the ones over its limits (they are in History). Pause the server to stop it asking.".into(),
        actions: vec![
            NoticeAction::new("pause", format!("Pause {name}"), None),
            NoticeAction::new("review", "Review", None),
        ],
    }
}

/// The notification for an accepted URL whose completion is late.
pub fn late_notice(request: &UrlConsentRequest) -> Notice {
    let domain = notification_domain(request.inspection.registrable_domain.as_deref())
        .unwrap_or_else(|| "the web page".into());
    Notice {
        summary: format!("Still waiting for {domain}"),
        body: format!(
            "{}{} has not heard back yet. Continue if you finished in the browser.",
            airlock_apps::notice_prefix(request.client.as_deref()),
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
        summary: format!(
            "{}{}",
            airlock_apps::notice_prefix(request.client.as_deref()),
            form_notification_summary(&request.server)
        ),
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
        client: request.client.clone(),
        seen: Some(seen_text(&request.familiarity, since_ms)),
        extra_warnings: extra_warnings(request),
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
        client: request.client.clone(),
        seen: None,
        extra_warnings: Vec::new(),
    }
}

#[path = "presenter_emphasis.rs"]
mod emphasis;
pub use emphasis::{split_host, split_url};

#[cfg(test)]
#[path = "presenter_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "presenter_app_tests.rs"]
mod app_tests;

#[cfg(test)]
#[path = "presenter_notice_tests.rs"]
mod notice_tests;
