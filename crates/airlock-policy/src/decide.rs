//! The merged policy and its decisions, each with the rule that made it.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::model::{ApprovedTool, Audit, Contact, PinMode, PolicyFile, ServerRule};
use crate::pattern::{
    normalize_host, HostPattern, NamePattern, RegistryBase, UrlParts, UrlPattern,
};

/// Where a rule was written: the file and the key in it, e.g.
/// `deniedServers[2]` in `/etc/airlock/policy.d/10-team.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The policy file.
    pub file: PathBuf,
    /// The key path in that file (`deniedServers[2]`, `requireConfinement`).
    pub key: String,
}

/// What Airlock knows about a server when it decides whether the policy
/// admits it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerFacts {
    /// The name the user gave it (shown, never matched: anyone can pick any
    /// name).
    pub name: String,
    /// Its name in the registry it came from (`io.github.owner/name`).
    pub registry_name: Option<String>,
    /// The version installed.
    pub version: Option<String>,
    /// SHA-256 of the locked artifact, hex.
    pub artifact_sha256: Option<String>,
    /// The argv of a stdio server, program first.
    pub command: Option<Vec<String>>,
    /// The URL of a remote server.
    pub url: Option<String>,
    /// Whether it runs confined (sandboxed).
    pub confined: bool,
}

/// Why the policy said no.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The rule, as the administrator wrote it: `deniedServers[2]`,
    /// `onlyListedServers`, `registries`. Empty when the refusal comes from an
    /// unreadable policy file rather than from a rule.
    pub rule: String,
    /// The file the rule is in (or the unreadable file).
    pub file: Option<PathBuf>,
    /// What matched, in words: `matches the command npx -y evil-server`.
    pub detail: String,
    /// Whom to ask for an exception, when the policy names someone.
    pub contact: Option<Contact>,
}

impl fmt::Display for Refusal {
    /// `denied by your organization's policy: deniedServers[2]
    /// (/etc/airlock/policy.json) matches the command npx -y evil-server`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "denied by your organization's policy: ")?;
        if !self.rule.is_empty() {
            write!(f, "{} ", self.rule)?;
            if let Some(file) = &self.file {
                write!(f, "({}) ", file.display())?;
            }
        }
        write!(f, "{}", self.detail)
    }
}

impl std::error::Error for Refusal {}

/// A decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The policy admits it.
    Allowed,
    /// The policy refuses it, and says why.
    Refused(Refusal),
}

impl Verdict {
    /// Whether the policy admits it.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Verdict::Allowed)
    }

    /// The refusal, if any.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            Verdict::Allowed => None,
            Verdict::Refused(r) => Some(r),
        }
    }
}

#[derive(Debug, Clone)]
struct Rule {
    rule: ServerRule,
    name: Option<NamePattern>,
    url: Option<UrlPattern>,
    origin: Origin,
}

#[derive(Debug, Clone)]
struct Entry<T> {
    value: T,
    origin: Origin,
}

/// A list that restricts when present ("only these"): its items and the
/// first file that set it.
#[derive(Debug, Clone)]
struct Only<T> {
    items: Vec<Entry<T>>,
    origin: Origin,
}

#[derive(Debug, Clone)]
struct Broken {
    file: PathBuf,
    detail: String,
}

/// The policy in force: every readable, trusted file merged.
///
/// A policy with no file is inactive and allows everything. A policy whose
/// file could not be read or parsed *fails closed*: every check refuses
/// (servers, registries, hosts, paths, domains, apps), no tool is approved,
/// and the pin mode is fixed at `hold`, until the file is fixed: a broken
/// policy must not silently admit everything.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    active: bool,
    broken: Option<Broken>,
    registries: Option<Only<RegistryBase>>,
    allowed: Vec<Rule>,
    denied: Vec<Rule>,
    only_listed: Option<Origin>,
    require_confinement: Option<Origin>,
    denied_hosts: Vec<Entry<HostPattern>>,
    denied_paths: Vec<Entry<PathBuf>>,
    pin_mode: Option<(PinMode, Origin)>,
    approved_tools: Vec<ApprovedTool>,
    elicitation_deny: Vec<Entry<String>>,
    elicitation_only: Option<Only<String>>,
    apps_allow: Option<Only<String>>,
    audit: Option<(Audit, Origin)>,
    contact: Option<Contact>,
}

fn origin(file: &Path, key: impl Into<String>) -> Origin {
    Origin {
        file: file.to_owned(),
        key: key.into(),
    }
}

impl Policy {
    /// Merges parsed files, in the order given (`policy.json` first, then
    /// `policy.d/*.json` by name):
    ///
    /// - lists are concatenated (each item keeps its file and index);
    /// - scalars (`pinMode`, `audit`, `contact`): a later file overrides;
    /// - restrictions (`onlyListedServers`, `requireConfinement`) stay on once
    ///   a file turns them on: a later `false` cannot turn them off (a note
    ///   says so). Deny and restrict win.
    ///
    /// Notes about the merge are pushed to `notes`.
    pub fn merge(files: &[(PathBuf, PolicyFile)], notes: &mut Vec<String>) -> Policy {
        let mut p = Policy::default();
        for (path, f) in files {
            p.active = true;
            if let Err(e) = p.add(path, f, notes) {
                p.broken = Some(Broken {
                    file: path.clone(),
                    detail: format!("the policy file {} cannot be read: {e}", path.display()),
                });
            }
        }
        if !p.allowed.is_empty() && p.only_listed.is_none() {
            notes.push(
                "allowedServers is set but onlyListedServers is not true: servers the list does not match are still admitted"
                    .to_owned(),
            );
        }
        p
    }

    /// A policy that refuses everything because `file` cannot be read.
    pub fn fail_closed(file: &Path, why: &str) -> Policy {
        Policy {
            active: true,
            broken: Some(Broken {
                file: file.to_owned(),
                detail: format!("the policy file {} cannot be read: {why}", file.display()),
            }),
            ..Policy::default()
        }
    }

    pub(crate) fn set_broken(&mut self, file: &Path, why: &str) {
        self.active = true;
        if self.broken.is_none() {
            self.broken = Some(Broken {
                file: file.to_owned(),
                detail: format!("the policy file {} cannot be read: {why}", file.display()),
            });
        }
    }

    fn add(&mut self, path: &Path, f: &PolicyFile, notes: &mut Vec<String>) -> Result<(), String> {
        if let Some(list) = &f.registries {
            let only = self.registries.get_or_insert_with(|| Only {
                items: Vec::new(),
                origin: origin(path, "registries"),
            });
            for (i, raw) in list.iter().enumerate() {
                only.items.push(Entry {
                    value: RegistryBase::parse(raw)?,
                    origin: origin(path, format!("registries[{i}]")),
                });
            }
        }
        for (list, key, into) in [
            (&f.allowed_servers, "allowedServers", &mut self.allowed),
            (&f.denied_servers, "deniedServers", &mut self.denied),
        ] {
            for (i, rule) in list.iter().flatten().enumerate() {
                into.push(Rule {
                    name: rule
                        .registry_name
                        .as_deref()
                        .map(NamePattern::parse)
                        .transpose()?,
                    url: rule.url.as_deref().map(UrlPattern::parse).transpose()?,
                    rule: rule.clone(),
                    origin: origin(path, format!("{key}[{i}]")),
                });
            }
        }
        for (value, key, slot) in [
            (
                f.only_listed_servers,
                "onlyListedServers",
                &mut self.only_listed,
            ),
            (
                f.require_confinement,
                "requireConfinement",
                &mut self.require_confinement,
            ),
        ] {
            match (value, &slot) {
                (Some(true), None) => *slot = Some(origin(path, key)),
                (Some(false), Some(earlier)) => notes.push(format!(
                    "{} sets {key} to false, but {} set it to true: a later file cannot lift a restriction",
                    path.display(),
                    earlier.file.display()
                )),
                _ => {}
            }
        }
        for (i, raw) in f.denied_hosts.iter().flatten().enumerate() {
            self.denied_hosts.push(Entry {
                value: HostPattern::parse(raw)?,
                origin: origin(path, format!("deniedHosts[{i}]")),
            });
        }
        for (i, raw) in f.denied_paths.iter().flatten().enumerate() {
            self.denied_paths.push(Entry {
                value: normalize_path(Path::new(raw)),
                origin: origin(path, format!("deniedPaths[{i}]")),
            });
        }
        if let Some(mode) = f.pin_mode {
            self.pin_mode = Some((mode, origin(path, "pinMode")));
        }
        self.approved_tools
            .extend(f.approved_tools.iter().flatten().cloned());
        if let Some(e) = &f.elicitation_domains {
            for (i, d) in e.deny.iter().flatten().enumerate() {
                self.elicitation_deny.push(Entry {
                    value: normalize_host(d)?,
                    origin: origin(path, format!("elicitationDomains.deny[{i}]")),
                });
            }
            if let Some(list) = &e.only {
                let only = self.elicitation_only.get_or_insert_with(|| Only {
                    items: Vec::new(),
                    origin: origin(path, "elicitationDomains.only"),
                });
                for (i, d) in list.iter().enumerate() {
                    only.items.push(Entry {
                        value: normalize_host(d)?,
                        origin: origin(path, format!("elicitationDomains.only[{i}]")),
                    });
                }
            }
        }
        if let Some(list) = f.apps.as_ref().and_then(|a| a.allow.as_ref()) {
            let only = self.apps_allow.get_or_insert_with(|| Only {
                items: Vec::new(),
                origin: origin(path, "apps.allow"),
            });
            for (i, name) in list.iter().enumerate() {
                only.items.push(Entry {
                    value: name.to_ascii_lowercase(),
                    origin: origin(path, format!("apps.allow[{i}]")),
                });
            }
        }
        if let Some(a) = &f.audit {
            self.audit = Some((a.clone(), origin(path, "audit")));
        }
        if let Some(c) = &f.contact {
            self.contact = Some(c.clone());
        }
        Ok(())
    }

    /// Whether any policy file applies (a broken one counts).
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Why the policy refuses everything, when a file cannot be read.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_ref().map(|b| b.detail.as_str())
    }

    /// Whom to ask for an exception.
    pub fn contact(&self) -> Option<&Contact> {
        self.contact.as_ref()
    }

    /// Where the audit trail goes, and the file that says so.
    pub fn audit(&self) -> Option<(&Audit, &Origin)> {
        self.audit.as_ref().map(|(a, o)| (a, o))
    }

    /// Whether every server must run confined (and where that is set).
    pub fn requires_confinement(&self) -> Option<&Origin> {
        self.require_confinement.as_ref()
    }

    /// Whether only listed servers are admitted (and where that is set).
    pub fn only_listed_servers(&self) -> Option<&Origin> {
        self.only_listed.as_ref()
    }

    fn refuse(&self, o: &Origin, detail: String) -> Verdict {
        Verdict::Refused(Refusal {
            rule: o.key.clone(),
            file: Some(o.file.clone()),
            detail,
            contact: self.contact.clone(),
        })
    }

    fn refuse_plain(&self, detail: String) -> Verdict {
        Verdict::Refused(Refusal {
            rule: String::new(),
            file: None,
            detail,
            contact: self.contact.clone(),
        })
    }

    fn broken_verdict(&self) -> Option<Verdict> {
        self.broken.as_ref().map(|b| {
            Verdict::Refused(Refusal {
                rule: String::new(),
                file: Some(b.file.clone()),
                detail: b.detail.clone(),
                contact: self.contact.clone(),
            })
        })
    }

    /// Whether a server may be added, imported, moved in or started.
    ///
    /// In order: a broken policy refuses; a `deniedServers` rule that matches
    /// refuses (deny wins over allow); a URL to a `deniedHosts` host refuses;
    /// `requireConfinement` refuses an unconfined server; `onlyListedServers`
    /// refuses a server no `allowedServers` rule matches. A server's URL that
    /// cannot be parsed is refused by any active policy.
    pub fn check_server(&self, facts: &ServerFacts) -> Verdict {
        if let Some(v) = self.broken_verdict() {
            return v;
        }
        if !self.active {
            return Verdict::Allowed;
        }
        let url = match facts.url.as_deref().map(UrlParts::parse).transpose() {
            Ok(u) => u,
            Err(e) => {
                return self.refuse_plain(format!(
                    "the server's URL cannot be read, so the policy cannot be checked: {e}"
                ))
            }
        };
        for r in &self.denied {
            if let Some(detail) = rule_matches(r, facts, url.as_ref()) {
                return self.refuse(&r.origin, detail);
            }
        }
        if let Some(u) = &url {
            if let Some(e) = self.denied_host(u.host_only()) {
                let detail = format!(
                    "denies the host {}, where the server's URL goes",
                    u.host_only()
                );
                return self.refuse(&e.origin, detail);
            }
        }
        if let Some(o) = &self.require_confinement {
            if !facts.confined {
                return self.refuse(
                    o,
                    "requires every server to run confined, and this one does not".to_owned(),
                );
            }
        }
        if let Some(o) = &self.only_listed {
            let listed = self
                .allowed
                .iter()
                .any(|r| rule_matches(r, facts, url.as_ref()).is_some());
            if !listed {
                return self.refuse(
                    o,
                    "admits only the servers that allowedServers lists, and this one matches none of them"
                        .to_owned(),
                );
            }
        }
        Verdict::Allowed
    }

    /// Whether the catalog may read the registry at `url` (a registry's
    /// base URL, or any URL under it).
    pub fn check_registry(&self, url: &str) -> Verdict {
        if let Some(v) = self.broken_verdict() {
            return v;
        }
        let Some(only) = &self.registries else {
            return Verdict::Allowed;
        };
        let parts = match UrlParts::parse(url) {
            Ok(p) => p,
            Err(e) => return self.refuse(&only.origin, format!("cannot check it: {e}")),
        };
        if only.items.iter().any(|e| e.value.contains(&parts)) {
            Verdict::Allowed
        } else {
            self.refuse(
                &only.origin,
                format!("lists the registries the catalog may read, and {url} is not one of them"),
            )
        }
    }

    fn denied_host(&self, host: &str) -> Option<&Entry<HostPattern>> {
        self.denied_hosts.iter().find(|e| e.value.matches(host))
    }

    /// Whether a server may be allowed to reach `host` (a host name or IP
    /// address, without port).
    pub fn check_host(&self, host: &str) -> Verdict {
        if let Some(v) = self.broken_verdict() {
            return v;
        }
        if self.denied_hosts.is_empty() {
            return Verdict::Allowed;
        }
        match normalize_host(host) {
            Ok(h) => match self.denied_host(&h) {
                Some(e) => self.refuse(&e.origin, format!("denies the host {h}")),
                None => Verdict::Allowed,
            },
            Err(e) => self.refuse_plain(format!(
                "the host cannot be checked against deniedHosts: {e}"
            )),
        }
    }

    /// Whether a server may be granted `path`. Refused when the path is a
    /// denied path, under one, or a folder that contains one (granting it
    /// would grant the denied path too). The path is compared as written,
    /// after `.`/`..` are resolved lexically: the caller passes the real
    /// (canonical) path when symbolic links matter. Case is ignored on macOS
    /// and Windows.
    pub fn check_path(&self, path: &Path) -> Verdict {
        if let Some(v) = self.broken_verdict() {
            return v;
        }
        if self.denied_paths.is_empty() {
            return Verdict::Allowed;
        }
        if !path.is_absolute() {
            return self.refuse_plain(format!(
                "the path {} is not absolute, so it cannot be checked against deniedPaths",
                path.display()
            ));
        }
        let p = fold_case(&normalize_path(path));
        for e in &self.denied_paths {
            let d = fold_case(&e.value);
            if p.starts_with(&d) {
                return self.refuse(
                    &e.origin,
                    format!(
                        "denies {}, and {} is in it",
                        e.value.display(),
                        path.display()
                    ),
                );
            }
            if d.starts_with(&p) {
                return self.refuse(
                    &e.origin,
                    format!(
                        "denies {}, and {} contains it",
                        e.value.display(),
                        path.display()
                    ),
                );
            }
        }
        Verdict::Allowed
    }

    /// Whether a URL elicitation may send the user to a page whose
    /// registrable domain is `domain`. `deny` wins over `only`.
    pub fn check_elicitation_domain(&self, domain: &str) -> Verdict {
        if let Some(v) = self.broken_verdict() {
            return v;
        }
        if self.elicitation_deny.is_empty() && self.elicitation_only.is_none() {
            return Verdict::Allowed;
        }
        let d = match normalize_host(domain) {
            Ok(d) => d,
            Err(e) => {
                return self.refuse_plain(format!(
                    "the domain cannot be checked against elicitationDomains: {e}"
                ))
            }
        };
        let within = |listed: &str| {
            d == listed
                || d.strip_suffix(listed)
                    .is_some_and(|head| head.ends_with('.'))
        };
        if let Some(e) = self.elicitation_deny.iter().find(|e| within(&e.value)) {
            return self.refuse(&e.origin, format!("denies pages at {d}"));
        }
        if let Some(only) = &self.elicitation_only {
            if !only.items.iter().any(|e| within(&e.value)) {
                return self.refuse(
                    &only.origin,
                    format!("admits only the domains it lists, and {d} is not one of them"),
                );
            }
        }
        Verdict::Allowed
    }

    /// Whether the app `name` may attach to the gateway (ASCII case ignored).
    pub fn check_app(&self, name: &str) -> Verdict {
        if let Some(v) = self.broken_verdict() {
            return v;
        }
        let Some(only) = &self.apps_allow else {
            return Verdict::Allowed;
        };
        let n = name.to_ascii_lowercase();
        if only.items.iter().any(|e| e.value == n) {
            Verdict::Allowed
        } else {
            self.refuse(
                &only.origin,
                format!("admits only the apps it lists, and {name} is not one of them"),
            )
        }
    }

    /// Whether the definition of `tool` on `server` with hash `sha256` is
    /// approved for everyone (then it is not asked about). Always false for
    /// a broken policy.
    pub fn is_tool_approved(&self, server: &str, tool: &str, sha256: &str) -> bool {
        self.broken.is_none()
            && self.approved_tools.iter().any(|t| {
                t.server == server && t.tool == tool && t.sha256.eq_ignore_ascii_case(sha256)
            })
    }

    /// The pin mode the policy fixes (`"hold"`), if it fixes one. A broken
    /// policy fixes `hold`.
    pub fn fixed_pin_mode(&self) -> Option<&str> {
        if self.broken.is_some() {
            return Some(PinMode::Hold.as_str());
        }
        self.pin_mode.as_ref().map(|(m, _)| m.as_str())
    }
}

/// `.` dropped and `..` resolved without touching the disk.
fn normalize_path(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                // Never above the root.
                if out.parent().is_some() {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(any(target_os = "macos", windows))]
fn fold_case(p: &Path) -> PathBuf {
    PathBuf::from(p.to_string_lossy().to_lowercase())
}

#[cfg(not(any(target_os = "macos", windows)))]
fn fold_case(p: &Path) -> PathBuf {
    p.to_owned()
}

/// An argv shown the way a shell would read it.
pub(crate) fn display_argv(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+%,".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `Some("matches the command ...")` when every matcher of the rule matches.
fn rule_matches(r: &Rule, facts: &ServerFacts, url: Option<&UrlParts>) -> Option<String> {
    let mut what = Vec::new();
    if let Some(pattern) = &r.name {
        let name = facts.registry_name.as_deref()?;
        if !pattern.matches(name) {
            return None;
        }
        match &r.rule.version {
            Some(v) => {
                if facts.version.as_deref() != Some(v.as_str()) {
                    return None;
                }
                what.push(format!("the registry name {name} version {v}"));
            }
            None => what.push(format!("the registry name {name}")),
        }
    }
    if let Some(hash) = &r.rule.artifact_sha256 {
        let actual = facts.artifact_sha256.as_deref()?;
        if !actual.eq_ignore_ascii_case(hash) {
            return None;
        }
        what.push(format!("the artifact hash {hash}"));
    }
    if let Some(cmd) = &r.rule.command {
        if facts.command.as_ref() != Some(cmd) {
            return None;
        }
        what.push(format!("the command {}", display_argv(cmd)));
    }
    if let Some(pattern) = &r.url {
        let u = url?;
        if !pattern.matches(u) {
            return None;
        }
        what.push(format!(
            "the URL {}",
            facts.url.as_deref().unwrap_or_default()
        ));
    }
    if what.is_empty() {
        // A rule without a matcher never matches (and is refused when read).
        return None;
    }
    Some(format!("matches {}", what.join(" and ")))
}
