//! The policy file as written: JSON, camelCase keys, every key optional,
//! unknown keys refused, every string and list bounded. The values are
//! checked while they are read, so a bad value is reported with its key path
//! and its line and column like a syntax error.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::pattern::{self, HostPattern, NamePattern, UrlPattern};

/// Largest policy file read, in bytes (1 MiB).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Most items in any list of a policy file.
pub const MAX_LIST_ITEMS: usize = 1000;
/// Longest string in a policy file, in bytes (4 KiB).
pub const MAX_STRING_BYTES: usize = 4096;
/// Most headers for the audit collector.
pub const MAX_HEADERS: usize = 64;

/// One policy file (`policy.json` or `policy.d/*.json`), as written.
///
/// Every key is optional; a key that is absent says nothing (it neither
/// allows nor refuses). Unknown keys are errors.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PolicyFile {
    /// The JSON Schema the file claims to follow (for editors); not checked.
    #[serde(
        rename = "$schema",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_text"
    )]
    pub schema: Option<String>,
    /// Base URLs of the registries the catalog may read; when present, only
    /// those (an empty list: none).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_registries"
    )]
    pub registries: Option<Vec<String>>,
    /// Servers allowed. They restrict only with `onlyListedServers: true`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_rules"
    )]
    pub allowed_servers: Option<Vec<ServerRule>>,
    /// Servers refused, whatever else says; deny wins over allow.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_rules"
    )]
    pub denied_servers: Option<Vec<ServerRule>>,
    /// When true, no server that `allowedServers` does not match may be
    /// added, imported or started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_listed_servers: Option<bool>,
    /// When true, no server may run unconfined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_confinement: Option<bool>,
    /// Hosts no server may reach: `example.com` (that host only),
    /// `*.example.com` (its subdomains, not itself), an IP address, or `*`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_hosts"
    )]
    pub denied_hosts: Option<Vec<String>>,
    /// Absolute paths no server may be granted: the path, what is under it,
    /// and any folder that contains it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_paths"
    )]
    pub denied_paths: Option<Vec<String>>,
    /// The pin mode, fixed; only `"hold"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_mode: Option<PinMode>,
    /// Tool definitions approved for everyone.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_tools"
    )]
    pub approved_tools: Option<Vec<ApprovedTool>>,
    /// Registrable domains URL elicitations may (not) send the user to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_domains: Option<ElicitationDomains>,
    /// The apps that may attach to the gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apps: Option<Apps>,
    /// Where the audit trail goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<Audit>,
    /// Whom to ask for an exception.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact: Option<Contact>,
}

/// A rule of `allowedServers` or `deniedServers`. A server matches when it
/// matches **every** matcher the rule has (so `registryName` with
/// `artifactSha256` means "this name with these bytes"); a rule without a
/// matcher is an error.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "RawServerRule")]
pub struct ServerRule {
    /// Registry name such as `io.github.owner/name`; `*` as a whole
    /// `/`-separated segment, or at the end. Compared ignoring ASCII case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry_name: Option<String>,
    /// Exact version; only with `registryName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// SHA-256 of the locked artifact (64 hex digits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_sha256: Option<String>,
    /// The exact argv, command first (like Claude Code's `serverCommand`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// URL pattern with `*` wildcards (like Claude Code's `serverUrl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawServerRule {
    #[serde(default, deserialize_with = "de_opt_text")]
    registry_name: Option<String>,
    #[serde(default, deserialize_with = "de_opt_text")]
    version: Option<String>,
    #[serde(default, deserialize_with = "de_opt_text")]
    artifact_sha256: Option<String>,
    #[serde(default, deserialize_with = "de_opt_texts")]
    command: Option<Vec<String>>,
    #[serde(default, deserialize_with = "de_opt_text")]
    url: Option<String>,
}

impl TryFrom<RawServerRule> for ServerRule {
    type Error = String;

    fn try_from(raw: RawServerRule) -> Result<Self, String> {
        if raw.registry_name.is_none()
            && raw.artifact_sha256.is_none()
            && raw.command.is_none()
            && raw.url.is_none()
        {
            return Err(
                "a rule needs at least one of registryName, artifactSha256, command, url"
                    .to_owned(),
            );
        }
        if let Some(name) = &raw.registry_name {
            NamePattern::parse(name).map_err(|e| format!("registryName: {e}"))?;
        }
        if raw.version.is_some() && raw.registry_name.is_none() {
            return Err("version needs registryName".to_owned());
        }
        if let Some(v) = &raw.version {
            if v.is_empty() {
                return Err("version is empty".to_owned());
            }
        }
        let artifact_sha256 = match raw.artifact_sha256 {
            Some(h) => Some(check_sha256(&h).map_err(|e| format!("artifactSha256: {e}"))?),
            None => None,
        };
        if let Some(command) = &raw.command {
            if command.is_empty() {
                return Err("command is empty: write the program and its arguments".to_owned());
            }
            if command[0].is_empty() {
                return Err("command: the program is empty".to_owned());
            }
        }
        if let Some(url) = &raw.url {
            UrlPattern::parse(url).map_err(|e| format!("url: {e}"))?;
        }
        Ok(ServerRule {
            registry_name: raw.registry_name,
            version: raw.version,
            artifact_sha256,
            command: raw.command,
            url: raw.url,
        })
    }
}

/// The pin mode a policy can fix. Only `hold` (an update waits for the
/// user's approval) is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PinMode {
    /// Updates are held until approved.
    Hold,
}

impl PinMode {
    /// The name used in files and settings.
    pub fn as_str(self) -> &'static str {
        match self {
            PinMode::Hold => "hold",
        }
    }
}

/// A tool definition approved for everyone: not asked about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApprovedTool {
    /// The server's name as Airlock knows it.
    #[serde(deserialize_with = "de_text")]
    pub server: String,
    /// The tool's name.
    #[serde(deserialize_with = "de_text")]
    pub tool: String,
    /// SHA-256 of the tool's definition (64 hex digits, stored lower case).
    #[serde(deserialize_with = "de_sha256")]
    pub sha256: String,
}

/// Registrable domains for URL elicitations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ElicitationDomains {
    /// Always refused (and their subdomains).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_domains"
    )]
    pub deny: Option<Vec<String>>,
    /// When present, only these (and their subdomains) are admitted.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_domains"
    )]
    pub only: Option<Vec<String>>,
}

/// The apps that may attach to the gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Apps {
    /// App names (as the gateway knows them, e.g. `claude-code`); when
    /// present, only these. Compared ignoring ASCII case.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_names"
    )]
    pub allow: Option<Vec<String>>,
}

/// Where the audit trail goes (OTLP/HTTP).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Audit {
    /// The collector: an `https` URL, or `http` to a loopback address.
    #[serde(deserialize_with = "de_audit_url")]
    pub otlp_endpoint: String,
    /// Headers sent with every export (for example an API key).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_headers"
    )]
    pub headers: Option<BTreeMap<String, String>>,
}

/// Whom a refused user can ask for an exception.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Contact {
    /// A person or team.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_opt_text"
    )]
    pub name: Option<String>,
    /// An email address (used for a `mailto:` link).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_email"
    )]
    pub email: Option<String>,
    /// A page that explains how to ask (`https` or `http`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "de_contact_url"
    )]
    pub url: Option<String>,
}

// ---------------------------------------------------------------------------
// Checks of single values. Each returns a message without the key: serde and
// serde_path_to_error add where it is.

pub(crate) fn check_text(s: &str) -> Result<(), String> {
    if s.len() > MAX_STRING_BYTES {
        return Err(format!(
            "a string of {} bytes is longer than the limit of {MAX_STRING_BYTES}",
            s.len()
        ));
    }
    if s.chars().any(|c| c.is_control()) {
        return Err("a string contains a control character".to_owned());
    }
    Ok(())
}

fn check_list_len(n: usize) -> Result<(), String> {
    if n > MAX_LIST_ITEMS {
        return Err(format!(
            "a list of {n} items is longer than the limit of {MAX_LIST_ITEMS}"
        ));
    }
    Ok(())
}

/// 64 hex digits, returned in lower case.
pub(crate) fn check_sha256(s: &str) -> Result<String, String> {
    if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{s}` is not a SHA-256 (64 hex digits)"));
    }
    Ok(s.to_ascii_lowercase())
}

/// A parsed URL that is `https`, or `http` to a loopback host.
pub(crate) fn check_secure_url(s: &str) -> Result<url::Url, String> {
    let u = url::Url::parse(s).map_err(|e| format!("`{s}` is not a URL: {e}"))?;
    if !u.username().is_empty() || u.password().is_some() {
        return Err(format!("`{s}` has a user name or password in it"));
    }
    match u.scheme() {
        "https" => {}
        "http" if pattern::is_loopback(&u) => {}
        "http" => {
            return Err(format!(
                "`{s}` is plain http to a host that is not this machine: use https"
            ))
        }
        other => return Err(format!("`{s}`: the scheme {other} is not http(s)")),
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err(format!("`{s}` has no host"));
    }
    Ok(u)
}

fn each<T>(items: &[T], mut check: impl FnMut(&T) -> Result<(), String>) -> Result<(), String> {
    check_list_len(items.len())?;
    for (i, item) in items.iter().enumerate() {
        check(item).map_err(|e| format!("item {i}: {e}"))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// `deserialize_with` helpers.

fn de_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    check_text(&s).map_err(D::Error::custom)?;
    if s.is_empty() {
        return Err(D::Error::custom("the string is empty"));
    }
    Ok(s)
}

fn de_opt_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = Option::<String>::deserialize(d)?;
    if let Some(s) = &s {
        check_text(s).map_err(D::Error::custom)?;
    }
    Ok(s)
}

fn de_sha256<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    check_text(&s).map_err(D::Error::custom)?;
    check_sha256(&s).map_err(D::Error::custom)
}

fn de_list<'de, D: Deserializer<'de>>(
    d: D,
    check: impl Fn(&str) -> Result<(), String>,
) -> Result<Option<Vec<String>>, D::Error> {
    let v = Option::<Vec<String>>::deserialize(d)?;
    if let Some(v) = &v {
        each(v, |s| {
            check_text(s)?;
            check(s)
        })
        .map_err(D::Error::custom)?;
    }
    Ok(v)
}

fn de_opt_texts<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    de_list(d, |_| Ok(()))
}

fn de_registries<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    de_list(d, |s| pattern::RegistryBase::parse(s).map(|_| ()))
}

fn de_hosts<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    de_list(d, |s| HostPattern::parse(s).map(|_| ()))
}

fn de_domains<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    de_list(d, |s| {
        if s.contains('*') {
            return Err(format!(
                "`{s}`: write the registrable domain without a wildcard (its subdomains are included)"
            ));
        }
        pattern::normalize_host(s).map(|_| ())
    })
}

fn de_names<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    de_list(d, |s| {
        if s.is_empty() {
            return Err("the name is empty".to_owned());
        }
        Ok(())
    })
}

fn de_paths<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    de_list(d, |s| {
        if !std::path::Path::new(s).is_absolute() {
            return Err(format!("`{s}` is not an absolute path"));
        }
        Ok(())
    })
}

fn de_rules<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<ServerRule>>, D::Error> {
    let v = Option::<Vec<ServerRule>>::deserialize(d)?;
    if let Some(v) = &v {
        check_list_len(v.len()).map_err(D::Error::custom)?;
    }
    Ok(v)
}

fn de_tools<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<ApprovedTool>>, D::Error> {
    let v = Option::<Vec<ApprovedTool>>::deserialize(d)?;
    if let Some(v) = &v {
        check_list_len(v.len()).map_err(D::Error::custom)?;
    }
    Ok(v)
}

fn de_audit_url<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    check_text(&s).map_err(D::Error::custom)?;
    check_secure_url(&s).map_err(D::Error::custom)?;
    Ok(s)
}

fn de_headers<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<BTreeMap<String, String>>, D::Error> {
    let v = Option::<BTreeMap<String, String>>::deserialize(d)?;
    if let Some(v) = &v {
        if v.len() > MAX_HEADERS {
            return Err(D::Error::custom(format!(
                "{} headers are more than the limit of {MAX_HEADERS}",
                v.len()
            )));
        }
        for (name, value) in v {
            check_text(name).map_err(D::Error::custom)?;
            check_text(value).map_err(D::Error::custom)?;
            let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            if name.is_empty() || !name.bytes().all(token) {
                return Err(D::Error::custom(format!("`{name}` is not a header name")));
            }
        }
    }
    Ok(v)
}

fn de_email<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = Option::<String>::deserialize(d)?;
    if let Some(s) = &s {
        check_text(s).map_err(D::Error::custom)?;
        let ok = s.len() <= 254
            && s.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty() && !domain.is_empty() && !domain.contains('@')
            })
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "@.!#$%&'*+-/=^_`{|}~".contains(c));
        if !ok {
            return Err(D::Error::custom(format!("`{s}` is not an email address")));
        }
    }
    Ok(s)
}

fn de_contact_url<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = Option::<String>::deserialize(d)?;
    if let Some(s) = &s {
        check_text(s).map_err(D::Error::custom)?;
        let u =
            url::Url::parse(s).map_err(|e| D::Error::custom(format!("`{s}` is not a URL: {e}")))?;
        if !matches!(u.scheme(), "https" | "http") {
            return Err(D::Error::custom(format!("`{s}` is not an http(s) URL")));
        }
    }
    Ok(s)
}
