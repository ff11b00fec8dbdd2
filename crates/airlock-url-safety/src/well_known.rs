//! Well-known domains, shipped offline, and the hosts that carry one
//! without being it ("target embedding", as Chromium calls it):
//! `accounts.google.com.secure-login.example.co.uk` (a run of labels),
//! `accounts-google-com.example.app` (hyphen-joined words),
//! `apple.com-verify.example.com` (a suffix glued on), `secure-paypal.com`.
//!
//! The list (`data/well-known-domains.txt`, about 18,000 registrable
//! domains) is built by `scripts/well-known-domains.py` from the MISP
//! warning lists on PyPI: the Tranco and Majestic top 10K, Moz's top 500 and
//! Cisco Umbrella's top 20K; its header names the package, its hash and the
//! date of each list.
//!
//! A host is compared word by word: its labels are folded to their
//! confusable skeleton (see [`crate::skeleton`], so `g00gle-com` reads as
//! `google-com`) and split into words at `.` and `-`; every run of up to
//! [`MAX_WORDS`] words is looked up in a table keyed the same way. A run
//! counts when it lies wholly in front of the host's public suffix, or when
//! it ends the host and starts in front of the suffix (`secure-paypal.com`);
//! a run that ends inside the suffix does not (`amazon.com.au` carries
//! `amazon.com` only as the start of its own name under `com.au`). Quiet:
//! the well-known domain itself and its subdomains; a host whose own
//! registrable domain is well-known (its owner chose the labels; platforms
//! where anyone can have a name, `github.io`, `s3.amazonaws.com`,
//! `blogspot.com`, are public suffixes, so their names are not); one-letter
//! names (`x.com`, `t.co`), which a word split turns up by chance.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::lookalike::{host_words, skeleton};

const DATA: &str = include_str!("../data/well-known-domains.txt");

/// Longest run of words looked up: the most words a domain in the list has.
pub const MAX_WORDS: usize = 6;

/// Shortest name (left of the public suffix, in characters) of a domain
/// that is looked for inside hosts.
const MIN_NAME_CHARS: usize = 2;

struct Table {
    /// The domains of the list, as written there.
    domains: HashSet<&'static str>,
    /// Skeleton words joined by `.` (`google.com`, `t.online.de`) → the
    /// domain.
    by_words: HashMap<String, &'static str>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let domains: HashSet<&'static str> = well_known_domains().collect();
        let mut by_words = HashMap::with_capacity(domains.len());
        for &d in &domains {
            let (registrable, suffix) = crate::split_registrable(d);
            let name_chars = registrable.len().saturating_sub(suffix.len() + 1);
            if name_chars < MIN_NAME_CHARS {
                continue;
            }
            let skel = skeleton(d);
            let key: Vec<&str> = skel.split(['.', '-']).filter(|w| !w.is_empty()).collect();
            if key.len() < 2 || key.len() > MAX_WORDS {
                continue;
            }
            by_words.entry(key.join(".")).or_insert(d);
        }
        Table { domains, by_words }
    })
}

/// The domains of the shipped list, in its order (sorted).
pub fn well_known_domains() -> impl Iterator<Item = &'static str> {
    DATA.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Whether the registrable domain of `host` (ASCII, any case) is in the
/// list.
pub fn is_well_known(host: &str) -> bool {
    crate::registrable_domain_of(host).is_some_and(|d| table().domains.contains(d.as_str()))
}

/// The well-known domain that `host` (ASCII or Unicode, any case) carries
/// without being it, if any; see the module documentation.
pub fn embedded_well_known(host: &str) -> Option<&'static str> {
    let words = host_words(host)?;
    let t = table();
    if t.domains.contains(words.registrable.as_str()) {
        return None;
    }
    let n = words.words.len();
    let mut key = String::new();
    for i in 0..words.suffix_at {
        key.clear();
        for j in i..n.min(i + MAX_WORDS) {
            if j > i {
                key.push('.');
            }
            key.push_str(&words.words[j]);
            let end = j + 1;
            if end - i < 2 || !(end <= words.suffix_at || end == n) {
                continue;
            }
            if let Some(&d) = t.by_words.get(key.as_str()) {
                if d != words.registrable {
                    return Some(d);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_large_sorted_and_holds_registrable_domains_only() {
        let all: Vec<&str> = well_known_domains().collect();
        assert!(all.len() > 15_000, "{}", all.len());
        assert!(all.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        for d in &all {
            assert_eq!(
                crate::registrable_domain_of(d).as_deref(),
                Some(*d),
                "{d} is its own registrable domain"
            );
        }
        for d in [
            "google.com",
            "paypal.com",
            "github.com",
            "microsoft.com",
            "apple.com",
        ] {
            assert!(is_well_known(d), "{d}");
        }
        assert!(is_well_known("accounts.google.com"));
        assert!(!is_well_known("example-airlock-test.org"));
    }

    #[test]
    fn label_runs_hyphens_and_glued_suffixes_are_found() {
        let cases = [
            (
                "accounts.google.com.secure-login.verify-account.example.co.uk",
                "google.com",
            ),
            ("accounts-google-com.example.app", "google.com"),
            ("apple.com-verify.example.com", "apple.com"),
            ("secure-paypal.com", "paypal.com"),
            ("www.paypal.com.evil.example", "paypal.com"),
            ("g00gle.com.evil.example", "google.com"),
        ];
        for (host, known) in cases {
            assert_eq!(embedded_well_known(host), Some(known), "{host}");
        }
    }

    #[test]
    fn real_sites_and_their_country_sites_stay_quiet() {
        for host in [
            "accounts.google.com",
            "www.amazon.com.au",
            "google.com.br",
            "login.microsoftonline.com",
            "acme.us.auth0.com",
            "user.github.io",
            "example.com",
        ] {
            assert_eq!(embedded_well_known(host), None, "{host}");
        }
    }
}
