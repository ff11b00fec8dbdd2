//! MCP authorization (OAuth 2.1) for Streamable HTTP servers, on rmcp's
//! `auth` feature.
//!
//! The flow, each step named in errors ([`AuthStep`]):
//!
//! 1. a request answered 401 with `WWW-Authenticate` (the challenge);
//! 2. discovery: protected resource metadata (RFC 9728; the challenge's
//!    `resource_metadata`, then the well-known URLs of
//!    [`protected_resource_metadata_urls`]), then authorization server
//!    metadata (RFC 8414 and OpenID discovery,
//!    [`authorization_server_metadata_urls`]), with the 2025-03-26 fallbacks
//!    (metadata at the server's origin, then `/authorize`, `/token`,
//!    `/register` there);
//! 3. client identity ([`ClientIdentity`]): a pre-registered client, a
//!    Client ID Metadata Document URL when the server supports them, else
//!    Dynamic Client Registration;
//! 4. authorization code + PKCE (S256) with the `resource` indicator, the
//!    user's browser through the [`browser::Browser`] port, `state` checked,
//!    then who answered ([`issuer`], RFC 9207): an answer from another
//!    authorization server than the flow's is refused, audited, and its
//!    code sent nowhere;
//! 5. the token exchange; tokens go to the OS keychain only
//!    ([`store::KeychainCredentialStore`]), bound to the server's URL and
//!    the issuer that issued them, and are refreshed by rmcp when they
//!    expire;
//! 6. at each connect, stored tokens are used only for that URL and only
//!    while the server still names the same authorization server
//!    ([`stored_manager`]); otherwise a new sign-in is needed, and the user
//!    is told why ([`TokensNotUsed`]).

pub mod browser;
mod discovery;
use discovery::legacy_allowed;
pub mod issuer;
pub mod store;
mod tokens;
pub use tokens::{stored_manager, TokensNotUsed};

use std::sync::Arc;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession,
};
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::elicitation::{Broker, Refusal};

use crate::secrets::SecretValue;
pub use browser::{Answer, Browser, FollowRedirects, LoopbackBrowser, Redirect};
pub use discovery::{
    authorization_server_metadata_urls, check_same_origin, legacy_fallback_endpoints,
    legacy_same_origin_metadata, protected_resource_metadata_urls,
};
pub use issuer::{ExpectedIssuer, IssuerCheck, MixUp};
pub use store::KeychainCredentialStore;

/// The step of the authorization flow that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthStep {
    /// Finding the protected resource and authorization server metadata.
    Discovery,
    /// Getting a client id (pre-registered, metadata document, or DCR).
    ClientRegistration,
    /// Sending the user to the authorization server and waiting.
    UserAuthorization,
    /// The redirect back (listener, `state`, `code`).
    Redirect,
    /// Who answered: the answer's issuer against the flow's (RFC 9207).
    ResponseIssuer,
    /// Exchanging the code for tokens.
    TokenExchange,
    /// Refreshing an expired token.
    TokenRefresh,
    /// Reading or writing the OS keychain.
    CredentialStorage,
}

impl AuthStep {
    pub fn name(self) -> &'static str {
        match self {
            Self::Discovery => "discovery of the authorization server",
            Self::ClientRegistration => "client registration",
            Self::UserAuthorization => "authorization in the browser",
            Self::Redirect => "the redirect back to Airlock",
            Self::ResponseIssuer => "the check of who answered the sign-in",
            Self::TokenExchange => "the token exchange",
            Self::TokenRefresh => "the token refresh",
            Self::CredentialStorage => "the OS keychain",
        }
    }

    /// What the user can do about a failure at this step.
    pub fn hint(self) -> &'static str {
        match self {
            Self::Discovery => "check the server URL; the server must publish OAuth protected resource metadata (RFC 9728) or its authorization server must publish RFC 8414 / OpenID metadata. If the server documents a token instead, add it as an `Authorization` header",
            Self::ClientRegistration => "the authorization server accepts no dynamic registration or metadata document from Airlock: register a client with the provider and give Airlock its client id (and secret, if any)",
            Self::UserAuthorization => "finish the login in the browser (the page may be in another window), then try again; if it was declined, log in with an account that may use this server",
            Self::Redirect => "start the login again from Airlock and complete it in the same browser without reusing an old tab",
            Self::ResponseIssuer => "do not sign in to this server again until you know why: check its address (`airlock servers show <server>`) and remove it if you do not trust it; if you do, sign in again and make sure the browser stays on the sign-in page Airlock opened",
            Self::TokenExchange => "try the login again; if it keeps failing, the client registration may be wrong (`airlock logout <server>` then `airlock login <server>`)",
            Self::TokenRefresh => "log in again with `airlock login <server>`",
            Self::CredentialStorage => "unlock the OS keychain (Airlock keeps tokens only there) and try again",
        }
    }
}

impl AuthStep {
    /// [`AuthStep::hint`] in words every surface can show: a status line in
    /// the window, where Sign in and Sign out are buttons, as well as the
    /// command line (whose errors keep the commands).
    pub fn action(self) -> &'static str {
        match self {
            Self::ResponseIssuer => "do not sign in to this server again until you know why: check its address and remove it if you do not trust it; if you do, sign in again and make sure the browser stays on the sign-in page Airlock opened",
            Self::TokenExchange => "sign in again; if it keeps failing, the client registration may be wrong: sign out, then sign in",
            Self::TokenRefresh => "sign in again",
            other => other.hint(),
        }
    }
}

impl std::fmt::Display for AuthStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed authorization: the step, what happened, what to do.
#[derive(Debug, Clone, thiserror::Error)]
#[error("authorization failed at {step}: {detail}. What to do: {}", step.hint())]
pub struct AuthFlowError {
    pub step: AuthStep,
    pub detail: String,
    /// The answer came from another authorization server than the flow's
    /// (and was refused): audited as `oauth_mixup_refused`.
    pub mix_up: Option<MixUp>,
}

impl AuthFlowError {
    /// The failure as a server's status says it (no command-line hints).
    pub fn status_reason(&self) -> String {
        format!(
            "authorization failed at {}: {}. What to do: {}",
            self.step,
            self.detail,
            self.step.action()
        )
    }

    pub fn new(step: AuthStep, detail: impl Into<String>) -> Self {
        Self {
            step,
            detail: detail.into(),
            mix_up: None,
        }
    }

    /// An answer refused because another authorization server sent it.
    pub fn refused_mix_up(mix_up: MixUp) -> Self {
        Self {
            step: AuthStep::ResponseIssuer,
            detail: mix_up.to_string(),
            mix_up: Some(mix_up),
        }
    }

    fn from_rmcp(step: AuthStep, e: AuthError) -> Self {
        let step = match e {
            AuthError::CredentialStoreError(_) => AuthStep::CredentialStorage,
            AuthError::RegistrationFailed(_) => AuthStep::ClientRegistration,
            _ => step,
        };
        Self::new(step, e.to_string())
    }
}

/// Told the domain of the sign-in page once the browser is waited for.
pub type OnWaiting = Arc<dyn Fn(&str) + Send + Sync>;

/// Consent and cancellation of one sign-in. Before the authorization page
/// opens, the user sees it like a URL elicitation (server, domain, full URL,
/// warnings) through the broker and must accept; the wait for the browser
/// ends early when `cancel` fires.
#[derive(Clone)]
pub struct SignInGate {
    pub broker: Arc<Broker>,
    pub server: String,
    pub cancel: CancellationToken,
    /// Told the authorization page's domain once the user accepted and the
    /// browser is being waited for.
    pub on_waiting: Option<OnWaiting>,
    /// Which registration of the owner this is (0: not registered).
    pub ticket: u64,
    /// The app whose request started the connect (`None`: Airlock itself),
    /// named in the sign-in's record.
    pub app: Option<String>,
    /// Why a sign-in is needed again (the stored tokens were not used),
    /// shown with the consent.
    pub reason: Option<String>,
}

impl SignInGate {
    pub fn new(broker: Arc<Broker>, server: &str) -> Self {
        Self {
            broker,
            server: server.to_owned(),
            cancel: CancellationToken::new(),
            on_waiting: None,
            ticket: 0,
            app: None,
            reason: None,
        }
    }

    /// Consent, then the browser round trip, the answer checked against
    /// `issuer`; the returned record is to be finished once the token
    /// exchange is done.
    async fn round_trip(
        &self,
        redirect: Box<dyn browser::Redirect>,
        authorization_url: &str,
        token_endpoint: Option<&str>,
        issuer: &ExpectedIssuer,
    ) -> Result<(Answer, crate::elicitation::SignInRecord), AuthFlowError> {
        let run = async {
            let record = self
                .broker
                .approve_sign_in(
                    &self.server,
                    authorization_url,
                    token_endpoint,
                    self.app.as_deref(),
                    self.reason.as_deref(),
                )
                .await
                .map_err(refused)?;
            if let Some(f) = &self.on_waiting {
                f(record.domain());
            }
            record.opened();
            match redirect.complete(record.url(), issuer).await {
                Ok(answer) => Ok((answer, record)),
                Err(e) => {
                    finish_failed(record, &e);
                    Err(e)
                }
            }
        };
        tokio::select! {
            r = run => r,
            () = self.cancel.cancelled() => Err(AuthFlowError::new(
                AuthStep::UserAuthorization,
                "the sign-in was cancelled",
            )),
        }
    }
}

/// End a sign-in's record after `e`: a refused mix-up is its own audit event.
fn finish_failed(record: crate::elicitation::SignInRecord, e: &AuthFlowError) {
    match &e.mix_up {
        Some(m) => record.refused_mix_up(crate::elicitation::MixUpSeen {
            kind: m.kind(),
            expected: m.expected(),
            received: m.received(),
            step: AuthStep::ResponseIssuer.name(),
            message: &m.to_string(),
        }),
        None => record.failed(e.step.name(), &e.detail),
    }
}

/// Exchange the code of `answer` (already checked), and finish the
/// sign-in's record.
async fn exchange(
    session: &AuthorizationSession,
    answer: &Answer,
    issuer: &ExpectedIssuer,
    record: crate::elicitation::SignInRecord,
) -> Result<(), AuthFlowError> {
    let result = session
        .handle_callback_url(&answer.callback)
        .await
        .map(|_| ())
        .map_err(|e| match e {
            // rmcp checks `iss` again; Airlock's own check ran first, so
            // this means the two disagree: refused all the same.
            AuthError::AuthorizationServerMismatch {
                expected_issuer,
                received_issuer,
            } => AuthFlowError::refused_mix_up(MixUp::OtherIssuer {
                expected: issuer::display_issuer(&expected_issuer),
                received: issuer::display_issuer(&received_issuer),
            }),
            AuthError::AuthorizationServerMissingIssuer { expected_issuer } => {
                AuthFlowError::refused_mix_up(MixUp::NoIssuer {
                    expected: issuer::display_issuer(&expected_issuer),
                })
            }
            e => AuthFlowError::from_rmcp(AuthStep::TokenExchange, e),
        });
    match &result {
        Ok(()) => record.succeeded(
            issuer
                .issuer
                .as_deref()
                .map(issuer::display_issuer)
                .as_deref(),
            answer.issuer.as_str(),
        ),
        Err(e) => finish_failed(record, e),
    }
    result
}

/// The user (or the broker's limits) did not let the sign-in page open.
fn refused(refusal: Refusal) -> AuthFlowError {
    let detail = match refusal {
        Refusal::Declined => "you declined to open the sign-in page".to_owned(),
        Refusal::Cancelled => "you cancelled the sign-in".to_owned(),
        other => format!("Airlock did not open the sign-in page: {other}"),
    };
    AuthFlowError::new(AuthStep::UserAuthorization, detail)
}

/// How Airlock identifies itself to an authorization server, in priority
/// order: a pre-registered client, a Client ID Metadata Document, DCR.
#[derive(Debug, Clone)]
pub struct ClientIdentity {
    /// Shown on the consent screen and sent in DCR.
    pub client_name: String,
    /// A client registered with the provider beforehand.
    pub client_id: Option<String>,
    /// Its secret, for confidential pre-registered clients.
    pub client_secret: Option<SecretValue>,
    /// An HTTPS URL of Airlock's client metadata document (SEP-991), used
    /// when the authorization server advertises support for them.
    pub metadata_url: Option<String>,
    /// The loopback port registered with the provider for `client_id`
    /// (`http://127.0.0.1:<port>/callback`); `None`: a random port.
    pub redirect_port: Option<u16>,
}

impl Default for ClientIdentity {
    fn default() -> Self {
        Self {
            client_name: "Airlock".into(),
            client_id: None,
            client_secret: None,
            metadata_url: None,
            redirect_port: None,
        }
    }
}

/// After tokens were loaded from the keychain: when the user registered a
/// confidential client for this server, give the manager its secret so a
/// refresh authenticates (rmcp restores only the client id).
pub fn configure_registered_client(
    manager: &mut AuthorizationManager,
    identity: &ClientIdentity,
    server_url: &str,
) {
    if let (Some(id), Some(secret)) = (&identity.client_id, &identity.client_secret) {
        let config = rmcp::transport::auth::OAuthClientConfig::new(id.clone(), server_url)
            .with_client_secret(secret.expose());
        // The stored tokens stay usable without it until they expire.
        let _ = manager.configure_client(config);
    }
}

/// Run the whole authorization for `server_url` after a 401 whose
/// `WWW-Authenticate` is `challenge` (or proactively, with `None`). On
/// success the tokens are in `store` and the returned manager holds them.
pub async fn authorize(
    server_url: &str,
    challenge: Option<&str>,
    identity: &ClientIdentity,
    browser: &dyn Browser,
    gate: &SignInGate,
    store: KeychainCredentialStore,
) -> Result<AuthorizationManager, AuthFlowError> {
    let url = Url::parse(server_url).map_err(|e| {
        AuthFlowError::new(
            AuthStep::Discovery,
            format!("{server_url:?} is not a URL: {e}"),
        )
    })?;
    let mut manager = AuthorizationManager::new(server_url)
        .await
        .map_err(|e| AuthFlowError::from_rmcp(AuthStep::Discovery, e))?;
    manager.set_credential_store(store);
    let metadata = discover(&manager, &url, challenge).await?;
    // Where the authorization code will be exchanged: shown at consent when
    // it is another domain than the login page's.
    let token_endpoint = metadata.token_endpoint.clone();
    // Recorded now, with this flow's state and PKCE verifier: the answer
    // must come from this issuer (RFC 9207).
    let issuer = ExpectedIssuer::from_metadata(&metadata);
    manager.set_metadata(metadata);

    let redirect = browser.redirect(identity.redirect_port).await?;
    let mut request = AuthorizationRequest::new(redirect.uri())
        .with_client_name(identity.client_name.clone())
        .with_initial_scope_selection();
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    if let Some(id) = &identity.client_id {
        request = request.with_preregistered_client(id.clone());
        if let Some(secret) = &identity.client_secret {
            request = request.with_client_secret(secret.expose());
        }
    }
    if let Some(cimd) = &identity.metadata_url {
        request = request.with_client_metadata_url(cimd.clone());
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| AuthFlowError::from_rmcp(AuthStep::ClientRegistration, e))?;
    let (answer, record) = gate
        .round_trip(
            redirect,
            session.get_authorization_url(),
            Some(&token_endpoint),
            &issuer,
        )
        .await?;
    exchange(&session, &answer, &issuer, record).await?;
    Ok(session.auth_manager)
}

/// The authorization server metadata of the server at `url`: from its
/// protected resource metadata (the challenge's `resource_metadata` first),
/// or, for a 2025-03-26 server, RFC 8414 metadata on its own origin.
pub(crate) async fn discover(
    manager: &AuthorizationManager,
    url: &Url,
    challenge: Option<&str>,
) -> Result<AuthorizationMetadata, AuthFlowError> {
    match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(resolution) => Ok(resolution.metadata),
        // A 2025-03-26 server: no protected resource metadata, RFC 8414
        // metadata at its own origin naming another issuer path.
        Err(AuthError::AuthorizationServerMismatch { .. }) if legacy_allowed(url) => {
            legacy_same_origin_metadata(url).await
        }
        Err(e) => Err(AuthFlowError::new(
            AuthStep::Discovery,
            format!(
                "{e} (looked at {} and the authorization server's {})",
                protected_resource_metadata_urls(url).join(", "),
                "/.well-known/oauth-authorization-server and /.well-known/openid-configuration"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A browser round trip that comes back at once.
    struct AtOnce;

    #[async_trait::async_trait]
    impl browser::Redirect for AtOnce {
        fn uri(&self) -> String {
            "http://127.0.0.1:1/callback".into()
        }
        async fn complete(
            self: Box<Self>,
            authorization_url: &str,
            _issuer: &ExpectedIssuer,
        ) -> Result<Answer, AuthFlowError> {
            Ok(Answer {
                callback: format!("{authorization_url}&code=c"),
                issuer: IssuerCheck::NotSent,
            })
        }
    }

    #[tokio::test]
    async fn a_sign_in_names_the_app_whose_request_needed_it() {
        use crate::test_support::{open_broker, RecordingOpener, ScriptedConsent};
        let (broker, store, _dir) = open_broker(
            ScriptedConsent::accepting(),
            RecordingOpener::new(),
            crate::elicitation::BrokerSettings::default(),
        );
        for client in [Some("cursor"), None] {
            let mut gate = SignInGate::new(broker.clone(), "srv");
            gate.app = client.map(str::to_owned);
            let (_, record) = gate
                .round_trip(
                    Box::new(AtOnce),
                    "https://auth.example/authorize?state=s1",
                    None,
                    &ExpectedIssuer {
                        issuer: None,
                        required: false,
                    },
                )
                .await
                .expect("consented");
            let id = record.record_id();
            record.succeeded(None, IssuerCheck::NotSent.as_str());
            let stored = store.elicitation(id).unwrap().expect("recorded");
            assert_eq!(stored.origin, crate::lifecycle::Origin::SignIn);
            assert_eq!(stored.app.as_deref(), client);
            let audit = store.audit_events(Some("srv"), 100).unwrap();
            let created = audit
                .iter()
                .find(|e| e.detail["record_id"] == id && e.detail["state"] == "requested")
                .expect("audited");
            assert_eq!(created.detail["client"].as_str(), client, "{created:?}");
        }
    }

    #[test]
    fn protected_resource_metadata_urls_insert_the_path() {
        let u = Url::parse("https://mcp.example.com/public/mcp/").unwrap();
        assert_eq!(
            protected_resource_metadata_urls(&u),
            vec![
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        let root = Url::parse("https://mcp.example.com").unwrap();
        assert_eq!(
            protected_resource_metadata_urls(&root),
            vec!["https://mcp.example.com/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn authorization_server_metadata_urls_follow_the_spec_order() {
        let t = Url::parse("https://auth.example.com/tenant1").unwrap();
        assert_eq!(
            authorization_server_metadata_urls(&t),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        let root = Url::parse("http://localhost:9000/").unwrap();
        assert_eq!(
            authorization_server_metadata_urls(&root),
            vec![
                "http://localhost:9000/.well-known/oauth-authorization-server",
                "http://localhost:9000/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            legacy_fallback_endpoints(&Url::parse("http://localhost:9000/mcp").unwrap()),
            [
                "http://localhost:9000/authorize",
                "http://localhost:9000/token",
                "http://localhost:9000/register"
            ]
        );
    }

    #[test]
    fn legacy_metadata_must_stay_on_the_server_origin() {
        use rmcp::transport::auth::AuthorizationMetadata;
        let server = Url::parse("http://localhost:9000/mcp").unwrap();
        let mut m: AuthorizationMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "http://localhost:9000/oauth",
            "authorization_endpoint": "http://localhost:9000/oauth/authorize",
            "token_endpoint": "http://localhost:9000/oauth/token",
            "registration_endpoint": "http://localhost:9000/oauth/register"
        }))
        .unwrap();
        assert!(check_same_origin(&server, &m).is_ok());
        m.token_endpoint = "https://evil.example/token".into();
        assert_eq!(
            check_same_origin(&server, &m).unwrap_err().step,
            AuthStep::Discovery
        );
    }

    #[test]
    fn errors_name_the_step_and_a_remedy() {
        let e = AuthFlowError::from_rmcp(
            AuthStep::TokenExchange,
            AuthError::RegistrationFailed("no".into()),
        );
        assert_eq!(e.step, AuthStep::ClientRegistration);
        let text = e.to_string();
        assert!(text.contains("client registration") && text.contains("What to do"));
    }

    #[tokio::test]
    async fn authorization_url_uses_pkce_s256_state_and_resource() {
        use rmcp::transport::auth::{AuthorizationMetadata, OAuthClientConfig};
        let mut manager = AuthorizationManager::new("http://localhost:1/mcp")
            .await
            .unwrap();
        let metadata: AuthorizationMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "http://localhost:2",
            "authorization_endpoint": "http://localhost:2/authorize",
            "token_endpoint": "http://localhost:2/token",
            "code_challenge_methods_supported": ["S256"],
            "response_types_supported": ["code"]
        }))
        .unwrap();
        manager.set_metadata(metadata);
        manager
            .configure_client(OAuthClientConfig::new(
                "client-1",
                "http://127.0.0.1:5/callback",
            ))
            .unwrap();
        let url = manager.get_authorization_url(&["read"]).await.unwrap();
        let parsed = Url::parse(&url).unwrap();
        let q: std::collections::HashMap<_, _> = parsed.query_pairs().into_owned().collect();
        assert_eq!(
            q.get("code_challenge_method").map(String::as_str),
            Some("S256")
        );
        let challenge = q.get("code_challenge").expect("code_challenge");
        assert_eq!(challenge.len(), 43, "base64url SHA-256");
        assert!(browser::state_of(&url).is_some_and(|s| s.len() >= 16));
        assert_eq!(q.get("client_id").map(String::as_str), Some("client-1"));
        assert!(
            q.contains_key("resource"),
            "RFC 8707 resource indicator: {url}"
        );
    }
}
