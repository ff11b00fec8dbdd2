//! Readable reasons from the SDK's errors, and the authorization challenges
//! hidden in them.

use rmcp::service::ClientInitializeError;

pub(super) fn tail_suffix(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("; last stderr: {}", lines.join(" | "))
    }
}

/// A readable reason: the innermost causes, without the SDK's type names.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        let text = strip_type_names(&err.to_string());
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = err.source();
    }
    if parts.is_empty() {
        "the transport failed".into()
    } else {
        parts.join(": ")
    }
}

/// Remove `[rmcp::...<...>]`-style generic type names from an SDK message.
fn strip_type_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if depth == 0 && c == '[' && text.contains("::") {
            // Skip a bracketed type path such as `[rmcp::transport::Worker<..>]`.
            let rest: String = chars.clone().take(6).collect();
            if rest.starts_with("rmcp::") || rest.starts_with("reqwes") {
                depth = 1;
                continue;
            }
        }
        if depth > 0 {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            continue;
        }
        out.push(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `WWW-Authenticate` challenge of a request refused with 403
/// `insufficient_scope` (step-up), anywhere in the error's chain.
pub fn insufficient_scope_challenge(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(StreamableHttpError::InsufficientScope(s)) =
            err.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            return Some(s.www_authenticate_header.clone());
        }
        if let Some(d) = err.downcast_ref::<rmcp::transport::DynamicTransportError>() {
            if let Some(StreamableHttpError::InsufficientScope(s)) = d
                .error
                .downcast_ref::<StreamableHttpError<reqwest::Error>>()
            {
                return Some(s.www_authenticate_header.clone());
            }
        }
        cur = err.source();
    }
    None
}

/// The `WWW-Authenticate` challenge of a handshake that failed with 401.
pub(super) fn auth_challenge(e: &ClientInitializeError) -> Option<String> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match e {
        ClientInitializeError::TransportError { error, .. } => match error
            .error
            .downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            Some(StreamableHttpError::AuthRequired(a)) => Some(a.www_authenticate_header.clone()),
            _ => None,
        },
        _ => None,
    }
}
