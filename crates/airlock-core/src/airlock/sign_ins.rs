//! MCP authorization (OAuth) as Airlock runs it for a server: sign in
//! (consent first), sign out, registered clients, step-up, and what each
//! connect needs. The protocol steps themselves are in [`crate::auth`].

use std::sync::Arc;

use serde::Serialize;

use crate::mcp::{self, ConnectError};
use crate::secrets::SecretValue;
use crate::servers::Transport;
use crate::status::ConnStatus;
use crate::{auth, Airlock, ConnectionReport, CoreError, CoreResult};

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

impl Airlock {
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
        if crate::servers::plain_http_remote(url) && !def.options.allow_insecure_http {
            return Err(CoreError::BadInput(format!(
                "{server:?} is plain http:// to another computer: a sign-in there would send tokens across the network in the clear; use https, or opt in explicitly (`airlock servers edit {server} --allow-insecure-http ...`)"
            )));
        }
        let instance = self.store.instance_id()?;
        let store = auth::KeychainCredentialStore::new(self.keychain.clone(), &instance, server)
            .for_resource(url);
        let identity = self.identity_for(&instance, server)?;
        let gate = self.sign_in_gate(server);
        let result = auth::authorize(url, None, &identity, browser, &gate, store).await;
        self.sign_in_ended(server, &gate);
        self.oauth_changed(server);
        if let Err(e) = result {
            self.set_status(
                server,
                ConnStatus::SignInRequired {
                    reason: e.status_reason(),
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

    pub(crate) fn sign_in_ended(&self, server: &str, gate: &auth::SignInGate) {
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
        // Signed in: tokens issued for the server's current URL.
        let store = auth::KeychainCredentialStore::new(self.keychain.clone(), &instance, server);
        let store = match self.get_server(server).map(|d| d.transport) {
            Ok(Transport::Http { url, .. }) => Some(store.for_resource(&url)),
            _ => None,
        };
        let signed_in = store.is_some_and(|s| s.load_blocking().is_ok_and(|c| c.is_some()));
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
    pub(crate) fn oauth_changed(&self, server: &str) {
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
        app: Option<&str>,
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
        let oauth = self.oauth_context(server, true, app).ok_or_else(|| {
            connect_err(ConnectError::AuthorizationRequired {
                server: server.to_owned(),
                reason: String::new(),
            })
        })?;
        let Some(browser) = oauth.browser.as_ref() else {
            return Err(connect_err(ConnectError::AuthorizationRequired {
                server: server.to_owned(),
                reason: String::new(),
            }));
        };
        let store =
            auth::KeychainCredentialStore::new(oauth.keychain.clone(), &oauth.instance, server)
                .for_resource(url);
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
    /// server that needs one fails with `sign_in_required`. `app`: the
    /// app whose request connects (`None`: Airlock itself).
    pub(crate) fn oauth_context(
        self: &Arc<Self>,
        server: &str,
        interactive: bool,
        app: Option<&str>,
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
        // Registered (cancellable) only when a sign-in may happen.
        let mut gate = if browser.is_some() {
            self.sign_in_gate(server)
        } else {
            auth::SignInGate::new(self.broker.clone(), server)
        };
        gate.app = app.map(str::to_owned);
        Some(mcp::OAuthContext {
            keychain: self.keychain.clone(),
            instance,
            identity,
            gate,
            browser,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{open_core, RecordingOpener, ScriptedConsent};

    #[test]
    fn a_connect_for_an_app_names_it_in_the_sign_in_gate() {
        let (core, _dir) = open_core(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            crate::elicitation::BrokerSettings::default(),
        );
        let gate = |app| {
            core.oauth_context("srv", true, app)
                .expect("an OAuth context")
                .gate
        };
        assert_eq!(gate(Some("cursor")).app.as_deref(), Some("cursor"));
        assert_eq!(gate(None).app, None, "Airlock itself");
    }
}
