//! Stored tokens at connect: used only for the server URL they were issued
//! for, and only while that server still names the authorization server
//! that issued them. Otherwise they are not sent anywhere (not to the
//! server, not to any token endpoint for a refresh), a new sign-in is
//! needed, and [`TokensNotUsed`] says why in words.
//!
//! The old tokens stay in the keychain until the new sign-in replaces them
//! or the user signs out: a server that names another authorization server
//! for a while cannot make Airlock throw away a sign-in it did not issue.

use rmcp::transport::auth::AuthorizationManager;
use url::Url;

use super::issuer::display_issuer;
use super::store::KeychainCredentialStore;
use super::{discover, AuthFlowError};

/// Why stored tokens were not used for a connect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokensNotUsed {
    #[error("you signed in for the server address \"{signed_in_for}\", and its address is now \"{now}\"; the tokens are sent only to the address they were issued for")]
    OtherResource { signed_in_for: String, now: String },
    #[error("the tokens in the keychain were stored before Airlock recorded which server address they are for; sign in once more to bind them")]
    Unbound,
    #[error("the server now names the authorization server \"{now}\", but your tokens were issued by \"{signed_in_at}\"; Airlock sends them to neither (a server whose authorization server changes could be collecting a sign-in meant for another)")]
    OtherIssuer { signed_in_at: String, now: String },
    #[error("Airlock could not check which authorization server the server names now, so it did not send your tokens: {detail}")]
    Unverified { detail: String },
}

impl TokensNotUsed {
    /// The word in the audit trail (`oauth_tokens_not_used`), `None` for a
    /// failure to look (not a change of binding, not audited).
    pub fn kind(&self) -> Option<&'static str> {
        match self {
            Self::OtherResource { .. } => Some("other_resource"),
            Self::Unbound => Some("unbound"),
            Self::OtherIssuer { .. } => Some("other_issuer"),
            Self::Unverified { .. } => None,
        }
    }
}

/// An issuer (or its absence) as plain text.
fn shown(issuer: Option<&str>) -> String {
    issuer.map_or_else(|| "(none published)".to_owned(), display_issuer)
}

/// The manager for a connect to the server at `url` with the tokens of
/// `store`: `Ok(None)` when none are stored (or the keychain cannot be
/// read: the server's 401 then asks for a sign-in), `Err` when tokens are
/// stored but must not be used.
pub async fn stored_manager(
    url: &str,
    store: KeychainCredentialStore,
) -> Result<Option<AuthorizationManager>, TokensNotUsed> {
    let store = store.for_resource(url);
    let probe = store.clone();
    let Ok(Ok(Some(entry))) =
        tokio::task::spawn_blocking(move || probe.load_entry_blocking()).await
    else {
        return Ok(None);
    };
    match entry.resource.as_deref() {
        None => return Err(TokensNotUsed::Unbound),
        Some(r) if r != url => {
            return Err(TokensNotUsed::OtherResource {
                signed_in_for: display_issuer(r),
                now: display_issuer(url),
            })
        }
        Some(_) => {}
    }
    if entry.credentials.token_response.is_none() {
        return Ok(None);
    }
    let unverified = |e: AuthFlowError| TokensNotUsed::Unverified { detail: e.detail };
    let parsed = Url::parse(url).map_err(|e| TokensNotUsed::Unverified {
        detail: format!("{url:?} is not a URL: {e}"),
    })?;
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| unverified(AuthFlowError::from_rmcp(super::AuthStep::Discovery, e)))?;
    let metadata = discover(&manager, &parsed, None)
        .await
        .map_err(unverified)?;
    if metadata.issuer != entry.credentials.issuer {
        return Err(TokensNotUsed::OtherIssuer {
            signed_in_at: shown(entry.credentials.issuer.as_deref()),
            now: shown(metadata.issuer.as_deref()),
        });
    }
    manager.set_metadata(metadata);
    manager.set_credential_store(store);
    // rmcp compares the issuers once more and configures the client id.
    match manager.initialize_from_store().await {
        Ok(true) => Ok(Some(manager)),
        Ok(false) => Ok(None),
        Err(e) => Err(unverified(AuthFlowError::from_rmcp(
            super::AuthStep::CredentialStorage,
            e,
        ))),
    }
}
