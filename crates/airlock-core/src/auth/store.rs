//! OAuth credentials in the OS keychain, never on disk.
//!
//! One keychain entry per server holds rmcp's [`StoredCredentials`] (client
//! id, token response with access and refresh tokens, granted scopes, the
//! issuer that issued them) and the server URL they were issued for
//! (`resource`) as JSON, under `<instance id>/server/<server>/oauth/credentials`;
//! a client secret from Dynamic Client Registration or pre-registration sits
//! next to it under `.../oauth/client_secret`.
//!
//! A store made [`KeychainCredentialStore::for_resource`] writes that URL
//! with every save and reads back only tokens issued for it: whatever path
//! loads tokens through it, they never go to another address.

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

use crate::secrets::{Keychain, SecretError, SecretValue};
use crate::servers::secret_ref;

/// The keychain kind under which OAuth material of a server is filed.
pub const OAUTH_KIND: &str = "oauth";

/// Keychain reference of a server's OAuth credentials (tokens).
pub fn credentials_ref(instance: &str, server: &str) -> String {
    secret_ref(instance, server, OAUTH_KIND, "credentials")
}

/// Keychain reference of a server's OAuth client secret.
pub fn client_secret_ref(instance: &str, server: &str) -> String {
    secret_ref(instance, server, OAUTH_KIND, "client_secret")
}

/// Keychain reference of a server's registered OAuth client (client id and,
/// for confidential clients, secret), set by the user for providers without
/// dynamic registration.
pub fn client_ref(instance: &str, server: &str) -> String {
    secret_ref(instance, server, OAUTH_KIND, "client")
}

/// Longest client id accepted, in bytes.
pub const MAX_CLIENT_ID_BYTES: usize = 512;

/// A client registered with the provider beforehand (per server).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct RegisteredClient {
    pub client_id: String,
    #[serde(default)]
    pub client_secret: Option<String>,
    /// The loopback port of the redirect URI registered with the provider
    /// (`http://127.0.0.1:<port>/callback`), for providers that want an
    /// exact redirect URI; `None`: a random port at each sign-in.
    #[serde(default)]
    pub redirect_port: Option<u16>,
}

impl std::fmt::Debug for RegisteredClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredClient")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[REDACTED]"),
            )
            .field("redirect_port", &self.redirect_port)
            .finish()
    }
}

impl RegisteredClient {
    /// A client id as typed by the user: trimmed, non-empty, bounded, no
    /// control characters or spaces.
    pub fn new(
        client_id: &str,
        client_secret: Option<&str>,
        redirect_port: Option<u16>,
    ) -> Result<Self, String> {
        if redirect_port == Some(0) {
            return Err("the redirect port must be between 1 and 65535".into());
        }
        let id = client_id.trim();
        if id.is_empty() {
            return Err("the client id is empty".into());
        }
        if id.len() > MAX_CLIENT_ID_BYTES {
            return Err(format!(
                "the client id is longer than {MAX_CLIENT_ID_BYTES} bytes"
            ));
        }
        if id.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err("the client id contains spaces or control characters".into());
        }
        let secret = client_secret.map(str::trim).filter(|s| !s.is_empty());
        if secret.is_some_and(|s| s.len() > 4096 || s.chars().any(char::is_control)) {
            return Err(
                "the client secret is longer than 4096 bytes or contains control characters".into(),
            );
        }
        Ok(Self {
            client_id: id.to_owned(),
            client_secret: secret.map(str::to_owned),
            redirect_port,
        })
    }

    /// Read a server's registered client (blocking keychain call).
    pub fn load(
        keychain: &Keychain,
        instance: &str,
        server: &str,
    ) -> Result<Option<Self>, SecretError> {
        match keychain.get(&client_ref(instance, server)) {
            Ok(v) => serde_json::from_str(v.expose()).map(Some).map_err(|e| {
                SecretError::Other(format!(
                    "the stored OAuth client is unreadable ({e}); set it again"
                ))
            }),
            Err(SecretError::Missing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Store it (blocking keychain call).
    pub fn save(
        &self,
        keychain: &Keychain,
        instance: &str,
        server: &str,
    ) -> Result<(), SecretError> {
        let json = serde_json::to_string(self)
            .map_err(|e| SecretError::Other(format!("cannot encode the OAuth client: {e}")))?;
        keychain.set(&client_ref(instance, server), &SecretValue::new(json))
    }
}

/// One server's keychain entry as stored: rmcp's credentials and the
/// server URL they were issued for.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    #[serde(flatten)]
    credentials: StoredCredentials,
    /// `None` in entries written before Airlock recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resource: Option<String>,
}

/// A server's stored tokens with what they are bound to.
#[derive(Debug, Clone)]
pub struct StoredTokens {
    pub credentials: StoredCredentials,
    /// The server URL the tokens were issued for (`None`: not recorded).
    pub resource: Option<String>,
}

/// rmcp's [`CredentialStore`] on the OS keychain.
#[derive(Debug, Clone)]
pub struct KeychainCredentialStore {
    keychain: Keychain,
    reference: String,
    /// The server URL this store saves tokens for and reads them back for
    /// (`None`: reading and forgetting only, for sign-out and summaries).
    resource: Option<String>,
}

impl KeychainCredentialStore {
    pub fn new(keychain: Keychain, instance: &str, server: &str) -> Self {
        Self {
            keychain,
            reference: credentials_ref(instance, server),
            resource: None,
        }
    }

    /// The same entry, for the tokens of the server at `url`: saves record
    /// it; loads return only tokens issued for it.
    pub fn for_resource(mut self, url: &str) -> Self {
        self.resource = Some(url.to_owned());
        self
    }

    /// The keychain reference this store reads and writes.
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// Read the stored entry, whatever it is bound to (blocking keychain call).
    pub fn load_entry_blocking(&self) -> Result<Option<StoredTokens>, SecretError> {
        match self.keychain.get(&self.reference) {
            Ok(v) => serde_json::from_str::<Entry>(v.expose())
                .map(|e| Some(StoredTokens {
                    credentials: e.credentials,
                    resource: e.resource,
                }))
                .map_err(|e| SecretError::Other(format!("stored OAuth credentials are unreadable ({e}); run `airlock logout` and `airlock login` again"))),
            Err(SecretError::Missing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Read the stored credentials (blocking keychain call): for a store
    /// [`for_resource`](Self::for_resource), only those issued for its URL.
    pub fn load_blocking(&self) -> Result<Option<StoredCredentials>, SecretError> {
        Ok(self
            .load_entry_blocking()?
            .and_then(|e| match &self.resource {
                Some(mine) if e.resource.as_deref() != Some(mine) => None,
                _ => Some(e.credentials),
            }))
    }

    /// Write credentials, bound to this store's URL (blocking keychain call).
    pub fn save_blocking(&self, credentials: &StoredCredentials) -> Result<(), SecretError> {
        let Some(resource) = &self.resource else {
            // Tokens that name no server could later be sent to any.
            return Err(SecretError::Other(
                "OAuth tokens were about to be stored without the server they are for; not stored"
                    .into(),
            ));
        };
        let entry = Entry {
            credentials: credentials.clone(),
            resource: Some(resource.clone()),
        };
        let json = serde_json::to_string(&entry)
            .map_err(|e| SecretError::Other(format!("cannot encode OAuth credentials: {e}")))?;
        self.keychain.set(&self.reference, &SecretValue::new(json))
    }

    /// Forget the credentials (blocking keychain call); missing is fine.
    pub fn clear_blocking(&self) -> Result<(), SecretError> {
        self.keychain.delete(&self.reference)
    }
}

fn store_err(e: SecretError) -> AuthError {
    AuthError::CredentialStoreError(e.to_string())
}

#[async_trait::async_trait]
impl CredentialStore for KeychainCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.load_blocking())
            .await
            .map_err(|e| AuthError::InternalError(e.to_string()))?
            .map_err(store_err)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.save_blocking(&credentials))
            .await
            .map_err(|e| AuthError::InternalError(e.to_string()))?
            .map_err(store_err)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.clear_blocking())
            .await
            .map_err(|e| AuthError::InternalError(e.to_string()))?
            .map_err(store_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_follow_the_server_secret_scheme() {
        assert_eq!(
            credentials_ref("inst", "github"),
            "inst/server/github/oauth/credentials"
        );
        assert_eq!(
            client_secret_ref("inst", "github"),
            "inst/server/github/oauth/client_secret"
        );
        assert_eq!(
            client_ref("inst", "github"),
            "inst/server/github/oauth/client"
        );
    }

    #[test]
    fn registered_clients_are_validated_and_never_print_their_secret() {
        let c = RegisteredClient::new("  Iv1.abc  ", Some(" s3cret "), None).unwrap();
        assert_eq!(c.client_id, "Iv1.abc");
        assert_eq!(c.client_secret.as_deref(), Some("s3cret"));
        assert!(!format!("{c:?}").contains("s3cret"));
        assert!(RegisteredClient::new("", None, None).is_err());
        assert!(RegisteredClient::new("a b", None, None).is_err());
        assert!(RegisteredClient::new("a\u{7}", None, None).is_err());
        assert!(RegisteredClient::new(&"x".repeat(513), None, None).is_err());
        assert_eq!(
            RegisteredClient::new("id", Some("  "), None)
                .unwrap()
                .client_secret,
            None
        );
        assert!(RegisteredClient::new("id", None, Some(0)).is_err());
        assert_eq!(
            RegisteredClient::new("id", None, Some(8765))
                .unwrap()
                .redirect_port,
            Some(8765)
        );
    }

    fn token(access: &str) -> rmcp::transport::auth::OAuthTokenResponse {
        serde_json::from_value(serde_json::json!({
            "access_token": access, "token_type": "Bearer", "expires_in": 3600
        }))
        .unwrap()
    }

    /// Saved tokens name the URL they are for; a store for another URL
    /// does not read them; tokens that name no URL are not written.
    #[test]
    fn tokens_are_bound_to_the_server_url() {
        let keychain = Keychain::with_store(crate::test_support::InMemoryKeychain::default());
        let creds = StoredCredentials::new("c".into(), Some(token("at-1")), vec![], Some(1))
            .with_issuer(Some("https://as.example".into()));
        let plain = KeychainCredentialStore::new(keychain.clone(), "i", "srv");
        assert!(plain.save_blocking(&creds).is_err(), "unbound tokens");
        assert!(plain.load_entry_blocking().unwrap().is_none());

        let a = plain.clone().for_resource("https://mcp.a.example/mcp");
        a.save_blocking(&creds).unwrap();
        let entry = plain.load_entry_blocking().unwrap().expect("stored");
        assert_eq!(entry.resource.as_deref(), Some("https://mcp.a.example/mcp"));
        assert_eq!(
            entry.credentials.issuer.as_deref(),
            Some("https://as.example")
        );
        assert!(a.load_blocking().unwrap().is_some());
        assert!(
            plain.load_blocking().unwrap().is_some(),
            "sign-out reads it"
        );
        for other in [
            "https://mcp.b.example/mcp",
            "https://mcp.a.example/mcp/",
            "https://mcp.a.example/other",
        ] {
            let b = plain.clone().for_resource(other);
            assert!(b.load_blocking().unwrap().is_none(), "{other} read it");
        }
        // An entry of before (no `resource`) is read by no bound store.
        keychain
            .set(
                &credentials_ref("i", "srv"),
                &SecretValue::new(serde_json::to_string(&creds).unwrap()),
            )
            .unwrap();
        assert!(a.load_blocking().unwrap().is_none());
        assert_eq!(plain.load_entry_blocking().unwrap().unwrap().resource, None);
    }

    /// Uses the real OS keychain: runs inside `scripts/with-session.sh`
    /// (`bash scripts/with-session.sh cargo test -p airlock-core keychain`),
    /// skipped elsewhere so a plain `cargo test` never touches the user's keychain.
    #[tokio::test]
    async fn keychain_round_trips_credentials() {
        if std::env::var_os("AIRLOCK_SESSION_DIR").is_none() {
            eprintln!("skipped: needs the keychain of scripts/with-session.sh");
            return;
        }
        let instance = format!("test-oauth-{}", std::process::id());
        let store = KeychainCredentialStore::new(Keychain::default(), &instance, "srv")
            .for_resource("https://mcp.example/mcp");
        store.clear().await.unwrap();
        assert!(store.load().await.unwrap().is_none());
        let token: rmcp::transport::auth::OAuthTokenResponse = serde_json::from_value(
            serde_json::json!({"access_token": "at-123", "token_type": "Bearer", "refresh_token": "rt-456", "expires_in": 3600}),
        )
        .unwrap();
        let creds =
            StoredCredentials::new("client-1".into(), Some(token), vec!["read".into()], Some(1));
        store.save(creds).await.unwrap();
        let back = store.load().await.unwrap().expect("stored");
        assert_eq!(back.client_id, "client-1");
        assert_eq!(back.granted_scopes, vec!["read".to_string()]);
        let json = serde_json::to_string(&back.token_response).unwrap();
        assert!(json.contains("at-123") && json.contains("rt-456"));
        store.clear().await.unwrap();
        assert!(store.load().await.unwrap().is_none());
    }
}
