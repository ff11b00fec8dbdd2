use super::*;

fn osa(a: &str, b: &str) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    osa_distance_within(&a, &b, 2)
}

#[test]
fn osa_distances() {
    assert_eq!(osa("paypal", "paypal"), Some(0));
    assert_eq!(osa("paypal", "paypall"), Some(1));
    assert_eq!(osa("paypal", "paypa"), Some(1));
    assert_eq!(osa("paypal", "pyapal"), Some(1));
    assert_eq!(osa("paypal", "paypol"), Some(1));
    assert_eq!(osa("paypal", "pyaapl"), Some(2));
    assert_eq!(osa("github", "gitlab"), Some(2));
    assert_eq!(osa("abc", "cba"), Some(2));
    assert_eq!(osa("paypal", "google"), None);
    assert_eq!(osa("", "ab"), Some(2));
    assert_eq!(osa("", "abc"), None);
    assert_eq!(osa("", ""), Some(0));
    assert_eq!(osa_distance_within(b"ab", b"ba", 1), Some(1));
    assert_eq!(osa_distance_within(b"abcd", b"abxy", 1), None);
    assert_eq!(osa_distance_within(b"abcd", b"abcd", 3), None);
    let long = "a".repeat(EDIT_MAX_LEN);
    let long2 = format!("{}b", "a".repeat(EDIT_MAX_LEN - 1));
    assert_eq!(osa(&long, &long2), Some(1));
    assert_eq!(osa(&long2, &long), Some(1));
    assert_eq!(osa(&format!("b{}", &long[1..]), &long2), Some(2));
    // Longer than one label: not computed.
    assert_eq!(osa(&format!("{long}a"), &long), None);
    assert_eq!(osa(&"a".repeat(250), &"a".repeat(250)), None);
}

#[test]
fn ascii_table_matches_unicode_path() {
    // Every ASCII character folds the same way through the table and
    // through the general (Unicode) path.
    for b in 0u8..128 {
        let c = char::from(b).to_string();
        let mut via_unicode = String::new();
        for ch in unicode_security::skeleton(&c) {
            for l in ch.to_lowercase() {
                if !is_dropped_mark(l) {
                    via_unicode.push(fold_char(l));
                }
            }
        }
        let (single, table) = ascii_skeletons();
        assert_eq!(table[usize::from(b)], via_unicode, "{c:?}");
        let mut folded = String::new();
        fold_text(&c, &mut folded, &mut CharCache::default());
        let mut via_chars = String::new();
        via_unicode
            .chars()
            .for_each(|ch| push_folded(&mut via_chars, ch));
        assert_eq!(folded, via_chars, "{c:?}");
        if single[usize::from(b)] != 0 {
            assert_eq!(via_chars.as_bytes(), &[single[usize::from(b)]], "{c:?}");
        }
    }
}

/// The skeleton of the whole text, the slow way.
fn fold_whole(text: &str) -> String {
    let mut out = String::new();
    skeleton_run(text, |c| push_folded(&mut out, c));
    out
}

#[test]
fn runs_fold_like_the_whole_text() {
    let mut all_ascii = String::new();
    (0u8..128).map(char::from).for_each(|c| all_ascii.push(c));
    let texts = [
        "münchen",
        "p\u{0430}ypal",
        "g\u{043E}\u{043E}gle.com",
        "q\u{0301}\u{0316}x",
        "a\u{0316}\u{0301}\u{0301}b\u{0345}\u{0323}",
        "\u{0301}abc",
        "abc\u{0301}",
        "r\u{0301}n",
        "v\u{0308}v",
        "ŕn",
        "日本語.jp",
        "пример.рф",
        "παράδειγμα",
        "ǆ\u{01C5}ǅ",
        "ﬁ.ﬂ",
        "\u{1E9B}\u{0323}",
        "%ü%",
        "\u{0627}\u{0644}\u{0639}\u{0631}\u{0628}\u{064A}\u{0629}",
        "क्षत्रिय",
        &all_ascii,
    ];
    for t in texts {
        let mut runs = String::new();
        fold_text(t, &mut runs, &mut CharCache::default());
        assert_eq!(runs, fold_whole(t), "{t:?}");
    }
    // Every character around every ASCII character (with one cache, so
    // cached characters are checked too).
    let mut cache = CharCache::default();
    for b in 0u8..128 {
        for other in ["\u{0301}", "\u{0316}", "é", "\u{0430}", "ß", "\u{200D}"] {
            let c = char::from(b);
            for t in [format!("{other}{c}{other}"), format!("{c}{other}{c}")] {
                let mut runs = String::new();
                fold_text(&t, &mut runs, &mut cache);
                assert_eq!(runs, fold_whole(&t), "{t:?}");
            }
        }
    }
}

#[test]
fn plain_ascii_fast_path_agrees_with_the_host_parser() {
    for s in [
        "PayPal.COM",
        "a-b.example",
        "-a.com",
        "a.b.c.d",
        "1password.com",
        "x.abc123",
    ] {
        assert!(is_plain_ascii_name(s), "{s}");
        let Ok(Host::Domain(d)) = Host::parse(s) else {
            panic!("{s}");
        };
        assert_eq!(d, s.to_ascii_lowercase(), "{s}");
    }
    for s in ["1.2.3.4", "a.0x7f", "x.123abc", "a_b.com", "a b", "ü.com"] {
        assert!(!is_plain_ascii_name(s), "{s}");
    }
    assert!(has_punycode_label("a.XN--p1ai") && has_punycode_label("xn--pypal-4ve.com"));
    assert!(!has_punycode_label("axn--b.com") && !has_punycode_label("xn-.com"));
    // Plain names with Punycode labels: decoding accepts exactly what
    // the host parser accepts.
    for s in [
        "xn--pypal-4ve.com",
        "XN--PYPAL-4VE.COM",
        "a.xn--p1ai",
        "xn--mnchen-3ya.de",
        "xn--zz.com",
        "xn--.com",
        "xn--a.com",
        "xn--abc-.com",
        "xn--ls8h.la",
        "xn--Mnchen-3ya.de",
        "xn--mnchen-3yA.de",
        "xn--bcher-kva.xn--zz",
        "xn--53h.com",
        "xn--nxa.com",
        "xn--0ca.com",
        "xn--1ca.com",
    ] {
        assert!(is_plain_ascii_name(s), "{s}");
        let by_parser = Host::parse(s).is_ok();
        let (_, decoded) = idna::domain_to_unicode(&s.to_ascii_lowercase());
        assert_eq!(by_parser, decoded.is_ok(), "{s}");
    }
}
