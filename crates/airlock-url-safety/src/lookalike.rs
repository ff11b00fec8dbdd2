//! Look-alike domains: pure functions that tell whether a domain the user
//! has never opened (for a given server) resembles one they have opened.
//!
//! Every input is reduced the same way before it is compared:
//!
//! 1. WHATWG host parsing, as a browser does (`url::Host::parse`, or an
//!    equivalent shortcut for plain ASCII names): Unicode and uppercase are
//!    accepted and mapped by IDNA, Punycode is checked, numeric hosts
//!    become IP addresses. Inputs longer than
//!    [`MAX_DOMAIN_LEN`] bytes (one trailing dot not counted), names that
//!    cannot exist in DNS and anything the parser refuses are *refused*:
//!    they resemble nothing, and [`skeleton`] gives `""`.
//! 2. The registrable domain, split into the *name* left of the public
//!    suffix and the suffix, by the same rules as
//!    [`Inspection::registrable_domain`](crate::Inspection): the embedded
//!    Public Suffix List with its private section (`github.io` is a suffix
//!    like `com`), and local-network names taken whole.
//! 3. The *skeleton* of each label, see [`skeleton`].
//!
//! IP addresses never resemble a domain or each other.
//!
//! Cost: every step is linear in the (bounded) input; the edit distance is
//! computed only within 2 of the diagonal and for names of at most 63
//! characters, and the embedded-domain search runs only when the known
//! domain's first word is among the candidate's words. ASCII names, the
//! common case, skip IDNA and the Unicode tables and, in a known list, do
//! not allocate once the buffers have grown.

use crate::split_registrable;
use serde::{Deserialize, Serialize};
use std::fmt;
use url::Host;

/// Longest domain (in bytes, one trailing dot not counted) that the
/// look-alike functions look at: the DNS limit. Longer inputs are refused.
pub const MAX_DOMAIN_LEN: usize = 253;

/// Shortest name (in characters of its skeleton, the part left of the
/// public suffix) for which an edit distance of 1 counts. Below this, one
/// edit turns most names into unrelated real ones (`bing`/`bank` are 2
/// apart, `espn`/`esp` 1).
const EDIT_MIN_LEN: usize = 5;

/// Shortest name for which an edit distance of 2 counts (`github` and
/// `gitlab` are 2 apart and both real; `microsoft` and `mircosfot` are
/// not).
const EDIT2_MIN_LEN: usize = 8;

/// Longest name (in characters of its skeleton) for which the edit
/// distance is computed: one DNS label. Only local-network names, taken
/// whole, can be longer; they still meet the other rules.
const EDIT_MAX_LEN: usize = 63;

/// Shortest name for [`Resemblance::OtherSuffix`]: one- and two-letter
/// names under different suffixes are almost always unrelated (`x.com`,
/// `x.org`; `go.dev`, `go.com`).
const OTHER_SUFFIX_MIN_LEN: usize = 3;

/// Why a domain resembles another one. Listed from the strongest sign of
/// imitation to the weakest, which is also the order of [`Ord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Resemblance {
    /// A different domain with the same [`skeleton`]: it reads the same
    /// (`paypa1.com`, `pаypal.com` with a Cyrillic `а`, `rnicrosoft.com`).
    SameSkeleton,
    /// The same name under another public suffix (`paypal.co` for
    /// `paypal.com`, `paypal.github.io` for `paypal.com`).
    OtherSuffix,
    /// The names left of the public suffix (compared as skeletons) differ
    /// by one edit (names of 5 to 63 characters) or two (8 to 63): a letter
    /// added, removed, replaced, or two neighbours swapped (`paypall.com`,
    /// `pyapal.com`).
    EditDistance,
    /// The whole known domain (name and suffix) appears in the host as
    /// consecutive labels or hyphen-separated words, starting in front of
    /// the host's own public suffix (`paypal.com.evil.example`,
    /// `paypal-com.example`, `secure-paypal.com`).
    Embedded,
}

impl Resemblance {
    /// All reasons, strongest first.
    pub const ALL: [Resemblance; 4] = [
        Resemblance::SameSkeleton,
        Resemblance::OtherSuffix,
        Resemblance::EditDistance,
        Resemblance::Embedded,
    ];

    /// Stable snake_case code, identical to the serde form.
    pub fn code(&self) -> &'static str {
        match self {
            Resemblance::SameSkeleton => "same_skeleton",
            Resemblance::OtherSuffix => "other_suffix",
            Resemblance::EditDistance => "edit_distance",
            Resemblance::Embedded => "embedded",
        }
    }
}

impl fmt::Display for Resemblance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The UTS 39 confusable skeleton of the registrable domain of `domain`,
/// folded further so that strings that read alike compare equal.
///
/// `domain` is a host name or a registrable domain, in ASCII (Punycode) or
/// Unicode, any case, with or without a trailing dot; `login.paypal.com`
/// gives the skeleton of `paypal.com`. Each label is converted to Unicode
/// (so `xn--pypal-4ve.com`, `pаypal.com` with a Cyrillic `а`, reads as
/// `paypal.com`), then:
///
/// 1. UTS 39 skeleton (`unicode_security::skeleton`: NFD, default-ignorable
///    code points dropped, each character replaced by its confusable
///    prototype, NFD again), then lowercased;
/// 2. combining marks of the Inherited script (the generic diacritics
///    U+0300–U+036F and the like) dropped, so `pàypal` reads as `paypal`;
/// 3. these ASCII look-alikes folded, characters first, then pairs from
///    left to right: `0` → `o`; `1`, `l`, `|` and `I` → `i`; `rn` → `m`;
///    `vv` → `w`. (UTS 39 alone maps `0` to `O`, `1`, `I` and `|` to `l`,
///    and `m` to `rn`; folding to single lower-case letters also catches
///    `paypai` and `vvikipedia`.)
///
/// `paypal.com` gives `paypai.com`, `rnicrosoft.com` gives
/// `microsoft.com`. The skeleton is for comparison only; never show it.
///
/// An IP address gives its canonical form unchanged (`0x7f.1` gives
/// `127.0.0.1`); refused input (empty, longer than [`MAX_DOMAIN_LEN`]
/// bytes, not a valid host name) gives `""`.
pub fn skeleton(domain: &str) -> String {
    let mut scratch = Scratch::default();
    let mut n = Name::default();
    match parse(domain, Need::Registrable, &mut scratch, &mut n) {
        Kind::Name => {
            let mut out = n.name_skel;
            if !n.suffix_skel.is_empty() {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&n.suffix_skel);
            }
            out
        }
        Kind::Ip => n.ip,
        Kind::Refused => String::new(),
    }
}

/// Whether `candidate` resembles `known`, and why (the strongest reason).
///
/// `candidate` is the host about to be opened: best the full host
/// ([`Inspection::ascii_host`](crate::Inspection)), because
/// [`Resemblance::Embedded`] looks at the labels in front of the
/// registrable domain (`paypal.com.evil.example`); its registrable domain
/// alone works for every other reason. `known` is a domain the user opened
/// before (its registrable domain is used).
///
/// `None` when the two have the same registrable domain (`www.paypal.com`
/// and `paypal.com`: that is the familiar domain itself, not a look-alike),
/// when either is an IP address or refused input (see [`skeleton`]), and
/// when no rule applies. Two names under the same suffix do not resemble
/// each other for that reason alone: `attacker.github.io` and
/// `victim.github.io` are different registrable domains that resemble each
/// other only if the names do (`victim` / `vict1m`).
///
/// The reasons, tried in this order:
/// [`SameSkeleton`](Resemblance::SameSkeleton),
/// [`OtherSuffix`](Resemblance::OtherSuffix) (names of 3 characters or
/// more), [`EditDistance`](Resemblance::EditDistance) (optimal string
/// alignment distance, the restricted Damerau-Levenshtein distance, between
/// the skeletons of the names; 1 for names of 5 characters or more, 2 for
/// 8 or more, not computed for names over 63, the length of one DNS
/// label), [`Embedded`](Resemblance::Embedded).
pub fn resemblance(candidate: &str, known: &str) -> Option<Resemblance> {
    let mut scratch = Scratch::default();
    let mut c = Name::default();
    let mut k = Name::default();
    if parse(candidate, Need::Host, &mut scratch, &mut c) != Kind::Name
        || parse(known, Need::Registrable, &mut scratch, &mut k) != Kind::Name
    {
        return None;
    }
    compare(&c, &k, &mut scratch).map(|(r, _)| r)
}

/// The known domain that `candidate` resembles most, and why.
///
/// Same rules as [`resemblance`], applied to each known domain; refused
/// entries and IP addresses among them are skipped. The strongest reason
/// wins (in the order of [`Resemblance`], an edit distance of 1 before 2);
/// on a tie, the first in `known`. `None` if nothing resembles, and also
/// when `candidate` has the same registrable domain as one of the known
/// domains: it is then familiar itself.
///
/// Linear in the length of `known`; for the cost of 10,000 known domains
/// run `cargo run --release -p airlock-url-safety --example
/// lookalike_timing`.
pub fn closest_resemblance<'a>(
    candidate: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<(&'a str, Resemblance)> {
    let mut scratch = Scratch::default();
    let mut c = Name::default();
    if parse(candidate, Need::Host, &mut scratch, &mut c) != Kind::Name {
        return None;
    }
    let mut kn = Name::default();
    let mut best: Option<(u8, &'a str, Resemblance)> = None;
    for k in known {
        if parse(k, Need::Registrable, &mut scratch, &mut kn) != Kind::Name {
            continue;
        }
        if kn.ascii == c.ascii {
            return None;
        }
        // Nothing can beat the strongest reason; keep scanning only for an
        // identical (familiar) entry.
        if best.as_ref().is_some_and(|b| b.0 == 0) {
            continue;
        }
        if let Some((r, rank)) = compare(&c, &kn, &mut scratch) {
            if best.as_ref().is_none_or(|b| rank < b.0) {
                best = Some((rank, k, r));
            }
        }
    }
    best.map(|(_, k, r)| (k, r))
}

/// A host's words, for the well-known list ([`crate::well_known`]).
pub(crate) struct HostWords {
    /// The skeletons of the host's labels, split at `.` and `-`.
    pub words: Vec<String>,
    /// How many of `words` stand in front of the public suffix.
    pub suffix_at: usize,
    /// The host's registrable domain, ASCII, lower-case.
    pub registrable: String,
}

/// The words of `host` (see [`HostWords`]); `None` for IP addresses and
/// refused input.
pub(crate) fn host_words(host: &str) -> Option<HostWords> {
    let mut scratch = Scratch::default();
    let mut n = Name::default();
    if parse(host, Need::Host, &mut scratch, &mut n) != Kind::Name {
        return None;
    }
    let mut words = Vec::new();
    let mut suffix_at = 0;
    // `host_words` is `.w1.w2.` and `suffix_words_at` the offset of the dot
    // in front of the suffix's first word.
    let mut dot = 0;
    for w in n.host_words.get(1..).unwrap_or("").split('.') {
        if w.is_empty() {
            continue;
        }
        if dot < n.suffix_words_at {
            suffix_at += 1;
        }
        words.push(w.to_owned());
        dot += w.len() + 1;
    }
    Some(HostWords {
        words,
        suffix_at,
        registrable: n.ascii,
    })
}

/// What an input reduces to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A domain name, described by [`Name`].
    Name,
    /// An IP address; [`Name::ip`] holds its canonical text.
    Ip,
    Refused,
}

/// How much of a host to analyse.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    /// The registrable domain only (known domains, [`skeleton`]).
    Registrable,
    /// Also the words of the whole host (candidates).
    Host,
}

/// A domain name, reduced. Reused across the entries of a known list.
#[derive(Default)]
struct Name {
    /// Registrable domain, ASCII, lower-case, no trailing dot.
    ascii: String,
    /// Skeleton of the part left of the public suffix (labels joined by
    /// `.`); empty when the host is itself a public suffix.
    name_skel: String,
    /// Characters in `name_skel`.
    name_len: usize,
    /// Skeleton of the public suffix; empty for dotless local names.
    suffix_skel: String,
    /// Only with [`Need::Host`]: the skeletons of all labels of the host,
    /// split into words at `.` and `-`, each word followed by a `.` and the
    /// whole starting with one (`.paypal.com.evil.example.`).
    host_words: String,
    /// Byte offset in `host_words` of the `.` in front of the first word of
    /// the public suffix.
    suffix_words_at: usize,
    /// Byte ranges in `host_words` of the words in front of the suffix.
    front_words: Vec<(usize, usize)>,
    /// Canonical text of an IP address ([`Kind::Ip`]).
    ip: String,
}

impl Name {
    /// The bytes of the [`skeleton`]: name and suffix skeletons, joined by
    /// a dot when both are there.
    fn full_skeleton(&self) -> impl Iterator<Item = u8> + '_ {
        let dot: &[u8] = if self.name_skel.is_empty() || self.suffix_skel.is_empty() {
            b""
        } else {
            b"."
        };
        self.name_skel
            .bytes()
            .chain(dot.iter().copied())
            .chain(self.suffix_skel.bytes())
    }
}

/// Buffers reused across the entries of a known list.
#[derive(Default)]
struct Scratch {
    lower: String,
    unicode: String,
    front: String,
    words: String,
    a: Vec<char>,
    b: Vec<char>,
    cache: CharCache,
}

/// Reduces `input` into `out`; see the module documentation.
fn parse(input: &str, need: Need, scratch: &mut Scratch, out: &mut Name) -> Kind {
    out.ascii.clear();
    out.name_skel.clear();
    out.name_len = 0;
    out.suffix_skel.clear();
    out.host_words.clear();
    out.suffix_words_at = 0;
    out.front_words.clear();
    out.ip.clear();

    let trimmed = input.strip_suffix('.').unwrap_or(input);
    if trimmed.is_empty() || trimmed.len() > MAX_DOMAIN_LEN {
        return Kind::Refused;
    }
    let lower = &mut scratch.lower;
    lower.clear();
    if is_plain_ascii_name(trimmed) {
        // What the WHATWG host parser would give, up to case: ASCII
        // letters, digits, hyphens and dots, not numeric at the end.
        // Punycode labels are checked when they are decoded below.
        lower.extend(trimmed.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        match Host::parse(input) {
            Ok(Host::Domain(d)) => {
                lower.push_str(d.strip_suffix('.').unwrap_or(&d));
            }
            Ok(Host::Ipv4(ip)) => {
                out.ip = ip.to_string();
                return Kind::Ip;
            }
            Ok(Host::Ipv6(ip)) => {
                out.ip = format!("[{ip}]");
                return Kind::Ip;
            }
            Err(_) => return Kind::Refused,
        }
    }
    let ascii = lower.as_str();
    if ascii.is_empty() || !ascii.is_ascii() || !idna::uts46::verify_dns_length(ascii, false) {
        return Kind::Refused;
    }
    // The Unicode form, label for label (same labels, same order).
    let decoded = has_punycode_label(ascii);
    let unicode: &str = if decoded {
        let (u, result) = idna::domain_to_unicode(ascii);
        if result.is_err() {
            return Kind::Refused;
        }
        scratch.unicode = u;
        &scratch.unicode
    } else {
        ascii
    };
    let (registrable, suffix) = split_registrable(ascii);
    out.ascii.push_str(registrable);
    // The same parts of the Unicode form: by length when it is the ASCII
    // form itself, else by counting labels.
    let (u_front, u_name, u_suffix) = if !decoded {
        (
            strip_tail(ascii, registrable.len()),
            strip_tail(registrable, suffix.len()),
            suffix,
        )
    } else {
        let labels = |s: &str| {
            if s.is_empty() {
                0
            } else {
                1 + s.bytes().filter(|&b| b == b'.').count()
            }
        };
        let (reg, suf) = (labels(registrable), labels(suffix));
        let u_registrable = last_labels(unicode, reg);
        (
            strip_last_labels(unicode, reg),
            strip_last_labels(u_registrable, suf),
            last_labels(unicode, suf),
        )
    };
    let cache = &mut scratch.cache;
    fold_text(u_name, &mut out.name_skel, cache);
    out.name_len = if out.name_skel.is_ascii() {
        out.name_skel.len()
    } else {
        out.name_skel.chars().count()
    };
    fold_text(u_suffix, &mut out.suffix_skel, cache);
    if need == Need::Host {
        fold_text(u_front, &mut scratch.front, cache);
        let words = &mut out.host_words;
        words.push('.');
        push_words(&scratch.front, words, Some(&mut out.front_words));
        push_words(&out.name_skel, words, Some(&mut out.front_words));
        out.suffix_words_at = words.len() - 1;
        push_words(&out.suffix_skel, words, None);
    }
    Kind::Name
}

/// `s` without its last `len` bytes and the dot in front of them (`""`
/// when that is all of it).
fn strip_tail(s: &str, len: usize) -> &str {
    if len == 0 {
        return s;
    }
    s.len()
        .checked_sub(len + 1)
        .and_then(|end| s.get(..end))
        .unwrap_or("")
}

/// The last `n` labels of `s` (all of it when it has no more).
fn last_labels(s: &str, n: usize) -> &str {
    if n == 0 {
        return "";
    }
    match s.rmatch_indices('.').nth(n - 1) {
        Some((dot, _)) => s.get(dot + 1..).unwrap_or(""),
        None => s,
    }
}

/// `s` without its last `n` labels and the dot in front of them.
fn strip_last_labels(s: &str, n: usize) -> &str {
    if n == 0 {
        return s;
    }
    match s.rmatch_indices('.').nth(n - 1) {
        Some((dot, _)) => s.get(..dot).unwrap_or(""),
        None => "",
    }
}

/// ASCII letters, digits, `-` and `.` only, and a last label that does not
/// start with a digit (the WHATWG parser would try it as an IPv4 address).
/// Such names are their own WHATWG/IDNA form, up to case, once their
/// Punycode labels (if any) decode.
fn is_plain_ascii_name(s: &str) -> bool {
    let plain = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    let last_start = s.rfind('.').map_or(0, |dot| dot + 1);
    plain && !s.as_bytes().get(last_start).is_some_and(u8::is_ascii_digit)
}

/// Some label starts with `xn--` (any case).
fn has_punycode_label(s: &str) -> bool {
    s.split('.').any(|l| {
        l.as_bytes()
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"xn--"))
    })
}

/// The reason `c` resembles `k`, with its rank (lower is stronger), or
/// `None`. `c` must have been parsed with [`Need::Host`].
fn compare(c: &Name, k: &Name, scratch: &mut Scratch) -> Option<(Resemblance, u8)> {
    if c.ascii == k.ascii {
        return None;
    }
    if c.full_skeleton().eq(k.full_skeleton()) {
        return Some((Resemblance::SameSkeleton, 0));
    }
    if c.name_skel == k.name_skel && c.name_len >= OTHER_SUFFIX_MIN_LEN {
        return Some((Resemblance::OtherSuffix, 1));
    }
    let shorter = c.name_len.min(k.name_len);
    let longer = c.name_len.max(k.name_len);
    let max = if longer > EDIT_MAX_LEN {
        0
    } else if shorter >= EDIT2_MIN_LEN {
        2
    } else if shorter >= EDIT_MIN_LEN {
        1
    } else {
        0
    };
    if max > 0 && c.name_len.abs_diff(k.name_len) <= max {
        let d = if c.name_skel.is_ascii() && k.name_skel.is_ascii() {
            osa_distance_within(c.name_skel.as_bytes(), k.name_skel.as_bytes(), max)
        } else {
            scratch.a.clear();
            scratch.a.extend(c.name_skel.chars());
            scratch.b.clear();
            scratch.b.extend(k.name_skel.chars());
            osa_distance_within(&scratch.a, &scratch.b, max)
        };
        if let Some(d) = d.filter(|&d| d > 0) {
            // d is 1 or 2.
            return Some((Resemblance::EditDistance, 1 + d as u8));
        }
    }
    // Embedded: cheap test first (the known domain's first word is one of
    // the candidate's words in front of its suffix), then the whole word
    // sequence. The leftmost occurrence must start in front of the
    // candidate's public suffix (`attacker.github.io` does not embed
    // `github.io`).
    let first = k.name_skel.split(['.', '-']).find(|w| !w.is_empty())?;
    let first_found = c
        .front_words
        .iter()
        .any(|&(s, e)| c.host_words.get(s..e) == Some(first));
    if !first_found {
        return None;
    }
    let words = &mut scratch.words;
    words.clear();
    words.push('.');
    push_words(&k.name_skel, words, None);
    push_words(&k.suffix_skel, words, None);
    match c.host_words.find(words.as_str()) {
        Some(at) if at < c.suffix_words_at => Some((Resemblance::Embedded, 4)),
        _ => None,
    }
}

#[path = "lookalike_fold.rs"]
mod fold;
use fold::*;

#[cfg(test)]
#[path = "lookalike_tests.rs"]
mod tests;
