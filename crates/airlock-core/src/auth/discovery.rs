//! Where the OAuth metadata of a server lives (RFC 9728, RFC 8414, OpenID
//! discovery) and the 2025-03-26 fallbacks, with the same-origin checks.

use url::Url;

use super::{AuthFlowError, AuthStep};

fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

fn trimmed_path(url: &Url) -> &str {
    url.path().trim_end_matches('/')
}

/// Where protected resource metadata of an MCP server is looked for (RFC
/// 9728 §3.1, MCP 2025-11-25): path-suffixed well-known URL first, then the
/// origin's. A `resource_metadata` URL from the challenge comes before both.
pub fn protected_resource_metadata_urls(server_url: &Url) -> Vec<String> {
    let base = format!(
        "{}/.well-known/oauth-protected-resource",
        origin(server_url)
    );
    let path = trimmed_path(server_url);
    if path.is_empty() {
        vec![base]
    } else {
        vec![format!("{base}{path}"), base]
    }
}

/// Where authorization server metadata of an issuer is looked for, in
/// order (MCP 2025-11-25): RFC 8414 with path insertion, OpenID Connect
/// discovery with path insertion, OpenID Connect discovery with the path
/// appended; for an issuer without a path, RFC 8414 then OpenID.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<String> {
    let o = origin(issuer);
    let path = trimmed_path(issuer);
    if path.is_empty() {
        vec![
            format!("{o}/.well-known/oauth-authorization-server"),
            format!("{o}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{o}/.well-known/oauth-authorization-server{path}"),
            format!("{o}/.well-known/openid-configuration{path}"),
            format!("{o}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// 2025-03-26 fallback endpoints for a server without any metadata: the
/// authorization base URL is the MCP server URL with its path removed.
pub fn legacy_fallback_endpoints(server_url: &Url) -> [String; 3] {
    let o = origin(server_url);
    [
        format!("{o}/authorize"),
        format!("{o}/token"),
        format!("{o}/register"),
    ]
}

pub(super) fn legacy_allowed(server_url: &Url) -> bool {
    matches!(server_url.scheme(), "https" | "http")
}

/// 2025-03-26 discovery of a server without protected resource metadata:
/// RFC 8414 metadata at `<server origin>/.well-known/oauth-authorization-server`.
/// Its `issuer` need not match that URL (servers of that era put the
/// authorization server under a path), so it is accepted only when the
/// authorization and token endpoints are on the MCP server's own origin:
/// the server vouches for nothing beyond itself.
pub async fn legacy_same_origin_metadata(
    server_url: &Url,
) -> Result<rmcp::transport::auth::AuthorizationMetadata, AuthFlowError> {
    let step = |d: String| AuthFlowError::new(AuthStep::Discovery, d);
    let at = format!(
        "{}/.well-known/oauth-authorization-server",
        origin(server_url)
    );
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(15))
        .build()
        .map_err(|e| step(e.to_string()))?;
    let response = client
        .get(&at)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| step(format!("GET {at}: {e}")))?;
    if !response.status().is_success() {
        return Err(step(format!("GET {at} answered {}", response.status())));
    }
    let body = response
        .text()
        .await
        .map_err(|e| step(format!("GET {at}: {e}")))?;
    let metadata: rmcp::transport::auth::AuthorizationMetadata = serde_json::from_str(&body)
        .map_err(|e| step(format!("{at} is not authorization server metadata: {e}")))?;
    check_same_origin(server_url, &metadata)?;
    Ok(metadata)
}

/// The endpoints of legacy metadata must live on the MCP server's origin.
pub fn check_same_origin(
    server_url: &Url,
    metadata: &rmcp::transport::auth::AuthorizationMetadata,
) -> Result<(), AuthFlowError> {
    let mine = origin(server_url);
    let endpoints = [
        Some(metadata.authorization_endpoint.as_str()),
        Some(metadata.token_endpoint.as_str()),
        metadata.registration_endpoint.as_deref(),
    ];
    for e in endpoints.into_iter().flatten() {
        let same = Url::parse(e).map(|u| origin(&u) == mine).unwrap_or(false);
        if !same {
            return Err(AuthFlowError::new(
                AuthStep::Discovery,
                format!("the server's metadata names the endpoint {e} on another origin and an issuer that does not match where it was found; Airlock does not trust it"),
            ));
        }
    }
    Ok(())
}
