//! Link shorteners: public services where anyone can make a short link that
//! redirects to any address. The consent can show only the shortener's
//! domain, never where the link really goes (finding out would mean
//! fetching it, and nothing here touches the network), so such a URL
//! earns [`crate::Warning::LinkShortener`].
//!
//! Source: compiled by hand in December 2026 from well-known
//! general-purpose shortening services (those named in Wikipedia's "URL
//! shortening" article and on the services' own sites) and from the link
//! wrappers that social networks and posting tools put around any link
//! (`t.co`, `lnkd.in`, `buff.ly`, `ow.ly`, `dlvr.it`, `ift.tt`, `trib.al`).
//! Bounded on purpose and not exhaustive: first-party short domains that
//! only ever lead to their owner's own site (`youtu.be`, `aka.ms`,
//! `amzn.to`) are left out, since where they go is no secret.

/// Registrable domains (eTLD+1, ASCII, lower case) of link shorteners.
pub const LINK_SHORTENERS: [&str; 26] = [
    "adf.ly",
    "bit.do",
    "bit.ly",
    "bitly.com",
    "bl.ink",
    "buff.ly",
    "cutt.ly",
    "dlvr.it",
    "goo.gl",
    "ift.tt",
    "is.gd",
    "j.mp",
    "lnkd.in",
    "ow.ly",
    "rb.gy",
    "rebrand.ly",
    "s.id",
    "short.gy",
    "shorte.st",
    "shorturl.at",
    "t.co",
    "t.ly",
    "tiny.cc",
    "tinyurl.com",
    "trib.al",
    "v.gd",
];

/// Is `registrable` (a registrable domain, without a trailing dot) one of
/// [`LINK_SHORTENERS`]?
pub(crate) fn is_link_shortener(registrable: &str) -> bool {
    LINK_SHORTENERS
        .iter()
        .any(|s| s.eq_ignore_ascii_case(registrable))
}
