//! OAuth credentials in the OS keychain, never on disk.
//!
//! One keychain entry per server holds rmcp's [`StoredCredentials`] (client
//! id, token response with access and refresh tokens, granted scopes, issuer)
//! as JSON, under `<instance id>/server/<server>/oauth/credentials`; a client
//! secret from Dynamic Client Registration or pre-registration sits next to
//! it under `.../oauth/client_secret`.

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

/// rmcp's [`CredentialStore`] on the OS keychain.
#[derive(Debug, Clone)]
pub struct KeychainCredentialStore {
    keychain: Keychain,
    reference: String,
}

impl KeychainCredentialStore {
    pub fn new(keychain: Keychain, instance: &str, server: &str) -> Self {
        Self {
            keychain,
            reference: credentials_ref(instance, server),
        }
    }

    /// The keychain reference this store reads and writes.
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// Read the stored credentials (blocking keychain call).
    pub fn load_blocking(&self) -> Result<Option<StoredCredentials>, SecretError> {
        match self.keychain.get(&self.reference) {
            Ok(v) => serde_json::from_str(v.expose())
                .map(Some)
                .map_err(|e| SecretError::Other(format!("stored OAuth credentials are unreadable ({e}); run `airlock logout` and `airlock login` again"))),
            Err(SecretError::Missing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Write credentials (blocking keychain call).
    pub fn save_blocking(&self, credentials: &StoredCredentials) -> Result<(), SecretError> {
        let json = serde_json::to_string(credentials)
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
        let store = KeychainCredentialStore::new(Keychain::default(), &instance, "srv");
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
