//! Server definitions: what the user configured, as stored (secret values
//! replaced by keychain references) and as entered (plain values with a
//! per-value secret flag).

mod import;
pub(crate) mod registry;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use import::{
    export_mcp_servers, parse_config, ConfigFormat, ExportedConfig, ImportError, ImportPlan,
    InputPrompt,
};

/// Longest server name.
pub const MAX_NAME_CHARS: usize = 64;
/// Most args, env vars or headers one server may have.
pub const MAX_ENTRIES: usize = 256;
/// Longest single plain value (command, arg, env value, header value, URL).
pub const MAX_VALUE_BYTES: usize = 16 * 1024;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DefinitionError {
    #[error("server name must be 1 to {MAX_NAME_CHARS} characters of letters, digits, space, '.', '_' or '-', not starting with '-' (got {0:?})")]
    BadName(String),
    #[error("server {server:?}: {field} is empty")]
    Empty { server: String, field: String },
    #[error("server {server:?}: {field} is too long ({len} bytes; at most {max})")]
    TooLong {
        server: String,
        field: String,
        len: usize,
        max: usize,
    },
    #[error("server {server:?}: more than {MAX_ENTRIES} {field}")]
    TooMany { server: String, field: String },
    #[error("server {server:?}: {detail}")]
    Invalid { server: String, detail: String },
}

/// A stored value: plain text, or a reference to a keychain entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged, deny_unknown_fields)]
pub enum StoredValue {
    Plain { value: String },
    Secret { secret_ref: String },
}

impl StoredValue {
    pub fn is_secret(&self) -> bool {
        matches!(self, Self::Secret { .. })
    }
}

/// A value as the user enters it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InputValue {
    pub value: String,
    #[serde(default)]
    pub secret: bool,
}

impl InputValue {
    pub fn plain(value: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            secret: false,
        }
    }
    pub fn secret(value: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            secret: true,
        }
    }
}

/// Transport of a server, generic over how values are held
/// (`StoredValue` in the database, `InputValue` from a user, `String` once resolved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
#[serde(deny_unknown_fields, bound(deserialize = "V: Deserialize<'de>"))]
pub enum Transport<V> {
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, V>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    Http {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, V>,
    },
}

impl<V> Transport<V> {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
        }
    }

    /// The env vars (stdio) or headers (http): the values that may be secret.
    pub fn values(&self) -> &BTreeMap<String, V> {
        match self {
            Self::Stdio { env, .. } => env,
            Self::Http { headers, .. } => headers,
        }
    }

    /// Same transport with every value mapped.
    pub fn try_map<W, E>(
        &self,
        mut f: impl FnMut(&str, &V) -> Result<W, E>,
    ) -> Result<Transport<W>, E> {
        let mut map = |m: &BTreeMap<String, V>| -> Result<BTreeMap<String, W>, E> {
            m.iter().map(|(k, v)| Ok((k.clone(), f(k, v)?))).collect()
        };
        Ok(match self {
            Self::Stdio {
                command,
                args,
                env,
                cwd,
            } => Transport::Stdio {
                command: command.clone(),
                args: args.clone(),
                env: map(env)?,
                cwd: cwd.clone(),
            },
            Self::Http { url, headers } => Transport::Http {
                url: url.clone(),
                headers: map(headers)?,
            },
        })
    }
}

/// Which MCP protocol revision to speak with a server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ProtocolChoice {
    /// 2026-07-28 when the server offers it, else 2025-11-25; a server that
    /// turns out to send requests the 2025-11-25 way is moved to 2025-11-25.
    #[default]
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
}

impl ProtocolChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::V2026_07_28 => "2026-07-28",
            Self::V2025_11_25 => "2025-11-25",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        [Self::Auto, Self::V2026_07_28, Self::V2025_11_25]
            .into_iter()
            .find(|p| p.as_str() == word)
    }
}

/// What the user sets for a server besides its transport.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct ServerOptions {
    /// The protocol revision to speak.
    pub protocol: ProtocolChoice,
    /// Allow secret headers or a sign-in over plain `http://` to a host that
    /// is not this computer (they cross the network in the clear).
    pub allow_insecure_http: bool,
    /// Environment variables of Airlock's own a stdio server inherits
    /// beyond the minimal set (`*`: all of them).
    pub inherit_env: Vec<String>,
    /// What a change to the server's tools and prompts does (default: held
    /// until the user approves it; see [`crate::pins`]).
    pub pins: crate::pins::PinPolicy,
    /// Largest message Airlock reads from the server, in bytes (`None`:
    /// [`crate::limits::MAX_MESSAGE_BYTES`]'s default).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub max_message_bytes: Option<u64>,
    /// Largest tool or prompt definition served to apps, in bytes (`None`:
    /// [`crate::limits::MAX_DEFINITION_BYTES`]'s default).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub max_definition_bytes: Option<u64>,
    /// A stdio server's room (see [`airlock_sandbox`]). `None`: configured
    /// before Airlock confined servers; it runs unconfined until the person
    /// confines it. Every server added now gets one, confined.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub sandbox: Option<airlock_sandbox::SandboxSettings>,
}

impl ServerOptions {
    /// The message limit in force (the server's own, else the default).
    pub fn message_limit(&self) -> usize {
        let bytes = self
            .max_message_bytes
            .unwrap_or(crate::limits::MAX_MESSAGE_BYTES.default);
        usize::try_from(bytes).unwrap_or(usize::MAX)
    }

    /// The definition limit in force (the server's own, else the default).
    pub fn definition_limit(&self) -> usize {
        let bytes = self
            .max_definition_bytes
            .unwrap_or(crate::limits::MAX_DEFINITION_BYTES.default);
        usize::try_from(bytes).unwrap_or(usize::MAX)
    }

    /// Every value inside its bounds ([`crate::limits`]).
    pub fn validate(&self) -> Result<(), String> {
        if let Some(n) = self.max_message_bytes {
            crate::limits::MAX_MESSAGE_BYTES.check(n)?;
        }
        if let Some(n) = self.max_definition_bytes {
            crate::limits::MAX_DEFINITION_BYTES.check(n)?;
        }
        if let Some(s) = &self.sandbox {
            s.validate()?;
        }
        Ok(())
    }
}

/// Is `url` plain `http://` to a host other than this computer?
pub fn plain_http_remote(url: &str) -> bool {
    let Ok(u) = url::Url::parse(url) else {
        return false;
    };
    if u.scheme() != "http" {
        return false;
    }
    match u.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            !(d == "localhost" || d.ends_with(".localhost"))
        }
        Some(url::Host::Ipv4(ip)) => !ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => !ip.is_loopback(),
        None => false,
    }
}

/// A server as the user describes it (CLI flags, GUI form, imported file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServerInput {
    pub name: String,
    pub transport: Transport<InputValue>,
    #[serde(default)]
    pub options: ServerOptions,
}

/// A server as stored: no secret values, only references.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServerDef {
    pub name: String,
    pub transport: Transport<StoredValue>,
    pub options: ServerOptions,
    /// The revision automatic mode settled on after the server sent
    /// requests the 2025-11-25 way (`null`: nothing learned).
    pub protocol_learned: Option<String>,
    /// The user paused the server: it is not connected.
    pub paused: bool,
}

/// Words of a header or env var name (split at anything not a letter or
/// digit) that mark it as carrying a secret. The window gets the same list
/// (`ui/src/lib/bindings/secretWords.ts`, written by the bindings test).
pub const SECRET_WORDS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "KEY",
    "APIKEY",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PAT",
    "CREDENTIAL",
    "CREDENTIALS",
    "AUTH",
    "AUTHORIZATION",
    "COOKIE",
    "PRIVATE",
    "SESSION",
    "BEARER",
];

/// Name endings that mark a secret even inside a word (`GHTOKEN`).
pub const SECRET_SUFFIXES: &[&str] = &["TOKEN", "APIKEY", "SECRET"];

/// Does a header or env var name usually carry a secret?
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| SECRET_WORDS.contains(&word))
        || SECRET_SUFFIXES.iter().any(|s| upper.ends_with(s))
}

pub fn validate_name(name: &str) -> Result<(), DefinitionError> {
    let chars = name.chars().count();
    let ok = (1..=MAX_NAME_CHARS).contains(&chars)
        && !name.starts_with('-')
        && name.trim() == name
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(DefinitionError::BadName(name.to_owned()))
    }
}

fn check_len(server: &str, field: &str, value: &str) -> Result<(), DefinitionError> {
    if value.len() > MAX_VALUE_BYTES {
        return Err(DefinitionError::TooLong {
            server: server.to_owned(),
            field: field.to_owned(),
            len: value.len(),
            max: MAX_VALUE_BYTES,
        });
    }
    Ok(())
}

fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn valid_env_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('=') && !name.contains('\0')
}

impl ServerInput {
    /// Find secrets in places that do not look secret and keep them out of
    /// SQLite: env and header values holding a token, a DSN with a password
    /// or a credential in a URL are marked secret (they go to the keychain);
    /// a secret in the command, an argument or the server URL cannot be
    /// stored in the keychain, so the add is refused with what to do. Secret
    /// headers over plain http to another host need the explicit opt-in.
    /// Returns what was moved to the keychain, in words.
    pub fn guard_secrets(&mut self) -> Result<Vec<String>, DefinitionError> {
        use crate::secrets::detect::{secret_in_value, url_credential};
        let server = self.name.clone();
        let refuse = |detail: String| DefinitionError::Invalid {
            server: server.clone(),
            detail,
        };
        let mut moved = Vec::new();
        let kind = match self.transport {
            Transport::Stdio { .. } => "env",
            Transport::Http { .. } => "header",
        };
        match &mut self.transport {
            Transport::Stdio { command, args, .. } => {
                for (i, a) in std::iter::once(&*command).chain(args.iter()).enumerate() {
                    if let Some(what) = secret_in_value(a) {
                        let place = if i == 0 {
                            "the command".to_owned()
                        } else {
                            format!("argument {i}")
                        };
                        return Err(refuse(format!(
                            "{place} holds {what}; Airlock keeps secrets only in the OS keychain and cannot keep an argument there. Pass it in an environment variable instead (`--secret-env NAME=VALUE`, or a secret row in the window's form), if the server reads one"
                        )));
                    }
                }
            }
            Transport::Http { url, .. } => {
                if let Some(what) = url_credential(url) {
                    return Err(refuse(format!(
                        "the URL carries {what}; Airlock keeps secrets only in the OS keychain and cannot keep a URL there. Send it as a header instead (`--secret-header Authorization=Bearer ...`, or the header the server documents)"
                    )));
                }
            }
        }
        let values = match &mut self.transport {
            Transport::Stdio { env, .. } => env,
            Transport::Http { headers, .. } => headers,
        };
        for (k, v) in values.iter_mut() {
            if !v.secret {
                if let Some(what) = secret_in_value(&v.value) {
                    v.secret = true;
                    moved.push(format!("{kind} {k} ({what})"));
                }
            }
        }
        if let Transport::Http { url, headers } = &self.transport {
            if plain_http_remote(url)
                && headers.values().any(|v| v.secret)
                && !self.options.allow_insecure_http
            {
                return Err(refuse(
                    "secret headers would cross the network in the clear over plain http:// to another computer. Use https, or opt in explicitly (`--allow-insecure-http`, or the window's form) if you must".into(),
                ));
            }
        }
        Ok(moved)
    }

    /// Check everything that can be checked without touching the system.
    pub fn validate(&self) -> Result<(), DefinitionError> {
        validate_name(&self.name)?;
        let server = self.name.as_str();
        let invalid = |detail: String| DefinitionError::Invalid {
            server: server.to_owned(),
            detail,
        };
        self.options.validate().map_err(invalid)?;
        let values = self.transport.values();
        if values.len() > MAX_ENTRIES {
            return Err(DefinitionError::TooMany {
                server: server.to_owned(),
                field: "values".into(),
            });
        }
        match &self.transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                if command.trim().is_empty() {
                    return Err(DefinitionError::Empty {
                        server: server.to_owned(),
                        field: "command".into(),
                    });
                }
                check_len(server, "command", command)?;
                if args.len() > MAX_ENTRIES {
                    return Err(DefinitionError::TooMany {
                        server: server.to_owned(),
                        field: "args".into(),
                    });
                }
                for a in args {
                    check_len(server, "an argument", a)?;
                }
                for (k, v) in env {
                    if !valid_env_name(k) {
                        return Err(invalid(format!("env var name {k:?} is not valid")));
                    }
                    check_len(server, &format!("env {k}"), &v.value)?;
                }
            }
            Transport::Http { url, headers } => {
                check_len(server, "url", url)?;
                let parsed = url::Url::parse(url)
                    .map_err(|e| invalid(format!("url {url:?} is not a valid URL: {e}")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(invalid(format!(
                        "url must be http or https (got {:?})",
                        parsed.scheme()
                    )));
                }
                for (k, v) in headers {
                    if !valid_header_name(k) {
                        return Err(invalid(format!("header name {k:?} is not valid")));
                    }
                    if v.value.contains(['\r', '\n', '\0']) {
                        return Err(invalid(format!("header {k} contains a line break")));
                    }
                    check_len(server, &format!("header {k}"), &v.value)?;
                }
            }
        }
        Ok(())
    }
}

/// Keychain reference for one secret value of a server in the data dir
/// whose database has `instance` as its id.
pub fn secret_ref(instance: &str, server: &str, kind: &str, key: &str) -> String {
    format!("{instance}/server/{server}/{kind}/{key}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for n in [
            "Authorization",
            "GITHUB_TOKEN",
            "X-Api-Key",
            "OPENAI_API_KEY",
            "DB_PASSWORD",
            "Cookie",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
        ] {
            assert!(looks_secret(n), "{n}");
        }
        for n in [
            "PATH",
            "HOME",
            "Accept",
            "X-Request-Id",
            "DEBUG",
            "KEYBOARD_LAYOUT",
        ] {
            assert!(!looks_secret(n), "{n}");
        }
    }

    #[test]
    fn names() {
        assert!(validate_name("everything").is_ok());
        assert!(validate_name("my server.v2").is_ok());
        assert!(validate_name("").is_err());
        assert!(validate_name("-x").is_err());
        assert!(validate_name("a/b").is_err());
        assert!(validate_name(&"a".repeat(MAX_NAME_CHARS)).is_ok());
        assert!(validate_name(&"a".repeat(MAX_NAME_CHARS + 1)).is_err());
    }

    #[test]
    fn stored_value_round_trip() {
        let t: Transport<StoredValue> = Transport::Http {
            url: "https://x.example/mcp".into(),
            headers: [(
                "Authorization".to_string(),
                StoredValue::Secret {
                    secret_ref: "server/x/header/Authorization".into(),
                },
            )]
            .into(),
        };
        let s = serde_json::to_string(&t).unwrap();
        assert!(s.contains("secret_ref"));
        let back: Transport<StoredValue> = serde_json::from_str(&s).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn header_validation() {
        let mut input = ServerInput {
            name: "h".into(),
            options: Default::default(),
            transport: Transport::Http {
                url: "https://x.example/mcp".into(),
                headers: [("X-A".to_string(), InputValue::plain("a\r\nb"))].into(),
            },
        };
        assert!(input.validate().is_err());
        input.transport = Transport::Http {
            url: "ftp://x".into(),
            headers: BTreeMap::new(),
        };
        assert!(input.validate().is_err());
    }
}
