//! Table-driven tests of `inspect`.

use airlock_url_safety::{
    inspect, BlockReason, Inspection, Policy, Verdict, Warning, LINK_SHORTENERS, MAX_URL_LEN,
};

use BlockReason::*;
use Warning::*;

fn run(raw: &str) -> Inspection {
    inspect(raw, &Policy::default())
}

fn strict() -> Policy {
    Policy {
        allow_http_loopback: false,
    }
}

/// Checks the invariants that hold for every inspection.
fn check_invariants(raw: &str, i: &Inspection) {
    let expected = if i.block_reason.is_some() {
        Verdict::Block
    } else if !i.warnings.is_empty() {
        Verdict::Warn
    } else {
        Verdict::Ok
    };
    assert_eq!(i.verdict, expected, "verdict for {raw:?}: {i:?}");
    let mut sorted = i.warnings.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, i.warnings, "warnings sorted and unique for {raw:?}");
    if i.url.is_none() {
        assert!(i.scheme.is_none() && i.display_host.is_none() && i.ascii_host.is_none());
        assert!(i.registrable_domain.is_none() && i.port.is_none());
    }
}

/// (raw, exact warnings, block reason)
type Row = (&'static str, &'static [Warning], Option<BlockReason>);

fn check_rows(rows: &[Row], policy: &Policy) {
    for (raw, warnings, block) in rows {
        let i = inspect(raw, policy);
        check_invariants(raw, &i);
        assert_eq!(&i.warnings[..], *warnings, "warnings for {raw:?}: {i:?}");
        assert_eq!(i.block_reason, *block, "block reason for {raw:?}: {i:?}");
    }
}

#[test]
fn plain_https_is_ok() {
    let rows: &[Row] = &[
        ("https://example.com/", &[], None),
        ("https://example.com", &[], None),
        ("HTTPS://EXAMPLE.COM/Path?q=1#frag", &[], None),
        ("https://example.com:443/", &[], None),
        ("  https://example.com/  ", &[], None),
        (
            "https://accounts.google.com/o/oauth2/auth?client_id=x&redirect_uri=https%3A%2F%2Fa.b",
            &[],
            None,
        ),
        ("https://example.com/a@b", &[], None),
        ("https://example.com/?next=user@host", &[], None),
    ];
    check_rows(rows, &Policy::default());
    let i = run("HTTPS://EXAMPLE.COM/Path?q=1#frag");
    assert_eq!(i.verdict, Verdict::Ok);
    assert_eq!(i.url.as_deref(), Some("https://example.com/Path?q=1#frag"));
    assert_eq!(i.scheme.as_deref(), Some("https"));
    assert_eq!(i.display_host.as_deref(), Some("example.com"));
    assert_eq!(i.ascii_host.as_deref(), Some("example.com"));
    assert_eq!(i.registrable_domain.as_deref(), Some("example.com"));
    assert_eq!(i.port, None);
}

#[test]
fn not_https() {
    let rows: &[Row] = &[
        ("http://localhost/", &[NotHttps, LocalAddress], None),
        (
            "http://127.0.0.1/cb",
            &[NotHttps, IpLiteral, LocalAddress],
            None,
        ),
        ("http://[::1]/", &[NotHttps, IpLiteral, LocalAddress], None),
        ("http://example.com/", &[NotHttps], Some(InsecureScheme)),
        ("HTTP://Example.COM", &[NotHttps], Some(InsecureScheme)),
    ];
    check_rows(rows, &Policy::default());
}

#[test]
fn insecure_scheme_blocks_http_to_anything_but_loopback() {
    let rows: &[Row] = &[
        ("http://example.com/", &[NotHttps], Some(InsecureScheme)),
        ("http:example.com", &[NotHttps], Some(InsecureScheme)),
        (
            "http://10.0.0.1/",
            &[NotHttps, IpLiteral, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://192.168.1.1/admin",
            &[NotHttps, IpLiteral, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://169.254.169.254/latest/meta-data/",
            &[NotHttps, IpLiteral, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://0.0.0.0:8080/",
            &[NotHttps, IpLiteral, LocalAddress, NonDefaultPort],
            Some(InsecureScheme),
        ),
        (
            "http://[::]/",
            &[NotHttps, IpLiteral, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://[fe80::1]/",
            &[NotHttps, IpLiteral, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://localhost.example.com/",
            &[NotHttps],
            Some(InsecureScheme),
        ),
        (
            "http://8.8.8.8/",
            &[NotHttps, IpLiteral],
            Some(InsecureScheme),
        ),
    ];
    check_rows(rows, &Policy::default());
}

#[test]
fn http_loopback_allowed_by_default_with_warnings() {
    let rows: &[Row] = &[
        (
            "http://localhost:3000/callback?code=abc",
            &[NotHttps, LocalAddress, NonDefaultPort],
            None,
        ),
        ("http://LOCALHOST/", &[NotHttps, LocalAddress], None),
        ("http://localhost./", &[NotHttps, LocalAddress], None),
        ("http://app.localhost/", &[NotHttps, LocalAddress], None),
        (
            "http://127.0.0.1:8765/",
            &[NotHttps, IpLiteral, LocalAddress, NonDefaultPort],
            None,
        ),
        (
            "http://127.255.255.254/",
            &[NotHttps, IpLiteral, LocalAddress],
            None,
        ),
        ("http://127.1/", &[NotHttps, IpLiteral, LocalAddress], None),
        (
            "http://[::1]:9000/",
            &[NotHttps, IpLiteral, LocalAddress, NonDefaultPort],
            None,
        ),
        (
            "http://[::ffff:127.0.0.1]/",
            &[NotHttps, IpLiteral, LocalAddress],
            None,
        ),
    ];
    check_rows(rows, &Policy::default());
    let i = run("http://localhost:3000/callback");
    assert_eq!(i.verdict, Verdict::Warn);
    assert_eq!(i.port, Some(3000));
}

#[test]
fn http_loopback_blocked_by_strict_policy() {
    let rows: &[Row] = &[
        (
            "http://localhost:3000/",
            &[NotHttps, LocalAddress, NonDefaultPort],
            Some(InsecureScheme),
        ),
        (
            "http://127.0.0.1/",
            &[NotHttps, IpLiteral, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://[::1]/",
            &[NotHttps, IpLiteral, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://x.localhost/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
        // https to loopback is not affected by the policy.
        ("https://localhost/", &[LocalAddress], None),
        ("https://127.0.0.1/", &[IpLiteral, LocalAddress], None),
    ];
    check_rows(rows, &strict());
}

#[test]
fn policy_default_and_serde() {
    assert!(Policy::default().allow_http_loopback);
    let p: Policy = serde_json::from_str("{}").unwrap();
    assert!(p.allow_http_loopback);
    let p: Policy = serde_json::from_str(r#"{"allow_http_loopback":false}"#).unwrap();
    assert!(!p.allow_http_loopback);
}

#[test]
fn scheme_not_allowed() {
    let rows: &[&str] = &[
        "javascript:alert(1)",
        "JavaScript:alert(document.cookie)",
        "data:text/html,<script>alert(1)</script>",
        "data:text/html;base64,PHNjcmlwdD4=",
        "file:///etc/passwd",
        "file://server/share",
        "about:blank",
        "blob:https://example.com/uuid",
        "ftp://example.com/file",
        "ws://example.com/",
        "wss://example.com/",
        "vscode://extension/install",
        "mailto:someone@example.com",
        "tel:+15555555555",
        "chrome://settings",
        "intent://scan/#Intent;scheme=zxing;end",
        "x-custom-app:do-something",
    ];
    for raw in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert_eq!(i.block_reason, Some(SchemeNotAllowed), "{raw:?}: {i:?}");
        assert_eq!(i.verdict, Verdict::Block);
        assert!(i.url.is_some(), "parseable, so url is set: {raw:?}");
        assert!(!i.has_warning(NotHttps));
    }
    let i = run("JavaScript:alert(1)");
    assert_eq!(i.scheme.as_deref(), Some("javascript"));
    // mailto's '@' is not userinfo of an authority.
    assert!(run("mailto:someone@example.com").warnings.is_empty());
}

#[test]
fn unparseable() {
    let rows: &[&str] = &[
        "",
        " ",
        "\t\n",
        "example.com",
        "www.example.com/path",
        "/relative/path",
        "//example.com/protocol-relative",
        "?q=1",
        "#frag",
        "https://",
        "https:///",
        "http://",
        "https://exa mple.com/",
        "https://[::1/",
        "https://[fe80::1%25eth0]/",
        "https://example.com:99999/",
        "https://example.com:-1/",
        "https://1.2.3.4.5/",
        "https://999999999999/",
        "https://xn--/",
        "https://a..b/",
        "https://./",
        "https://example.com../",
        "https://ex\u{202E}ample.com/",
        "https://exa<mple.com/",
        "not a url at all",
        "https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com/",
    ];
    for raw in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert_eq!(i.block_reason, Some(Unparseable), "{raw:?}: {i:?}");
        assert_eq!(i.url, None, "{raw:?}");
    }
    // Hidden characters are still reported for unparseable input.
    let i = run("https://ex\u{202E}ample.com/");
    assert_eq!(i.warnings, vec![HiddenCharacters]);
}

#[test]
fn too_long_bounds() {
    let prefix = "https://example.com/";
    let at_limit = format!("{prefix}{}", "a".repeat(MAX_URL_LEN - prefix.len()));
    assert_eq!(at_limit.len(), MAX_URL_LEN);
    let i = run(&at_limit);
    assert_eq!(i.block_reason, None);
    assert_eq!(i.verdict, Verdict::Ok);
    assert_eq!(i.url.as_deref(), Some(at_limit.as_str()));

    let over = format!("{at_limit}a");
    assert_eq!(over.len(), MAX_URL_LEN + 1);
    let i = run(&over);
    check_invariants(&over, &i);
    assert_eq!(i.block_reason, Some(TooLong));
    assert_eq!(i.url, None);

    // Bytes, not characters: 4096 two-byte characters make 8192 bytes.
    let multibyte_ok = format!("{prefix}{}", "é".repeat((MAX_URL_LEN - prefix.len()) / 2));
    assert_eq!(multibyte_ok.len(), MAX_URL_LEN);
    assert_eq!(run(&multibyte_ok).block_reason, None);
    let multibyte_over = format!("{multibyte_ok}é");
    assert_eq!(run(&multibyte_over).block_reason, Some(TooLong));

    // Too long wins over everything else, and huge input is fine.
    let huge = format!("javascript:{}", "x".repeat(1 << 20));
    assert_eq!(run(&huge).block_reason, Some(TooLong));
    let huge_hidden = format!("https://x.com/\u{202E}{}", "x".repeat(MAX_URL_LEN));
    let i = run(&huge_hidden);
    assert_eq!(i.block_reason, Some(TooLong));
    assert_eq!(i.warnings, vec![HiddenCharacters]);
}

#[test]
fn ip_literal_forms() {
    // (raw, normalised host, local?)
    let rows: &[(&str, &str, bool)] = &[
        ("https://93.184.216.34/", "93.184.216.34", false),
        ("https://8.8.8.8/", "8.8.8.8", false),
        ("https://2130706433/", "127.0.0.1", true),
        ("https://0x7f.1/", "127.0.0.1", true),
        ("https://0x7f000001/", "127.0.0.1", true),
        ("https://127.1/", "127.0.0.1", true),
        ("https://0177.0.0.1/", "127.0.0.1", true),
        ("https://017700000001/", "127.0.0.1", true),
        ("https://10.1/", "10.0.0.1", true),
        ("https://3232235777/", "192.168.1.1", true),
        ("https://0xA9FEA9FE/", "169.254.169.254", true),
        ("https://134744072/", "8.8.8.8", false),
        ("https://[2001:db8::1]/", "[2001:db8::1]", false),
        (
            "https://[2606:4700:4700::1111]/",
            "[2606:4700:4700::1111]",
            false,
        ),
        ("https://[::1]/", "[::1]", true),
        ("https://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]", true),
        ("https://[::ffff:8.8.8.8]/", "[::ffff:808:808]", false),
        ("https://[0:0:0:0:0:0:0:1]/", "[::1]", true),
    ];
    for (raw, host, local) in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert!(i.has_warning(IpLiteral), "{raw:?}: {i:?}");
        assert_eq!(i.has_warning(LocalAddress), *local, "{raw:?}: {i:?}");
        assert_eq!(i.ascii_host.as_deref(), Some(*host), "{raw:?}");
        assert_eq!(i.display_host.as_deref(), Some(*host), "{raw:?}");
        assert_eq!(i.registrable_domain.as_deref(), Some(*host), "{raw:?}");
        assert_eq!(i.block_reason, None);
    }
    assert_eq!(
        run("https://0x7f.1/").url.as_deref(),
        Some("https://127.0.0.1/")
    );
    // Things that look numeric but are domain names.
    for raw in [
        "https://1.2.3.4.example/",
        "https://123abc.com/",
        "https://v1.example.com/",
    ] {
        let i = run(raw);
        assert!(!i.has_warning(IpLiteral), "{raw:?}: {i:?}");
    }
}

#[test]
fn local_addresses() {
    let local: &[&str] = &[
        "https://127.0.0.1/",
        "https://127.8.9.10/",
        "https://10.0.0.1/",
        "https://10.255.255.255/",
        "https://172.16.0.1/",
        "https://172.31.255.255/",
        "https://192.168.0.1/",
        "https://169.254.0.1/",
        "https://169.254.169.254/",
        "https://100.64.0.1/",
        "https://100.127.255.255/",
        "https://0.0.0.0/",
        "https://0/",
        "https://255.255.255.255/",
        "https://[::1]/",
        "https://[::]/",
        "https://[fe80::1]/",
        "https://[febf::1]/",
        "https://[fc00::1]/",
        "https://[fd12:3456:789a::1]/",
        "https://[::ffff:10.0.0.1]/",
        "https://[::ffff:192.168.1.1]/",
        "https://[::ffff:169.254.169.254]/",
        "https://[64:ff9b::10.0.0.1]/",
        "https://localhost/",
        "https://localhost./",
        "https://LocalHost:8443/",
        "https://foo.localhost/",
        "https://a.b.localhost/",
    ];
    for raw in local {
        let i = run(raw);
        check_invariants(raw, &i);
        assert!(i.has_warning(LocalAddress), "{raw:?}: {i:?}");
        assert_eq!(i.block_reason, None, "{raw:?}");
    }
    let public: &[&str] = &[
        "https://11.0.0.1/",
        "https://172.15.255.255/",
        "https://172.32.0.1/",
        "https://192.169.0.1/",
        "https://169.253.1.1/",
        "https://100.63.255.255/",
        "https://100.128.0.1/",
        "https://1.1.1.1/",
        "https://[2001:4860:4860::8888]/",
        "https://[fe7f::1]/",
        "https://[fec0::1]/x", // deprecated site-local: counted as local
        "https://[::ffff:1.1.1.1]/",
        "https://localhost.example.com/",
        // (Dotless `mylocalhost` is a local-network name: see
        // `local_network_names`.)
        "https://mylocalhost.com/",
        "https://localhostx.com/",
        "https://example.com/localhost",
        "https://local.example.com/",
        "https://internal.example.com/",
        "https://lan.example.com/",
        "https://example.com.local.example/",
        "https://home.arpa.example/",
    ];
    for raw in public {
        let i = run(raw);
        check_invariants(raw, &i);
        let expect_local = raw.contains("fec0");
        assert_eq!(i.has_warning(LocalAddress), expect_local, "{raw:?}: {i:?}");
    }
    // localhost names: the registrable domain is the host itself.
    assert_eq!(
        run("https://a.b.localhost/").registrable_domain.as_deref(),
        Some("a.b.localhost")
    );
    assert_eq!(
        run("https://localhost./").registrable_domain.as_deref(),
        Some("localhost")
    );
}

#[test]
fn local_network_names() {
    // (raw, registrable domain): all get `local_address`, none is loopback.
    let rows: &[(&str, &str)] = &[
        ("https://intranet/", "intranet"),
        ("https://INTRANET/", "intranet"),
        ("https://intranet./", "intranet"),
        ("https://printer:8443/", "printer"),
        ("https://mylocalhost/", "mylocalhost"),
        ("https://com/", "com"),
        ("https://printer.local/", "printer.local"),
        ("https://Printer.LOCAL./", "printer.local"),
        ("https://a.b.printer.local/", "a.b.printer.local"),
        ("https://local/", "local"),
        ("https://wiki.corp.internal/", "wiki.corp.internal"),
        (
            "https://metadata.google.internal/",
            "metadata.google.internal",
        ),
        ("https://nas.home.arpa/", "nas.home.arpa"),
        ("https://NAS.Home.Arpa./", "nas.home.arpa"),
        ("https://home.arpa/", "home.arpa"),
        ("https://router.lan/", "router.lan"),
        ("https://ROUTER.LAN./", "router.lan"),
        ("https://drucker-büro.local/", "xn--drucker-bro-1hb.local"),
    ];
    for (raw, reg) in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert!(i.has_warning(LocalAddress), "{raw:?}: {i:?}");
        assert_eq!(i.block_reason, None, "{raw:?}: {i:?}");
        assert_eq!(i.verdict, Verdict::Warn, "{raw:?}");
        assert_eq!(
            i.registrable_domain.as_deref(),
            Some(*reg),
            "{raw:?}: {i:?}"
        );
    }
    assert_eq!(run("https://intranet/").warnings, vec![LocalAddress]);
    assert_eq!(
        run("https://printer:8443/").warnings,
        vec![LocalAddress, NonDefaultPort]
    );
    // The host is shown as typed (with its trailing dot), the registrable
    // domain without.
    let i = run("https://Printer.LOCAL./");
    assert_eq!(i.display_host.as_deref(), Some("printer.local."));

    // Plain http to a local-network name follows the private-IP rule
    // (blocked), not the loopback one; `.localhost` stays loopback.
    let rows: &[Row] = &[
        (
            "http://intranet/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://printer:8080/",
            &[NotHttps, LocalAddress, NonDefaultPort],
            Some(InsecureScheme),
        ),
        (
            "http://printer.local/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://nas.home.arpa/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://router.lan/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
        (
            "http://x.internal/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
        ("http://app.localhost/", &[NotHttps, LocalAddress], None),
        ("http://localhost./", &[NotHttps, LocalAddress], None),
    ];
    check_rows(rows, &Policy::default());
    let rows: &[Row] = &[
        (
            "http://router.lan/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
        ("https://router.lan/", &[LocalAddress], None),
        (
            "http://app.localhost/",
            &[NotHttps, LocalAddress],
            Some(InsecureScheme),
        ),
    ];
    check_rows(rows, &strict());

    // Opaque hosts of other schemes are no network names: blocked, but not
    // called local (`extension` here is not a machine).
    let i = run("vscode://extension/install");
    assert_eq!(i.block_reason, Some(SchemeNotAllowed));
    assert!(!i.has_warning(LocalAddress), "{i:?}");
    // `file:` hosts are DNS names: a dotless file server is local.
    let i = run("file://server/share");
    assert_eq!(i.block_reason, Some(SchemeNotAllowed));
    assert!(i.has_warning(LocalAddress), "{i:?}");

    // Look-alikes of the suffixes are public names.
    for raw in [
        "https://printer.local.example.com/",
        "https://printerlocal.com/",
        "https://x.xlan/",
        "https://myhome.arpa/",
        "https://x.internal.example/",
    ] {
        let i = run(raw);
        assert!(!i.has_warning(LocalAddress), "{raw:?}: {i:?}");
    }
}

#[test]
fn userinfo() {
    let rows: &[(&str, &str)] = &[
        ("https://google.com@evil.example/", "evil.example"),
        (
            "https://accounts.google.com:443@evil.example/login",
            "evil.example",
        ),
        ("https://user:pass@example.com/", "example.com"),
        ("https://:password@example.com/", "example.com"),
        ("https://user@example.com/", "example.com"),
        ("https://@example.com/", "example.com"),
        ("https://:@example.com/", "example.com"),
        ("https:\\\\google.com@evil.example/", "evil.example"),
        (
            "https://www.paypal.com%2Flogin@evil.example/",
            "evil.example",
        ),
    ];
    for (raw, reg) in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert!(i.has_warning(Userinfo), "{raw:?}: {i:?}");
        assert_eq!(i.registrable_domain.as_deref(), Some(*reg), "{raw:?}");
        assert_eq!(i.verdict, Verdict::Warn, "{raw:?}");
    }
    let i = run("https://google.com@evil.example/");
    assert_eq!(i.warnings, vec![Userinfo]);
    assert_eq!(i.display_host.as_deref(), Some("evil.example"));
    assert_eq!(i.url.as_deref(), Some("https://google.com@evil.example/"));
    // A backslash ends the authority: the '@' is in the path.
    let i = run("https://example.com\\@evil.example/");
    assert_eq!(i.display_host.as_deref(), Some("example.com"));
    assert!(!i.has_warning(Userinfo), "{i:?}");
}

#[test]
fn non_default_port() {
    let rows: &[(&str, u16)] = &[
        ("https://example.com:8443/", 8443),
        ("https://example.com:80/", 80),
        ("https://example.com:1/", 1),
        ("https://example.com:65535/", 65535),
        ("https://[2001:db8::1]:444/", 444),
    ];
    for (raw, port) in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert!(i.has_warning(NonDefaultPort), "{raw:?}: {i:?}");
        assert_eq!(i.port, Some(*port), "{raw:?}");
    }
    for raw in [
        "https://example.com:443/",
        "https://example.com:0443/",
        "http://localhost:80/",
    ] {
        let i = run(raw);
        assert!(!i.has_warning(NonDefaultPort), "{raw:?}: {i:?}");
        assert_eq!(i.port, None, "{raw:?}");
    }
}

#[test]
fn link_shorteners() {
    let rows: &[Row] = &[
        ("https://bit.ly/3xYz", &[LinkShortener], None),
        ("https://t.co/AbC123", &[LinkShortener], None),
        ("https://www.tinyurl.com/abc", &[LinkShortener], None),
        ("https://BIT.LY./x", &[LinkShortener], None),
        ("https://lnkd.in/e_x", &[LinkShortener], None),
        (
            "https://bit.ly:8443/x",
            &[NonDefaultPort, LinkShortener],
            None,
        ),
        (
            "http://bit.ly/x",
            &[NotHttps, LinkShortener],
            Some(InsecureScheme),
        ),
        // Not a shortener: only its own registrable domain counts (it
        // carries the shortener's name, though).
        ("https://bit.ly.evil.example/x", &[EmbedsWellKnown], None),
        ("https://notbit.ly/x", &[], None),
        ("https://bitly.example/x", &[], None),
        ("https://t.com/x", &[], None),
        ("https://youtu.be/x", &[], None),
    ];
    check_rows(rows, &Policy::default());
    // Each entry is lower case, in order, and its own registrable domain
    // (a host like `www.bit.ly` would never match).
    let mut sorted = LINK_SHORTENERS;
    sorted.sort_unstable();
    assert_eq!(sorted, LINK_SHORTENERS);
    for d in LINK_SHORTENERS {
        assert_eq!(d, d.to_ascii_lowercase());
        let i = run(&format!("https://{d}/x"));
        assert_eq!(i.registrable_domain.as_deref(), Some(d), "{i:?}");
        assert_eq!(i.warnings, [LinkShortener], "{d}");
    }
}

#[test]
fn hidden_characters() {
    let rows: &[&str] = &[
        "https://example.com/\u{202E}fdp.exe",
        "https://example.com/\u{202D}x",
        "https://example.com/\u{2066}x\u{2069}",
        "https://example.com/\u{200E}",
        "https://example.com/\u{200F}",
        "https://example.com/\u{061C}",
        "https://example.com/a\u{200B}b",
        "https://exa\u{200B}mple.com/",
        "https://example.com/\u{200C}",
        "https://example.com/\u{200D}",
        "https://example.com/\u{2060}",
        "\u{FEFF}https://example.com/",
        "https://exa\u{AD}mple.com/",
        "https://example.com/\u{0007}",
        "https://exa\tmple.com/",
        "https://example.com/\npath",
        "https://example.com/\u{1B}[31m",
        "https://example.com/\u{9B}",
        "https://example.com/\u{E0041}",
        "https://example.com/\u{FE0F}",
        // Percent-encoded hidden characters, which a "pretty" display
        // would decode.
        "https://example.com/%E2%80%AEfdp.exe",
        "https://exa%E2%80%8Bmple.com/",
        "https://example.com/?q=%e2%81%a6",
    ];
    for raw in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert!(i.has_warning(HiddenCharacters), "{raw:?}: {i:?}");
    }
    // The parser strips some of them, yet the warning stays.
    let i = run("https://exa\u{200B}mple.com/");
    assert_eq!(i.url.as_deref(), Some("https://example.com/"));
    assert_eq!(i.warnings, vec![HiddenCharacters]);
    let i = run("https://example.com/\u{202E}abc");
    assert_eq!(i.url.as_deref(), Some("https://example.com/%E2%80%AEabc"));
    assert_eq!(i.verdict, Verdict::Warn);

    // Not hidden: visible non-ASCII, encoded ASCII controls in data, and
    // malformed percent escapes.
    for raw in [
        "https://example.com/caf%C3%A9",
        "https://example.com/?text=line1%0Aline2",
        "https://example.com/%",
        "https://example.com/%E2%80",
        "https://example.com/%zz",
        "https://example.com/😀",
    ] {
        let i = run(raw);
        assert!(!i.has_warning(HiddenCharacters), "{raw:?}: {i:?}");
    }
}

#[test]
fn idn_display() {
    // (raw, display_host, ascii_host, punycode warning?)
    let rows: &[(&str, &str, &str, bool)] = &[
        (
            "https://münchen.de/",
            "münchen.de",
            "xn--mnchen-3ya.de",
            false,
        ),
        (
            "https://xn--mnchen-3ya.de/",
            "münchen.de",
            "xn--mnchen-3ya.de",
            false,
        ),
        (
            "https://MÜNCHEN.DE/",
            "münchen.de",
            "xn--mnchen-3ya.de",
            false,
        ),
        ("https://straße.de/", "straße.de", "xn--strae-oqa.de", false),
        ("https://café.fr/", "café.fr", "xn--caf-dma.fr", false),
        (
            "https://例子.测试/",
            "例子.测试",
            "xn--fsqu00a.xn--0zwm56d",
            false,
        ),
        (
            "https://日本語.jp/",
            "日本語.jp",
            "xn--wgv71a119e.jp",
            false,
        ),
        (
            "https://пример.рф/",
            "пример.рф",
            "xn--e1afmkfd.xn--p1ai",
            false,
        ),
        (
            "https://παράδειγμα.gr/",
            "παράδειγμα.gr",
            "xn--hxajbheg2az3al.gr",
            false,
        ),
        // Cyrillic а (U+0430) + Latin "pple": mixed script.
        (
            "https://\u{0430}pple.com/",
            "xn--pple-43d.com",
            "xn--pple-43d.com",
            true,
        ),
        // Cyrillic о in "google".
        (
            "https://g\u{043E}\u{043E}gle.com/",
            "xn--ggle-55da.com",
            "xn--ggle-55da.com",
            true,
        ),
        // Whole-script confusables: all Cyrillic / all Greek, look Latin.
        (
            "https://\u{0455}\u{0441}\u{043E}\u{0440}\u{0435}.com/",
            "xn--e1argc3h.com",
            "xn--e1argc3h.com",
            true,
        ),
        (
            "https://\u{0440}\u{0430}\u{0443}\u{0440}\u{0430}\u{04CF}.com/",
            "xn--80aa0cbo65f.com",
            "xn--80aa0cbo65f.com",
            true,
        ),
        (
            "https://\u{03C1}\u{03B1}\u{03B3}.com/",
            "xn--mxae4b.com",
            "xn--mxae4b.com",
            true,
        ),
        // Latin dotless ı: confusable with ASCII "github".
        (
            "https://g\u{0131}thub.com/",
            "xn--gthub-n4a.com",
            "xn--gthub-n4a.com",
            true,
        ),
        // Mixed-script label under an otherwise fine name: only that
        // label is shown as Punycode.
        (
            "https://login.\u{0430}pple.com/",
            "login.xn--pple-43d.com",
            "login.xn--pple-43d.com",
            true,
        ),
        (
            "https://münchen.\u{0430}pple.com/",
            "münchen.xn--pple-43d.com",
            "xn--mnchen-3ya.xn--pple-43d.com",
            true,
        ),
        // Non-identifier character (U+1D00 small capital A).
        (
            "https://\u{1D00}pple.com/",
            "xn--pple-k13a.com",
            "xn--pple-k13a.com",
            true,
        ),
        // Typed directly as Punycode, still refused.
        (
            "https://xn--pple-43d.com/",
            "xn--pple-43d.com",
            "xn--pple-43d.com",
            true,
        ),
    ];
    for (raw, display, ascii, puny) in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert_eq!(i.display_host.as_deref(), Some(*display), "{raw:?}: {i:?}");
        assert_eq!(i.ascii_host.as_deref(), Some(*ascii), "{raw:?}: {i:?}");
        assert_eq!(i.has_warning(Punycode), *puny, "{raw:?}: {i:?}");
        assert_eq!(i.block_reason, None, "{raw:?}");
    }
    // A whole name that folds to a well-known one also carries it.
    let i = run("https://\u{0430}pple.com/");
    assert_eq!(i.warnings, vec![Punycode, EmbedsWellKnown]);
    assert_eq!(i.embedded_domain.as_deref(), Some("apple.com"));
    assert_eq!(i.verdict, Verdict::Warn);
    assert_eq!(i.url.as_deref(), Some("https://xn--pple-43d.com/"));
    assert_eq!(i.registrable_domain.as_deref(), Some("xn--pple-43d.com"));
    assert_eq!(run("https://münchen.de/").verdict, Verdict::Ok);
}

#[test]
fn registrable_domain_from_embedded_psl() {
    let rows: &[(&str, &str)] = &[
        ("https://example.com/", "example.com"),
        ("https://www.example.com/", "example.com"),
        ("https://a.b.example.co.uk/", "example.co.uk"),
        ("https://example.co.uk/", "example.co.uk"),
        ("https://accounts.google.com.evil.example/", "evil.example"),
        ("https://accounts.google.com.evil.com/", "evil.com"),
        ("https://www.bbc.co.uk/news", "bbc.co.uk"),
        ("https://foo.bar.kawasaki.jp/", "foo.bar.kawasaki.jp"),
        // Private section.
        ("https://attacker.github.io/", "attacker.github.io"),
        ("https://x.attacker.github.io/", "attacker.github.io"),
        ("https://someone.blogspot.com/", "someone.blogspot.com"),
        ("https://app.herokuapp.com/", "app.herokuapp.com"),
        (
            "https://bucket.s3.amazonaws.com/",
            "bucket.s3.amazonaws.com",
        ),
        // Hosts that are themselves public suffixes.
        ("https://github.io/", "github.io"),
        ("https://co.uk/", "co.uk"),
        ("https://com/", "com"),
        // Unknown TLDs fall back to the "*" rule.
        ("https://a.b.corp.unknowntld/", "corp.unknowntld"),
        // Local-network names: no registry, the whole name (see
        // `local_network_names`).
        ("https://intranet/", "intranet"),
        ("https://a.b.corp.internal/", "a.b.corp.internal"),
        // Trailing dot.
        ("https://example.com./", "example.com"),
        ("https://www.example.co.uk./", "example.co.uk"),
        // IDN: ASCII form.
        ("https://www.münchen.de/", "xn--mnchen-3ya.de"),
        ("https://пример.рф/", "xn--e1afmkfd.xn--p1ai"),
    ];
    for (raw, reg) in rows {
        let i = run(raw);
        check_invariants(raw, &i);
        assert_eq!(
            i.registrable_domain.as_deref(),
            Some(*reg),
            "{raw:?}: {i:?}"
        );
    }
}

#[test]
fn trailing_dot_hosts() {
    let i = run("https://example.com./path");
    assert_eq!(i.verdict, Verdict::Ok);
    assert_eq!(i.url.as_deref(), Some("https://example.com./path"));
    assert_eq!(i.display_host.as_deref(), Some("example.com."));
    assert_eq!(i.ascii_host.as_deref(), Some("example.com."));
    assert_eq!(i.registrable_domain.as_deref(), Some("example.com"));
    let i = run("https://münchen.de./");
    assert_eq!(i.display_host.as_deref(), Some("münchen.de."));
    assert_eq!(i.registrable_domain.as_deref(), Some("xn--mnchen-3ya.de"));
    let i = run("http://localhost.:8080/");
    assert_eq!(i.block_reason, None);
    assert!(i.has_warning(LocalAddress));
}

#[test]
fn combined_warnings_and_ordering() {
    let i = run("http://user:pw@127.0.0.1:8080/\u{202E}");
    assert_eq!(
        i.warnings,
        vec![
            NotHttps,
            IpLiteral,
            LocalAddress,
            Userinfo,
            NonDefaultPort,
            HiddenCharacters
        ]
    );
    assert_eq!(i.verdict, Verdict::Warn);
    let i = run("https://paypal.com@\u{0430}pple.com:8443/");
    assert_eq!(
        i.warnings,
        vec![Punycode, Userinfo, NonDefaultPort, EmbedsWellKnown]
    );
    // Blocked URLs still carry their warnings.
    let i = run("http://user@example.com:81/");
    assert_eq!(i.block_reason, Some(InsecureScheme));
    assert_eq!(i.warnings, vec![NotHttps, Userinfo, NonDefaultPort]);
}

#[test]
fn codes() {
    let expected = [
        (NotHttps, "not_https"),
        (Punycode, "punycode"),
        (IpLiteral, "ip_literal"),
        (LocalAddress, "local_address"),
        (Userinfo, "userinfo"),
        (NonDefaultPort, "non_default_port"),
        (HiddenCharacters, "hidden_characters"),
        (LinkShortener, "link_shortener"),
        (EmbedsWellKnown, "embeds_well_known"),
        (NamesOtherSite, "names_other_site"),
    ];
    assert_eq!(Warning::ALL.len(), expected.len());
    for (w, code) in expected {
        assert_eq!(w.code(), code);
        assert_eq!(w.to_string(), code);
        assert_eq!(serde_json::to_string(&w).unwrap(), format!("\"{code}\""));
        assert_eq!(
            serde_json::from_str::<Warning>(&format!("\"{code}\"")).unwrap(),
            w
        );
    }
    let blocks = [
        (SchemeNotAllowed, "scheme_not_allowed"),
        (InsecureScheme, "insecure_scheme"),
        (Unparseable, "unparseable"),
        (TooLong, "too_long"),
    ];
    for (b, code) in blocks {
        assert_eq!(b.code(), code);
        assert_eq!(b.to_string(), code);
        assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{code}\""));
    }
    for (v, code) in [
        (Verdict::Ok, "ok"),
        (Verdict::Warn, "warn"),
        (Verdict::Block, "block"),
    ] {
        assert_eq!(v.code(), code);
        assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{code}\""));
    }
}

#[test]
fn inspection_serde_round_trip() {
    let i = run("http://user@localhost:3000/cb");
    let json = serde_json::to_value(&i).unwrap();
    assert_eq!(json["verdict"], "warn");
    assert_eq!(json["url"], "http://user@localhost:3000/cb");
    assert_eq!(json["scheme"], "http");
    assert_eq!(json["display_host"], "localhost");
    assert_eq!(json["ascii_host"], "localhost");
    assert_eq!(json["registrable_domain"], "localhost");
    assert_eq!(json["port"], 3000);
    assert_eq!(
        json["warnings"],
        serde_json::json!(["not_https", "local_address", "userinfo", "non_default_port"])
    );
    assert!(json["block_reason"].is_null());
    let back: Inspection = serde_json::from_value(json).unwrap();
    assert_eq!(back, i);

    let json = serde_json::to_value(run("javascript:alert(1)")).unwrap();
    assert_eq!(json["verdict"], "block");
    assert_eq!(json["block_reason"], "scheme_not_allowed");
}
