//! Secrets in places that do not look secret: well-known token shapes
//! (GitHub, Slack, OpenAI, Anthropic, AWS, Google, Stripe), credentials in
//! URLs (`user:pass@`, `?api_key=`, `?token=`) and DSNs with a password
//! (`postgresql://u:p@h/db`). Used when a server is added or imported, so
//! such values go to the keychain or the add is refused with what to do.

/// The kind of well-known token `text` contains, if any.
pub fn token_shape(text: &str) -> Option<&'static str> {
    const PREFIXES: &[(&str, usize, &str)] = &[
        // (prefix, shortest body after it, what it is)
        ("github_pat_", 40, "a GitHub token"),
        ("ghp_", 30, "a GitHub token"),
        ("gho_", 30, "a GitHub token"),
        ("ghu_", 30, "a GitHub token"),
        ("ghs_", 30, "a GitHub token"),
        ("ghr_", 30, "a GitHub token"),
        ("glpat-", 20, "a GitLab token"),
        ("xoxb-", 20, "a Slack token"),
        ("xoxp-", 20, "a Slack token"),
        ("xoxa-", 20, "a Slack token"),
        ("xoxr-", 20, "a Slack token"),
        ("xoxs-", 20, "a Slack token"),
        ("sk-ant-", 30, "an Anthropic API key"),
        ("sk-proj-", 30, "an OpenAI API key"),
        ("sk-", 32, "an OpenAI API key"),
        ("sk_live_", 20, "a Stripe secret key"),
        ("rk_live_", 20, "a Stripe key"),
        ("AKIA", 16, "an AWS access key"),
        ("ASIA", 16, "an AWS access key"),
        ("AIza", 35, "a Google API key"),
    ];
    let token_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    for word in text.split(|c: char| !token_char(c)) {
        for (prefix, min_body, what) in PREFIXES {
            if let Some(body) = word.strip_prefix(prefix) {
                let ok = match *prefix {
                    // AWS keys: exactly 16 upper-case letters or digits.
                    "AKIA" | "ASIA" => {
                        body.len() == 16
                            && body
                                .chars()
                                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                    }
                    _ => body.len() >= *min_body,
                };
                if ok {
                    return Some(what);
                }
            }
        }
    }
    None
}

/// Query parameter names that carry a credential.
const SECRET_PARAMS: &[&str] = &[
    "api_key",
    "apikey",
    "api-key",
    "key",
    "token",
    "access_token",
    "auth",
    "auth_token",
    "secret",
    "client_secret",
    "password",
    "pass",
    "pwd",
    "sig",
    "signature",
];

/// What credential a URL carries, in words, if any: a password in its
/// user info, a secret-looking query parameter, or a token shape anywhere.
pub fn url_credential(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    if parsed.password().is_some() {
        return Some("a password in the URL (user:password@)".into());
    }
    if let Some((k, _)) = parsed.query_pairs().find(|(k, v)| {
        !v.is_empty()
            && SECRET_PARAMS.iter().any(|p| {
                k.eq_ignore_ascii_case(p) || k.to_ascii_lowercase().ends_with(&format!("_{p}"))
            })
    }) {
        return Some(format!("a credential in the URL's `{k}` parameter"));
    }
    token_shape(url).map(|what| format!("{what} in the URL"))
}

/// Does `text` hold a URL or DSN with a password (`scheme://user:pass@host`)?
pub fn dsn_with_password(text: &str) -> bool {
    text.split_whitespace().any(|word| {
        word.contains("://")
            && url::Url::parse(word.trim_matches(|c| c == '"' || c == '\''))
                .is_ok_and(|u| u.password().is_some_and(|p| !p.is_empty()))
    })
}

/// Why a plain value looks secret (a token shape, a DSN with a password, a
/// credential in a URL), if it does.
pub fn secret_in_value(value: &str) -> Option<String> {
    if let Some(what) = token_shape(value) {
        return Some(what.to_owned());
    }
    if dsn_with_password(value) {
        return Some("a connection string with a password".to_owned());
    }
    if value.contains("://") {
        return value.split_whitespace().find_map(url_credential);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_tokens_are_found_anywhere() {
        let gh = format!("ghp_{}", "a1B2".repeat(9));
        assert_eq!(token_shape(&gh), Some("a GitHub token"));
        assert_eq!(
            token_shape(&format!("--token={gh}")),
            Some("a GitHub token")
        );
        assert_eq!(
            token_shape("AKIAIOSFODNN7EXAMPLE"),
            Some("an AWS access key")
        );
        assert_eq!(
            token_shape(&format!("Bearer sk-ant-{}", "x".repeat(40))),
            Some("an Anthropic API key")
        );
        assert_eq!(
            token_shape(&format!("xoxb-{}", "1234-".repeat(6))),
            Some("a Slack token")
        );
        assert_eq!(token_shape("sk-short"), None);
        assert_eq!(token_shape("AKIA-not-a-key"), None);
        assert_eq!(token_shape("--port=8080 github"), None);
    }

    #[test]
    fn credentials_in_urls_and_dsns() {
        assert!(url_credential("https://u:p@mcp.example.com/").is_some());
        assert!(url_credential("https://mcp.example.com/?api_key=abc").is_some());
        assert!(url_credential("https://mcp.example.com/sse?token=abc&x=1").is_some());
        assert!(url_credential("https://mcp.example.com/?openai_api_key=abc").is_some());
        assert!(url_credential("https://mcp.example.com/?page=2").is_none());
        assert!(url_credential("https://user@mcp.example.com/").is_none());
        assert!(dsn_with_password("postgresql://app:s3cret@db:5432/prod"));
        assert!(dsn_with_password("--db 'mysql://root:pw@localhost/x'"));
        assert!(!dsn_with_password("postgresql://db:5432/prod"));
        assert!(secret_in_value("redis://:hunter2@cache:6379").is_some());
        assert!(secret_in_value("/usr/bin/node").is_none());
    }
}
