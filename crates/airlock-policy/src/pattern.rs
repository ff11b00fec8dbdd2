//! Patterns and how they match: registry names, URLs, hosts, registries.
//!
//! Written for an attacker who picks the server's URL or host: URLs are
//! parsed with the `url` crate (WHATWG) and compared part by part (scheme,
//! host, port, path), never as raw strings, so
//! `https://good.example.com.evil.test/` and
//! `https://good.example.com@evil.test/` do not match
//! `https://good.example.com/*`. Hosts are compared in lower case, in their
//! ASCII (Punycode) form, without a trailing dot; IPv4 addresses in any
//! spelling (`0x7f.1`) are read as the address.

use url::{Host, Url};

/// `*` matches any run of bytes (also none); everything else matches itself.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&b| b == b'*')
}

/// Whether a URL points at this machine (`localhost`, 127.0.0.0/8, `::1`).
pub(crate) fn is_loopback(u: &Url) -> bool {
    match u.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        Some(Host::Domain(d)) => {
            let d = d.trim_end_matches('.');
            d.eq_ignore_ascii_case("localhost")
        }
        None => false,
    }
}

/// A host in the form it is compared in: lower case, ASCII (Punycode), no
/// trailing dot, IP addresses canonical (IPv6 without brackets).
pub(crate) fn normalize_host(raw: &str) -> Result<String, String> {
    let trimmed = raw.strip_suffix('.').unwrap_or(raw);
    if trimmed.is_empty() {
        return Err("the host is empty".to_owned());
    }
    let bracketed;
    let input = if trimmed.contains(':') && !trimmed.starts_with('[') {
        bracketed = format!("[{trimmed}]");
        bracketed.as_str()
    } else {
        trimmed
    };
    match Host::parse(input) {
        Ok(Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            if d.is_empty() {
                Err(format!("`{raw}` is not a host"))
            } else {
                Ok(d)
            }
        }
        Ok(Host::Ipv4(ip)) => Ok(ip.to_string()),
        Ok(Host::Ipv6(ip)) => Ok(ip.to_string()),
        Err(e) => Err(format!("`{raw}` is not a host: {e}")),
    }
}

/// A registry-name pattern: `io.github.owner/name`, `io.github.owner/*`,
/// `*/name`, `io.github.acme-*`. `*` is allowed as a whole `/`-separated
/// segment (one segment) or at the very end (anything, at least one byte).
#[derive(Debug, Clone)]
pub(crate) struct NamePattern {
    segments: Vec<String>,
    trailing_star: bool,
}

impl NamePattern {
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        if raw.is_empty() {
            return Err("the name is empty".to_owned());
        }
        let lower = raw.to_ascii_lowercase();
        let (body, trailing_star) = match lower.strip_suffix('*') {
            Some(rest) if !rest.is_empty() && !rest.ends_with('/') => (rest.to_owned(), true),
            _ => (lower.clone(), false),
        };
        let segments: Vec<String> = body.split('/').map(str::to_owned).collect();
        for s in &segments {
            if s.contains('*') && s != "*" {
                return Err(format!(
                    "`{raw}`: `*` may stand for a whole segment or end the name, not sit inside one"
                ));
            }
            if s.is_empty() {
                return Err(format!("`{raw}` has an empty segment"));
            }
        }
        Ok(NamePattern {
            segments,
            trailing_star,
        })
    }

    pub(crate) fn matches(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        let parts: Vec<&str> = name.split('/').collect();
        if self.trailing_star {
            // Every segment but the last matches exactly (or `*`); the last
            // is a prefix of the rest of the name, with at least one more byte.
            let n = self.segments.len();
            if parts.len() < n {
                return false;
            }
            for (seg, part) in self.segments[..n - 1].iter().zip(&parts) {
                if !((seg == "*" && !part.is_empty()) || seg == part) {
                    return false;
                }
            }
            let rest = parts[n - 1..].join("/");
            let prefix = &self.segments[n - 1];
            rest.len() > prefix.len() && rest.starts_with(prefix.as_str())
        } else {
            parts.len() == self.segments.len()
                && self
                    .segments
                    .iter()
                    .zip(&parts)
                    .all(|(seg, part)| (seg == "*" && !part.is_empty()) || seg == part)
        }
    }
}

/// A URL in the parts it is compared by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UrlParts {
    pub scheme: String,
    pub host: String,
    /// The port, when not the scheme's default.
    pub port: Option<u16>,
    /// The port, or the scheme's default when the URL has none.
    pub effective_port: Option<u16>,
    /// Path with `?query` when there is one; never the fragment.
    pub path: String,
}

impl UrlParts {
    /// Parses and normalizes a URL; user name, password and fragment are
    /// dropped (they do not say where the URL goes).
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        let u = Url::parse(raw.trim()).map_err(|e| format!("`{raw}` is not a URL: {e}"))?;
        let host = match u.host() {
            Some(Host::Domain(d)) => d.trim_end_matches('.').to_ascii_lowercase(),
            Some(Host::Ipv4(ip)) => ip.to_string(),
            Some(Host::Ipv6(ip)) => format!("[{ip}]"),
            None => String::new(),
        };
        let mut path = u.path().to_owned();
        if let Some(q) = u.query() {
            path.push('?');
            path.push_str(q);
        }
        Ok(UrlParts {
            scheme: u.scheme().to_owned(),
            host,
            port: u.port(),
            effective_port: u.port_or_known_default(),
            path,
        })
    }

    pub(crate) fn host_only(&self) -> &str {
        self.host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(&self.host)
    }
}

/// A URL pattern (`https://*.example.com/mcp/*`): `*` matches any run of
/// characters, within the part it is written in. Scheme and host compare in
/// lower case, the path as written. A pattern without a port matches only the
/// scheme's default port; `:*` matches any. A pattern without a path matches
/// only `/`.
#[derive(Debug, Clone)]
pub(crate) struct UrlPattern {
    scheme: String,
    host: String,
    port: Option<String>,
    path: String,
}

fn default_port(scheme: &str) -> Option<&'static str> {
    match scheme {
        "https" | "wss" => Some("443"),
        "http" | "ws" => Some("80"),
        _ => None,
    }
}

impl UrlPattern {
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        let (scheme, rest) = raw
            .split_once("://")
            .ok_or_else(|| format!("`{raw}` is not a URL pattern (no `://`)"))?;
        if scheme.is_empty() {
            return Err(format!("`{raw}` has no scheme"));
        }
        if raw.contains('#') {
            return Err(format!("`{raw}`: a fragment (`#`) is never matched"));
        }
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        if authority.contains('@') {
            return Err(format!(
                "`{raw}`: a user name (`@`) in a pattern is not matched; write the host"
            ));
        }
        if !authority.is_ascii() {
            return Err(format!(
                "`{raw}`: write the host in its ASCII form (xn--...)"
            ));
        }
        let (host, port) = if let Some(after) = authority.strip_prefix('[') {
            let (inner, tail) = after
                .split_once(']')
                .ok_or_else(|| format!("`{raw}`: unclosed `[`"))?;
            let port = match tail {
                "" => None,
                t => Some(
                    t.strip_prefix(':')
                        .ok_or_else(|| format!("`{raw}`: bad port"))?
                        .to_owned(),
                ),
            };
            let ip: std::net::Ipv6Addr = inner
                .parse()
                .map_err(|_| format!("`{raw}`: `{inner}` is not an IPv6 address"))?;
            (format!("[{ip}]"), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), Some(p.to_owned())),
                None => (authority.to_owned(), None),
            }
        };
        let host = host.to_ascii_lowercase();
        let host = host.strip_suffix('.').unwrap_or(&host).to_owned();
        if host.is_empty() {
            return Err(format!("`{raw}` has no host"));
        }
        if let Some(p) = &port {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit() || b == b'*') {
                return Err(format!("`{raw}`: `{p}` is not a port"));
            }
        }
        let scheme = scheme.to_ascii_lowercase();
        let port = match port {
            Some(p) if default_port(&scheme) == Some(p.as_str()) => None,
            p => p,
        };
        let path = if path.is_empty() { "/" } else { path };
        Ok(UrlPattern {
            scheme,
            host,
            port,
            path: path.to_owned(),
        })
    }

    pub(crate) fn matches(&self, u: &UrlParts) -> bool {
        if !glob(&self.scheme, &u.scheme) || !glob(&self.host, &u.host) {
            return false;
        }
        let port_ok = match (&self.port, u.port) {
            (None, None) => true,
            (None, Some(_)) => false,
            (Some(p), _) => {
                let actual = u.effective_port.map(|n| n.to_string());
                actual.is_some_and(|a| glob(p, &a))
            }
        };
        port_ok && glob(&self.path, &u.path)
    }
}

/// A `deniedHosts` pattern.
#[derive(Debug, Clone)]
pub(crate) enum HostPattern {
    /// `*`: every host.
    Any,
    /// `example.com`: that host only.
    Exact(String),
    /// `*.example.com`: its subdomains, not itself.
    Subdomains(String),
}

impl HostPattern {
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        if raw == "*" {
            return Ok(HostPattern::Any);
        }
        if let Some(rest) = raw.strip_prefix("*.") {
            if rest.contains('*') {
                return Err(format!("`{raw}`: `*` only as a leading `*.`"));
            }
            let host = normalize_host(rest)?;
            if host.parse::<std::net::IpAddr>().is_ok() {
                return Err(format!("`{raw}`: an IP address has no subdomains"));
            }
            return Ok(HostPattern::Subdomains(host));
        }
        if raw.contains('*') {
            return Err(format!("`{raw}`: `*` only as a leading `*.`, or alone"));
        }
        Ok(HostPattern::Exact(normalize_host(raw)?))
    }

    /// `host` is already normalized.
    pub(crate) fn matches(&self, host: &str) -> bool {
        match self {
            HostPattern::Any => true,
            HostPattern::Exact(h) => host == h,
            HostPattern::Subdomains(h) => host
                .strip_suffix(h.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        }
    }
}

/// A registry's base URL: a URL is in the registry when it has the same
/// scheme, host and port and its path is the base's path or under it (at a
/// `/` boundary).
#[derive(Debug, Clone)]
pub(crate) struct RegistryBase {
    parts: UrlParts,
}

impl RegistryBase {
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        let u = crate::model::check_secure_url(raw)?;
        if u.query().is_some() || u.fragment().is_some() {
            return Err(format!(
                "`{raw}`: a registry's base URL has no query or fragment"
            ));
        }
        let mut parts = UrlParts::parse(raw)?;
        let trimmed = parts.path.trim_end_matches('/').to_owned();
        parts.path = trimmed;
        Ok(RegistryBase { parts })
    }

    pub(crate) fn contains(&self, u: &UrlParts) -> bool {
        let b = &self.parts;
        if b.scheme != u.scheme || b.host != u.host || b.effective_port != u.effective_port {
            return false;
        }
        let path = u.path.split('?').next().unwrap_or("");
        path == b.path
            || path
                .strip_prefix(b.path.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_basics() {
        assert!(glob("a*c", "abbbc"));
        assert!(glob("*", ""));
        assert!(glob("a*", "a"));
        assert!(!glob("a*c", "abbbd"));
        assert!(glob("*.example.com", "x.y.example.com"));
        assert!(!glob("*.example.com", "example.com"));
    }

    #[test]
    fn names() {
        let p = NamePattern::parse("io.github.owner/*").unwrap();
        assert!(p.matches("io.github.owner/name"));
        assert!(p.matches("IO.GitHub.Owner/Name"));
        assert!(!p.matches("io.github.owner"));
        assert!(!p.matches("io.github.owner2/name"));
        let p = NamePattern::parse("io.github.acme-*").unwrap();
        assert!(p.matches("io.github.acme-tools/x"));
        assert!(!p.matches("io.github.acme-"));
        let p = NamePattern::parse("*/name").unwrap();
        assert!(p.matches("io.x/name"));
        assert!(!p.matches("io.x/other"));
        assert!(NamePattern::parse("io.*.x/name").is_err());
        assert!(NamePattern::parse("a//b").is_err());
    }

    #[test]
    fn hosts() {
        assert_eq!(normalize_host("EXAMPLE.com.").unwrap(), "example.com");
        assert_eq!(normalize_host("0x7f.1").unwrap(), "127.0.0.1");
        assert_eq!(normalize_host("::1").unwrap(), "::1");
        assert_eq!(normalize_host("bücher.de").unwrap(), "xn--bcher-kva.de");
        let p = HostPattern::parse("*.example.com").unwrap();
        assert!(p.matches("a.example.com"));
        assert!(!p.matches("example.com"));
        assert!(!p.matches("badexample.com"));
    }
}
