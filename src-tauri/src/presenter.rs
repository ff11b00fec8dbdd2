//! What the desktop says about a request, on each surface: the native
//! dialog, the desktop notification and the window's inbox entry. Pure: it
//! takes the core's request types and returns plain text, ready for its
//! surface (server text neutralised, `%` doubled for GTK, markup escaped for
//! notification daemons). `consent.rs` only shows what this returns.

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

/// What a native dialog about one web page says, line by line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageDialog {
    /// Unique per request for a consent dialog, so it can be found and
    /// closed when the request is answered elsewhere or ends.
    pub title: String,
    /// `Domain:  <registrable domain>`: always the first line.
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
    /// The dialog's text: domain first, then the full URL, the reason, every
    /// warning and the closing line. `%` is doubled because the GTK dialog
    /// treats the text as a format string.
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

/// What a desktop notification says. Summary and body are escaped for
/// daemons that render markup.
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

/// Text for a notification: neutralised, and markup characters escaped
/// (daemons render markup).
pub fn notification_text(s: &str) -> String {
    neutralize_for_display(s, DIALOG_MESSAGE_CHARS)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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

/// The lines of a dialog about `inspection`'s URL, under `title`.
fn page_dialog(title: String, message: &str, inspection: &Inspection) -> PageDialog {
    let domain = inspection
        .registrable_domain
        .as_deref()
        .unwrap_or("(no domain)");
    let host_line = inspection
        .display_host
        .as_deref()
        .filter(|host| Some(*host) != inspection.registrable_domain.as_deref())
        .map(|host| format!("Host:  {}", neutralize_for_display(host, HOST_CHARS)));
    let url_lines = inspection.url.as_deref().map(|url| {
        hard_wrap(
            &elide_middle(&neutralize_for_display(url, usize::MAX), DIALOG_URL_CHARS),
            DIALOG_LINE_CHARS,
        )
    });
    let closing_line = match &inspection.block_reason {
        Some(reason) => format!("Blocked: {}", reason.describe()),
        None => "Open in browser opens this page in your system browser; Airlock does not see what you do there."
            .into(),
    };
    PageDialog {
        title,
        domain_line: format!("Domain:  {}", neutralize_for_display(domain, HOST_CHARS)),
        host_line,
        url_lines,
        why_line: format!(
            "Why:  {}",
            hard_wrap(
                &neutralize_for_display(message, DIALOG_MESSAGE_CHARS),
                DIALOG_LINE_CHARS
            )
        ),
        warning_lines: inspection
            .warnings
            .iter()
            .map(|w| format!("⚠ {}", w.describe()))
            .collect(),
        closing_line,
    }
}

/// What the dialog, the notification and its actions say about a URL
/// waiting for consent (a server's page, or a sign-in page).
pub fn url_consent(request: &UrlConsentRequest) -> UrlConsentText {
    let sign_in = request.origin == Origin::SignIn;
    let inspection = &request.inspection;
    let dialog = page_dialog(
        dialog_title(&request.server, request.record_id, sign_in),
        &request.message,
        inspection,
    );
    let domain = notification_text(
        inspection
            .registrable_domain
            .as_deref()
            .unwrap_or("a web page"),
    );
    let one_click = inspection.warnings.is_empty() && inspection.block_reason.is_none();
    let actions = if one_click {
        vec![
            NoticeAction::new("open", format!("Open {domain}"), Some("accept")),
            NoticeAction::new("decline", DECLINE_LABEL, Some("decline")),
        ]
    } else {
        vec![NoticeAction::new("review", "Review", None)]
    };
    let url = inspection.url.as_deref().unwrap_or_default();
    let notice = Notice {
        summary: format!(
            "{} asks you to {} {domain}",
            notification_text(&request.server),
            if sign_in { "sign in at" } else { "open" },
        ),
        body: format!(
            "{}\n{}",
            notification_text(&request.message),
            notification_text(&elide_middle(url, DIALOG_URL_CHARS))
        ),
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
    let domain = request
        .inspection
        .registrable_domain
        .as_deref()
        .unwrap_or("the page");
    Notice {
        summary: format!("Still waiting for {}", notification_text(domain)),
        body: format!(
            "{} has not heard back yet. Continue if you finished in the browser.",
            notification_text(&request.server)
        ),
        actions: vec![
            NoticeAction::new("continue", "Continue", Some("continue")),
            NoticeAction::new("cancel", CANCEL_LABEL, Some("cancel")),
        ],
    }
}

/// The notification for a form: it is answered in the window only, so its
/// one action brings the window forward.
pub fn form_notice(request: &FormConsentRequest) -> Notice {
    Notice {
        summary: form_notification_summary(&request.server),
        body: format!(
            "{}\nAnswer in the Airlock window.",
            notification_text(&request.message)
        ),
        actions: vec![NoticeAction::new("review", "Review", None)],
    }
}

pub fn form_notification_summary(server: &str) -> String {
    format!("{} asks you to fill in a form", notification_text(server))
}

/// The dialog that says a URL was blocked before any consent.
pub fn blocked_dialog(server: &str, message: &str, inspection: &Inspection) -> PageDialog {
    let title = format!(
        "Airlock blocked a web page from {}",
        neutralize_for_display(server, TITLE_SERVER_CHARS)
    );
    page_dialog(title, message, inspection)
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
        // Notification daemons render markup: none gets through.
        let n = &text.notice;
        for s in [&n.summary, &n.body] {
            assert!(!s.contains('<') && !s.contains('>'), "{s}");
            assert!(
                !s.replace("&amp;", "")
                    .replace("&lt;", "")
                    .replace("&gt;", "")
                    .contains('&'),
                "{s}"
            );
        }
        assert!(
            n.summary.starts_with("&lt;b&gt;evil&lt;/b&gt; &amp; "),
            "{}",
            n.summary
        );
        // A URL in the server's own text stays that text: the summary still
        // names the page's real domain, last.
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
        assert!(n.body.starts_with("&lt;py&gt; has not heard back yet."));
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
        assert_eq!(
            n.summary,
            "&lt;b&gt;srv&lt;/b&gt; asks you to fill in a form"
        );
        assert_eq!(n.body, "Sign up &amp; go\nAnswer in the Airlock window.");
        let actions: Vec<_> = n.actions.iter().map(|a| (a.id, a.answer)).collect();
        assert_eq!(actions, [("review", None)]);
    }

    #[test]
    fn notification_text_is_not_markup() {
        assert_eq!(
            notification_text("<b>x</b> & y"),
            "&lt;b&gt;x&lt;/b&gt; &amp; y"
        );
    }
}
