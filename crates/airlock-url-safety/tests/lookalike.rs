//! Tests of `skeleton`, `resemblance` and `closest_resemblance`.

use airlock_url_safety::{closest_resemblance, resemblance, skeleton, Resemblance, MAX_DOMAIN_LEN};

use Resemblance::*;

#[test]
fn skeletons() {
    let rows: &[(&str, &str)] = &[
        ("paypal.com", "paypai.com"),
        ("PAYPAL.COM.", "paypai.com"),
        ("www.paypal.com", "paypai.com"),
        ("login.paypal.com.", "paypai.com"),
        // Punycode and Unicode look-alikes (Cyrillic а, о).
        ("xn--pypal-4ve.com", "paypai.com"),
        ("p\u{0430}ypal.com", "paypai.com"),
        ("P\u{0410}YPAL.COM", "paypai.com"),
        ("xn--ggle-55da.com", "googie.com"),
        // ASCII look-alikes.
        ("paypa1.com", "paypai.com"),
        ("paypai.com", "paypai.com"),
        ("g00gle.com", "googie.com"),
        ("rnicrosoft.com", "microsoft.com"),
        ("microsoft.com", "microsoft.com"),
        ("vvikipedia.org", "wikipedia.org"),
        ("wikipedia.org", "wikipedia.org"),
        // Diacritics are dropped.
        ("p\u{00E0}ypal.com", "paypai.com"),
        ("münchen.de", "munchen.de"),
        ("xn--mnchen-3ya.de", "munchen.de"),
        // Full-width letters are mapped by IDNA first.
        ("\u{FF50}aypal.com", "paypai.com"),
        // The registrable domain: private suffixes count as suffixes.
        ("x.attacker.github.io", "attacker.github.io"),
        ("github.io", "github.io"),
        ("a.b.example.co.uk", "exampie.co.uk"),
        // Local-network names are taken whole.
        ("intranet", "intranet"),
        ("Printer.LOCAL.", "printer.iocai"),
        // ("internal" has an "rn".)
        ("wiki.corp.internal", "wiki.corp.intemai"),
        // IP addresses: their canonical form, unfolded.
        ("127.0.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("[::1]", "[::1]"),
        ("[0:0::1]", "[::1]"),
        // Refused.
        ("", ""),
        (".", ""),
        ("a..b", ""),
        ("xn--zz.com", ""),
        ("exa mple.com", ""),
        ("https://paypal.com/", ""),
        ("1.2.3.4.5", ""),
    ];
    for (input, expected) in rows {
        assert_eq!(skeleton(input), *expected, "{input:?}");
    }
}

#[test]
fn skeleton_length_bounds() {
    // 253 bytes (with or without one trailing dot) is the limit.
    let label = "a".repeat(63);
    let at_limit = format!("{label}.{label}.{label}.{}.com", "a".repeat(57));
    assert_eq!(at_limit.len(), MAX_DOMAIN_LEN);
    assert!(!skeleton(&at_limit).is_empty());
    assert!(!skeleton(&format!("{at_limit}.")).is_empty());
    let over = format!("a{at_limit}");
    assert_eq!(skeleton(&over), "");
    assert_eq!(skeleton(&format!("{over}.")), "");
    assert_eq!(skeleton(&format!("{at_limit}..")), "");
    // Labels of 64 bytes cannot exist.
    assert_eq!(skeleton(&format!("{label}a.com")), "");
    assert_eq!(
        skeleton(&format!("{label}.com")),
        format!("{}.com", "a".repeat(63))
    );
    // Huge input is refused at once.
    assert_eq!(skeleton(&"a".repeat(1 << 20)), "");
    assert_eq!(skeleton(&"ü".repeat(1 << 16)), "");
    // Unicode counts in bytes, before IDNA.
    assert_eq!(skeleton(&format!("{}.com", "ü".repeat(130))), "");
}

/// (candidate, known, expected)
type Row = (&'static str, &'static str, Option<Resemblance>);

fn check(rows: &[Row]) {
    for (candidate, known, expected) in rows {
        assert_eq!(
            resemblance(candidate, known),
            *expected,
            "{candidate:?} vs {known:?}"
        );
    }
}

#[test]
fn identical_domains_do_not_resemble() {
    check(&[
        ("paypal.com", "paypal.com", None),
        ("PAYPAL.COM.", "paypal.com", None),
        ("paypal.com", "PayPal.com.", None),
        ("www.paypal.com", "paypal.com", None),
        ("a.b.paypal.com", "login.paypal.com", None),
        ("xn--mnchen-3ya.de", "münchen.de", None),
        ("MÜNCHEN.de", "xn--mnchen-3ya.de", None),
        ("x.attacker.github.io", "attacker.github.io", None),
        ("intranet.", "INTRANET", None),
        ("printer.local", "Printer.Local.", None),
    ]);
}

#[test]
fn same_skeleton() {
    check(&[
        ("paypa1.com", "paypal.com", Some(SameSkeleton)),
        ("paypai.com", "paypal.com", Some(SameSkeleton)),
        ("PAYPA1.COM.", "paypal.com", Some(SameSkeleton)),
        ("login.paypa1.com", "paypal.com", Some(SameSkeleton)),
        ("paypal.com", "paypa1.com", Some(SameSkeleton)),
        // Punycode, Unicode, mixed script, whole script.
        ("xn--pypal-4ve.com", "paypal.com", Some(SameSkeleton)),
        ("p\u{0430}ypal.com", "paypal.com", Some(SameSkeleton)),
        ("xn--ggle-55da.com", "google.com", Some(SameSkeleton)),
        ("g\u{043E}\u{043E}gle.com", "google.com", Some(SameSkeleton)),
        (
            "\u{0455}\u{0441}\u{043E}\u{0440}\u{0435}.com",
            "scope.com",
            Some(SameSkeleton),
        ),
        ("g\u{0131}thub.com", "github.com", Some(SameSkeleton)),
        ("p\u{00E0}ypal.com", "paypal.com", Some(SameSkeleton)),
        ("munchen.de", "münchen.de", Some(SameSkeleton)),
        // ASCII look-alikes.
        ("rnicrosoft.com", "microsoft.com", Some(SameSkeleton)),
        ("g00gle.com", "google.com", Some(SameSkeleton)),
        ("vvikipedia.org", "wikipedia.org", Some(SameSkeleton)),
        ("arnazon.com", "amazon.com", Some(SameSkeleton)),
        ("paypal.corn", "paypal.com", Some(SameSkeleton)),
        // Under a private suffix: different registrable domains.
        ("vict1m.github.io", "victim.github.io", Some(SameSkeleton)),
        // Short names too: the skeleton rule has no minimum.
        ("q0.com", "qo.com", Some(SameSkeleton)),
        // The whole skeleton counts, wherever the suffix starts: `c0.uk`
        // (name `c0` under `uk`) reads as the public suffix `co.uk`.
        ("c0.uk", "co.uk", Some(SameSkeleton)),
        ("co.uk", "c0.uk", Some(SameSkeleton)),
    ]);
}

#[test]
fn other_suffix() {
    check(&[
        ("paypal.co", "paypal.com", Some(OtherSuffix)),
        ("PAYPAL.CO.", "paypal.com", Some(OtherSuffix)),
        ("paypal.com.au", "paypal.com", Some(OtherSuffix)),
        ("paypal.co.uk", "paypal.com", Some(OtherSuffix)),
        ("paypa1.net", "paypal.com", Some(OtherSuffix)),
        ("login.paypal.net", "www.paypal.com", Some(OtherSuffix)),
        // A private suffix is another suffix: paypal.github.io belongs to
        // whoever holds the GitHub account "paypal".
        ("paypal.github.io", "paypal.com", Some(OtherSuffix)),
        ("ibm.co", "ibm.com", Some(OtherSuffix)),
        // Local names.
        ("printer.lan", "printer.local", Some(OtherSuffix)),
        ("intranet.local", "intranet", Some(OtherSuffix)),
        ("nas.home.arpa", "nas.lan", Some(OtherSuffix)),
        // One- and two-letter names are too common to mean anything.
        ("x.org", "x.com", None),
        ("go.dev", "go.com", None),
        // A bare public suffix has no name.
        ("github.io", "github.com", None),
    ]);
}

#[test]
fn edit_distance() {
    check(&[
        ("paypall.com", "paypal.com", Some(EditDistance)),
        ("paypa.com", "paypal.com", Some(EditDistance)),
        ("pyapal.com", "paypal.com", Some(EditDistance)),
        ("paypol.com", "paypal.com", Some(EditDistance)),
        ("pay-pal.com", "paypal.com", Some(EditDistance)),
        ("www.paypall.com", "paypal.com", Some(EditDistance)),
        ("micrsoft.com", "microsoft.com", Some(EditDistance)),
        ("mircosfot.com", "microsoft.com", Some(EditDistance)),
        ("microsfot.com", "microsoft.com", Some(EditDistance)),
        ("amazom.co.uk", "amazon.com", Some(EditDistance)),
        // Measured on skeletons: "paypa1l" reads "paypaii".
        ("paypa1l.com", "paypal.com", Some(EditDistance)),
        ("xn--pypall-3nf.com", "paypal.com", Some(EditDistance)),
        // Under a private suffix.
        ("victlms.github.io", "victim.github.io", Some(EditDistance)),
        // Too short, or too far for the length.
        ("bing.com", "bang.com", None),
        ("espn.com", "esp.com", None),
        ("github.com", "gitlab.com", None),
        ("paypal.com", "pyaapl.com", None),
        ("microsoft.com", "macrosaft.co", Some(EditDistance)),
        ("microsoft.com", "mecrasaft.com", None),
        ("attacker.github.io", "victim.github.io", None),
        ("example.com", "google.com", None),
    ]);
}

#[test]
fn embedded() {
    check(&[
        ("paypal.com.evil.example", "paypal.com", Some(Embedded)),
        ("www.paypal.com.evil.example", "paypal.com", Some(Embedded)),
        ("paypal-com.example", "paypal.com", Some(Embedded)),
        ("paypal-com-login.example", "paypal.com", Some(Embedded)),
        ("paypal.com-login.example", "paypal.com", Some(Embedded)),
        ("secure-paypal.com", "paypal.com", Some(Embedded)),
        ("login.secure-paypal.com", "www.paypal.com", Some(Embedded)),
        ("paypal--com.example", "paypal.com", Some(Embedded)),
        (
            "accounts.google.com.evil.example",
            "google.com",
            Some(Embedded),
        ),
        ("PAYPAL.COM.EVIL.EXAMPLE.", "paypal.com", Some(Embedded)),
        // Folded like everything else.
        ("paypa1.com.evil.example", "paypal.com", Some(Embedded)),
        (
            "xn--pypal-4ve.com.evil.example",
            "paypal.com",
            Some(Embedded),
        ),
        ("bbc.co.uk.evil.example", "bbc.co.uk", Some(Embedded)),
        ("intranet.evil.example", "intranet", Some(Embedded)),
        ("t.co.evil.example", "t.co", Some(Embedded)),
        // Words, not substrings.
        ("paypalcom.example", "paypal.com", None),
        ("mypaypal.com.evil.example", "paypal.com", None),
        // The known domain must be a whole domain: its name alone is not
        // embedding (no warning for every *.github.io page because the
        // user once opened github.com).
        ("paypal.evil.example", "paypal.com", None),
        ("someone.github.io", "github.com", None),
        // Inside the candidate's own public suffix it is no imitation.
        ("attacker.github.io", "github.io", None),
        ("example.co.uk", "co.uk", None),
        ("example.com", "com", None),
    ]);
}

#[test]
fn private_suffixes_separate_owners() {
    // Decision: github.io-style private suffixes are public suffixes here,
    // as in `Inspection::registrable_domain`. Two sites under one do not
    // resemble each other for sharing it...
    check(&[
        ("attacker.github.io", "victim.github.io", None),
        ("x.attacker.github.io", "y.victim.github.io", None),
        ("attacker.herokuapp.com", "victim.herokuapp.com", None),
        // ...but do by the ordinary rules.
        ("vict1m.github.io", "victim.github.io", Some(SameSkeleton)),
        ("victlms.github.io", "victim.github.io", Some(EditDistance)),
        ("victim.gitlab.io", "victim.github.io", Some(OtherSuffix)),
        (
            "victim-github-io.github.io",
            "victim.github.io",
            Some(Embedded),
        ),
    ]);
}

#[test]
fn ip_addresses_never_resemble() {
    check(&[
        ("127.0.0.1", "127.0.0.1", None),
        ("127.0.0.1", "127.0.0.2", None),
        ("127.0.0.1", "127.0.0.l", None),
        ("127.0.0.l", "127.0.0.1", None),
        ("1.1.1.1", "l.l.l.l", None),
        ("8.8.8.8", "paypal.com", None),
        ("paypal.com", "8.8.8.8", None),
        ("0x7f.1", "localhost", None),
        ("[::1]", "localhost", None),
        ("[::1]", "[::2]", None),
        ("2130706433", "127.0.0.1", None),
        ("192.168.1.1.evil.example", "192.168.1.1", None),
    ]);
}

#[test]
fn refused_inputs_never_resemble() {
    let long_label = "a".repeat(64);
    let long_name = format!("{}.com", "ab.".repeat(84));
    assert!(long_name.len() > MAX_DOMAIN_LEN);
    let rows: Vec<(String, String)> = vec![
        (String::new(), "paypal.com".into()),
        ("paypal.com".into(), String::new()),
        (String::new(), String::new()),
        (".".into(), ".".into()),
        ("a..paypal.com".into(), "paypal.com".into()),
        ("xn--zz.com".into(), "paypal.com".into()),
        (format!("{long_label}.com"), format!("{long_label}x.com")),
        (long_name.clone(), "ab.com".into()),
        ("ab.com".into(), long_name.clone()),
        ("paypal.com/".into(), "paypal.com".into()),
        ("https://paypa1.com".into(), "paypal.com".into()),
        ("paypa1.com".into(), "https://paypal.com".into()),
        ("pay pal.com".into(), "paypal.com".into()),
        ("paypa1.com\u{0}".into(), "paypal.com".into()),
    ];
    for (c, k) in &rows {
        assert_eq!(resemblance(c, k), None, "{c:?} vs {k:?}");
    }
    // The longest valid labels still work.
    let a63 = "a".repeat(63);
    let b63 = format!("{}b", "a".repeat(62));
    assert_eq!(
        resemblance(&format!("{a63}.com"), &format!("{b63}.com")),
        Some(EditDistance)
    );
    assert_eq!(
        resemblance(&format!("{a63}.com"), &format!("{a63}.net")),
        Some(OtherSuffix)
    );
}

#[test]
fn closest_picks_the_strongest_then_the_first() {
    let known = ["google.com", "paypal.com", "github.com"];
    assert_eq!(
        closest_resemblance("paypa1.com", known),
        Some(("paypal.com", SameSkeleton))
    );
    assert_eq!(closest_resemblance("example.com", known), None);
    assert_eq!(closest_resemblance("paypa1.com", []), None);

    // Strongest reason wins, wherever it is in the list.
    let known = ["paypa.co", "paypal.com.evil.example", "paypal.com"];
    assert_eq!(
        closest_resemblance("paypal.co", known),
        Some(("paypal.com", OtherSuffix))
    );
    // Edit distance 1 before 2.
    let known = ["abcdefghxy.com", "abcdefghiz.com"];
    assert_eq!(
        closest_resemblance("abcdefghij.com", known),
        Some(("abcdefghiz.com", EditDistance))
    );
    // On a tie, the first.
    let known = ["paypal.co", "paypal.net"];
    assert_eq!(
        closest_resemblance("paypal.com", known),
        Some(("paypal.co", OtherSuffix))
    );
    // The known entry is returned as given.
    assert_eq!(
        closest_resemblance("paypa1.com", ["PayPal.COM."]),
        Some(("PayPal.COM.", SameSkeleton))
    );
    // Refused entries and IP addresses are skipped.
    let huge = "x".repeat(300);
    let known = ["", "127.0.0.1", huge.as_str(), "a..b", "paypal.com"];
    assert_eq!(
        closest_resemblance("paypa1.com", known),
        Some(("paypal.com", SameSkeleton))
    );
    // A candidate that is itself known is familiar: nothing to report,
    // even after a look-alike earlier in the list.
    let known = ["paypa1.com", "paypal.com"];
    assert_eq!(closest_resemblance("www.paypal.com", known), None);
    assert_eq!(closest_resemblance("paypa1.com", known), None);
    // Refused or IP candidates.
    assert_eq!(closest_resemblance("", ["paypal.com"]), None);
    assert_eq!(closest_resemblance("127.0.0.1", ["127.0.0.1"]), None);
    // Works with any iterator of &str.
    let owned: Vec<String> = vec!["paypal.com".into()];
    assert_eq!(
        closest_resemblance("paypal.com.evil.example", owned.iter().map(String::as_str)),
        Some(("paypal.com", Embedded))
    );
}

/// xorshift64*, as in the fuzz test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_domain(rng: &mut Rng) -> String {
    const SUFFIXES: [&str; 8] = ["com", "net", "org", "io", "co.uk", "de", "github.io", "dev"];
    let len = 6 + rng.below(10);
    let name: String = (0..len)
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect();
    format!("{name}.{}", SUFFIXES[rng.below(SUFFIXES.len())])
}

#[test]
fn ten_thousand_known_domains() {
    // Correctness only; `cargo run --release --example lookalike_timing`
    // prints the timing.
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut known: Vec<String> = (0..10_000).map(|_| random_domain(&mut rng)).collect();
    known.push("paypal.com".into());
    let list = || known.iter().map(String::as_str);
    let hit = closest_resemblance("paypa1.com", list());
    assert_eq!(hit, Some(("paypal.com", SameSkeleton)));
    assert_eq!(
        closest_resemblance("paypal.com.evil.example", list()),
        Some(("paypal.com", Embedded))
    );
    // Random names that share nothing with the list.
    assert_eq!(
        closest_resemblance("zzzzzzzzzzzzzzzz.example", list()),
        None
    );
    // A candidate from the list is familiar.
    assert_eq!(closest_resemblance(&known[1234], list()), None);
}

#[test]
fn generated_inputs_never_panic() {
    const PIECES: &[&str] = &[
        "paypal",
        "pаypal",
        "xn--",
        "xn--pypal-4ve",
        "com",
        "co.uk",
        "github.io",
        "local",
        "intranet",
        ".",
        "..",
        "-",
        "--",
        "0",
        "1",
        "l",
        "rn",
        "m",
        "vv",
        "w",
        "127",
        "0x7f",
        "[::1]",
        "[",
        "]",
        "%",
        "%2e",
        "ü",
        "\u{0301}",
        "\u{200B}",
        "\u{202E}",
        " ",
        "@",
        "/",
        ":",
        "A",
        "Z",
        "日本",
        "\u{10FFFF}",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut made = Vec::new();
    for _ in 0..3000 {
        let mut s = String::new();
        for _ in 0..rng.below(12) {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
        if rng.below(8) == 0 {
            s = s.repeat(1 + rng.below(40));
        }
        let sk = skeleton(&s);
        assert!(sk.len() <= 4 * MAX_DOMAIN_LEN, "{s:?}");
        made.push(s);
    }
    for pair in made.chunks(2) {
        if let [a, b] = pair {
            let r = resemblance(a, b);
            if skeleton(a).is_empty() || skeleton(b).is_empty() {
                assert_eq!(r, None, "{a:?} vs {b:?}");
            }
        }
    }
    let _ = closest_resemblance("paypal.com", made.iter().map(String::as_str));
}

#[test]
fn generated_domains_agree_with_their_skeletons() {
    const LABELS: &[&str] = &[
        "paypal",
        "paypa1",
        "paypai",
        "p\u{0430}ypal",
        "xn--pypal-4ve",
        "PAYPAL",
        "pay-pal",
        "paypall",
        "rn",
        "m",
        "vv",
        "w",
        "github",
        "g1thub",
        "io",
        "com",
        "corn",
        "co",
        "uk",
        "local",
        "lan",
        "internal",
        "münchen",
        "munchen",
        "evil",
        "example",
        "x0",
        "xo",
    ];
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let make = |rng: &mut Rng| {
        let n = 1 + rng.below(4);
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(if rng.below(4) == 0 { '-' } else { '.' });
            }
            s.push_str(LABELS[rng.below(LABELS.len())]);
        }
        if rng.below(6) == 0 {
            s.push('.');
        }
        s
    };
    let mut seen = [0usize; 5];
    for _ in 0..4000 {
        let (a, b) = (make(&mut rng), make(&mut rng));
        let (sa, sb) = (skeleton(&a), skeleton(&b));
        let r = resemblance(&a, &b);
        // Same skeleton: the same domain or a look-alike, nothing else.
        if !sa.is_empty() && sa == sb {
            assert!(matches!(r, None | Some(SameSkeleton)), "{a:?} {b:?} {r:?}");
        }
        if r == Some(SameSkeleton) {
            assert_eq!(sa, sb, "{a:?} {b:?}");
        }
        // A domain never resembles itself, in any spelling.
        assert_eq!(resemblance(&a, &a), None, "{a:?}");
        assert_eq!(resemblance(&a.to_uppercase(), &a), None, "{a:?}");
        // The list form agrees with the pair form.
        let closest = closest_resemblance(&a, [b.as_str()]);
        assert_eq!(closest.map(|(_, r)| r), r, "{a:?} {b:?}");
        seen[r.map_or(4, |r| r as usize)] += 1;
    }
    // The generator reaches every reason and none.
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

#[test]
fn codes_and_serde() {
    let expected = [
        (SameSkeleton, "same_skeleton"),
        (OtherSuffix, "other_suffix"),
        (EditDistance, "edit_distance"),
        (Embedded, "embedded"),
    ];
    assert_eq!(Resemblance::ALL.len(), expected.len());
    for (i, (r, code)) in expected.into_iter().enumerate() {
        assert_eq!(Resemblance::ALL[i], r);
        assert_eq!(r.code(), code);
        assert_eq!(r.to_string(), code);
        assert_eq!(serde_json::to_string(&r).unwrap(), format!("\"{code}\""));
        assert_eq!(
            serde_json::from_str::<Resemblance>(&format!("\"{code}\"")).unwrap(),
            r
        );
    }
    // Ord follows strength.
    let mut sorted = Resemblance::ALL;
    sorted.sort();
    assert_eq!(sorted, Resemblance::ALL);
}
