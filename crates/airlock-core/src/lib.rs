//! Airlock's core: everything that is not a window. Shells (the `airlock` CLI,
//! the desktop app, tests) stand on [`Airlock`] and implement the
//! [`elicitation::Consent`] and [`elicitation::Opener`] ports.

pub mod about;
pub mod auth;
pub mod elicitation;
pub mod events;
pub mod mcp;
pub mod paths;
pub mod secrets;
pub mod servers;
pub mod store;
mod tools;

pub use airlock_url_safety as url_safety;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::broadcast;

use elicitation::{Broker, BrokerSettings, Consent, Opener};
use events::CoreEvent;
use mcp::{ConnStatus, ConnectContext, ConnectError, Session, SessionInfo};
use secrets::{Keychain, Redactor, SecretError, SecretValue};
use servers::{
    secret_ref, DefinitionError, ExportedConfig, InputValue, ServerDef, ServerInput, StoredValue,
    Transport,
};
use store::{Store, StoreError};

pub use tools::{CallOutcome, ToolCallError};

/// Largest reconnect back-off.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// First reconnect back-off; doubled on each failure up to `MAX_BACKOFF`.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// Reconnect attempts after a drop before the status becomes `failed`.
pub const MAX_RECONNECT_ATTEMPTS: u32 = 10;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("no server named {0:?}; `airlock servers list` shows the configured ones")]
    UnknownServer(String),
    #[error("a server named {0:?} already exists; remove it first or pick another name")]
    ServerExists(String),
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    #[error(transparent)]
    Import(#[from] servers::ImportError),
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot connect to {server:?}: {source}")]
    Connect {
        server: String,
        source: ConnectError,
    },
    #[error("{server:?} is not connected")]
    NotConnected { server: String },
    #[error("{server:?} answered with an error: {message} (code {code})")]
    Mcp {
        server: String,
        code: i32,
        message: String,
    },
    #[error("{server:?}: {message}")]
    Protocol { server: String, message: String },
    #[error("{0}")]
    BadInput(String),
}

impl CoreError {
    /// A stable code for scripts and the UI.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownServer(_) => "unknown_server",
            Self::ServerExists(_) => "server_exists",
            Self::Definition(_) => "invalid_definition",
            Self::Import(_) => "invalid_config",
            Self::Secret(_) => "keychain",
            Self::Store(_) => "store",
            Self::Connect { .. } => "connect_failed",
            Self::NotConnected { .. } => "not_connected",
            Self::Mcp { .. } => "server_error",
            Self::Protocol { .. } => "protocol",
            Self::BadInput(_) => "bad_input",
        }
    }

    /// Did the user ask for something impossible (as opposed to a server failing)?
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Self::UnknownServer(_)
                | Self::ServerExists(_)
                | Self::Definition(_)
                | Self::Import(_)
                | Self::BadInput(_)
        )
    }
}

pub type CoreResult<T> = Result<T, CoreError>;

pub struct AirlockOptions {
    pub data_dir: PathBuf,
    pub keychain: Keychain,
    pub consent: Arc<dyn Consent>,
    pub opener: Arc<dyn Opener>,
    pub broker: BrokerSettings,
    pub connect_timeout: Duration,
    /// How Airlock identifies itself to OAuth authorization servers.
    pub oauth_identity: auth::ClientIdentity,
    /// The browser port for OAuth logins started by a connect (a 401);
    /// `None`: such a connect fails with a hint to `airlock login`.
    pub oauth_browser: Option<Arc<dyn auth::Browser>>,
}

impl AirlockOptions {
    pub fn new(data_dir: PathBuf, consent: Arc<dyn Consent>, opener: Arc<dyn Opener>) -> Self {
        Self {
            data_dir,
            keychain: Keychain::default(),
            consent,
            opener,
            broker: BrokerSettings::default(),
            connect_timeout: mcp::DEFAULT_CONNECT_TIMEOUT,
            oauth_identity: auth::ClientIdentity::default(),
            oauth_browser: None,
        }
    }
}

/// A server's OAuth state as the keychain holds it (never a secret).
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OAuthSummary {
    /// OAuth tokens are stored.
    pub signed_in: bool,
    /// The client registered with the provider by hand, if set.
    pub client_id: Option<String>,
    /// That client has a secret (in the keychain).
    pub client_has_secret: bool,
    /// That client's fixed loopback redirect port.
    pub redirect_port: Option<u16>,
}

/// Status and session info of a server, for `connect` and the UI.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConnectionReport {
    pub server: String,
    pub status: ConnStatus,
    pub info: Option<SessionInfo>,
}

struct Managed {
    session: Option<Arc<Session>>,
    status: ConnStatus,
    /// Bumped on every connect/disconnect so a stale supervisor stops.
    generation: u64,
}

pub struct Airlock {
    store: Arc<Store>,
    keychain: Keychain,
    events: broadcast::Sender<CoreEvent>,
    broker: Arc<Broker>,
    connect_timeout: Duration,
    oauth_identity: auth::ClientIdentity,
    oauth_browser: Option<Arc<dyn auth::Browser>>,
    data_dir: PathBuf,
    managed: Mutex<HashMap<String, Managed>>,
    /// Sign-ins in progress, by server: cancel them with `cancel_sign_in`.
    sign_ins: Mutex<HashMap<String, (u64, tokio_util::sync::CancellationToken)>>,
    /// What the keychain says about each server's OAuth state, read once
    /// and dropped whenever Airlock changes it (keychain reads are slow and
    /// the window asks on every refresh).
    oauth_summaries: Mutex<HashMap<String, OAuthSummary>>,
    next_sign_in: std::sync::atomic::AtomicU64,
}

impl Airlock {
    pub fn open(opts: AirlockOptions) -> CoreResult<Arc<Airlock>> {
        let store = Arc::new(Store::open_in(&opts.data_dir)?);
        let (events, _) = broadcast::channel(events::EVENT_CHANNEL_CAPACITY);
        let broker = Arc::new(Broker::new(
            store.clone(),
            opts.consent,
            opts.opener,
            events.clone(),
            opts.broker,
        ));
        Ok(Arc::new(Airlock {
            store,
            keychain: opts.keychain,
            events,
            broker,
            connect_timeout: opts.connect_timeout,
            oauth_identity: opts.oauth_identity,
            oauth_browser: opts.oauth_browser,
            data_dir: opts.data_dir,
            managed: Mutex::new(HashMap::new()),
            sign_ins: Mutex::new(HashMap::new()),
            oauth_summaries: Mutex::new(HashMap::new()),
            next_sign_in: std::sync::atomic::AtomicU64::new(1),
        }))
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }
    pub fn broker(&self) -> &Arc<Broker> {
        &self.broker
    }
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }
    pub fn subscribe(&self) -> broadcast::Receiver<CoreEvent> {
        self.events.subscribe()
    }

    // ----- server definitions -----

    fn parse_def(row: &store::ServerRow) -> CoreResult<ServerDef> {
        let transport: Transport<StoredValue> = serde_json::from_str(&row.config_json)
            .map_err(|e| StoreError::Corrupt(format!("server {:?}: {e}", row.name)))?;
        Ok(ServerDef {
            name: row.name.clone(),
            transport,
        })
    }

    pub fn list_servers(&self) -> CoreResult<Vec<ServerDef>> {
        self.store
            .list_servers()?
            .iter()
            .map(Self::parse_def)
            .collect()
    }

    pub fn get_server(&self, name: &str) -> CoreResult<ServerDef> {
        let row = self
            .store
            .get_server(name)?
            .ok_or_else(|| CoreError::UnknownServer(name.to_owned()))?;
        Self::parse_def(&row)
    }

    /// Validate and move secret values into the keychain. On error, the
    /// secrets already written are removed again.
    fn store_secrets(&self, input: &ServerInput) -> CoreResult<(ServerDef, Vec<String>)> {
        input.validate()?;
        if let Transport::Http { headers, .. } = &input.transport {
            if let Some(h) = headers.keys().find(|h| mcp::header_is_reserved(h)) {
                return Err(DefinitionError::Invalid {
                    server: input.name.clone(),
                    detail: format!(
                        "header {h:?} is set by the MCP transport and cannot be configured"
                    ),
                }
                .into());
            }
        }
        let kind = match input.transport {
            Transport::Stdio { .. } => "env",
            Transport::Http { .. } => "header",
        };
        let instance = self.store.instance_id()?;
        let mut written = Vec::new();
        let result = input.transport.try_map(|key, v: &InputValue| {
            if v.secret {
                let r = secret_ref(&instance, &input.name, kind, key);
                self.keychain.set(&r, &SecretValue::new(v.value.clone()))?;
                written.push(r.clone());
                Ok::<_, CoreError>(StoredValue::Secret { secret_ref: r })
            } else {
                Ok(StoredValue::Plain {
                    value: v.value.clone(),
                })
            }
        });
        match result {
            Ok(transport) => Ok((
                ServerDef {
                    name: input.name.clone(),
                    transport,
                },
                written,
            )),
            Err(e) => {
                self.forget_secrets(&written);
                Err(e)
            }
        }
    }

    fn forget_secrets(&self, refs: &[String]) {
        for r in refs {
            let _ = self.keychain.delete(r);
        }
    }

    fn config_json(def: &ServerDef) -> String {
        serde_json::to_string(&def.transport).unwrap_or_default()
    }

    pub fn add_server(&self, input: &ServerInput) -> CoreResult<ServerDef> {
        self.import_servers(std::slice::from_ref(input))?;
        self.get_server(&input.name)
    }

    /// Add several servers: all land or none does (names checked first,
    /// secrets rolled back if the database write fails).
    pub fn import_servers(&self, inputs: &[ServerInput]) -> CoreResult<Vec<String>> {
        let mut seen = std::collections::HashSet::new();
        for input in inputs {
            input.validate()?;
            if !seen.insert(input.name.clone()) || self.store.get_server(&input.name)?.is_some() {
                return Err(CoreError::ServerExists(input.name.clone()));
            }
        }
        let mut rows = Vec::new();
        let mut written = Vec::new();
        for input in inputs {
            match self.store_secrets(input) {
                Ok((def, w)) => {
                    written.extend(w);
                    rows.push((
                        def.name.clone(),
                        def.transport.kind().to_owned(),
                        Self::config_json(&def),
                    ));
                }
                Err(e) => {
                    self.forget_secrets(&written);
                    return Err(e);
                }
            }
        }
        if let Err(e) = self.store.insert_servers(&rows) {
            self.forget_secrets(&written);
            return Err(e.into());
        }
        for (name, _, _) in &rows {
            let _ = self
                .store
                .audit(Some(name), "server_added", &serde_json::json!({}));
        }
        Ok(rows.into_iter().map(|(n, _, _)| n).collect())
    }

    /// Replace a server's definition. Secrets no longer used are deleted.
    pub fn update_server(&self, input: &ServerInput) -> CoreResult<ServerDef> {
        let old = self.get_server(&input.name)?;
        let (def, written) = self.store_secrets(input)?;
        if let Err(e) =
            self.store
                .update_server(&def.name, def.transport.kind(), &Self::config_json(&def))
        {
            self.forget_secrets(&written);
            return Err(e.into());
        }
        let stale: Vec<String> = secret_refs(&old)
            .into_iter()
            .filter(|r| !written.contains(r))
            .collect();
        self.forget_secrets(&stale);
        let _ = self
            .store
            .audit(Some(&def.name), "server_updated", &serde_json::json!({}));
        Ok(def)
    }

    pub fn remove_server(&self, name: &str) -> CoreResult<()> {
        let def = self.get_server(name)?;
        self.disconnect(name);
        self.store.delete_server(name)?;
        self.forget_secrets(&secret_refs(&def));
        if let Ok(instance) = self.store.instance_id() {
            self.forget_secrets(&[
                auth::store::credentials_ref(&instance, name),
                auth::store::client_secret_ref(&instance, name),
                auth::store::client_ref(&instance, name),
            ]);
        }
        self.oauth_changed(name);
        let _ = self
            .store
            .audit(Some(name), "server_removed", &serde_json::json!({}));
        Ok(())
    }

    pub fn export_servers(&self) -> CoreResult<ExportedConfig> {
        Ok(servers::export_mcp_servers(&self.list_servers()?))
    }

    /// Fetch secrets from the keychain: the transport with plain values, and a
    /// redactor that masks those values in logs.
    fn resolve(&self, def: &ServerDef) -> CoreResult<(Transport<String>, Redactor)> {
        let mut secrets = Vec::new();
        let transport = def.transport.try_map(|_, v| match v {
            StoredValue::Plain { value } => Ok::<_, CoreError>(value.clone()),
            StoredValue::Secret { secret_ref } => {
                let s = self.keychain.get(secret_ref)?;
                secrets.push(s.clone());
                Ok(s.expose().to_owned())
            }
        })?;
        Ok((transport, Redactor::new(secrets)))
    }

    // ----- connections -----

    fn set_status(&self, server: &str, status: ConnStatus) {
        if let Some(m) = self
            .managed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(server)
        {
            m.status = status.clone();
        }
        let _ = self.events.send(CoreEvent::Status {
            server: server.to_owned(),
            status,
        });
    }

    pub fn status(&self, server: &str) -> ConnStatus {
        self.managed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
            .map(|m| m.status.clone())
            .unwrap_or(ConnStatus::Disconnected)
    }

    fn log(&self, server: &str, level: &str, text: &str) {
        mcp::log_line(
            &self.store,
            &self.events,
            &Redactor::default(),
            server,
            "airlock",
            level,
            text,
        );
    }

    /// `airlock login <server>`: run the OAuth authorization now (discovery
    /// from the server's well-known metadata), tokens to the keychain; the
    /// next connect uses them.
    pub async fn login(
        self: &Arc<Self>,
        server: &str,
        browser: &dyn auth::Browser,
    ) -> CoreResult<()> {
        let def = self.get_server(server)?;
        let Transport::Http { url, .. } = &def.transport else {
            return Err(CoreError::BadInput(format!(
                "{server:?} is a stdio server; OAuth login is for Streamable HTTP servers"
            )));
        };
        let instance = self.store.instance_id()?;
        let store = auth::KeychainCredentialStore::new(self.keychain.clone(), &instance, server);
        let identity = self.identity_for(&instance, server)?;
        let gate = self.sign_in_gate(server);
        let result = auth::authorize(url, None, &identity, browser, &gate, store).await;
        self.sign_in_ended(server, &gate);
        self.oauth_changed(server);
        if let Err(e) = result {
            self.set_status(
                server,
                ConnStatus::SignInRequired {
                    reason: e.to_string(),
                },
            );
            return Err(CoreError::Connect {
                server: server.to_owned(),
                source: ConnectError::Authorization(e),
            });
        }
        self.disconnect(server);
        let _ = self
            .store
            .audit(Some(server), "oauth_login", &serde_json::json!({}));
        Ok(())
    }

    /// How Airlock identifies itself when signing in to `server`: the
    /// client the user registered for it, if any, else the default
    /// (metadata document or dynamic registration).
    fn identity_for(&self, instance: &str, server: &str) -> CoreResult<auth::ClientIdentity> {
        let mut identity = self.oauth_identity.clone();
        if let Some(c) = auth::store::RegisteredClient::load(&self.keychain, instance, server)? {
            identity.client_id = Some(c.client_id);
            identity.client_secret = c.client_secret.map(SecretValue::new);
            identity.redirect_port = c.redirect_port;
        }
        Ok(identity)
    }

    /// Set (or, with `None`, forget) the OAuth client registered with the
    /// provider for `server`; the secret goes to the OS keychain. Takes
    /// effect at the next sign-in.
    pub fn set_oauth_client(
        &self,
        server: &str,
        client: Option<&auth::store::RegisteredClient>,
    ) -> CoreResult<()> {
        let def = self.get_server(server)?;
        if !matches!(def.transport, Transport::Http { .. }) {
            return Err(CoreError::BadInput(format!(
                "{server:?} is a stdio server; OAuth clients are for Streamable HTTP servers"
            )));
        }
        let instance = self.store.instance_id()?;
        match client {
            Some(c) => c.save(&self.keychain, &instance, server)?,
            None => self
                .keychain
                .delete(&auth::store::client_ref(&instance, server))?,
        }
        self.oauth_changed(server);
        let _ = self.store.audit(
            Some(server),
            "oauth_client",
            &serde_json::json!({
                "client_id": client.map(|c| c.client_id.clone()),
                "with_secret": client.is_some_and(|c| c.client_secret.is_some()),
            }),
        );
        Ok(())
    }

    /// The window's "Sign in": run the authorization now with the shell's
    /// browser port (consent first), then connect with the new tokens.
    pub async fn sign_in(self: &Arc<Self>, server: &str) -> CoreResult<ConnectionReport> {
        let Some(browser) = self.oauth_browser.clone() else {
            return Err(CoreError::BadInput(
                "this Airlock has no browser to sign in with".into(),
            ));
        };
        self.login(server, browser.as_ref()).await?;
        self.connect(server).await
    }

    /// A sign-in gate for `server`: consent through the broker, the status
    /// `signing_in` while the browser is waited for, cancellable with
    /// [`Airlock::cancel_sign_in`]. A newer sign-in of the same server
    /// cancels an older one.
    fn sign_in_gate(self: &Arc<Self>, server: &str) -> auth::SignInGate {
        let mut gate = auth::SignInGate::new(self.broker.clone(), server);
        let me = Arc::downgrade(self);
        let name = server.to_owned();
        gate.on_waiting = Some(Arc::new(move |domain: &str| {
            if let Some(me) = me.upgrade() {
                me.set_status(
                    &name,
                    ConnStatus::SigningIn {
                        domain: domain.to_owned(),
                    },
                );
            }
        }));
        gate.ticket = self
            .next_sign_in
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let old = self
            .sign_ins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.to_owned(), (gate.ticket, gate.cancel.clone()));
        if let Some((_, old)) = old {
            old.cancel();
        }
        gate
    }

    fn sign_in_ended(&self, server: &str, gate: &auth::SignInGate) {
        let mut map = self.sign_ins.lock().unwrap_or_else(|e| e.into_inner());
        // Only this sign-in's entry: a newer one may have replaced it.
        if map.get(server).is_some_and(|(t, _)| *t == gate.ticket) {
            map.remove(server);
        }
    }

    /// Stop a sign-in waiting for consent or for the browser. Returns
    /// whether one was in progress.
    pub fn cancel_sign_in(&self, server: &str) -> bool {
        let token = self
            .sign_ins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(server);
        match token {
            Some((_, t)) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether OAuth tokens of `server` are in the keychain (`false` when
    /// the keychain cannot be read).
    pub fn has_oauth_tokens(&self, server: &str) -> bool {
        self.oauth_summary(server).signed_in
    }

    /// The OAuth state of `server` as the keychain holds it: cached after
    /// the first (blocking) read, refreshed after every sign-in, sign-out,
    /// client change and connect.
    pub fn oauth_summary(&self, server: &str) -> OAuthSummary {
        if let Some(s) = self
            .oauth_summaries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
        {
            return s.clone();
        }
        let Ok(instance) = self.store.instance_id() else {
            return OAuthSummary::default();
        };
        let signed_in =
            auth::KeychainCredentialStore::new(self.keychain.clone(), &instance, server)
                .load_blocking()
                .is_ok_and(|c| c.is_some());
        let client = auth::store::RegisteredClient::load(&self.keychain, &instance, server)
            .ok()
            .flatten();
        let summary = OAuthSummary {
            signed_in,
            client_has_secret: client.as_ref().is_some_and(|c| c.client_secret.is_some()),
            redirect_port: client.as_ref().and_then(|c| c.redirect_port),
            client_id: client.map(|c| c.client_id),
        };
        self.oauth_summaries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(server.to_owned(), summary.clone());
        summary
    }

    /// Airlock changed (or may have changed) the server's OAuth state.
    fn oauth_changed(&self, server: &str) {
        self.oauth_summaries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(server);
    }

    /// `airlock logout <server>`: forget the server's OAuth tokens and client
    /// secret (keychain) and disconnect. Returns whether tokens were stored.
    pub fn logout(&self, server: &str) -> CoreResult<bool> {
        self.get_server(server)?;
        let instance = self.store.instance_id()?;
        let store = auth::KeychainCredentialStore::new(self.keychain.clone(), &instance, server);
        let had = store.load_blocking()?.is_some();
        self.disconnect(server);
        store.clear_blocking()?;
        self.oauth_changed(server);
        self.keychain
            .delete(&auth::store::client_secret_ref(&instance, server))?;
        if had {
            self.set_status(
                server,
                ConnStatus::SignInRequired {
                    reason: "signed out: sign in to use this server again".into(),
                },
            );
        }
        let _ = self
            .store
            .audit(Some(server), "oauth_logout", &serde_json::json!({}));
        Ok(had)
    }

    /// Step-up authorization after a 403 `insufficient_scope`: a new
    /// authorization for the scopes of `challenge`, tokens to the keychain.
    /// Needs the browser port; without it the user is told to log in.
    pub(crate) async fn step_up_authorization(
        self: &Arc<Self>,
        server: &str,
        challenge: &str,
    ) -> CoreResult<()> {
        let def = self.get_server(server)?;
        let Transport::Http { url, .. } = &def.transport else {
            return Err(CoreError::Protocol {
                server: server.to_owned(),
                message: "insufficient scope from a server that is not HTTP".into(),
            });
        };
        let connect_err = |source| CoreError::Connect {
            server: server.to_owned(),
            source,
        };
        let oauth = self.oauth_context(server, true).ok_or_else(|| {
            connect_err(ConnectError::AuthorizationRequired {
                server: server.to_owned(),
            })
        })?;
        let Some(browser) = oauth.browser.as_ref() else {
            return Err(connect_err(ConnectError::AuthorizationRequired {
                server: server.to_owned(),
            }));
        };
        let store =
            auth::KeychainCredentialStore::new(oauth.keychain.clone(), &oauth.instance, server);
        let result = auth::authorize(
            url,
            Some(challenge),
            &oauth.identity,
            browser.as_ref(),
            &oauth.gate,
            store,
        )
        .await;
        self.sign_in_ended(server, &oauth.gate);
        self.oauth_changed(server);
        result.map_err(|e| connect_err(ConnectError::Authorization(e)))?;
        self.disconnect(server);
        Ok(())
    }

    /// The OAuth context of a connect (no instance id: no OAuth).
    /// `interactive`: a sign-in may be started (consent, browser); else a
    /// server that needs one fails with `sign_in_required`.
    fn oauth_context(
        self: &Arc<Self>,
        server: &str,
        interactive: bool,
    ) -> Option<mcp::OAuthContext> {
        let instance = self.store.instance_id().ok()?;
        let browser = if interactive {
            self.oauth_browser.clone()
        } else {
            None
        };
        // A keychain that cannot be read here fails the sign-in later, with its step.
        let identity = self
            .identity_for(&instance, server)
            .unwrap_or_else(|_| self.oauth_identity.clone());
        Some(mcp::OAuthContext {
            keychain: self.keychain.clone(),
            instance,
            identity,
            // Registered (cancellable) only when a sign-in may happen.
            gate: if browser.is_some() {
                self.sign_in_gate(server)
            } else {
                auth::SignInGate::new(self.broker.clone(), server)
            },
            browser,
        })
    }

    async fn open_session(
        self: &Arc<Self>,
        def: &ServerDef,
        interactive: bool,
    ) -> CoreResult<(Arc<Session>, i64)> {
        let (transport, redactor) = self.resolve(def)?;
        let conn_row = self.store.connection_started(&def.name)?;
        let ctx = ConnectContext {
            store: self.store.clone(),
            broker: self.broker.clone(),
            events: self.events.clone(),
            redactor: Arc::new(redactor),
            connect_timeout: self.connect_timeout,
            // OAuth is for Streamable HTTP: stdio connects read no keychain for it.
            oauth: match def.transport {
                Transport::Http { .. } => self.oauth_context(&def.name, interactive),
                Transport::Stdio { .. } => None,
            },
        };
        let connected = mcp::connect(&def.name, &transport, &ctx).await;
        if let Some(oauth) = &ctx.oauth {
            self.sign_in_ended(&def.name, &oauth.gate);
            // It may have signed in (a 401), or rmcp may have dropped tokens
            // it could not refresh.
            self.oauth_changed(&def.name);
        }
        match connected {
            Ok(session) => {
                let info_json = serde_json::to_string(&session.info).ok();
                let _ = self.store.connection_updated(
                    conn_row,
                    "ready",
                    Some(&session.info.protocol_version),
                    info_json.as_deref(),
                    None,
                );
                self.log(
                    &def.name,
                    "info",
                    &format!("connected (protocol {})", session.info.protocol_version),
                );
                Ok((Arc::new(session), conn_row))
            }
            Err(source) => {
                let reason = source.to_string();
                let _ =
                    self.store
                        .connection_updated(conn_row, "failed", None, None, Some(&reason));
                self.log(&def.name, "error", &format!("connection failed: {reason}"));
                Err(CoreError::Connect {
                    server: def.name.clone(),
                    source,
                })
            }
        }
    }

    /// Connect and keep the connection: if it drops, reconnect with capped
    /// exponential back-off. Returns once the first attempt succeeded or failed.
    /// A server that asks for authorization gets a sign-in (consent first).
    pub async fn connect(self: &Arc<Self>, name: &str) -> CoreResult<ConnectionReport> {
        self.connect_with(name, true).await
    }

    /// [`Airlock::connect`] for connects nobody asked for just now (at
    /// start-up): a server that needs a sign-in ends `sign_in_required`
    /// instead of raising a sign-in prompt.
    pub async fn connect_in_background(
        self: &Arc<Self>,
        name: &str,
    ) -> CoreResult<ConnectionReport> {
        self.connect_with(name, false).await
    }

    async fn connect_with(
        self: &Arc<Self>,
        name: &str,
        interactive: bool,
    ) -> CoreResult<ConnectionReport> {
        let def = self.get_server(name)?;
        let generation = {
            let mut managed = self.managed.lock().unwrap_or_else(|e| e.into_inner());
            let m = managed.entry(name.to_owned()).or_insert(Managed {
                session: None,
                status: ConnStatus::Disconnected,
                generation: 0,
            });
            if let (Some(s), ConnStatus::Ready { .. }) = (&m.session, &m.status) {
                if !s.is_closed() {
                    return Ok(ConnectionReport {
                        server: name.to_owned(),
                        status: m.status.clone(),
                        info: Some(s.info.clone()),
                    });
                }
            }
            m.generation += 1;
            m.generation
        };
        self.set_status(name, ConnStatus::Connecting);
        match self.open_session(&def, interactive).await {
            Ok((session, conn_row)) => {
                let status = ConnStatus::Ready {
                    protocol_version: session.info.protocol_version.clone(),
                };
                let info = session.info.clone();
                self.install(name, generation, session.clone(), status.clone());
                let me = self.clone();
                let name = name.to_owned();
                tokio::spawn(
                    async move { me.supervise(name, generation, session, conn_row).await },
                );
                Ok(ConnectionReport {
                    server: def.name,
                    status,
                    info: Some(info),
                })
            }
            Err(e) => {
                self.set_status(name, failed_status(&e));
                Err(e)
            }
        }
    }

    fn install(&self, name: &str, generation: u64, session: Arc<Session>, status: ConnStatus) {
        {
            let mut managed = self.managed.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(m) = managed.get_mut(name) {
                if m.generation == generation {
                    m.session = Some(session);
                }
            }
        }
        self.set_status(name, status);
    }

    fn current_generation(&self, name: &str) -> Option<u64> {
        self.managed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .map(|m| m.generation)
    }

    async fn supervise(
        self: Arc<Self>,
        name: String,
        generation: u64,
        mut session: Arc<Session>,
        mut conn_row: i64,
    ) {
        loop {
            session.closed().await;
            self.broker.connection_lost(&name, session.connection);
            if self.current_generation(&name) != Some(generation) {
                let _ = self
                    .store
                    .connection_updated(conn_row, "disconnected", None, None, None);
                return;
            }
            let reason = format!("connection lost{}", {
                let tail = session.stderr_tail();
                if tail.is_empty() {
                    String::new()
                } else {
                    format!("; last stderr: {}", tail.join(" | "))
                }
            });
            let _ = self
                .store
                .connection_updated(conn_row, "failed", None, None, Some(&reason));
            self.log(&name, "warning", &reason);
            let mut attempt = 0u32;
            let mut backoff = FIRST_BACKOFF;
            let mut last_reason = reason;
            loop {
                attempt += 1;
                if attempt > MAX_RECONNECT_ATTEMPTS {
                    self.set_status(
                        &name,
                        ConnStatus::Failed {
                            reason: format!("gave up after {MAX_RECONNECT_ATTEMPTS} reconnect attempts: {last_reason}"),
                        },
                    );
                    return;
                }
                self.set_status(
                    &name,
                    ConnStatus::Reconnecting {
                        attempt,
                        retry_in_ms: u64::try_from(backoff.as_millis()).unwrap_or(u64::MAX),
                        reason: last_reason.clone(),
                    },
                );
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                if self.current_generation(&name) != Some(generation) {
                    return;
                }
                let def = match self.get_server(&name) {
                    Ok(d) => d,
                    Err(_) => return,
                };
                match self.open_session(&def, false).await {
                    Ok((s, row)) => {
                        let status = ConnStatus::Ready {
                            protocol_version: s.info.protocol_version.clone(),
                        };
                        self.install(&name, generation, s.clone(), status);
                        session = s;
                        conn_row = row;
                        break;
                    }
                    // Reconnects never start a sign-in on their own: the
                    // user signs in again from the window or the CLI.
                    Err(e) if needs_sign_in(&e) => {
                        self.set_status(&name, failed_status(&e));
                        return;
                    }
                    Err(e) => last_reason = e.to_string(),
                }
            }
        }
    }

    pub fn disconnect(&self, name: &str) {
        let session = {
            let mut managed = self.managed.lock().unwrap_or_else(|e| e.into_inner());
            managed.get_mut(name).and_then(|m| {
                m.generation += 1;
                m.session.take()
            })
        };
        if let Some(s) = session {
            s.close();
            self.log(name, "info", "disconnected");
        }
        if self.current_generation(name).is_some() {
            self.set_status(name, ConnStatus::Disconnected);
        }
    }

    /// The live session of a server, connecting first if needed.
    pub async fn session(self: &Arc<Self>, name: &str) -> CoreResult<Arc<Session>> {
        let existing = self
            .managed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .and_then(|m| m.session.clone())
            .filter(|s| !s.is_closed());
        if let Some(s) = existing {
            return Ok(s);
        }
        self.connect(name).await?;
        self.managed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .and_then(|m| m.session.clone())
            .ok_or_else(|| CoreError::NotConnected {
                server: name.to_owned(),
            })
    }
}

/// Did a connect fail because the server wants a (new) sign-in?
fn needs_sign_in(e: &CoreError) -> bool {
    matches!(
        e,
        CoreError::Connect {
            source: ConnectError::AuthorizationRequired { .. } | ConnectError::Authorization(_),
            ..
        }
    )
}

/// The status after a failed connect.
fn failed_status(e: &CoreError) -> ConnStatus {
    if needs_sign_in(e) {
        ConnStatus::SignInRequired {
            reason: e.to_string(),
        }
    } else {
        ConnStatus::Failed {
            reason: e.to_string(),
        }
    }
}

fn secret_refs(def: &ServerDef) -> Vec<String> {
    def.transport
        .values()
        .values()
        .filter_map(|v| match v {
            StoredValue::Secret { secret_ref } => Some(secret_ref.clone()),
            StoredValue::Plain { .. } => None,
        })
        .collect()
}
