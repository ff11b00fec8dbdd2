//! The apps that attach to Airlock's gateway ("clients", issue 12), for the
//! gateway, the CLI (`airlock clients ...`) and the desktop app.
//!
//! A client is a name (what `--client NAME` or an HTTP token stands for),
//! optionally an HTTP bearer token, and a profile: which servers, and
//! optionally which of their tools, it sees. An app with no client row (a
//! stdio app naming itself) sees every enabled server.
//!
//! ```ignore
//! let token = airlock.add_client("cursor", true)?;      // Some(token): show it once
//! airlock.set_client_profile("cursor", &ClientProfile::servers(["github"]))?;
//! for c in airlock.clients()? { println!("{} {:?}", c.name, c.profile) }
//! airlock.remove_client("cursor")?;                      // the token leaves the keychain
//! let name = airlock.client_for_token(&cache, presented)?; // the gateway's HTTP check
//! ```
//!
//! The token is 256 random bits, kept only in the OS keychain (reference
//! `gateway-client:<instance>:<name>`), compared in constant time; SQLite
//! says only when it was made.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::secrets::SecretValue;
use crate::store::clients::ClientRow;
use crate::{Airlock, CoreError, CoreResult};

/// At most this many clients.
pub const MAX_CLIENTS: u32 = 256;
/// A profile names at most this many servers, and this many tools in all.
pub const MAX_PROFILE_SERVERS: usize = 256;
pub const MAX_PROFILE_TOOLS: usize = 4096;
/// A tool name in a profile: at most this many characters.
pub const MAX_TOOL_NAME_CHARS: usize = 128;
/// Every token starts with this (so secret scanners recognise it).
pub const TOKEN_PREFIX: &str = "airlock_gw_";
/// A client name: at most this many characters.
pub const MAX_CLIENT_NAME_CHARS: usize = 64;

/// Which servers and tools a client sees.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClientProfile {
    /// `None`: every enabled server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub servers: Option<Vec<String>>,
    /// Per server, the only tools it sees; a server not here: all its tools.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Vec<String>>,
}

impl ClientProfile {
    /// Only these servers, all their tools.
    pub fn servers<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Self {
            servers: Some(names.into_iter().map(Into::into).collect()),
            tools: BTreeMap::new(),
        }
    }

    pub fn allows_server(&self, server: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|s| s.iter().any(|n| n == server))
    }

    /// `tool` is the server's own name for it (not the gateway's prefixed one).
    pub fn allows_tool(&self, server: &str, tool: &str) -> bool {
        self.allows_server(server)
            && self
                .tools
                .get(server)
                .is_none_or(|t| t.iter().any(|n| n == tool))
    }

    fn check(&self) -> CoreResult<()> {
        let servers = self.servers.iter().flatten().chain(self.tools.keys());
        for s in servers {
            crate::servers::validate_name(s)?;
        }
        let n_tools: usize = self.tools.values().map(Vec::len).sum();
        if self.servers.as_ref().map_or(0, Vec::len) > MAX_PROFILE_SERVERS
            || self.tools.len() > MAX_PROFILE_SERVERS
            || n_tools > MAX_PROFILE_TOOLS
        {
            return Err(CoreError::BadInput(format!(
                "a profile names at most {MAX_PROFILE_SERVERS} servers and {MAX_PROFILE_TOOLS} tools"
            )));
        }
        for t in self.tools.values().flatten() {
            let n = t.chars().count();
            if n == 0 || n > MAX_TOOL_NAME_CHARS || t.chars().any(char::is_control) {
                return Err(CoreError::BadInput(format!(
                    "tool name {t:?} is not allowed: 1 to {MAX_TOOL_NAME_CHARS} characters, no control characters"
                )));
            }
        }
        Ok(())
    }
}

/// A client as the CLI and the window show it (never its token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClientInfo {
    pub name: String,
    /// It has an HTTP bearer token (in the keychain).
    pub has_token: bool,
    pub token_set_at: Option<i64>,
    pub profile: ClientProfile,
    pub created_at: i64,
    /// Paused in Airlock: the gateway refuses its calls ([`PAUSED_ERROR`]).
    pub paused: bool,
}

/// What a paused client's calls get (a tool error, or a JSON-RPC error for
/// prompts and resources); nothing reaches the servers.
pub const PAUSED_ERROR: &str = "paused in Airlock: this app's calls are refused until you resume it (Airlock > Clients, or `airlock clients resume NAME`)";

/// Is `name` a valid client name (1-64 letters, digits, spaces, `.`, `_`, `-`)?
pub fn check_client_name(name: &str) -> CoreResult<()> {
    let n = name.chars().count();
    let ok = (1..=MAX_CLIENT_NAME_CHARS).contains(&n)
        && name.trim() == name
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(CoreError::BadInput(format!(
            "client name {name:?} is not allowed: 1 to {MAX_CLIENT_NAME_CHARS} letters, digits, spaces, '.', '_' or '-'"
        )))
    }
}

fn info(row: ClientRow) -> ClientInfo {
    // A profile that does not parse (written by a newer Airlock, or edited
    // by hand) shows nothing rather than everything.
    let profile = match row.profile_json.as_deref() {
        None => ClientProfile::default(),
        Some(j) => {
            serde_json::from_str(j).unwrap_or_else(|_| ClientProfile::servers(Vec::<String>::new()))
        }
    };
    ClientInfo {
        name: row.name,
        has_token: row.token_set_at.is_some(),
        token_set_at: row.token_set_at,
        profile,
        created_at: row.created_at,
        paused: row.paused,
    }
}

fn new_token() -> CoreResult<SecretValue> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| CoreError::BadInput(format!("no randomness from the OS for a token: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(SecretValue::new(format!("{TOKEN_PREFIX}{hex}")))
}

/// The tokens the gateway has read from the keychain, by client and the
/// time the token was made (a new token is read again; keychain reads are
/// slow, one per client per token).
#[derive(Debug, Default)]
pub struct TokenCache {
    tokens: Mutex<HashMap<String, (i64, SecretValue)>>,
}

impl Airlock {
    fn token_ref(&self, name: &str) -> CoreResult<String> {
        Ok(format!(
            "gateway-client:{}:{name}",
            self.store.instance_id()?
        ))
    }

    /// Every client, by name.
    pub fn clients(&self) -> CoreResult<Vec<ClientInfo>> {
        Ok(self
            .store
            .list_clients(MAX_CLIENTS)?
            .into_iter()
            .map(info)
            .collect())
    }

    pub fn client(&self, name: &str) -> CoreResult<Option<ClientInfo>> {
        Ok(self.store.get_client(name)?.map(info))
    }

    /// Add a client. With `with_token`, a new HTTP bearer token goes to the
    /// keychain and is returned: the only time anyone sees it.
    pub fn add_client(&self, name: &str, with_token: bool) -> CoreResult<Option<SecretValue>> {
        check_client_name(name)?;
        if self.store.count_clients()? >= MAX_CLIENTS {
            return Err(CoreError::BadInput(format!(
                "at most {MAX_CLIENTS} clients; remove one first"
            )));
        }
        if self.store.get_client(name)?.is_some() {
            return Err(CoreError::BadInput(format!(
                "a client named {name:?} already exists; remove it first or pick another name"
            )));
        }
        let token = if with_token {
            let t = new_token()?;
            self.keychain.set(&self.token_ref(name)?, &t)?;
            Some(t)
        } else {
            None
        };
        let set_at = token.as_ref().map(|_| crate::store::now_ms());
        if !self.store.insert_client(name, set_at)? {
            return Err(CoreError::BadInput(format!(
                "a client named {name:?} already exists"
            )));
        }
        let _ = self.store.audit(
            None,
            "client_added",
            &serde_json::json!({"client": name, "token": with_token}),
        );
        Ok(token)
    }

    /// Set which servers and tools `name` sees.
    pub fn set_client_profile(&self, name: &str, profile: &ClientProfile) -> CoreResult<()> {
        profile.check()?;
        let json = if *profile == ClientProfile::default() {
            None
        } else {
            Some(serde_json::to_string(profile).map_err(|e| CoreError::BadInput(e.to_string()))?)
        };
        if !self.store.set_client_profile(name, json.as_deref())? {
            return Err(unknown(name));
        }
        let _ = self.store.audit(
            None,
            "client_profile",
            &serde_json::json!({"client": name, "profile": profile}),
        );
        Ok(())
    }

    /// Pause a client (its calls are refused, and recorded as refused) or
    /// resume it. An app with no client row (a stdio app naming itself)
    /// gets one: no token, every server.
    pub fn set_client_paused(&self, name: &str, paused: bool) -> CoreResult<()> {
        check_client_name(name)?;
        if self.store.get_client(name)?.is_none() && self.store.count_clients()? >= MAX_CLIENTS {
            return Err(CoreError::BadInput(format!(
                "at most {MAX_CLIENTS} clients; remove one first"
            )));
        }
        self.store.set_client_paused(name, paused)?;
        let _ = self.store.audit(
            None,
            if paused {
                "client_paused"
            } else {
                "client_resumed"
            },
            &serde_json::json!({"client": name}),
        );
        Ok(())
    }

    /// Record a call the gateway refused without asking a server (the
    /// client is paused): it shows in history as failed, with `why`.
    pub fn record_refused_call(
        &self,
        client: &str,
        server: &str,
        tool: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
        why: &str,
    ) -> CoreResult<()> {
        let arguments_json = arguments.map_or_else(
            || "null".to_owned(),
            |a| serde_json::to_string(a).unwrap_or_default(),
        );
        let arguments_json = self.redact(server, &arguments_json);
        self.history.record(crate::store::NewToolCall {
            client: Some(client.to_owned()),
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments_json,
            result_json: None,
            outcome: crate::store::ToolCallOutcome::Failed,
            error: Some(why.to_owned()),
            started_at: crate::store::now_ms(),
            duration_ms: 0,
        })?;
        Ok(())
    }

    /// Remove a client and its token.
    pub fn remove_client(&self, name: &str) -> CoreResult<()> {
        let Some(row) = self.store.get_client(name)? else {
            return Err(unknown(name));
        };
        if row.token_set_at.is_some() {
            self.keychain.delete(&self.token_ref(name)?)?;
        }
        self.store.delete_client(name)?;
        let _ = self
            .store
            .audit(None, "client_removed", &serde_json::json!({"client": name}));
        Ok(())
    }

    /// The client whose token `presented` is, if any. Every client's token
    /// is compared, each in constant time.
    pub fn client_for_token(
        &self,
        cache: &TokenCache,
        presented: &str,
    ) -> CoreResult<Option<String>> {
        let rows = self.store.list_clients(MAX_CLIENTS)?;
        let mut tokens = cache.tokens.lock().unwrap_or_else(|p| p.into_inner());
        tokens.retain(|name, (at, _)| {
            rows.iter()
                .any(|r| &r.name == name && r.token_set_at == Some(*at))
        });
        let mut found = None;
        for r in &rows {
            let Some(at) = r.token_set_at else { continue };
            if !tokens.contains_key(&r.name) {
                match self.keychain.get(&self.token_ref(&r.name)?) {
                    Ok(t) => {
                        tokens.insert(r.name.clone(), (at, t));
                    }
                    Err(_) => continue,
                }
            }
            if let Some((_, t)) = tokens.get(&r.name) {
                if bool::from(t.expose().as_bytes().ct_eq(presented.as_bytes())) {
                    found = Some(r.name.clone());
                }
            }
        }
        Ok(found)
    }
}

fn unknown(name: &str) -> CoreError {
    CoreError::BadInput(format!(
        "no client named {name:?}; `airlock clients list` shows them"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_allow_what_they_name() {
        let all = ClientProfile::default();
        assert!(all.allows_tool("a", "x"));
        let mut p = ClientProfile::servers(["a", "b"]);
        p.tools.insert("b".into(), vec!["only".into()]);
        assert!(p.allows_tool("a", "x"));
        assert!(p.allows_tool("b", "only"));
        assert!(!p.allows_tool("b", "x"));
        assert!(!p.allows_server("c"));
        assert!(p.check().is_ok());
        p.tools.insert("b".into(), vec!["bad\u{7}".into()]);
        assert!(p.check().is_err());
    }

    #[test]
    fn tokens_are_long_random_and_prefixed() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_ne!(a.expose(), b.expose());
        assert!(a.expose().starts_with(TOKEN_PREFIX));
        assert_eq!(a.expose().len(), TOKEN_PREFIX.len() + 64);
    }

    #[test]
    fn add_token_profile_remove_round_trip() {
        use crate::test_support::{open_core, RecordingOpener, ScriptedConsent};
        let (core, dir) = open_core(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            Default::default(),
        );
        let token = core.add_client("cursor", true).unwrap().unwrap();
        assert!(core.add_client("stdio-app", false).unwrap().is_none());
        assert!(core.add_client("cursor", false).is_err());
        assert!(core.add_client("bad\nname", false).is_err());
        let cache = TokenCache::default();
        assert_eq!(
            core.client_for_token(&cache, token.expose())
                .unwrap()
                .as_deref(),
            Some("cursor")
        );
        assert_eq!(
            core.client_for_token(&cache, "airlock_gw_00").unwrap(),
            None
        );
        assert_eq!(core.client_for_token(&cache, "").unwrap(), None);
        core.set_client_profile("cursor", &ClientProfile::servers(["github"]))
            .unwrap();
        let c = core.client("cursor").unwrap().unwrap();
        assert!(c.has_token && !c.profile.allows_server("other"));
        assert!(core
            .set_client_profile("nobody", &ClientProfile::default())
            .is_err());
        core.remove_client("cursor").unwrap();
        assert_eq!(core.client_for_token(&cache, token.expose()).unwrap(), None);
        assert_eq!(core.clients().unwrap().len(), 1);
        // The token never reaches the data dir.
        for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if entry.path().is_file() {
                let bytes = std::fs::read(entry.path()).unwrap();
                let needle = token.expose().as_bytes();
                assert!(!bytes.windows(needle.len()).any(|w| w == needle));
            }
        }
    }
}
