//! What the daemon's notifications say (the core's notices, for a host
//! without a window).

use airlock_core::elicitation::{Familiarity, LookAlike, Origin};
use airlock_core::url_safety::{inspect, Policy, Resemblance};

use super::*;

fn url_notice(request: &UrlConsentRequest) -> (Notice, bool) {
    super::url_notice(request, NoticeHost::Daemon)
}

fn request(app: Option<&str>, server: &str, url: &str) -> UrlConsentRequest {
    UrlConsentRequest {
        record_id: 3,
        server: server.into(),
        message: "see https://evil.example/".into(),
        elicitation_id: Some("e".into()),
        origin: Origin::Request,
        inspection: inspect(url, &Policy::default()),
        familiarity: Familiarity::default(),
        code_goes_to: None,
        app: app.map(str::to_owned),
    }
}

fn all_text(n: &Notice) -> String {
    let mut t = vec![n.summary.clone(), n.body.clone()];
    t.extend(n.actions.iter().map(|a| a.label.clone()));
    t.join("\n")
}

#[test]
fn a_plain_page_offers_open_and_decline_and_names_app_server_and_domain() {
    let (n, one_click) = url_notice(&request(
        Some("claude-code"),
        "github",
        "https://github.com/login/device?x=1",
    ));
    assert!(one_click);
    assert_eq!(
        n.summary,
        "Claude Code → github asks you to open github.com"
    );
    let ids: Vec<&str> = n.actions.iter().map(|a| a.id).collect();
    assert_eq!(ids, ["open", "decline"]);
    assert_eq!(n.actions[0].label, "Open github.com");
    assert_eq!(n.actions[0].answer(), Some(ViewAction::Accept));
    let text = all_text(&n);
    assert!(
        !text.contains("evil.example") && !text.contains("login/device"),
        "{text}"
    );
}

#[test]
fn a_warned_page_offers_no_open_and_says_why() {
    for url in ["http://github.com/", "https://93.184.216.34/x"] {
        let (n, one_click) = url_notice(&request(Some("cursor"), "srv", url));
        assert!(!one_click, "{url}");
        assert!(n.actions.is_empty(), "{url}");
        assert!(n.body.starts_with("Review in Airlock: "), "{}", n.body);
        assert!(n.body.contains("declined"), "{}", n.body);
        assert!(
            n.summary.starts_with("Cursor → srv asks you to open "),
            "{}",
            n.summary
        );
    }
    let mut r = request(None, "srv", "https://paypa1.com/");
    r.familiarity.looks_like = Some(LookAlike {
        domain: "paypal.com".into(),
        resemblance: Resemblance::SameSkeleton,
    });
    let (n, one_click) = url_notice(&r);
    assert!(!one_click);
    assert!(
        n.body.contains("looks like one you opened before"),
        "{}",
        n.body
    );
    assert_eq!(n.summary, "srv asks you to open paypa1.com");
}

#[test]
fn hostile_app_and_server_names_stay_labelled_and_cannot_make_a_link() {
    let (n, _) = url_notice(&request(
        Some("github asks you to open paypal.com"),
        "<a href='https://x.example'>x</a>",
        "https://github.com/",
    ));
    assert!(
        n.summary
            .starts_with("App “github asks you to open paypal[.]com” → "),
        "{}",
        n.summary
    );
    assert!(
        n.summary.ends_with(" asks you to open github.com"),
        "{}",
        n.summary
    );
    let text = all_text(&n);
    assert!(
        !text.contains("paypal.com") && !text.contains("://") && !text.contains('<'),
        "{text}"
    );
    let long = url_notice(&request(
        Some(&"y".repeat(9000)),
        "s",
        "https://github.com/",
    ))
    .0;
    assert!(long.summary.chars().count() < 250);
}

#[test]
fn late_and_form_notices_name_the_app() {
    let r = request(Some("zed"), "github", "https://github.com/");
    let late = late_notice(&r);
    assert_eq!(late.summary, "Still waiting for github.com");
    assert!(late.body.starts_with("Zed → github has not heard back yet"));
    let form = form_notice(
        &FormConsentRequest {
            record_id: 1,
            server: "github".into(),
            message: "m".into(),
            origin: Origin::Request,
            schema: airlock_core::elicitation::form::parse_schema(
                &serde_json::json!({"properties": {}}),
            )
            .unwrap(),
            app: Some("lm-studio".into()),
            to_app: None,
        },
        NoticeHost::Daemon,
    );
    assert_eq!(
        form.summary,
        "LM Studio → github asks you to fill in a form"
    );
    assert!(form.actions.is_empty());
    assert!(form.body.contains("Open Airlock"));
}
