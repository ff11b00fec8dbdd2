//! Cutting a host or a URL around its registrable domain, so a surface can
//! emphasise the part that says who runs the page (bold, a colour) and dim
//! the rest. Nothing is shortened here: a surface with little room elides
//! the parts itself, never the domain.

use airlock_url_safety::neutralize_for_display;

use super::Split;
use super::MAX_VIEW_URL_CHARS;

/// Longest host or domain (the longest DNS name).
pub(super) const HOST_CHARS: usize = 253;

/// Is `suffix` the last labels of `host` (a whole number of labels)?
fn ends_with_labels(host: &str, suffix: &str) -> bool {
    !suffix.is_empty()
        && host.len() >= suffix.len()
        && host.is_char_boundary(host.len() - suffix.len())
        && host[host.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
        && (host.len() == suffix.len() || host[..host.len() - suffix.len()].ends_with('.'))
}

/// The displayed host cut around its registrable domain: the labels before
/// it, the domain's own labels in their displayed form (Unicode where
/// airlock-url-safety allows it) and a trailing dot if the host has one.
/// The display form has the same labels as the ASCII form the registrable
/// domain was computed from (Punycode is per label), so the domain is the
/// display host's last labels, as many as the registrable domain has.
/// `None` when that does not hold (then nothing is emphasised).
pub fn split_host(display_host: &str, ascii_host: &str, registrable: &str) -> Option<Split> {
    let trailing_dot = |h: &str| h.len() > 1 && h.ends_with('.');
    let (display, ascii) = (
        display_host
            .strip_suffix('.')
            .filter(|_| trailing_dot(display_host)),
        ascii_host
            .strip_suffix('.')
            .filter(|_| trailing_dot(ascii_host)),
    );
    let after = if display.is_some() { "." } else { "" };
    let display = display.unwrap_or(display_host);
    let ascii = ascii.unwrap_or(ascii_host);
    if !ends_with_labels(ascii, registrable) {
        return None;
    }
    let labels: Vec<&str> = display.split('.').collect();
    let n = registrable.split('.').count();
    if labels.len() != ascii.split('.').count() || n > labels.len() {
        return None;
    }
    let (prefix, domain) = labels.split_at(labels.len() - n);
    let mut before = prefix.join(".");
    if !before.is_empty() {
        before.push('.');
    }
    Some(Split {
        before: neutralize_for_display(&before, HOST_CHARS),
        domain: neutralize_for_display(&domain.join("."), HOST_CHARS),
        after: after.into(),
    })
}

/// A URL (the normalised, ASCII form) cut around the registrable domain of
/// its host. Without a `scheme://host` to find, the whole URL is `before`
/// and nothing is emphasised.
pub fn split_url(url: &str, ascii_host: Option<&str>, registrable: Option<&str>) -> Split {
    let url = neutralize_for_display(url, MAX_VIEW_URL_CHARS);
    cut_url(&url, ascii_host, registrable).unwrap_or_else(|| Split::plain(url))
}

fn cut_url(url: &str, ascii_host: Option<&str>, registrable: Option<&str>) -> Option<Split> {
    let (host, registrable) = (ascii_host?, registrable?);
    let scheme_end = url.find("://")? + 3;
    let rest = url.get(scheme_end..)?;
    let authority = rest.get(..rest.find(['/', '?', '#']).unwrap_or(rest.len()))?;
    // WHATWG serialisation percent-encodes `@` in user information: the
    // host starts after the last one.
    let host_start = scheme_end + authority.rfind('@').map_or(0, |i| i + 1);
    if !url.get(host_start..)?.starts_with(host) {
        return None;
    }
    let host = host
        .strip_suffix('.')
        .filter(|h| !h.is_empty())
        .unwrap_or(host);
    if !ends_with_labels(host, registrable) {
        return None;
    }
    let domain_end = host_start + host.len();
    let domain_start = domain_end.checked_sub(registrable.len())?;
    Some(Split {
        before: url.get(..domain_start)?.to_owned(),
        domain: url.get(domain_start..domain_end)?.to_owned(),
        after: url.get(domain_end..)?.to_owned(),
    })
}
