//! The apps that attach to Airlock's gateway (issue 12), for the gateway,
//! the CLI (`airlock apps ...`) and the desktop app. "App" is the word for
//! a program attached to the gateway everywhere a person reads it; "client"
//! is left for OAuth clients and Airlock's own MCP client role. The stored
//! words stay as they were written: the SQLite table `clients` and the
//! `client` columns of `tool_calls` and `elicitations`, the audit kinds
//! `client_added`, `client_profile`, `client_paused`, `client_resumed`,
//! `client_removed` and their detail's `client` key, and the keychain
//! reference `gateway-client:...` (renaming them would orphan what older
//! versions stored).
//!
//! An app is a name (what `--app NAME` or an HTTP token stands for),
//! optionally an HTTP bearer token, and a profile: which servers, and
//! optionally which of their tools, it sees. An app with no row (a
//! stdio app naming itself) sees every enabled server.
//!
//! ```ignore
//! let token = airlock.add_app("cursor", true)?;      // Some(token): show it once
//! airlock.set_app_profile("cursor", &AppProfile::servers(["github"]))?;
//! for c in airlock.apps()? { println!("{} {:?}", c.name, c.profile) }
//! airlock.remove_app("cursor")?;                      // the token leaves the keychain
//! let name = airlock.app_for_token(&cache, presented)?; // the gateway's HTTP check
//! ```
//!
//! The token is 256 random bits, kept only in the OS keychain (reference
//! `gateway-app:<instance>:<name>`), compared in constant time; SQLite
//! says only when it was made.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::secrets::SecretValue;
use crate::store::apps::{AppRow, AppsStamp};
use crate::tool_budget::ToolBudget;
use crate::{CoreError, CoreResult};

/// At most this many apps.
pub const MAX_APPS: u32 = 256;
/// A profile names at most this many servers, and this many tools in all.
pub const MAX_PROFILE_SERVERS: usize = 256;
pub const MAX_PROFILE_TOOLS: usize = 4096;
/// A tool name in a profile: at most this many characters.
pub const MAX_TOOL_NAME_CHARS: usize = 128;
/// Every token starts with this (so secret scanners recognise it).
pub const TOKEN_PREFIX: &str = "airlock_gw_";
/// An app's name: at most this many characters.
pub const MAX_APP_NAME_CHARS: usize = 64;

/// Which servers and tools an app sees.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AppProfile {
    /// `None`: every enabled server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub servers: Option<Vec<String>>,
    /// Per server, the only tools it sees; a server not here: all its tools.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Vec<String>>,
    /// The most tools its tools/list holds ([`crate::tool_budget`]): a
    /// number, `"none"`, or unset (the app's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number | \"none\""))]
    pub tool_budget: Option<ToolBudget>,
}

impl AppProfile {
    /// Only these servers, all their tools.
    pub fn servers<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Self {
            servers: Some(names.into_iter().map(Into::into).collect()),
            tools: BTreeMap::new(),
            tool_budget: None,
        }
    }

    /// The budget that applies to the app `app` with this profile
    /// (its own, else the app's default; `None`: no budget).
    pub fn tool_budget_for(&self, app: &str) -> Option<u32> {
        crate::tool_budget::effective(self.tool_budget, app)
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

    pub(crate) fn check(&self) -> CoreResult<()> {
        if let Some(b) = self.tool_budget {
            b.check().map_err(CoreError::BadInput)?;
        }
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

/// An app as the CLI and the window show it (never its token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppInfo {
    pub name: String,
    /// It has an HTTP bearer token (in the keychain).
    pub has_token: bool,
    pub token_set_at: Option<i64>,
    pub profile: AppProfile,
    pub created_at: i64,
    /// Paused in Airlock: the gateway refuses its calls ([`PAUSED_ERROR`]).
    pub paused: bool,
}

/// What a paused app's calls get (a tool error, or a JSON-RPC error for
/// prompts and resources); nothing reaches the servers.
pub const PAUSED_ERROR: &str = "paused in Airlock: this app's calls are refused until you resume it (Airlock > Apps, or `airlock apps resume NAME`)";

/// Is `name` a valid app name (1-64 letters, digits, spaces, `.`, `_`, `-`)?
pub fn check_app_name(name: &str) -> CoreResult<()> {
    let n = name.chars().count();
    let ok = (1..=MAX_APP_NAME_CHARS).contains(&n)
        && name.trim() == name
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(CoreError::BadInput(format!(
            "app name {name:?} is not allowed: 1 to {MAX_APP_NAME_CHARS} letters, digits, spaces, '.', '_' or '-'"
        )))
    }
}

pub(crate) fn info(row: AppRow) -> AppInfo {
    // A profile that does not parse (written by a newer Airlock, or edited
    // by hand) shows nothing rather than everything.
    let profile = match row.profile_json.as_deref() {
        None => AppProfile::default(),
        Some(j) => {
            serde_json::from_str(j).unwrap_or_else(|_| AppProfile::servers(Vec::<String>::new()))
        }
    };
    AppInfo {
        name: row.name,
        has_token: row.token_set_at.is_some(),
        token_set_at: row.token_set_at,
        profile,
        created_at: row.created_at,
        paused: row.paused,
    }
}

pub(crate) fn new_token() -> CoreResult<SecretValue> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| CoreError::BadInput(format!("no randomness from the OS for a token: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(SecretValue::new(format!("{TOKEN_PREFIX}{hex}")))
}

/// Wrong tokens remembered (as SHA-256 hashes, never the token): one
/// presented again is refused from memory, without SQLite or the keychain.
/// The oldest goes first when full.
pub const MAX_UNKNOWN_TOKENS: usize = 1024;
/// An app whose token the keychain did not give (locked, entry gone) is
/// asked for it again after this long, not on every request.
pub const TOKEN_KEYCHAIN_RETRY: Duration = Duration::from_secs(5);

/// What the gateway knows about tokens between requests: the apps that
/// have one (read again only when the store's [`AppsStamp`] moves),
/// their tokens from the keychain (read again only for a new token), and
/// the wrong tokens seen ([`MAX_UNKNOWN_TOKENS`]; cleared when the apps
/// change). Its [`TokenCache::reads`] count every SQLite and keychain read
/// it caused.
#[derive(Debug, Default)]
pub struct TokenCache {
    state: Mutex<CacheState>,
    store_reads: AtomicU64,
    pub(crate) keychain_reads: AtomicU64,
}

/// How often a [`TokenCache`] went to SQLite and to the keychain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TokenReads {
    pub store: u64,
    pub keychain: u64,
}

#[derive(Debug, Default)]
pub(crate) struct CacheState {
    /// When `apps` was read; `None`: never.
    pub(crate) stamp: Option<AppsStamp>,
    /// The apps that have a token: name and when it was made.
    pub(crate) apps: Vec<(String, i64)>,
    /// Their tokens, with the time each was made.
    pub(crate) tokens: HashMap<String, (i64, SecretValue)>,
    /// Apps whose token the keychain did not give, and when it was asked.
    pub(crate) unreadable: HashMap<String, Instant>,
    pub(crate) unknown: UnknownTokens,
}

/// Hashes of wrong tokens, oldest first out.
#[derive(Debug, Default)]
pub(crate) struct UnknownTokens {
    set: HashSet<[u8; 32]>,
    order: VecDeque<[u8; 32]>,
}

impl UnknownTokens {
    pub(crate) fn contains(&self, hash: &[u8; 32]) -> bool {
        self.set.contains(hash)
    }

    pub(crate) fn insert(&mut self, hash: [u8; 32]) {
        if !self.set.insert(hash) {
            return;
        }
        self.order.push_back(hash);
        if self.order.len() > MAX_UNKNOWN_TOKENS {
            if let Some(oldest) = self.order.pop_front() {
                self.set.remove(&oldest);
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.set.clear();
        self.order.clear();
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }
}

impl TokenCache {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, CacheState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The SQLite and keychain reads this cache has caused so far.
    pub fn reads(&self) -> TokenReads {
        TokenReads {
            store: self.store_reads.load(Ordering::Relaxed),
            keychain: self.keychain_reads.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn read_store(&self) {
        self.store_reads.fetch_add(1, Ordering::Relaxed);
    }
}

pub(crate) fn unknown(name: &str) -> CoreError {
    CoreError::BadInput(format!(
        "no app named {name:?}; `airlock apps list` shows them"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    #[test]
    fn profiles_allow_what_they_name() {
        let all = AppProfile::default();
        assert!(all.allows_tool("a", "x"));
        let mut p = AppProfile::servers(["a", "b"]);
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
    fn wrong_tokens_are_remembered_up_to_the_bound_oldest_out() {
        let mut unknown = UnknownTokens::default();
        let hash = |i: usize| -> [u8; 32] { Sha256::digest(i.to_le_bytes()).into() };
        for i in 0..MAX_UNKNOWN_TOKENS {
            unknown.insert(hash(i));
        }
        unknown.insert(hash(0)); // seen again: no second entry
        assert_eq!(unknown.len(), MAX_UNKNOWN_TOKENS);
        assert!(unknown.contains(&hash(0)));
        unknown.insert(hash(MAX_UNKNOWN_TOKENS));
        assert_eq!(unknown.len(), MAX_UNKNOWN_TOKENS);
        assert!(!unknown.contains(&hash(0)), "the oldest went first");
        assert!(unknown.contains(&hash(1)) && unknown.contains(&hash(MAX_UNKNOWN_TOKENS)));
    }
}
