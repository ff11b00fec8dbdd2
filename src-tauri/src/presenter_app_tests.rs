//! The app whose call raised a request, on every surface (issue 13).

use super::*;
use airlock_core::elicitation::form::parse_schema;
use airlock_core::url_safety::{inspect, Policy};

fn request_from(client: Option<&str>, url: &str) -> UrlConsentRequest {
    UrlConsentRequest {
        record_id: 7,
        server: "github".into(),
        message: "Authorize the GitHub app".into(),
        elicitation_id: Some("e1".into()),
        origin: Origin::Request,
        inspection: inspect(url, &Policy::default()),
        familiarity: Default::default(),
        code_goes_to: None,
        client: client.map(str::to_owned),
    }
}

fn form_from(client: Option<&str>) -> FormConsentRequest {
    FormConsentRequest {
        record_id: 8,
        server: "github".into(),
        message: "m".into(),
        origin: Origin::Request,
        schema: parse_schema(&serde_json::json!({"properties": {}})).unwrap(),
        client: client.map(str::to_owned),
        to_app: None,
    }
}

#[test]
fn every_surface_names_the_app_that_asked() {
    let r = request_from(Some("claude-code"), "https://github.com/login/device");
    let text = url_consent(&r);
    assert_eq!(
        text.notice.summary,
        "Claude Code → github asks you to open github.com"
    );
    assert!(text.one_click);
    assert_eq!(
        text.dialog.heading,
        "Claude Code → the server “github” asks to open a web page on"
    );
    assert_eq!(
        text.dialog.app_line.as_deref(),
        Some("App:  Claude Code (its tool call asked for this)")
    );
    assert!(text.dialog.body().contains("\nApp:  Claude Code"));
    assert!(text.dialog.body().starts_with("Domain:  github.com"));
    assert!(late_notice(&r).body.starts_with("Claude Code → github "));
    assert_eq!(
        form_notice(&form_from(Some("cursor"))).summary,
        "Cursor → github asks you to fill in a form"
    );
    assert_eq!(
        inbox_entry(&r, PendingKind::Consent, 1).client.as_deref(),
        Some("claude-code")
    );
    assert_eq!(
        form_inbox_entry(&form_from(Some("zed")), 1)
            .client
            .as_deref(),
        Some("zed")
    );
}

#[test]
fn airlocks_own_calls_name_no_app() {
    let text = url_consent(&request_from(None, "https://github.com/"));
    assert_eq!(text.notice.summary, "github asks you to open github.com");
    assert_eq!(
        text.dialog.heading,
        "The server “github” asks to open a web page on"
    );
    assert_eq!(text.dialog.app_line, None);
    assert!(!text.dialog.body().contains("App:"));
}

#[test]
fn several_apps_are_named_as_such() {
    let text = url_consent(&request_from(
        Some("one of: cursor, claude-code"),
        "https://github.com/",
    ));
    assert_eq!(
        text.notice.summary,
        "One of: Cursor, Claude Code → github asks you to open github.com"
    );
}

#[test]
fn a_hostile_app_name_cannot_pose_as_a_server_a_domain_or_a_line() {
    // What the core's client-name rule lets through (letters, digits,
    // spaces, dots), and worse, in case a record was written by hand.
    for hostile in [
        "github asks you to open paypal.com",
        "Domain  paypal.com",
        "x\nDomain:  paypal.com",
        "<b>paypal.com</b>",
        "https://paypal.com",
    ] {
        let r = request_from(Some(hostile), "https://github.com/");
        let text = url_consent(&r);
        let summary = &text.notice.summary;
        assert!(summary.starts_with("App “"), "{summary}");
        assert!(
            summary.ends_with("” → github asks you to open github.com"),
            "{summary}"
        );
        assert!(!summary.contains("paypal.com"), "defanged: {summary}");
        assert!(
            !summary.contains('<') && !summary.contains("://"),
            "{summary}"
        );
        let heading = &text.dialog.heading;
        assert!(heading.starts_with("App “"), "{heading}");
        assert!(heading.ends_with("” → the server “github” asks to open a web page on"));
        let body = text.dialog.body();
        // The app stays on its one labelled line; the domain line is still first.
        assert!(body.starts_with("Domain:  github.com\n"), "{body}");
        assert_eq!(body.matches("Domain:").count(), 1, "{body}");
        let app_lines: Vec<&str> = body.lines().filter(|l| l.contains("paypal")).collect();
        assert_eq!(app_lines.len(), 1, "{body}");
        assert!(app_lines[0].starts_with("App:  app “"), "{body}");
        let long = url_consent(&request_from(
            Some(&"x".repeat(5000)),
            "https://github.com/",
        ));
        assert!(long.notice.summary.chars().count() < 250);
        assert!(long.dialog.heading.chars().count() < 300);
    }
}
