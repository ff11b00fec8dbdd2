//! The core's view fitted to the dialog (bounds, plain lines) and to the
//! inbox. What the view says is tested in the core
//! (`airlock_core::elicitation::view`).

use super::*;
use airlock_core::elicitation::form::parse_schema;
use airlock_core::elicitation::Origin;
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
        app: None,
    }
}

fn dialog(server: &str, message: &str, url: &str) -> ConsentView {
    for_dialog(ConsentView::url(&url_request(
        server,
        message,
        url,
        Origin::Request,
    )))
}

#[test]
fn the_plain_body_puts_the_domain_first_and_escapes_format_characters() {
    let i = inspect(
        "https://accounts.google.com.evil.example/%s%n",
        &Policy::default(),
    );
    let body = plain_body(&for_dialog(ConsentView::blocked(
        "s",
        "Sign in \u{202e}now %s",
        &i,
    )));
    assert!(body.starts_with("Domain:  evil.example\n"), "{body}");
    assert!(!body.contains('\u{202e}'));
    assert!(!body.replace("%%", "").contains('%'), "{body}");
    assert!(body.contains("⛔ "), "why it was blocked: {body}");
    assert!(!body.contains("Open in browser"), "{body}");
}

#[test]
fn a_huge_url_and_message_are_bounded_in_the_dialog() {
    let url = format!("https://ok.example/{}", "a".repeat(7000));
    let d = dialog("s", &"why ".repeat(900), &url);
    let url_line = d.line(LineKey::Url).unwrap();
    assert!(
        url_line.text.chars().count() <= DIALOG_URL_CHARS,
        "{}",
        url_line.text
    );
    assert!(url_line.text.starts_with("https://ok.example/aaa"));
    assert_eq!(url_line.split.as_ref().unwrap().text(), url_line.text);
    let why = d.line(LineKey::Why).unwrap();
    assert!(why.text.chars().count() <= DIALOG_MESSAGE_CHARS);
    let body = plain_body(&d);
    assert!(body.len() < 2000);
    assert!(
        body.lines().all(|l| l.chars().count() <= DIALOG_LINE_CHARS),
        "{body}"
    );
    assert_eq!(hard_wrap("ab cd ef", 5), "ab cd\nef");
    assert_eq!(hard_wrap("abcdefgh", 3), "abc\ndef\ngh");
    // The window's inbox gets it whole.
    let entry = inbox_entry(
        &url_request("s", "m", &url, Origin::Request),
        PendingKind::Consent,
        7,
    );
    assert_eq!(entry.view.line(LineKey::Url).unwrap().text, url);
    assert_eq!((entry.record_id, entry.since_ms), (42, 7));
}

#[test]
fn url_parts_are_bounded_but_the_domain_is_whole() {
    let user = "u".repeat(2000);
    let host = format!(
        "{}.evil.example",
        ["a".repeat(60), "b".repeat(60), "c".repeat(60)].join(".")
    );
    let url = format!("https://{user}@{host}/{}", "p".repeat(5000));
    let d = dialog("s", "m", &url);
    let u = d.line(LineKey::Url).unwrap().split.clone().unwrap();
    assert_eq!(u.domain, "evil.example");
    assert!(u.before.chars().count() <= URL_BEFORE_CHARS);
    assert!(
        u.before.starts_with("https://uuu") && u.before.ends_with(&format!("{}.", "c".repeat(60))),
        "{}",
        u.before
    );
    assert_eq!(u.after.chars().count(), URL_AFTER_MIN_CHARS);
    assert!(u.after.starts_with("/ppp") && u.after.contains('…'));
    // Without a domain to keep, the whole URL is elided.
    let plain = bound_url(&Split::plain("x".repeat(5000)));
    assert_eq!(plain.text().chars().count(), DIALOG_URL_CHARS);
}

#[test]
fn a_long_look_alike_host_shows_its_real_domain_first_and_whole() {
    let host = format!(
        "accounts.google.com.{}evil.example",
        "secure-login.".repeat(15)
    );
    let d = dialog("s", "m", &format!("https://{host}/signin"));
    let body = plain_body(&d);
    assert!(body.starts_with("Domain:  evil.example\nHost:  accounts.google.com.secure-login."));
    assert_eq!(d.domain.as_ref().unwrap().text, "evil.example");
    assert_eq!(
        d.line(LineKey::Host)
            .unwrap()
            .split
            .as_ref()
            .unwrap()
            .domain,
        "evil.example"
    );
}

#[test]
fn the_plain_body_names_the_app_on_its_own_line_and_the_server_in_the_title() {
    let mut r = url_request("github", "m", "https://github.com/", Origin::Request);
    r.app = Some("x\nDomain:  paypal.com".into());
    let d = for_dialog(ConsentView::url(&r));
    let body = plain_body(&d);
    assert!(body.starts_with("Domain:  github.com\n"), "{body}");
    assert_eq!(body.matches("Domain:").count(), 1, "{body}");
    let app: Vec<&str> = body.lines().filter(|l| l.contains("paypal")).collect();
    assert_eq!(app.len(), 1, "{body}");
    assert!(app[0].starts_with("App:  app “"), "{body}");
    assert_eq!(
        d.title,
        "Airlock: github asks you to open a web page (request 42)"
    );
    let warned = dialog("s", "m", "http://127.0.0.1:9/");
    assert!(plain_body(&warned).contains("\n\n⚠ "));
}

#[test]
fn a_form_entry_names_its_secret_looking_fields() {
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
        app: Some("zed".into()),
        to_app: None,
    };
    let v = form_inbox_entry(&request, 9);
    assert_eq!(v.kind, PendingKind::Form);
    assert_eq!(v.form.as_ref().unwrap().fields.len(), 3);
    let mut secret = v.secret_fields.clone();
    secret.sort();
    assert_eq!(secret, ["api_key", "pw"]);
    assert_eq!(v.view.app.as_deref(), Some("Zed"));
    let late = inbox_entry(
        &url_request("s", "m", "https://ok.example/", Origin::Request),
        PendingKind::Late,
        1,
    );
    assert_eq!(late.view.heading_text(), "Still waiting for ok.example");
}
