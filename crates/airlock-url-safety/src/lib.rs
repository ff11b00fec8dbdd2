//! Offline inspection of URLs that an untrusted MCP server asks the user to
//! open (URL-mode elicitation).
//!
//! [`inspect`] parses the text exactly as a browser would (WHATWG URL
//! parsing via the `url` crate), then reports what the user should know
//! before opening it: a [`Verdict`], the normalised URL, how the host should
//! be displayed, the registrable domain (eTLD+1 from an embedded Public
//! Suffix List, private section included), and [`Warning`] /
//! [`BlockReason`] codes. Their sentences for a person live in one table,
//! airlock-core's `elicitation::view::sentences`, next to every other word
//! of consent.
//!
//! Nothing here touches the network: no DNS lookups, no fetches. A domain
//! name that happens to resolve to a private address cannot be detected.
//!
//! [`neutralize_for_display`] and [`elide_middle`] help show untrusted
//! text (messages, URLs) as plain text in a terminal or GUI.
//!
//! [`skeleton`], [`resemblance`] and [`closest_resemblance`] tell whether a
//! domain the user has not opened before resembles one they have (same
//! look once confusable characters are folded, same name under another
//! suffix, a letter or two apart, or embedded in the host): pure functions
//! for the caller's "domain familiarity" check.

mod idn;
mod ip;
mod lookalike;
mod mentions;
pub mod notice;
mod shorteners;
mod text;
mod well_known;

use serde::{Deserialize, Serialize};
use std::fmt;
use url::{Host, Url};

pub use lookalike::{closest_resemblance, resemblance, skeleton, Resemblance, MAX_DOMAIN_LEN};
pub use mentions::{named_domains, MAX_NAMED};
pub use shorteners::LINK_SHORTENERS;
pub use text::{elide_middle, neutralize_for_display};
pub use well_known::{embedded_well_known, is_well_known, well_known_domains};

/// Longest raw URL (in bytes) that is inspected at all; anything longer is
/// blocked with [`BlockReason::TooLong`].
pub const MAX_URL_LEN: usize = 8192;

/// Knobs for [`inspect`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct Policy {
    /// Allow plain `http://` to loopback hosts (127.0.0.0/8, `::1`,
    /// `localhost`, `*.localhost`), with warnings. Local OAuth callbacks and
    /// dev servers need this. Default: `true`.
    pub allow_http_loopback: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_http_loopback: true,
        }
    }
}

/// Overall judgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing noteworthy.
    Ok,
    /// May be opened, but the user should see the warnings first.
    Warn,
    /// Must not be opened.
    Block,
}

impl Verdict {
    /// `"ok"`, `"warn"` or `"block"`.
    pub fn code(&self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
            Verdict::Block => "block",
        }
    }
}

/// Something the user should know before opening the URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Warning {
    /// Plain `http`, not encrypted.
    NotHttps,
    /// The host is shown in Punycode because its Unicode form could mislead.
    Punycode,
    /// The host is an IP address (including numeric forms like `2130706433`
    /// or `0x7f.1` that browsers turn into one).
    IpLiteral,
    /// The host is loopback, private, link-local, CGNAT, unique-local,
    /// unspecified or `localhost`, or a name that only resolves on a local
    /// network: a dotless name (`intranet`) or a name under `.local`,
    /// `.internal`, `.home.arpa`, `.lan` or `.localhost`.
    //
    // Local-network names share this warning rather than getting a code of
    // their own: what the user must know is the same (not the public
    // Internet, possibly a device of their own network), the sentence
    // already says "local network", every consumer already shows it and
    // drops one-click approval for it, and a new code would change the
    // generated TypeScript union and the sentence table for no difference
    // a person could act on.
    LocalAddress,
    /// The URL has text before an `@` in the authority.
    Userinfo,
    /// An explicit, non-default port.
    NonDefaultPort,
    /// Invisible, bidi or control characters in the text the server sent.
    HiddenCharacters,
    /// The host is a link shortener ([`LINK_SHORTENERS`]): where the link
    /// really goes cannot be shown without following it.
    LinkShortener,
    /// The host carries a well-known domain that is not its own
    /// (`accounts.google.com.evil.example`, `paypal-com.example`,
    /// `secure-paypal.com`); which one is [`Inspection::embedded_domain`].
    EmbedsWellKnown,
    /// The text that came with the URL (a server's message) names a site
    /// other than the page's registrable domain; which one is
    /// [`Inspection::named_domain`]. Only from [`inspect_with_text`].
    NamesOtherSite,
}

impl Warning {
    /// All warnings, in the order [`Inspection::warnings`] lists them.
    pub const ALL: [Warning; 10] = [
        Warning::NotHttps,
        Warning::Punycode,
        Warning::IpLiteral,
        Warning::LocalAddress,
        Warning::Userinfo,
        Warning::NonDefaultPort,
        Warning::HiddenCharacters,
        Warning::LinkShortener,
        Warning::EmbedsWellKnown,
        Warning::NamesOtherSite,
    ];

    /// How much the warning weighs: a sign that someone imitates a site or
    /// hides what the link says is [`Weight::Danger`]; what the user should
    /// know of an ordinary link is [`Weight::Caution`].
    pub fn weight(&self) -> Weight {
        match self {
            Warning::Punycode
            | Warning::Userinfo
            | Warning::HiddenCharacters
            | Warning::EmbedsWellKnown
            | Warning::NamesOtherSite => Weight::Danger,
            Warning::NotHttps
            | Warning::IpLiteral
            | Warning::LocalAddress
            | Warning::NonDefaultPort
            | Warning::LinkShortener => Weight::Caution,
        }
    }

    /// Stable snake_case code, identical to the serde form.
    pub fn code(&self) -> &'static str {
        match self {
            Warning::NotHttps => "not_https",
            Warning::Punycode => "punycode",
            Warning::IpLiteral => "ip_literal",
            Warning::LocalAddress => "local_address",
            Warning::Userinfo => "userinfo",
            Warning::NonDefaultPort => "non_default_port",
            Warning::HiddenCharacters => "hidden_characters",
            Warning::LinkShortener => "link_shortener",
            Warning::EmbedsWellKnown => "embeds_well_known",
            Warning::NamesOtherSite => "names_other_site",
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// How loud a warning is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Weight {
    /// Someone may be imitating a site or hiding what the link says.
    Danger,
    /// Worth knowing before opening.
    Caution,
    /// Neutral information (a page on this computer).
    Note,
}

/// Why a URL must not be opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum BlockReason {
    /// Anything but `http` and `https` (`javascript:`, `data:`, `file:`,
    /// `about:`, `blob:`, custom schemes...).
    SchemeNotAllowed,
    /// Plain `http` to a host that is not loopback (or to loopback when the
    /// policy forbids it).
    InsecureScheme,
    /// Empty, relative, without a host, or otherwise invalid.
    Unparseable,
    /// Longer than [`MAX_URL_LEN`] bytes.
    TooLong,
}

impl BlockReason {
    /// Stable snake_case code, identical to the serde form.
    pub fn code(&self) -> &'static str {
        match self {
            BlockReason::SchemeNotAllowed => "scheme_not_allowed",
            BlockReason::InsecureScheme => "insecure_scheme",
            BlockReason::Unparseable => "unparseable",
            BlockReason::TooLong => "too_long",
        }
    }
}

impl fmt::Display for BlockReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Result of [`inspect`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Inspection {
    /// `block` if `block_reason` is set, else `warn` if there are warnings,
    /// else `ok`.
    pub verdict: Verdict,
    /// The normalised URL as a browser would load it (WHATWG
    /// serialization: ASCII, Punycode host, percent-encoded). `None` when
    /// the text could not be parsed or was too long.
    pub url: Option<String>,
    /// Lower-case scheme without the colon, e.g. `"https"`.
    pub scheme: Option<String>,
    /// The host as it should be displayed: Unicode where the IDN display
    /// policy allows it, Punycode otherwise. IPv6 in brackets. A trailing
    /// dot is kept. It may contain right-to-left scripts (Hebrew, Arabic):
    /// render it in its own bidi isolate (U+2068 ... U+2069, or CSS
    /// `unicode-bidi: isolate`) so it cannot reorder surrounding text.
    pub display_host: Option<String>,
    /// The host in ASCII (Punycode) form, as sent to DNS. IPv6 in brackets.
    pub ascii_host: Option<String>,
    /// eTLD+1 in ASCII, from the embedded Public Suffix List (ICANN and
    /// private sections, so `attacker.github.io` stays `attacker.github.io`),
    /// without a trailing dot. For IP literals, local-network names
    /// (dotless, `localhost`, `.local`, `.internal`, `.home.arpa`, `.lan`,
    /// `.localhost`: no registry hands those out, so every label is chosen
    /// by whoever runs the network and the user must read all of them) and
    /// hosts that are themselves a public suffix: the host itself.
    pub registrable_domain: Option<String>,
    /// The port, only when it is not the scheme's default.
    pub port: Option<u16>,
    /// Warnings, in the order of [`Warning::ALL`], without duplicates.
    pub warnings: Vec<Warning>,
    /// Set when the URL must not be opened.
    pub block_reason: Option<BlockReason>,
    /// True when the host is this computer (`localhost`, 127.0.0.0/8,
    /// `::1`): a local development server or sign-in callback.
    pub loopback: bool,
    /// With [`Warning::EmbedsWellKnown`]: the well-known domain the host
    /// carries.
    pub embedded_domain: Option<String>,
    /// With [`Warning::NamesOtherSite`]: the first site the text names that
    /// is not the page's registrable domain.
    pub named_domain: Option<String>,
}

impl Inspection {
    fn empty() -> Self {
        Inspection {
            verdict: Verdict::Ok,
            url: None,
            scheme: None,
            display_host: None,
            ascii_host: None,
            registrable_domain: None,
            port: None,
            warnings: Vec::new(),
            block_reason: None,
            loopback: false,
            embedded_domain: None,
            named_domain: None,
        }
    }

    /// True when the verdict is [`Verdict::Block`].
    pub fn is_blocked(&self) -> bool {
        self.verdict == Verdict::Block
    }

    /// True when `w` is among the warnings.
    pub fn has_warning(&self, w: Warning) -> bool {
        self.warnings.contains(&w)
    }

    fn finish(mut self, mut warnings: Vec<Warning>) -> Self {
        warnings.sort();
        warnings.dedup();
        self.warnings = warnings;
        self.verdict = if self.block_reason.is_some() {
            Verdict::Block
        } else if !self.warnings.is_empty() {
            Verdict::Warn
        } else {
            Verdict::Ok
        };
        self
    }
}

/// Inspects a URL that an untrusted party asked the user to open. Never
/// panics and never touches the network.
pub fn inspect(raw: &str, policy: &Policy) -> Inspection {
    let mut warnings = Vec::new();
    // Checked on the text as sent: the parser silently drops tabs and
    // newlines and IDNA maps soft hyphens and zero-width characters away.
    if text::has_hidden_characters(raw) {
        warnings.push(Warning::HiddenCharacters);
    }

    let mut out = Inspection::empty();

    if raw.len() > MAX_URL_LEN {
        out.block_reason = Some(BlockReason::TooLong);
        return out.finish(warnings);
    }

    let url = match Url::parse(raw) {
        Ok(u) => u,
        Err(_) => {
            out.block_reason = Some(BlockReason::Unparseable);
            return out.finish(warnings);
        }
    };

    let scheme = url.scheme().to_owned();
    let is_web = scheme == "http" || scheme == "https";

    // Special schemes put a DNS name (or an IP address) in the host;
    // other schemes have an opaque host (`vscode://extension/...`) that is
    // no network name at all.
    let special = matches!(
        scheme.as_str(),
        "http" | "https" | "ws" | "wss" | "ftp" | "file"
    );
    let host_info = match (url.host(), url.host_str()) {
        (Some(h), Some(serialized)) => Some(HostInfo::classify(h, serialized, special)),
        _ => None,
    };

    // A web URL always has a host after WHATWG parsing, but it may still be
    // a name that can never be looked up (empty labels like `a..b`, labels
    // over 63 bytes, names over 253 bytes).
    if is_web && host_info.as_ref().is_none_or(|h| !h.valid) {
        out.block_reason = Some(BlockReason::Unparseable);
        return out.finish(warnings);
    }

    out.url = Some(url.as_str().to_owned());
    out.scheme = Some(scheme.clone());
    out.port = url.port();

    if let Some(h) = &host_info {
        out.display_host = Some(h.display.clone());
        out.ascii_host = Some(h.ascii.clone());
        out.registrable_domain = Some(h.registrable.clone());
        if h.punycode {
            warnings.push(Warning::Punycode);
        }
        if h.ip_literal {
            warnings.push(Warning::IpLiteral);
        }
        if h.local {
            warnings.push(Warning::LocalAddress);
        }
        if !h.ip_literal && shorteners::is_link_shortener(&h.registrable) {
            warnings.push(Warning::LinkShortener);
        }
        out.loopback = h.loopback;
        if is_web && !h.ip_literal && !h.local && h.valid {
            if let Some(d) = well_known::embedded_well_known(&h.ascii) {
                warnings.push(Warning::EmbedsWellKnown);
                out.embedded_domain = Some(d.to_owned());
            }
        }
    }
    if !url.username().is_empty()
        || url.password().is_some()
        || (is_web && raw_authority_has_at(raw))
    {
        warnings.push(Warning::Userinfo);
    }
    if out.port.is_some() {
        warnings.push(Warning::NonDefaultPort);
    }

    if !is_web {
        out.block_reason = Some(BlockReason::SchemeNotAllowed);
    } else if scheme == "http" {
        warnings.push(Warning::NotHttps);
        // Only loopback may be reached over http (when the policy allows
        // it): `localhost`, `*.localhost` (RFC 6761 resolves them to this
        // computer), 127.0.0.0/8 and `::1`. Local-network names (`intranet`,
        // `printer.local`, `nas.home.arpa`, `router.lan`, `*.internal`)
        // deliberately follow the rule for private IP addresses instead:
        // their traffic crosses the network, where plain http can be read
        // and changed, and a hostile server steering the browser to
        // `http://router.lan/...` is the same cross-site request against the
        // local network as `http://192.168.1.1/...`, which is blocked too.
        // Over https they are allowed, with the local-address warning.
        let loopback = host_info.as_ref().is_some_and(|h| h.loopback);
        if !(loopback && policy.allow_http_loopback) {
            out.block_reason = Some(BlockReason::InsecureScheme);
        }
    }

    out.finish(warnings)
}

/// [`inspect`], and the text that came with the URL (a server's message):
/// when the text names a site (a URL, an e-mail address, a domain name)
/// whose registrable domain is not the page's, [`Warning::NamesOtherSite`]
/// with the first such site in [`Inspection::named_domain`]. A URL that is
/// blocked is not compared.
pub fn inspect_with_text(raw: &str, text: &str, policy: &Policy) -> Inspection {
    let out = inspect(raw, policy);
    if out.block_reason.is_some() {
        return out;
    }
    let Some(own) = out.registrable_domain.clone() else {
        return out;
    };
    let other = mentions::named_domains(text)
        .into_iter()
        .find(|d| !d.eq_ignore_ascii_case(&own));
    match other {
        Some(d) => {
            let mut out = out;
            out.named_domain = Some(d);
            let mut warnings = std::mem::take(&mut out.warnings);
            warnings.push(Warning::NamesOtherSite);
            out.finish(warnings)
        }
        None => out,
    }
}

/// The registrable domain of a host name (ASCII or Unicode, any case), by
/// the rules of [`Inspection::registrable_domain`]; `None` for IP
/// addresses, local-network names, public suffixes themselves and names
/// that cannot exist.
pub fn registrable_domain_of(host: &str) -> Option<String> {
    let Ok(Host::Domain(d)) = Host::parse(host) else {
        return None;
    };
    let d = d.strip_suffix('.').unwrap_or(&d);
    if d.is_empty()
        || !idna::uts46::verify_dns_length(d, false)
        || ip::is_localhost_name(d)
        || ip::local_name_suffix(d).is_some()
    {
        return None;
    }
    let (registrable, suffix) = split_registrable(d);
    (registrable != suffix).then(|| registrable.to_owned())
}

/// What we derive from a parsed host.
struct HostInfo {
    ascii: String,
    display: String,
    registrable: String,
    ip_literal: bool,
    local: bool,
    loopback: bool,
    punycode: bool,
    /// False for domain names that cannot exist in DNS.
    valid: bool,
}

impl HostInfo {
    /// `serialized` is the host as it appears in the normalised URL
    /// (IPv6 in brackets and in the WHATWG canonical form). `special`: the
    /// URL's scheme is a special one, whose host is a DNS name (local-name
    /// rules apply) rather than opaque text.
    fn classify(host: Host<&str>, serialized: &str, special: bool) -> HostInfo {
        match host {
            Host::Ipv4(v4) => {
                let s = serialized.to_owned();
                HostInfo {
                    ascii: s.clone(),
                    display: s.clone(),
                    registrable: s,
                    ip_literal: true,
                    local: ip::v4_is_local(v4),
                    loopback: ip::v4_is_loopback(v4),
                    punycode: false,
                    valid: true,
                }
            }
            Host::Ipv6(v6) => {
                let s = serialized.to_owned();
                HostInfo {
                    ascii: s.clone(),
                    display: s.clone(),
                    registrable: s,
                    ip_literal: true,
                    local: ip::v6_is_local(v6),
                    loopback: ip::v6_is_loopback(v6),
                    punycode: false,
                    valid: true,
                }
            }
            Host::Domain(d) => {
                // Non-special schemes (file:, custom) have opaque hosts that
                // did not go through IDNA; only look at them, do not judge.
                let ascii = d.to_owned();
                let trimmed = ascii.strip_suffix('.').unwrap_or(&ascii);
                let valid = !trimmed.is_empty()
                    && ascii.is_ascii()
                    && idna::uts46::verify_dns_length(&ascii, true);
                let localhost = ip::is_localhost_name(&ascii);
                let local_name = special && valid && ip::local_name_suffix(trimmed).is_some();
                let display = if ascii.is_ascii() {
                    idn::display_host(&ascii)
                } else {
                    ascii.clone()
                };
                let registrable = if localhost || !valid {
                    trimmed.to_owned()
                } else {
                    split_registrable(trimmed).0.to_owned()
                };
                HostInfo {
                    punycode: idn::has_punycode_label(&display),
                    ascii,
                    display,
                    registrable,
                    ip_literal: false,
                    local: localhost || local_name,
                    loopback: localhost,
                    valid,
                }
            }
        }
    }
}

/// The registrable domain of a lower-case ASCII host without trailing dot,
/// and the public suffix it ends with: both tails of `host`.
///
/// - Local-network names (see [`ip::local_name_suffix`]): the whole name,
///   with the local suffix (`""` for a dotless name). The Public Suffix
///   List has no entry for them (its catch-all rule would turn
///   `a.b.corp.internal` into `corp.internal`), and no registry stands
///   behind any of their labels.
/// - Otherwise eTLD+1 from the embedded list, ICANN and private sections.
/// - A host that is itself a public suffix (`github.io`, `co.uk`): the host,
///   which is also the suffix.
pub(crate) fn split_registrable(host: &str) -> (&str, &str) {
    if let Some(suffix) = ip::local_name_suffix(host) {
        return (host, suffix);
    }
    // Both are tails of `host` (the list works on the labels of the input),
    // so take them by length from `host`: that keeps `&str` without another
    // UTF-8 check and can never panic.
    let tail = |len: usize| {
        host.len()
            .checked_sub(len)
            .and_then(|start| host.get(start..))
            .unwrap_or(host)
    };
    match psl::domain(host.as_bytes()) {
        Some(d) => (tail(d.as_bytes().len()), tail(d.suffix().as_bytes().len())),
        None => (host, host),
    }
}

/// WHATWG parsing of special schemes drops an empty userinfo (`https://@x/`,
/// `https://:@x/`), but an `@` in the authority as sent still means the
/// server wrote something in front of the host. Mirrors the parser: strip
/// leading/trailing C0 controls and spaces, drop tabs and newlines, skip
/// the scheme and any slashes or backslashes, and look for `@` before the
/// end of the authority.
fn raw_authority_has_at(raw: &str) -> bool {
    let cleaned: String = raw
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some(colon) = cleaned.find(':') else {
        return false;
    };
    let rest = cleaned[colon + 1..].trim_start_matches(['/', '\\']);
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    rest[..end].contains('@')
}
