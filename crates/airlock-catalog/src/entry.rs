//! One registry entry (`server.json` and the registry's own `_meta`),
//! checked: a name of the registry's form, an exact version (never a range
//! or `latest`), text fields bounded, lists bounded, unknown package kinds
//! kept as they are named but marked. What is shown of its text is plain
//! text: control characters are dropped here, hidden ones are made visible
//! where it is shown.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Longest server name (`io.github.owner/name`), in bytes.
pub const MAX_NAME: usize = 200;
/// Longest description kept, in characters (the rest is cut, and said).
pub const MAX_DESCRIPTION: usize = 2000;
/// Longest other text field (identifier, URL, hint), in bytes.
pub const MAX_FIELD: usize = 1000;
/// Most packages, remotes and environment variables of one entry.
pub const MAX_LIST: usize = 16;

/// Whether the registry still offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CatalogStatus"))]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Deprecated,
    Deleted,
}

/// An environment variable a package asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CatalogEnvVar"))]
pub struct EnvVar {
    pub name: String,
    pub description: String,
    pub is_required: bool,
    pub is_secret: bool,
}

/// One way to run it locally.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CatalogPackage"))]
pub struct Package {
    /// `npm`, `pypi`, `oci`, `nuget`, `mcpb` (others kept as named).
    pub registry_type: String,
    pub identifier: String,
    /// Exact.
    pub version: String,
    /// Required for mcpb; checked at install.
    pub file_sha256: Option<String>,
    pub runtime_hint: Option<String>,
    pub env: Vec<EnvVar>,
}

/// A server reached over the network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CatalogRemote"))]
pub struct Remote {
    /// `streamable-http` or `sse`.
    pub kind: String,
    pub url: String,
}

/// One version of one server, as the catalog keeps and shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CatalogEntry {
    pub name: String,
    /// The namespace the registry verified (`io.github.owner`, `com.example`).
    pub namespace: String,
    pub title: Option<String>,
    pub description: String,
    pub version: String,
    pub repository: Option<String>,
    pub website: Option<String>,
    pub status: Status,
    /// The registry's word on a deprecation, if any.
    pub status_message: Option<String>,
    pub is_latest: bool,
    pub published_at: Option<String>,
    pub packages: Vec<Package>,
    pub remotes: Vec<Remote>,
}

/// Why an entry was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A registry name: `namespace/name`, reverse-DNS namespace, one slash,
/// ASCII letters, digits, `.`, `-`, `_`.
pub fn check_name(name: &str) -> Result<&str, Refused> {
    let ok_chars = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/'));
    let (ns, rest) = name.split_once('/').unwrap_or(("", ""));
    if name.is_empty()
        || name.len() > MAX_NAME
        || !ok_chars
        || ns.is_empty()
        || rest.is_empty()
        || rest.contains('/')
        || !ns.contains('.')
        || ns.starts_with('.')
        || ns.ends_with('.')
    {
        return Err(Refused(format!(
            "not a registry name: {:?}",
            truncate(name, 80)
        )));
    }
    Ok(ns)
}

/// An exact version: no range, wildcard or `latest`.
pub fn check_version(v: &str) -> Result<(), Refused> {
    let exact = !v.is_empty()
        && v.len() <= 64
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_'))
        && v.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && !v.eq_ignore_ascii_case("latest");
    if exact {
        Ok(())
    } else {
        Err(Refused(format!(
            "not an exact version: {:?}",
            truncate(v, 40)
        )))
    }
}

fn truncate(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// Text as kept: control characters (but newlines) dropped, at most `max`
/// characters, `…` when cut.
fn text(v: Option<&Value>, max: usize) -> String {
    let s = v.and_then(Value::as_str).unwrap_or_default();
    let mut out: String = s
        .chars()
        .filter(|c| !c.is_control() || *c == '\n')
        .take(max)
        .collect();
    if s.chars().count() > max {
        out.push('…');
    }
    out
}

fn field(v: Option<&Value>) -> Option<String> {
    let s = v.and_then(Value::as_str)?;
    (!s.is_empty() && s.len() <= MAX_FIELD && !s.chars().any(char::is_control))
        .then(|| s.to_owned())
}

/// An `https` URL (or `http` to this computer).
fn web_url(v: Option<&Value>) -> Option<String> {
    let s = field(v)?;
    let u = url::Url::parse(&s).ok()?;
    let loopback = matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    (u.scheme() == "https" || (u.scheme() == "http" && loopback)).then(|| u.to_string())
}

impl CatalogEntry {
    /// One item of a `/v0.1/servers` page (`{"server": {...}, "_meta": {...}}`).
    pub fn from_item(item: &Value) -> Result<CatalogEntry, Refused> {
        let server = item.get("server").unwrap_or(item);
        let official = item
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol.registry/official"));
        let name = server
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| Refused("an entry without a name".into()))?;
        let namespace = check_name(name)?.to_owned();
        let version = server
            .get("version")
            .and_then(Value::as_str)
            .ok_or_else(|| Refused(format!("{name}: no version")))?;
        check_version(version)?;
        let status = match official
            .and_then(|o| o.get("status"))
            .and_then(Value::as_str)
        {
            None | Some("active") => Status::Active,
            Some("deprecated") => Status::Deprecated,
            Some("deleted") => Status::Deleted,
            Some(other) => {
                return Err(Refused(format!(
                    "{name}: unknown status {:?}",
                    truncate(other, 20)
                )))
            }
        };
        let list = |key: &str| -> Vec<&Value> {
            server
                .get(key)
                .and_then(Value::as_array)
                .map(|a| a.iter().take(MAX_LIST).collect())
                .unwrap_or_default()
        };
        let mut packages = Vec::new();
        for p in list("packages") {
            let (Some(kind), Some(identifier), Some(pv)) = (
                field(p.get("registryType")),
                field(p.get("identifier")),
                p.get("version").and_then(Value::as_str),
            ) else {
                continue;
            };
            // A package without an exact version cannot be locked: left out.
            if check_version(pv).is_err() {
                continue;
            }
            let sha = field(p.get("fileSha256"))
                .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
            let env = p
                .get("environmentVariables")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .take(MAX_LIST)
                        .filter_map(|e| {
                            let name = field(e.get("name"))?;
                            name.bytes()
                                .all(|b| b.is_ascii_alphanumeric() || b == b'_')
                                .then(|| EnvVar {
                                    name,
                                    description: text(e.get("description"), MAX_FIELD),
                                    is_required: e
                                        .get("isRequired")
                                        .and_then(Value::as_bool)
                                        .unwrap_or(false),
                                    is_secret: e
                                        .get("isSecret")
                                        .and_then(Value::as_bool)
                                        .unwrap_or(false),
                                })
                        })
                        .collect()
                })
                .unwrap_or_default();
            packages.push(Package {
                registry_type: kind.to_ascii_lowercase(),
                identifier,
                version: pv.to_owned(),
                file_sha256: sha,
                runtime_hint: field(p.get("runtimeHint")),
                env,
            });
        }
        let remotes = list("remotes")
            .into_iter()
            .filter_map(|r| {
                Some(Remote {
                    kind: field(r.get("type"))?,
                    url: web_url(r.get("url"))?,
                })
            })
            .collect();
        Ok(CatalogEntry {
            name: name.to_owned(),
            namespace,
            title: field(server.get("title")),
            description: text(server.get("description"), MAX_DESCRIPTION),
            version: version.to_owned(),
            repository: web_url(server.get("repository").and_then(|r| r.get("url"))),
            website: web_url(server.get("websiteUrl")),
            status,
            status_message: official
                .and_then(|o| o.get("statusMessage"))
                .map(|m| text(Some(m), MAX_FIELD))
                .filter(|m| !m.is_empty()),
            is_latest: official
                .and_then(|o| o.get("isLatest"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            published_at: field(official.and_then(|o| o.get("publishedAt"))),
            packages,
            remotes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(server: Value, meta: Value) -> Value {
        json!({"server": server, "_meta": {"io.modelcontextprotocol.registry/official": meta}})
    }

    #[test]
    fn an_entry_is_read_checked_and_bounded() {
        let e = CatalogEntry::from_item(&item(
            json!({
                "name": "io.github.example/weather",
                "description": format!("Weather.\u{1b}[31m{}", "x".repeat(5000)),
                "version": "1.2.3",
                "repository": {"url": "https://github.com/example/weather", "source": "github"},
                "packages": [
                    {"registryType": "npm", "identifier": "@example/weather", "version": "1.2.3",
                     "environmentVariables": [{"name": "API_KEY", "isSecret": true, "isRequired": true},
                                              {"name": "BAD NAME"}]},
                    {"registryType": "npm", "identifier": "@example/other", "version": "^1.0.0"},
                    {"registryType": "mcpb", "identifier": "https://example.com/w.mcpb", "version": "1.2.3",
                     "fileSha256": "a".repeat(64)}
                ],
                "remotes": [{"type": "streamable-http", "url": "http://evil.example/mcp"},
                            {"type": "streamable-http", "url": "https://mcp.example.com/mcp"}]
            }),
            json!({"status": "active", "isLatest": true, "publishedAt": "2026-11-01T00:00:00Z"}),
        ))
        .unwrap();
        assert_eq!(e.namespace, "io.github.example");
        assert!(
            !e.description.contains('\u{1b}'),
            "control characters dropped"
        );
        assert_eq!(
            e.description.chars().count(),
            MAX_DESCRIPTION + 1,
            "cut, with …"
        );
        assert_eq!(e.packages.len(), 2, "a range cannot be locked: left out");
        assert_eq!(e.packages[0].env.len(), 1);
        assert!(e.packages[0].env[0].is_secret && e.packages[0].env[0].is_required);
        assert_eq!(
            e.packages[1].file_sha256.as_deref(),
            Some("a".repeat(64).as_str())
        );
        assert_eq!(
            e.remotes.len(),
            1,
            "plain http to another computer left out"
        );
        assert!(e.is_latest);
    }

    #[test]
    fn names_versions_and_statuses_are_checked() {
        for bad in [
            "",
            "noslash",
            "a/b",
            "io.github.x/a/b",
            ".x/y",
            "io.github.x/\u{202E}y",
            &format!("a.b/{}", "x".repeat(300)),
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            check_name("io.github.owner/server-name").unwrap(),
            "io.github.owner"
        );
        for bad in ["", "latest", "^1.0.0", "~1.2", ">=1", "1.x || 2", "*"] {
            assert!(check_version(bad).is_err(), "{bad:?}");
        }
        check_version("1.0.0-beta.1+build.5").unwrap();
        let deleted = CatalogEntry::from_item(&item(
            json!({"name": "com.example/gone", "version": "1.0.0"}),
            json!({"status": "deleted"}),
        ))
        .unwrap();
        assert_eq!(deleted.status, Status::Deleted);
        assert!(CatalogEntry::from_item(&item(
            json!({"name": "com.example/odd", "version": "1.0.0"}),
            json!({"status": "weird"}),
        ))
        .is_err());
    }
}
