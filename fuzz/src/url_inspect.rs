//! URL inspection: what Airlock tells the user before a server's URL is
//! opened, and the look-alike check of its domain.
//!
//! Input: text (invalid UTF-8 replaced). The whole text is inspected as a
//! URL; its first line is also a look-alike candidate against the other
//! lines (at most [`MAX_KNOWN`]) as the known domains.

use airlock_url_safety::{
    closest_resemblance, elide_middle, inspect, neutralize_for_display, resemblance, skeleton,
    BlockReason, Inspection, Policy, Resemblance, Verdict, Warning, MAX_URL_LEN,
};

use crate::assert_shown_safely;

/// Known domains compared with the candidate, at most.
pub const MAX_KNOWN: usize = 64;

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    check_url(&text);
    let mut lines = text.lines();
    let candidate = lines.next().unwrap_or_default();
    let known: Vec<&str> = lines.take(MAX_KNOWN).collect();
    check_url(candidate);
    check_lookalike(candidate, &known);
    check_display(&text);
}

/// The verdict agrees with the reasons and warnings.
fn check_consistent(raw: &str, i: &Inspection) {
    match i.verdict {
        Verdict::Block => assert!(i.block_reason.is_some(), "block without a reason: {raw:?}"),
        Verdict::Warn => assert!(
            i.block_reason.is_none() && !i.warnings.is_empty(),
            "warn with a block reason or without a warning: {raw:?} {i:?}"
        ),
        Verdict::Ok => assert!(
            i.block_reason.is_none() && i.warnings.is_empty(),
            "ok with a block reason or a warning: {raw:?} {i:?}"
        ),
    }
    assert!(
        i.warnings.windows(2).all(|w| w[0] < w[1]),
        "warnings not sorted and unique: {:?}",
        i.warnings
    );
    // Hidden characters in the text as sent are always reported.
    if raw.chars().any(crate::is_hidden) {
        assert!(
            i.has_warning(Warning::HiddenCharacters),
            "hidden characters without the warning: {raw:?}"
        );
    }
    if raw.len() > MAX_URL_LEN {
        assert_eq!(i.block_reason, Some(BlockReason::TooLong), "{raw:?}");
    }
}

/// What a URL that may be opened looks like.
fn check_openable(raw: &str, i: &Inspection) {
    let url = i
        .url
        .as_deref()
        .expect("an openable URL has a normalised form");
    let scheme = i.scheme.as_deref().unwrap_or_default();
    assert!(
        scheme == "https" || scheme == "http",
        "openable with scheme {scheme:?}: {raw:?}"
    );
    assert!(url.is_ascii(), "normalised URL is not ASCII: {url:?}");
    // Plain http only to loopback, with the warning.
    if scheme == "http" {
        assert!(i.has_warning(Warning::NotHttps), "{raw:?}");
        assert!(
            i.has_warning(Warning::LocalAddress),
            "http to a non-local host: {raw:?}"
        );
    }
    let host = i.ascii_host.as_deref().expect("an openable URL has a host");
    let domain = i
        .registrable_domain
        .as_deref()
        .expect("an openable URL has a registrable domain");
    assert!(!domain.is_empty(), "empty registrable domain: {raw:?}");
    // The registrable domain is a tail of the host, on a label boundary.
    let bare = host.strip_suffix('.').unwrap_or(host);
    if !i.has_warning(Warning::IpLiteral) {
        assert!(
            bare == domain || bare.ends_with(&format!(".{domain}")),
            "registrable domain {domain:?} is not a tail of host {host:?}"
        );
    }
    let display = i
        .display_host
        .as_deref()
        .expect("an openable URL has a display host");
    assert!(
        !display.chars().any(crate::is_hidden),
        "display host shows a hidden character: {display:?}"
    );

    // The URL that would be opened, inspected again (as the browser parses
    // it again), says the same: same URL, host and domain, same warnings
    // but those only the text as sent can carry.
    let again = inspect(url, &Policy::default());
    assert_eq!(
        again.url.as_deref(),
        Some(url),
        "normalising is not idempotent for {raw:?}"
    );
    assert_eq!(again.ascii_host, i.ascii_host, "{raw:?}");
    assert_eq!(again.display_host, i.display_host, "{raw:?}");
    assert_eq!(again.registrable_domain, i.registrable_domain, "{raw:?}");
    assert_eq!(
        again.block_reason, None,
        "{raw:?} opens {url:?}, which is blocked"
    );
    let structural = |w: &&Warning| !matches!(w, Warning::HiddenCharacters | Warning::Userinfo);
    assert_eq!(
        again.warnings.iter().filter(structural).collect::<Vec<_>>(),
        i.warnings.iter().filter(structural).collect::<Vec<_>>(),
        "{raw:?} re-inspected as {url:?}"
    );
    // Normalising never invents text in front of the host.
    if again.has_warning(Warning::Userinfo) {
        assert!(
            i.has_warning(Warning::Userinfo),
            "{raw:?} gains userinfo as {url:?}"
        );
    }
}

fn check_url(raw: &str) {
    let lenient = Policy::default();
    let strict = Policy {
        allow_http_loopback: false,
    };
    let i = inspect(raw, &lenient);
    check_consistent(raw, &i);
    let s = inspect(raw, &strict);
    check_consistent(raw, &s);
    // The strict policy only ever blocks more, and only for plain http.
    if !s.is_blocked() {
        assert_eq!(s, i, "strict allows what lenient judges otherwise: {raw:?}");
    } else if !i.is_blocked() {
        assert_eq!(s.block_reason, Some(BlockReason::InsecureScheme), "{raw:?}");
        assert_eq!(s.url, i.url, "{raw:?}");
    }
    if !i.is_blocked() {
        check_openable(raw, &i);
    }
}

fn check_lookalike(candidate: &str, known: &[&str]) {
    let _ = skeleton(candidate);
    // A domain never looks like itself.
    assert_eq!(
        resemblance(candidate, candidate),
        None,
        "{candidate:?} resembles itself"
    );
    let cand_skel = skeleton(candidate);
    for k in known {
        let r = resemblance(candidate, k);
        // The list function agrees with the pair function.
        assert_eq!(
            closest_resemblance(candidate, [*k]).map(|(_, r)| r),
            r,
            "{candidate:?} vs {k:?}"
        );
        // Equal skeletons: either the same domain (or an IP), or the
        // strongest reason.
        if !cand_skel.is_empty() && cand_skel == skeleton(k) {
            assert!(
                matches!(r, None | Some(Resemblance::SameSkeleton)),
                "{candidate:?} and {k:?} share a skeleton but resemble by {r:?}"
            );
        }
    }
    // The strongest reason over the whole list is one of the pairs'.
    if let Some((k, r)) = closest_resemblance(candidate, known.iter().copied()) {
        assert_eq!(resemblance(candidate, k), Some(r), "{candidate:?} vs {k:?}");
        for other in known {
            if let Some(o) = resemblance(candidate, other) {
                assert!(r <= o, "{k:?} ({r:?}) chosen over {other:?} ({o:?})");
            }
        }
    }
}

fn check_display(text: &str) {
    for max in [0usize, 1, 2, 40, 200] {
        let shown = neutralize_for_display(text, max);
        assert_shown_safely("neutralize_for_display", &shown, max);
        let elided = elide_middle(text, max);
        assert!(
            elided.chars().count() <= max,
            "elide_middle({max}) too long"
        );
    }
}
