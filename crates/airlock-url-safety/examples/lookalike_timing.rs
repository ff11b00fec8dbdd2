//! Prints how long `closest_resemblance` takes against 10,000 known
//! domains. Run in release:
//!
//! ```sh
//! cargo run --release -p airlock-url-safety --example lookalike_timing
//! ```

use airlock_url_safety::closest_resemblance;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// xorshift64*: deterministic input.
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
    fn word(&mut self, alphabet: &[char], len: usize) -> String {
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len())])
            .collect()
    }
}

const SUFFIXES: [&str; 10] = [
    "com",
    "net",
    "org",
    "io",
    "co.uk",
    "de",
    "github.io",
    "dev",
    "com.au",
    "app",
];

fn ascii_list(rng: &mut Rng) -> Vec<String> {
    let letters: Vec<char> = ('a'..='z').collect();
    (0..10_000)
        .map(|_| {
            let len = 5 + rng.below(10);
            let name = rng.word(&letters, len);
            format!("{name}.{}", SUFFIXES[rng.below(SUFFIXES.len())])
        })
        .collect()
}

/// Internationalized names, in ASCII (Punycode) form as `Inspection`
/// reports them: every entry takes the slow (IDNA + UTS 39) path.
fn idn_list(rng: &mut Rng) -> Vec<String> {
    let letters: Vec<char> = "abcdefghijklmnopqrstuvwxyzäöüéèçñ".chars().collect();
    (0..10_000)
        .map(|_| {
            let len = 5 + rng.below(10);
            let mut name = rng.word(&letters, len);
            name.push('ü');
            let ascii = idna::domain_to_ascii(&name).unwrap_or(name);
            format!("{ascii}.de")
        })
        .collect()
}

/// The worst shape the bounds allow: every entry 253 bytes, a long local
/// name (taken whole) of 63-byte labels, and a candidate just as long,
/// made of the same letters.
fn long_list(rng: &mut Rng) -> Vec<String> {
    let letters: Vec<char> = ('a'..='c').collect();
    (0..10_000)
        .map(|_| {
            let l = |rng: &mut Rng| rng.word(&letters, 63);
            format!(
                "{}.{}.{}.{}.internal",
                l(rng),
                l(rng),
                l(rng),
                rng.word(&letters, 52)
            )
        })
        .collect()
}

fn time(label: &str, candidate: &str, known: &[String]) {
    let list = || known.iter().map(String::as_str);
    let result = closest_resemblance(candidate, list());
    let mut runs: Vec<Duration> = (0..60)
        .map(|_| {
            let t = Instant::now();
            black_box(closest_resemblance(black_box(candidate), list()));
            t.elapsed()
        })
        .collect();
    runs.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{label:<38} min {:>6.2} ms  median {:>6.2} ms  -> {:?}",
        ms(runs[0]),
        ms(runs[runs.len() / 2]),
        result.map(|(k, r)| (if k.len() > 24 { "<long>" } else { k }, r)),
    );
}

fn main() {
    if cfg!(debug_assertions) {
        println!("(debug build: use --release for meaningful figures)");
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut ascii = ascii_list(&mut rng);
    ascii.push("paypal.com".into());
    let idn = idn_list(&mut rng);
    let long = long_list(&mut rng);
    // As long as the entries and made of the same letters: every entry is
    // parsed and folded in full.
    let long_candidate = {
        let l = "abc".repeat(21);
        format!("{l}.{l}.{l}.{}.internal", "abcd".repeat(13))
    };
    assert_eq!(long_candidate.len(), 253);

    println!(
        "closest_resemblance against {} known domains (wall clock, 60 runs each):",
        ascii.len()
    );
    time(
        "ASCII list, unrelated candidate",
        "unrelated-example.com",
        &ascii,
    );
    time("ASCII list, look-alike (last entry)", "paypa1.com", &ascii);
    time(
        "ASCII list, embedded candidate",
        "login.paypal.com.evil.example",
        &ascii,
    );
    time(
        "ASCII list, Punycode candidate",
        "xn--pypal-4ve.com",
        &ascii,
    );
    time(
        "Punycode list (IDNA per entry)",
        "unrelated-example.com",
        &idn,
    );
    time("253-byte list, 253-byte candidate", &long_candidate, &long);
}
