//! `airlock url-check`: the verdict, warnings, block reason, registrable
//! domain and normalised URL of the URL checks that guard URL elicitations,
//! in JSON and as text; offline, without a data dir.

mod common;

use common::*;

#[test]
fn url_check_verdicts() {
    let sb = Sandbox::new();
    // (url, extra flag, verdict, warnings that must be present, block reason, registrable domain, normalised url)
    type Case = (
        &'static str,
        Option<&'static str>,
        &'static str,
        &'static [&'static str],
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
    );
    let cases: &[Case] = &[
        (
            "https://example.com/",
            None,
            "ok",
            &[],
            None,
            Some("example.com"),
            Some("https://example.com/"),
        ),
        (
            "https://xn--pple-43d.com/login",
            None,
            "warn",
            &["punycode"],
            None,
            Some("xn--pple-43d.com"),
            None,
        ),
        (
            "https://\u{430}pple.com/",
            None,
            "warn",
            &["punycode"],
            None,
            Some("xn--pple-43d.com"),
            Some("https://xn--pple-43d.com/"),
        ),
        (
            "http://2130706433/",
            None,
            "warn",
            &["not_https", "ip_literal", "local_address"],
            None,
            Some("127.0.0.1"),
            Some("http://127.0.0.1/"),
        ),
        (
            "http://2130706433/",
            Some("--no-http-loopback"),
            "block",
            &["ip_literal"],
            Some("insecure_scheme"),
            None,
            None,
        ),
        (
            "https://2130706433/",
            None,
            "warn",
            &["ip_literal", "local_address"],
            None,
            Some("127.0.0.1"),
            None,
        ),
        (
            "https://accounts.google.com@evil.example/",
            None,
            "warn",
            &["userinfo"],
            None,
            Some("evil.example"),
            None,
        ),
        // A well-known domain carried in front of another: an imitation.
        (
            "https://accounts.google.com.evil.example/x",
            None,
            "warn",
            &["embeds_well_known"],
            None,
            Some("evil.example"),
            None,
        ),
        (
            "javascript:alert(1)",
            None,
            "block",
            &[],
            Some("scheme_not_allowed"),
            None,
            None,
        ),
        (
            "data:text/html,hi",
            None,
            "block",
            &[],
            Some("scheme_not_allowed"),
            None,
            None,
        ),
        (
            "http://evil.example/",
            None,
            "block",
            &["not_https"],
            Some("insecure_scheme"),
            Some("evil.example"),
            None,
        ),
        (
            "not a url",
            None,
            "block",
            &[],
            Some("unparseable"),
            None,
            None,
        ),
    ];
    for (url, flag, verdict, warnings, block, domain, normalised) in cases {
        let mut cmd = sb.cmd().args(["--json", "url-check"]);
        if let Some(f) = flag {
            cmd = cmd.arg(f);
        }
        let out = cmd.arg(url).run();
        let expected_code = if *verdict == "block" { 1 } else { 0 };
        out.expect_code(expected_code);
        let r = out.json();
        assert_eq!(r["verdict"], *verdict, "{url}: {out:?}");
        let got: Vec<&str> = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        for w in *warnings {
            assert!(got.contains(w), "{url}: warning {w} expected in {got:?}");
        }
        if warnings.is_empty() && *verdict == "ok" {
            assert!(got.is_empty(), "{url}: {got:?}");
        }
        match block {
            Some(b) => assert_eq!(r["block_reason"], *b, "{url}"),
            None => assert!(r["block_reason"].is_null(), "{url}: {r:#}"),
        }
        if let Some(d) = domain {
            assert_eq!(r["registrable_domain"], *d, "{url}");
        }
        if let Some(n) = normalised {
            assert_eq!(r["url"], *n, "{url}");
        }
    }

    // The text form leads with the verdict and the highlighted domain.
    let text = sb.run(&["url-check", "https://accounts.google.com.evil.example/x"]);
    text.ok();
    assert!(text.stdout.starts_with("Verdict:  warn"), "{text:?}");
    assert!(
        text.stdout.contains("Domain:   >>> evil.example <<<"),
        "{text:?}"
    );
    assert!(
        text.stdout.contains(
            "The address carries google.com, but the page is on evil.example, not on google.com."
        ),
        "{text:?}"
    );
    // With the message the server sent: a site it names that the page is not on.
    let named = sb.run(&[
        "--json",
        "url-check",
        "https://login.example-auth.net/",
        "--message",
        "Your session expired: sign in again at https://accounts.google.com/",
    ]);
    named.ok();
    let named = named.json();
    assert_eq!(named["warnings"], serde_json::json!(["names_other_site"]));
    assert_eq!(named["named_domain"], "google.com");
    let blocked = sb.run(&["url-check", "javascript:alert(1)"]);
    blocked.expect_code(1);
    assert!(blocked.stdout.contains("BLOCKED:"), "{blocked:?}");
    assert!(
        blocked.stdout.contains("(scheme_not_allowed)"),
        "{blocked:?}"
    );

    // url-check works offline and never touches the data dir.
    assert!(!sb.data.exists(), "url-check created the data dir");
}
