//! Notifications: server names, domains and hosts as a notification server
//! shows them (no links, no markup, cut at the registrable domain).

use super::tests::url_request;
use super::*;
use airlock_core::elicitation::form::parse_schema;
use airlock_core::url_safety::{inspect, Policy};

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
                client: None,
                to_app: None,
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
