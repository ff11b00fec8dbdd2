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
use std::sync::OnceLock;
use unicode_script::{Script, UnicodeScript};
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

    /// One sentence for a person, about the domain being opened and the
    /// familiar one it resembles (which the caller names next to it).
    pub fn describe(&self) -> &'static str {
        match self {
            Resemblance::SameSkeleton => {
                "This domain looks the same as one you opened before, but it is a different domain: some of its characters only look alike."
            }
            Resemblance::OtherSuffix => {
                "This domain has the same name as one you opened before, but ends differently, so it can belong to someone else."
            }
            Resemblance::EditDistance => {
                "This domain differs by only a letter or two from one you opened before; it may be imitating it."
            }
            Resemblance::Embedded => {
                "This address contains the name of a domain you opened before, but it belongs to a different domain."
            }
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

/// Appends the words of `skel` (split at `.` and `-`, empty words
/// dropped), each followed by a `.`, and records their byte ranges in
/// `ranges`.
fn push_words(skel: &str, out: &mut String, mut ranges: Option<&mut Vec<(usize, usize)>>) {
    for w in skel.split(['.', '-']).filter(|w| !w.is_empty()) {
        let at = out.len();
        out.push_str(w);
        if let Some(r) = ranges.as_deref_mut() {
            r.push((at, out.len()));
        }
        out.push('.');
    }
}

/// Folds `text` (labels joined by `.`, lower-case) into `out`: see
/// [`skeleton`].
///
/// ASCII characters come from a table; each run of other characters goes
/// through `unicode_security::skeleton` on its own. That is the skeleton of
/// the whole text: an ASCII character is a starter that neither decomposes
/// nor takes part in canonical reordering, and so are the characters of its
/// prototype, so the normalization steps never reach across it.
///
/// A run of a single character, the common case in internationalized names
/// (`münchen`), is looked up in `cache` first.
fn fold_text(text: &str, out: &mut String, cache: &mut CharCache) {
    out.clear();
    out.reserve(text.len());
    let (single, table) = ascii_skeletons();
    let mut rest = text;
    while !rest.is_empty() {
        let ascii_len = rest.bytes().take_while(u8::is_ascii).count();
        let (ascii, tail) = rest.split_at(ascii_len);
        for b in ascii.bytes() {
            let i = usize::from(b);
            match single.get(i).copied() {
                Some(one) if one != 0 => push_folded(out, char::from(one)),
                _ => {
                    let more = table.get(i).map_or("", String::as_str);
                    more.chars().for_each(|c| push_folded(out, c));
                }
            }
        }
        let other_len = tail.find(|c: char| c.is_ascii()).unwrap_or(tail.len());
        let (other, tail) = tail.split_at(other_len);
        let mut chars = other.chars();
        match (chars.next(), chars.next()) {
            (None, _) => {}
            (Some(one), None) => {
                let folded = cache.get(one);
                folded.chars().for_each(|c| push_folded(out, c));
            }
            _ => skeleton_run(other, |c| push_folded(out, c)),
        }
        rest = tail;
    }
}

/// The skeleton of `run`, lower-cased, marks dropped, characters folded,
/// one character at a time.
fn skeleton_run(run: &str, mut each: impl FnMut(char)) {
    for c in unicode_security::skeleton(run) {
        for l in c.to_lowercase() {
            if !is_dropped_mark(l) {
                each(fold_char(l));
            }
        }
    }
}

/// What single non-ASCII characters fold to (before pairs are folded),
/// remembered for the entries of one known list. Bounded: it starts over
/// when full.
#[derive(Default)]
struct CharCache(std::collections::HashMap<char, String>);

impl CharCache {
    const MAX: usize = 4096;

    fn get(&mut self, c: char) -> &str {
        if self.0.len() >= Self::MAX && !self.0.contains_key(&c) {
            self.0.clear();
        }
        self.0.entry(c).or_insert_with(|| {
            let mut folded = String::new();
            let mut buf = [0u8; 4];
            skeleton_run(c.encode_utf8(&mut buf), |f| folded.push(f));
            folded
        })
    }
}

/// Appends `c`, folding the pairs `rn` → `m` and `vv` → `w` from left to
/// right as it goes.
#[inline]
fn push_folded(out: &mut String, c: char) {
    let last = out.as_bytes().last().copied();
    let pair = match (last, c) {
        (Some(b'r'), 'n') => 'm',
        (Some(b'v'), 'v') => 'w',
        _ => {
            out.push(c);
            return;
        }
    };
    out.pop();
    out.push(pair);
}

/// Combining marks of the Inherited script (generic diacritics).
fn is_dropped_mark(c: char) -> bool {
    !c.is_ascii() && c.script() == Script::Inherited
}

/// The one-character ASCII folds.
fn fold_char(c: char) -> char {
    match c {
        '0' => 'o',
        '1' | 'l' | '|' | 'I' => 'i',
        c => c,
    }
}

/// Skeleton, lower-cased and character-folded, of each ASCII character,
/// computed once from the UTS 39 data (the same result as the Unicode
/// path, without its per-character cost): the characters to append, and
/// for most characters also the single ASCII byte they come to once their
/// own pairs are folded (`m` gives `rn`, which folds back to `m`), else 0.
/// Appending that byte with [`push_folded`] is the same as appending the
/// characters: of a folded pair only the second character looks back.
fn ascii_skeletons() -> &'static ([u8; 128], Vec<String>) {
    static TABLE: OnceLock<([u8; 128], Vec<String>)> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table: Vec<String> = (0u8..128)
            .map(|b| {
                let c = char::from(b).to_string();
                unicode_security::skeleton(&c)
                    .flat_map(char::to_lowercase)
                    .filter(|&c| !is_dropped_mark(c))
                    .map(fold_char)
                    .collect()
            })
            .collect();
        let mut single = [0u8; 128];
        for (slot, chars) in single.iter_mut().zip(&table) {
            let mut folded = String::new();
            chars.chars().for_each(|c| push_folded(&mut folded, c));
            if let &[one] = folded.as_bytes() {
                if one.is_ascii() && one != 0 {
                    *slot = one;
                }
            }
        }
        (single, table)
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

/// Optimal string alignment distance (restricted Damerau-Levenshtein:
/// insertions, deletions, substitutions, swaps of neighbours) between `a`
/// and `b` if it is at most `max` (at most 2), else `None`; also `None`
/// when either is longer than [`EDIT_MAX_LEN`]. Only the band of cells
/// within `max` of the diagonal is computed, so the cost is linear in the
/// length.
fn osa_distance_within<T: PartialEq>(a: &[T], b: &[T], max: usize) -> Option<usize> {
    const W: usize = EDIT_MAX_LEN + 2;
    if max > 2 || a.len() > EDIT_MAX_LEN || b.len() > EDIT_MAX_LEN {
        return None;
    }
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    // Any value above `max` behaves the same; cap there so u8 never
    // overflows.
    let inf = (max + 1) as u8;
    let cap = |n: usize| n.min(usize::from(inf)) as u8;
    // Rows i-2, i-1 and i of the matrix, indexed by j. Row i is written in
    // its band [lo, hi] and one cell either side (or its column 0), which
    // is all the next two rows read.
    let mut prev2 = [inf; W];
    let mut prev = [inf; W];
    let mut cur = [inf; W];
    for (j, cell) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *cell = cap(j);
    }
    for i in 1..=a.len() {
        let lo = i.saturating_sub(max).max(1);
        let hi = (i + max).min(b.len());
        cur[0] = cap(i);
        if lo > 1 {
            cur[lo - 1] = inf;
        }
        if hi < b.len() {
            cur[hi + 1] = inf;
        }
        let mut row_min = cur[0];
        for j in lo..=hi {
            let cost = u8::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            let v = v.min(inf);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > inf - 1 {
            return None;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = usize::from(prev[b.len()]);
    (d <= max).then_some(d)
}

#[cfg(test)]
mod tests {
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
}
