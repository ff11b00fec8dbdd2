//! Deterministic fuzz-style test: thousands of generated strings, no
//! panics, invariants hold.

use airlock_url_safety::{
    elide_middle, inspect, neutralize_for_display, Policy, Verdict, MAX_URL_LEN,
};

/// xorshift64*: small, deterministic, good enough to mix fragments.
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

const FRAGMENTS: &[&str] = &[
    "https://",
    "http://",
    "HTTP:",
    "https:",
    "javascript:",
    "data:",
    "file://",
    "blob:",
    "//",
    "/",
    "\\",
    ":",
    "@",
    ":@",
    "[",
    "]",
    "::",
    "::1",
    "::ffff:",
    "fe80::",
    "%25",
    "%",
    "%2",
    "%E2%80%AE",
    "%00",
    "%zz",
    ".",
    "..",
    "...",
    "xn--",
    "xn--pple-43d",
    "xn--mnchen-3ya",
    "localhost",
    "127.0.0.1",
    "0x7f",
    "0177",
    "2130706433",
    "4294967296",
    "255",
    "256",
    "999",
    "1",
    "0",
    "example",
    "com",
    "co.uk",
    "github.io",
    ".local",
    ".internal",
    ".home.arpa",
    ".lan",
    "a",
    "-",
    "_",
    "?",
    "#",
    "&",
    "=",
    "+",
    " ",
    "\t",
    "\n",
    "\r",
    "\0",
    "\u{1B}[31m",
    "\u{202E}",
    "\u{200B}",
    "\u{FEFF}",
    "\u{AD}",
    "\u{0430}",
    "ü",
    "ß",
    "日本",
    "😀",
    "\u{FFFD}",
    "\u{E0041}",
    "\u{10FFFF}",
    ":8080",
    ":65536",
    ":0",
    ":-1",
    "user:pass@",
];

const HOSTS: &[&str] = &[
    "example.com",
    "a.b.example.co.uk",
    "attacker.github.io",
    "github.io",
    "localhost",
    "app.localhost.",
    "127.0.0.1",
    "127.1",
    "0x7f.1",
    "2130706433",
    "10.0.0.1",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[fe80::1]",
    "[2001:db8::1]",
    "xn--mnchen-3ya.de",
    "münchen.de",
    "\u{0430}pple.com",
    "例子.测试",
    "пример.рф",
    "example.com.",
    "com",
    "intranet",
    "printer.LOCAL.",
    "nas.home.arpa",
    "router.lan",
    "wiki.corp.internal",
];

/// A URL-shaped string: scheme, optional userinfo, a host, optional port,
/// then random fragments.
fn generate_structured(rng: &mut Rng) -> String {
    let mut s = String::from(["https://", "http://", "HTTPS://", "http:"][rng.below(4)]);
    if rng.below(4) == 0 {
        s.push_str(["user@", "a:b@", "@", ":@", "google.com@"][rng.below(5)]);
    }
    s.push_str(HOSTS[rng.below(HOSTS.len())]);
    if rng.below(4) == 0 {
        s.push_str([":443", ":80", ":8080", ":1"][rng.below(4)]);
    }
    s.push('/');
    s.push_str(&generate(rng));
    s
}

fn generate(rng: &mut Rng) -> String {
    let mut s = String::new();
    // Half of the inputs start like a web URL so that they get past the
    // parser more often.
    if rng.below(2) == 0 {
        s.push_str(["https://", "http://"][rng.below(2)]);
    }
    let pieces = rng.below(14);
    for _ in 0..pieces {
        if rng.below(5) == 0 {
            // A random scalar value from the whole range.
            let c = loop {
                if let Some(c) = char::from_u32((rng.next() % 0x11_0000) as u32) {
                    break c;
                }
            };
            s.push(c);
        } else {
            s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        }
    }
    s
}

#[test]
fn generated_inputs_never_panic_and_keep_invariants() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let policies = [
        Policy::default(),
        Policy {
            allow_http_loopback: false,
        },
    ];
    let mut counts = [0usize; 3];
    for n in 0..6000 {
        let raw = if n % 2 == 0 {
            generate(&mut rng)
        } else {
            generate_structured(&mut rng)
        };
        for policy in &policies {
            let i = inspect(&raw, policy);
            let expected = if i.block_reason.is_some() {
                Verdict::Block
            } else if i.warnings.is_empty() {
                Verdict::Ok
            } else {
                Verdict::Warn
            };
            assert_eq!(i.verdict, expected, "#{n} {raw:?}: {i:?}");
            if i.verdict != Verdict::Block {
                let scheme = i.scheme.as_deref();
                assert!(
                    matches!(scheme, Some("http") | Some("https")),
                    "{raw:?}: {i:?}"
                );
                assert!(i.ascii_host.is_some() && i.registrable_domain.is_some());
                let url = i.url.as_deref().unwrap_or_default();
                // The normalised URL parses again to itself.
                let again = inspect(url, policy);
                assert_eq!(again.url.as_deref(), Some(url), "{raw:?}");
                assert_eq!(again.block_reason, None, "{raw:?} -> {url:?}");
            }
            counts[i.verdict as usize] += 1;
            let _ = serde_json::to_string(&i).unwrap_or_default();
        }
        let max = rng.below(40);
        let shown = neutralize_for_display(&raw, max);
        assert!(shown.chars().count() <= max, "{raw:?}");
        assert!(!shown.chars().any(char::is_control), "{raw:?}");
        let elided = elide_middle(&raw, max);
        assert!(elided.chars().count() <= max, "{raw:?}");
    }
    // The generator reaches all three verdicts.
    assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
}

#[test]
fn long_and_pathological_inputs() {
    let inputs = [
        "a".repeat(MAX_URL_LEN * 4),
        format!("https://{}.com/", "a.".repeat(MAX_URL_LEN / 2 - 8)),
        format!("https://{}/", "xn--".repeat(1000)),
        format!("https://{}/", "ü".repeat(2000)),
        format!("https://x.com/{}", "%".repeat(MAX_URL_LEN - 14)),
        format!("https://{}x.com/", "@".repeat(4000)),
        format!("https://[{}]/", ":".repeat(4000)),
        format!("https://{}/", "9".repeat(4000)),
        format!("{}https://x.com/", " ".repeat(4000)),
        "\u{202E}".repeat(MAX_URL_LEN),
    ];
    for raw in &inputs {
        let i = inspect(raw, &Policy::default());
        let _ = neutralize_for_display(raw, 200);
        let _ = elide_middle(raw, 200);
        if raw.len() > MAX_URL_LEN {
            assert_eq!(i.verdict, Verdict::Block);
        }
    }
}
