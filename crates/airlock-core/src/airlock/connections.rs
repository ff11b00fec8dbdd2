//! Connections and their supervision: connect (interactive or in the
//! background), keep the session, reconnect with capped back-off after a
//! drop, disconnect; the status every shell shows.

use std::sync::Arc;

use crate::events::CoreEvent;
use crate::mcp::{self, ConnectContext, ConnectError, Session};
use crate::servers::{ProtocolChoice, ServerDef, Transport};
use crate::status::ConnStatus;
use crate::{Airlock, ConnectionReport, CoreError, CoreResult};

pub(crate) struct Managed {
    pub(crate) session: Option<Arc<Session>>,
    pub(crate) status: ConnStatus,
    /// Bumped on every connect/disconnect so a stale supervisor stops.
    pub(crate) generation: u64,
}

impl Airlock {
    pub(crate) fn set_status(&self, server: &str, status: ConnStatus) {
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

    /// Pause a server (disconnect it; it asks nothing until resumed) or
    /// resume it (it can be connected again). Remembered across restarts.
    pub fn set_paused(&self, name: &str, paused: bool) -> CoreResult<()> {
        self.get_server(name)?;
        self.store.set_paused(name, paused)?;
        if paused {
            self.disconnect(name);
            self.managed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(name.to_owned())
                .or_insert(Managed {
                    session: None,
                    status: ConnStatus::Paused,
                    generation: 0,
                });
            self.set_status(name, ConnStatus::Paused);
        } else {
            self.set_status(name, ConnStatus::Disconnected);
        }
        let _ = self.store.audit(
            Some(name),
            if paused {
                "server_paused"
            } else {
                "server_resumed"
            },
            &serde_json::json!({}),
        );
        Ok(())
    }

    /// Mask the server's secrets in text about it (its errors, say).
    pub(crate) fn redact(&self, server: &str, text: &str) -> String {
        match self
            .redactors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
        {
            Some(r) => r.redact(text),
            None => text.to_owned(),
        }
    }

    pub(crate) fn log(&self, server: &str, level: &str, text: &str) {
        let redactor = self
            .redactors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
            .cloned()
            .unwrap_or_default();
        mcp::log_line(
            &self.store,
            &self.events,
            &redactor,
            server,
            "airlock",
            level,
            text,
        );
    }

    /// Attach a session over an already connected byte stream (an in-process
    /// peer in tests) under `name`; no definition is stored and no supervisor
    /// reconnects it.
    #[cfg(feature = "test-support")]
    pub async fn connect_in_process<T>(
        self: &Arc<Self>,
        name: &str,
        io: T,
        mode: rmcp::service::ClientLifecycleMode,
    ) -> CoreResult<ConnectionReport>
    where
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
    {
        let limit = crate::servers::ServerOptions::default().message_limit();
        self.connect_in_process_with(name, io, mode, limit).await
    }

    /// [`Airlock::connect_in_process`] reading messages of at most
    /// `max_message_bytes` from the peer.
    #[cfg(feature = "test-support")]
    pub async fn connect_in_process_with<T>(
        self: &Arc<Self>,
        name: &str,
        io: T,
        mode: rmcp::service::ClientLifecycleMode,
        max_message_bytes: usize,
    ) -> CoreResult<ConnectionReport>
    where
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
    {
        let ctx = ConnectContext {
            store: self.store.clone(),
            broker: self.broker.clone(),
            events: self.events.clone(),
            redactor: Arc::new(crate::secrets::Redactor::default()),
            connect_timeout: self.connect_timeout,
            oauth: None,
            protocol: crate::servers::ProtocolChoice::Auto,
            inherit_env: Vec::new(),
            allow_insecure_http: false,
            app_requests: self.app_requests.clone(),
            max_message_bytes,
            wrapped: None,
            session_bus: false,
        };
        let session = mcp::connect_io(name, io, mode, &ctx)
            .await
            .map_err(|source| CoreError::Connect {
                server: name.to_owned(),
                source,
            })?;
        let status = ConnStatus::Ready {
            protocol_version: session.info.protocol_version.clone(),
        };
        let info = session.info.clone();
        let session = Arc::new(session);
        // No supervisor: the broker still learns when the peer goes away.
        let (watched, broker) = (session.clone(), self.broker.clone());
        tokio::spawn(async move {
            watched.closed().await;
            broker.connection_lost(watched.connection);
        });
        self.managed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                name.to_owned(),
                Managed {
                    session: Some(session),
                    status: status.clone(),
                    generation: 1,
                },
            );
        self.set_status(name, status.clone());
        Ok(ConnectionReport {
            server: name.to_owned(),
            status,
            info: Some(info),
        })
    }

    pub(super) async fn open_session(
        self: &Arc<Self>,
        def: &ServerDef,
        interactive: bool,
        app: Option<&str>,
    ) -> CoreResult<(Arc<Session>, i64)> {
        let (transport, redactor) = self.resolve(def)?;
        let redactor = Arc::new(redactor);
        // Everything stored or logged about this server from now on (its
        // errors included) is masked with its secrets.
        self.redactors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(def.name.clone(), redactor.clone());
        // An update's trial start was checked whole (with its registry
        // facts) before it was made.
        let trial = self
            .trial_packages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(&def.name);
        let checked = if trial {
            Ok(())
        } else {
            match self.check_def_policy(def) {
                Ok(()) => self.check_install(&def.name).await,
                Err(e) => Err(e),
            }
        };
        let room = match checked.and_then(|()| self.room_launch(def, &transport)) {
            Ok(room) => room,
            Err(e) => {
                // Not started: said where a failed connect is said.
                let reason = match &e {
                    CoreError::Connect { source, .. } => source.to_string(),
                    other => other.to_string(),
                };
                if let Ok(row) = self.store.connection_started(&def.name) {
                    let _ = self
                        .store
                        .connection_updated(row, "failed", None, None, Some(&reason));
                }
                self.log(&def.name, "error", &format!("connection failed: {reason}"));
                return Err(e);
            }
        };
        if room.is_some() {
            self.log(
                &def.name,
                "info",
                &format!("starting in its room ({})", airlock_sandbox::mechanism()),
            );
        } else if matches!(def.transport, Transport::Stdio { .. }) {
            let why = match &def.options.sandbox {
                None => "it was added before Airlock confined servers: `airlock servers sandbox NAME on` confines it",
                Some(_) => "you chose to run it unconfined",
            };
            if def.options.sandbox.as_ref().is_none_or(|s| !s.enabled) {
                self.log(
                    &def.name,
                    "warning",
                    &format!("starting NOT CONFINED: {why}"),
                );
            }
        }
        let (wrapped, proxy) = match room {
            Some(r) => (Some(r.wrapped), r.proxy),
            None => (None, None),
        };
        match proxy {
            Some(p) => {
                self.proxies
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(def.name.clone(), p);
            }
            None => {
                self.proxies
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&def.name);
            }
        }
        let conn_row = self.store.connection_started(&def.name)?;
        let ctx = ConnectContext {
            store: self.store.clone(),
            broker: self.broker.clone(),
            events: self.events.clone(),
            redactor: redactor.clone(),
            connect_timeout: self.connect_timeout,
            // OAuth is for Streamable HTTP: stdio connects read no keychain for it.
            oauth: match def.transport {
                Transport::Http { .. } => self.oauth_context(&def.name, interactive, app),
                Transport::Stdio { .. } => None,
            },
            protocol: effective_protocol(def),
            inherit_env: def.options.inherit_env.clone(),
            allow_insecure_http: def.options.allow_insecure_http,
            app_requests: self.app_requests.clone(),
            max_message_bytes: def.options.message_limit(),
            session_bus: def
                .options
                .sandbox
                .as_ref()
                .is_some_and(|s| !s.enabled && s.session_bus),
            wrapped,
        };
        if let Transport::Http { url, .. } = &def.transport {
            if crate::servers::plain_http_remote(url) {
                self.log(
                    &def.name,
                    "warning",
                    "plain http:// to another computer: everything sent to this server, its headers included, crosses the network unencrypted",
                );
            }
        }
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
                let source = source.redacted(&redactor);
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
        self.connect_with(name, true, None).await
    }

    /// [`Airlock::connect`] for connects nobody asked for just now (at
    /// start-up): a server that needs a sign-in ends `sign_in_required`
    /// instead of raising a sign-in prompt.
    pub async fn connect_in_background(
        self: &Arc<Self>,
        name: &str,
    ) -> CoreResult<ConnectionReport> {
        self.connect_with(name, false, None).await
    }

    /// `app`: the app whose request connects (`None`: Airlock itself),
    /// named in the record of a sign-in it starts.
    async fn connect_with(
        self: &Arc<Self>,
        name: &str,
        interactive: bool,
        app: Option<&str>,
    ) -> CoreResult<ConnectionReport> {
        // Callers racing to connect the same server (the window, an app
        // through the gateway, start-up) share one connect: the later ones
        // wait here and find the session the first one installed.
        let gate = self.connect_gate(name);
        let _one_at_a_time = gate.lock().await;
        let def = self.get_server(name)?;
        if def.paused {
            self.set_status(name, ConnStatus::Paused);
            return Err(CoreError::Paused(name.to_owned()));
        }
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
        match self.open_session(&def, interactive, app).await {
            Ok((session, conn_row)) => {
                let status = ConnStatus::Ready {
                    protocol_version: session.info.protocol_version.clone(),
                };
                let info = session.info.clone();
                if !self.install(name, generation, session.clone(), status.clone()) {
                    // Disconnected (or paused) while it connected.
                    let _ =
                        self.store
                            .connection_updated(conn_row, "disconnected", None, None, None);
                    return Err(CoreError::NotConnected {
                        server: name.to_owned(),
                    });
                }
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

    /// Make `session` the server's live session if no connect or disconnect
    /// came since `generation`; else close it (nobody may keep a server
    /// process nobody tracks) and leave the status alone. True if installed.
    fn install(
        &self,
        name: &str,
        generation: u64,
        session: Arc<Session>,
        status: ConnStatus,
    ) -> bool {
        let current = {
            let mut managed = self.managed.lock().unwrap_or_else(|e| e.into_inner());
            match managed.get_mut(name) {
                Some(m) if m.generation == generation => {
                    m.session = Some(session.clone());
                    true
                }
                _ => false,
            }
        };
        if current {
            self.set_status(name, status);
        } else {
            session.close();
        }
        current
    }

    /// The lock that keeps connects of `name` one at a time.
    fn connect_gate(&self, name: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.connect_gates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(name.to_owned())
            .or_default()
            .clone()
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
        // Attempts and back-off carry over from drop to drop: a server that
        // connects and drops at once, forever, is not respawned twice a
        // second. Only a connection that stayed up a while starts afresh.
        let policy = self.reconnect;
        let mut attempt = 0u32;
        let mut backoff = policy.first_backoff;
        loop {
            let up_since = std::time::Instant::now();
            session.closed().await;
            self.broker.connection_lost(session.connection);
            if self.current_generation(&name) != Some(generation) {
                let _ = self
                    .store
                    .connection_updated(conn_row, "disconnected", None, None, None);
                return;
            }
            if up_since.elapsed() >= policy.stable_after {
                attempt = 0;
                backoff = policy.first_backoff;
            }
            let tail = session.stderr_tail();
            let mut reason = "connection lost".to_owned();
            if !tail.is_empty() {
                reason.push_str(&format!("; last stderr: {}", tail.join(" | ")));
            }
            let _ = self
                .store
                .connection_updated(conn_row, "failed", None, None, Some(&reason));
            self.log(&name, "warning", &reason);
            match self
                .reconnect(&name, generation, &mut attempt, &mut backoff, reason)
                .await
            {
                Some((s, row)) => {
                    session = s;
                    conn_row = row;
                }
                None => return,
            }
        }
    }

    /// Reconnect with capped exponential back-off until it works, the
    /// attempts run out (status `failed`, with why), a sign-in is needed, or
    /// the connection is no longer wanted.
    async fn reconnect(
        self: &Arc<Self>,
        name: &str,
        generation: u64,
        attempt: &mut u32,
        backoff: &mut std::time::Duration,
        mut last_reason: String,
    ) -> Option<(Arc<Session>, i64)> {
        loop {
            let policy = self.reconnect;
            *attempt += 1;
            if *attempt > policy.max_attempts {
                self.set_status(
                    name,
                    ConnStatus::Failed {
                        reason: format!(
                            "gave up after {} reconnect attempts (the server keeps dropping the connection or cannot be started; Connect tries again): {last_reason}",
                            policy.max_attempts
                        ),
                    },
                );
                return None;
            }
            self.set_status(
                name,
                ConnStatus::Reconnecting {
                    attempt: *attempt,
                    retry_in_ms: u64::try_from(backoff.as_millis()).unwrap_or(u64::MAX),
                    reason: last_reason.clone(),
                },
            );
            tokio::time::sleep(*backoff).await;
            *backoff = (*backoff * 2).min(policy.max_backoff);
            if self.current_generation(name) != Some(generation) {
                return None;
            }
            // Not alongside a connect the user (or an app) started.
            let gate = self.connect_gate(name);
            let _one_at_a_time = gate.lock().await;
            if self.current_generation(name) != Some(generation) {
                return None;
            }
            let def = self.get_server(name).ok()?;
            match self.open_session(&def, false, None).await {
                Ok((s, row)) => {
                    let status = ConnStatus::Ready {
                        protocol_version: s.info.protocol_version.clone(),
                    };
                    if !self.install(name, generation, s.clone(), status) {
                        let _ =
                            self.store
                                .connection_updated(row, "disconnected", None, None, None);
                        return None;
                    }
                    return Some((s, row));
                }
                // Reconnects never start a sign-in on their own: the
                // user signs in again from the window or the CLI.
                Err(e) if needs_sign_in(&e) => {
                    self.set_status(name, failed_status(&e));
                    return None;
                }
                Err(e) => last_reason = e.to_string(),
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
        self.session_for(name, None).await
    }

    /// [`Airlock::session`] for a request of the app `app` (`None`:
    /// Airlock itself): a sign-in the connect needs names that app.
    pub(crate) async fn session_for(
        self: &Arc<Self>,
        name: &str,
        app: Option<&str>,
    ) -> CoreResult<Arc<Session>> {
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
        self.connect_with(name, true, app).await?;
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

/// The revision to speak: the user's choice, or in automatic mode what
/// Airlock learned about the server (2025-11-25 after it sent requests the
/// old way).
fn effective_protocol(def: &ServerDef) -> ProtocolChoice {
    match (def.options.protocol, def.protocol_learned.as_deref()) {
        (ProtocolChoice::Auto, Some(learned)) => {
            ProtocolChoice::parse(learned).unwrap_or(ProtocolChoice::Auto)
        }
        (choice, _) => choice,
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

/// The status after a failed connect. A sign-in's reason is said for every
/// surface: the window shows Sign in as a button, the command line adds its
/// command (`output::print_connection`).
fn failed_status(e: &CoreError) -> ConnStatus {
    if needs_sign_in(e) {
        let reason = match e {
            CoreError::Connect {
                source: ConnectError::AuthorizationRequired { reason, .. },
                ..
            } => format!("the server requires you to sign in (MCP authorization, OAuth){reason}"),
            CoreError::Connect {
                source: ConnectError::Authorization(a),
                ..
            } => a.status_reason(),
            other => other.to_string(),
        };
        ConnStatus::SignInRequired { reason }
    } else {
        ConnStatus::Failed {
            reason: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{AuthFlowError, AuthStep};

    /// A sign-in status is said for every surface: no command-line hint in
    /// it (the window has a button; the CLI adds its command).
    #[test]
    fn a_sign_in_status_carries_no_command_line_hint() {
        let required = CoreError::Connect {
            server: "ex".into(),
            source: ConnectError::AuthorizationRequired {
                server: "ex".into(),
                reason: " (the token expired)".into(),
            },
        };
        let refresh = CoreError::Connect {
            server: "ex".into(),
            source: ConnectError::Authorization(AuthFlowError::new(AuthStep::TokenRefresh, "401")),
        };
        assert!(
            required.to_string().contains("airlock login"),
            "the CLI's error keeps it"
        );
        for e in [&required, &refresh] {
            let ConnStatus::SignInRequired { reason } = failed_status(e) else {
                panic!("sign-in required: {e}");
            };
            assert!(
                !reason.contains('`') && !reason.contains("airlock "),
                "{reason}"
            );
        }
        let ConnStatus::SignInRequired { reason } = failed_status(&required) else {
            unreachable!()
        };
        assert_eq!(
            reason,
            "the server requires you to sign in (MCP authorization, OAuth) (the token expired)"
        );
    }
}
