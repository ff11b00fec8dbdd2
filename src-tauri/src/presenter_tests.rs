use super::*;
use airlock_core::elicitation::form::parse_schema;
use airlock_core::url_safety::{inspect, Policy};

pub(super) fn url_request(
    server: &str,
    message: &str,
    url: &str,
    origin: Origin,
) -> UrlConsentRequest {
    UrlConsentRequest {
        record_id: 42,
        server: server.into(),
        message: message.into(),
        elicitation_id: Some("e1".into()),
        origin,
        inspection: inspect(url, &Policy::default()),
        familiarity: Default::default(),
        code_goes_to: None,
        client: None,
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
        client: None,
        to_app: None,
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
        u.before.starts_with("https://uuu") && u.before.ends_with(&format!("{}.", "c".repeat(60))),
        "{}",
        u.before
    );
    assert_eq!(u.after.chars().count(), URL_AFTER_MIN_CHARS);
    assert!(u.after.starts_with("/ppp") && u.after.contains('…'));
}

#[test]
fn a_look_alike_or_a_code_sent_elsewhere_is_a_warning_and_no_one_click() {
    use airlock_core::elicitation::{Familiarity, LookAlike};
    use airlock_core::url_safety::Resemblance;
    let mut r = url_request(
        "bank",
        "Sign in",
        "https://www.paypa1.com/",
        Origin::Request,
    );
    let clean = url_consent(&r);
    assert!(clean.one_click, "a clean first-time URL keeps one-click");
    assert_eq!(
        clean.dialog.seen.as_deref(),
        Some("first time this server sends you to this domain")
    );
    r.familiarity = Familiarity {
        times_before: 0,
        first_seen_ms: None,
        looks_like: Some(LookAlike {
            domain: "paypal.com".into(),
            resemblance: Resemblance::SameSkeleton,
            why: Resemblance::SameSkeleton.describe().into(),
        }),
    };
    let text = url_consent(&r);
    assert!(!text.one_click);
    assert!(
        text.dialog
            .warnings
            .iter()
            .any(|w| w.contains("looks like paypal.com")),
        "{:?}",
        text.dialog.warnings
    );
    let entry = inbox_entry(&r, PendingKind::Consent, 0);
    assert_eq!(entry.extra_warnings.len(), 1);

    let mut s = url_request("bank", "m", "https://login.bank.example/a", Origin::SignIn);
    s.code_goes_to = Some("collect.example".into());
    let text = url_consent(&s);
    assert!(!text.one_click);
    assert!(text
        .dialog
        .body()
        .contains("authorization code goes to collect.example"));

    let mut seen = url_request("bank", "m", "https://bank.example/", Origin::Request);
    seen.familiarity.times_before = 3;
    seen.familiarity.first_seen_ms = Some(0);
    assert_eq!(
        seen_text(&seen.familiarity, 2 * 86_400_000),
        "this server sent you here 3 times before, first 2 days ago"
    );
}
