//! What is stored with a server: whether it runs in its room, and what the
//! person granted beyond what Airlock infers from its command (paths to
//! read or write, hosts to reach). Inferred entries are not stored: they
//! are worked out again at each start, from the command as it is then.

use serde::{Deserialize, Serialize};

/// Most grants of one kind (read, write, hosts) a server may have.
pub const MAX_GRANTS: usize = 64;
/// Longest path in a grant, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest host name in a grant (DNS's limit).
pub const MAX_HOST_CHARS: usize = 253;

/// A server's confinement, as stored in its options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct SandboxSettings {
    /// Run the server in its room. `false`: the person chose to run it
    /// unconfined (shown wherever the server is, and audited).
    pub enabled: bool,
    /// Paths the person allowed it to read.
    pub read: Vec<PathGrant>,
    /// Paths the person allowed it to read and write.
    pub write: Vec<PathGrant>,
    /// Hosts it may reach through Airlock's proxy.
    pub hosts: Vec<HostGrant>,
    /// Share this computer's network instead of the proxy (a server that
    /// serves a page on 127.0.0.1 for the browser): its files stay confined,
    /// its network does not.
    pub host_network: bool,
    /// Hand it the session bus (`DBUS_SESSION_BUS_ADDRESS`), which reaches
    /// the unlocked keychain. Only for a server that runs unconfined.
    pub session_bus: bool,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            read: Vec::new(),
            write: Vec::new(),
            hosts: Vec::new(),
            host_network: false,
            session_bus: false,
        }
    }
}

/// Who added an entry of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum GrantSource {
    /// Named by the person (a flag, the window, `servers sandbox ... allow-*`).
    User,
    /// Allowed by the person when the server asked ("Always for this server").
    Asked,
}

impl GrantSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "named by you",
            Self::Asked => "allowed when asked",
        }
    }
}

/// A path the person allowed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PathGrant {
    pub path: String,
    pub source: GrantSource,
}

/// A host (and port: `None` is any port) the person allowed. `*.example.com`
/// covers the subdomains of example.com, not example.com itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct HostGrant {
    pub host: String,
    pub port: Option<u16>,
    pub source: GrantSource,
}

impl HostGrant {
    /// `host`, `host:port`, `*.domain[:port]`, `[v6]:port`, as typed.
    pub fn parse(text: &str, source: GrantSource) -> Result<Self, String> {
        let text = text.trim();
        let (host, port) = split_host_port(text)?;
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        check_host(&host)?;
        Ok(Self { host, port, source })
    }

    /// Does this grant admit `host` (lowercase, no trailing dot) on `port`?
    pub fn admits(&self, host: &str, port: u16) -> bool {
        host_admits(&self.host, self.port, host, port)
    }

    /// As typed back: `host`, `host:443`, `[::1]:80`.
    pub fn label(&self) -> String {
        host_label(&self.host, self.port)
    }
}

/// Does the pattern `pattern` (a host, or `*.domain`) on `port` (`None`:
/// any) admit `host` on `on`? Shared by stored grants and a room's entries.
pub(crate) fn host_admits(pattern: &str, port: Option<u16>, host: &str, on: u16) -> bool {
    if port.is_some_and(|p| p != on) {
        return false;
    }
    match pattern.strip_prefix("*.") {
        Some(domain) => host.len() > domain.len() + 1 && host.ends_with(&format!(".{domain}")),
        None => pattern == host,
    }
}

/// `host`, `host:443`, `[::1]:80`.
pub(crate) fn host_label(host: &str, port: Option<u16>) -> String {
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    match port {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

fn split_host_port(text: &str) -> Result<(&str, Option<u16>), String> {
    let bad_port = |p: &str| format!("{p:?} is not a port (1 to 65535)");
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("{text:?}: an IPv6 address in [ ] is not closed"))?;
        return match after.strip_prefix(':') {
            Some(p) => Ok((host, Some(port_of(p).ok_or_else(|| bad_port(p))?))),
            None if after.is_empty() => Ok((host, None)),
            None => Err(format!("{text:?}: unexpected {after:?} after the address")),
        };
    }
    match text.rsplit_once(':') {
        Some((host, p)) if !host.contains(':') => {
            Ok((host, Some(port_of(p).ok_or_else(|| bad_port(p))?)))
        }
        _ => Ok((text, None)),
    }
}

fn port_of(p: &str) -> Option<u16> {
    p.parse::<u16>().ok().filter(|p| *p != 0)
}

pub(crate) fn check_host(host: &str) -> Result<(), String> {
    if host.is_empty() || host.chars().count() > MAX_HOST_CHARS {
        return Err(format!(
            "a host must be 1 to {MAX_HOST_CHARS} characters (got {host:?})"
        ));
    }
    if host.parse::<std::net::IpAddr>().is_ok() {
        return Ok(());
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if name.split('.').all(label_ok) {
        Ok(())
    } else {
        Err(format!(
            "{host:?} is not a host name (letters, digits, '-' and '.', Punycode for other scripts; '*.' only in front)"
        ))
    }
}

impl SandboxSettings {
    /// Settings for a server that runs unconfined by the person's choice.
    pub fn unconfined() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// Every entry inside its bounds, paths absolute, hosts well formed.
    pub fn validate(&self) -> Result<(), String> {
        for (what, grants) in [("read", &self.read), ("write", &self.write)] {
            if grants.len() > MAX_GRANTS {
                return Err(format!("more than {MAX_GRANTS} {what} paths"));
            }
            for g in grants {
                check_path(&g.path)?;
            }
        }
        if self.hosts.len() > MAX_GRANTS {
            return Err(format!("more than {MAX_GRANTS} hosts"));
        }
        for h in &self.hosts {
            check_host(&h.host)?;
        }
        if self.enabled && self.session_bus {
            return Err(
                "a confined server cannot reach the session bus (it leads to the unlocked keychain); run it unconfined to hand it the bus".into(),
            );
        }
        Ok(())
    }

    /// Add a path grant (no duplicate: the same path again changes nothing).
    pub fn allow_path(
        &mut self,
        write: bool,
        path: &str,
        source: GrantSource,
    ) -> Result<(), String> {
        check_path(path)?;
        let list = if write {
            &mut self.write
        } else {
            &mut self.read
        };
        if !list.iter().any(|g| g.path == path) {
            if list.len() >= MAX_GRANTS {
                return Err(format!("more than {MAX_GRANTS} paths"));
            }
            list.push(PathGrant {
                path: path.to_owned(),
                source,
            });
        }
        Ok(())
    }

    /// Add a host grant (no duplicate).
    pub fn allow_host(&mut self, grant: HostGrant) -> Result<(), String> {
        if !self
            .hosts
            .iter()
            .any(|h| h.host == grant.host && h.port == grant.port)
        {
            if self.hosts.len() >= MAX_GRANTS {
                return Err(format!("more than {MAX_GRANTS} hosts"));
            }
            self.hosts.push(grant);
        }
        Ok(())
    }

    /// Remove whatever grant names `entry` (a path or a host as typed);
    /// `false` when none did.
    pub fn remove(&mut self, entry: &str) -> bool {
        let before = self.read.len() + self.write.len() + self.hosts.len();
        self.read.retain(|g| g.path != entry);
        self.write.retain(|g| g.path != entry);
        let host = HostGrant::parse(entry, GrantSource::User).ok();
        self.hosts.retain(|h| {
            h.label() != entry
                && !host
                    .as_ref()
                    .is_some_and(|x| x.host == h.host && x.port == h.port)
        });
        before != self.read.len() + self.write.len() + self.hosts.len()
    }
}

fn check_path(path: &str) -> Result<(), String> {
    if path.len() > MAX_PATH_BYTES {
        return Err(format!("a path is longer than {MAX_PATH_BYTES} bytes"));
    }
    if !std::path::Path::new(path).is_absolute() {
        return Err(format!("{path:?} is not an absolute path"));
    }
    if path.contains('\0') || path.contains('\n') {
        return Err(format!("{path:?} holds a control character"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_parse_and_admit() {
        let g = HostGrant::parse("API.GitHub.com:443", GrantSource::User).unwrap();
        assert_eq!(g.host, "api.github.com");
        assert!(g.admits("api.github.com", 443));
        assert!(!g.admits("api.github.com", 80));
        assert!(!g.admits("github.com", 443));
        let w = HostGrant::parse("*.example.com", GrantSource::User).unwrap();
        assert!(w.admits("a.example.com", 1));
        assert!(!w.admits("example.com", 443));
        assert!(!w.admits("evilexample.com", 443));
        let v6 = HostGrant::parse("[::1]:8080", GrantSource::User).unwrap();
        assert!(v6.admits("::1", 8080));
        assert_eq!(v6.label(), "[::1]:8080");
        assert!(HostGrant::parse("a b", GrantSource::User).is_err());
        assert!(HostGrant::parse("x:0", GrantSource::User).is_err());
        assert!(HostGrant::parse("x:99999", GrantSource::User).is_err());
        assert!(HostGrant::parse("*.", GrantSource::User).is_err());
        assert!(HostGrant::parse("a.*.com", GrantSource::User).is_err());
    }

    #[test]
    fn bounds_are_kept() {
        let mut s = SandboxSettings::default();
        for i in 0..MAX_GRANTS {
            s.allow_path(false, &format!("/p{i}"), GrantSource::User)
                .unwrap();
        }
        assert!(s.allow_path(false, "/one-more", GrantSource::User).is_err());
        assert!(
            s.allow_path(false, "/p1", GrantSource::User).is_ok(),
            "a duplicate changes nothing"
        );
        assert!(s
            .allow_path(true, "relative/path", GrantSource::User)
            .is_err());
        assert!(s.validate().is_ok());
        s.session_bus = true;
        assert!(
            s.validate().is_err(),
            "the bus only for an unconfined server"
        );
        assert!(s.remove("/p3"));
        assert!(!s.remove("/p3"));
    }

    #[test]
    fn stored_form_is_stable() {
        let s: SandboxSettings = serde_json::from_str("{}").unwrap();
        assert!(s.enabled, "an empty object is the default: confined");
        assert!(serde_json::from_str::<SandboxSettings>(r#"{"nope":1}"#).is_err());
    }
}
