//! Who answered the sign-in: the authorization response's `iss` (RFC 9207,
//! required of clients by MCP 2026-07-28, "Authorization Response
//! Validation") against the issuer of the authorization server the flow
//! was sent to, checked before the code goes to any token endpoint.
//!
//! Airlock's rule, the specification's table:
//!
//! | metadata advertises `iss` | `iss` in the answer | Airlock            |
//! |---------------------------|---------------------|--------------------|
//! | yes                       | present             | must equal exactly |
//! | yes                       | absent              | refused            |
//! | no                        | present             | must equal exactly |
//! | no                        | absent              | accepted           |
//!
//! The last row is a choice (RFC 9207 §2.4 leaves it to local policy). Many
//! authorization servers in use send no `iss` and do not claim to, and
//! refusing them would lock users out of those servers for no gain against
//! an attacker who controls neither of the honest server's answers. Such a
//! sign-in still has a `state` and a PKCE verifier of its own, a loopback
//! listener of its own on a random port that ignores any other answer, and
//! the consent that shows the sign-in page's domain (and the token
//! endpoint's, when it differs); the record and the audit trail say that
//! the answer did not name its issuer ("not sent"), so a later review can
//! tell such sign-ins apart.
//!
//! Comparison is exact (simple string comparison, RFC 3986 §6.2.1): no case
//! folding, no default-port or trailing-slash removal, no percent-decoding
//! beyond the one of the query string, as the specification requires.

use airlock_url_safety::neutralize_for_display;
use rmcp::transport::auth::AuthorizationMetadata;

/// Most characters of an issuer shown in an error or the audit trail (a
/// hostile answer's `iss` can be up to the redirect's own bound, 8 KiB).
pub const MAX_ISSUER_DISPLAY_CHARS: usize = 200;

/// The metadata field by which an authorization server promises to name
/// itself in every authorization response (RFC 9207 §3).
pub const ISS_SUPPORTED_FIELD: &str = "authorization_response_iss_parameter_supported";

/// What a flow expects the answer to say about its issuer: recorded before
/// the browser opens, from the validated metadata of the authorization
/// server the request is sent to, and kept with that flow's `state`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedIssuer {
    /// The metadata's `issuer`; `None` for a server that published none
    /// (2025-03-26 default endpoints).
    pub issuer: Option<String>,
    /// The metadata says `authorization_response_iss_parameter_supported: true`.
    pub required: bool,
}

impl ExpectedIssuer {
    pub fn from_metadata(metadata: &AuthorizationMetadata) -> Self {
        Self {
            issuer: metadata.issuer.clone(),
            required: metadata
                .additional_fields
                .get(ISS_SUPPORTED_FIELD)
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        }
    }
}

/// How the answer's issuer was found (recorded with the sign-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssuerCheck {
    /// The answer named the expected issuer.
    Confirmed,
    /// The answer named none, and the server never promised to.
    NotSent,
}

impl IssuerCheck {
    /// The word in the record and the audit trail.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Confirmed => "confirmed",
            Self::NotSent => "not sent",
        }
    }
}

/// An answer refused because it is not from the authorization server the
/// flow was sent to. The issuers in it are plain text, bounded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MixUp {
    #[error("Airlock sent you to sign in at the authorization server \"{expected}\", but the answer came back naming \"{received}\"; Airlock refused it (this is how one server's authorization server would collect a sign-in meant for another, a mix-up attack) and sent the code nowhere")]
    OtherIssuer { expected: String, received: String },
    #[error("the authorization server \"{expected}\" promises to name itself in every answer (RFC 9207), but this answer named no issuer; Airlock refused it (it may come from another authorization server, a mix-up attack) and sent the code nowhere")]
    NoIssuer { expected: String },
    #[error("the answer names the authorization server \"{received}\", but the one Airlock sent you to published no issuer to compare it with; Airlock refused it and sent the code nowhere")]
    Unverifiable { received: String },
}

impl MixUp {
    /// The issuer the flow expected, if it had one (plain text).
    pub fn expected(&self) -> Option<&str> {
        match self {
            Self::OtherIssuer { expected, .. } | Self::NoIssuer { expected } => Some(expected),
            Self::Unverifiable { .. } => None,
        }
    }

    /// The issuer the answer named, if any (plain text, bounded).
    pub fn received(&self) -> Option<&str> {
        match self {
            Self::OtherIssuer { received, .. } | Self::Unverifiable { received } => Some(received),
            Self::NoIssuer { .. } => None,
        }
    }

    /// The word in the audit trail.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::OtherIssuer { .. } => "other_issuer",
            Self::NoIssuer { .. } => "no_issuer",
            Self::Unverifiable { .. } => "unverifiable",
        }
    }
}

/// An issuer as plain text: control and invisible characters made visible,
/// at most [`MAX_ISSUER_DISPLAY_CHARS`].
pub fn display_issuer(issuer: &str) -> String {
    neutralize_for_display(issuer, MAX_ISSUER_DISPLAY_CHARS)
}

/// Check the answer's `iss` (already decoded from the query string) against
/// what the flow expects.
pub fn check(expected: &ExpectedIssuer, received: Option<&str>) -> Result<IssuerCheck, MixUp> {
    match (expected.issuer.as_deref(), received) {
        (Some(want), Some(got)) if want == got => Ok(IssuerCheck::Confirmed),
        (Some(want), Some(got)) => Err(MixUp::OtherIssuer {
            expected: display_issuer(want),
            received: display_issuer(got),
        }),
        (Some(want), None) if expected.required => Err(MixUp::NoIssuer {
            expected: display_issuer(want),
        }),
        (None, Some(got)) => Err(MixUp::Unverifiable {
            received: display_issuer(got),
        }),
        // A server without metadata `issuer` cannot promise `iss` either.
        (Some(_) | None, None) => Ok(IssuerCheck::NotSent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(issuer: Option<&str>, required: bool) -> ExpectedIssuer {
        ExpectedIssuer {
            issuer: issuer.map(str::to_owned),
            required,
        }
    }

    /// The specification's four rows, and the server without an issuer.
    #[test]
    fn the_table_of_the_specification() {
        let honest = "https://as.honest.example";
        for required in [true, false] {
            let e = expect(Some(honest), required);
            assert_eq!(check(&e, Some(honest)), Ok(IssuerCheck::Confirmed));
            assert!(matches!(
                check(&e, Some("https://as.hostile.example")),
                Err(MixUp::OtherIssuer { .. })
            ));
        }
        assert!(matches!(
            check(&expect(Some(honest), true), None),
            Err(MixUp::NoIssuer { .. })
        ));
        assert_eq!(
            check(&expect(Some(honest), false), None),
            Ok(IssuerCheck::NotSent)
        );
        assert_eq!(check(&expect(None, false), None), Ok(IssuerCheck::NotSent));
        assert!(matches!(
            check(&expect(None, false), Some(honest)),
            Err(MixUp::Unverifiable { .. })
        ));
    }

    /// Simple string comparison: no normalisation of any kind.
    #[test]
    fn comparison_is_exact() {
        let e = expect(Some("https://as.example/tenant"), false);
        for near in [
            "https://as.example/tenant/",
            "HTTPS://as.example/tenant",
            "https://AS.example/tenant",
            "https://as.example:443/tenant",
            "https://as.example/%74enant",
            "https://as.example/tenant ",
            "",
        ] {
            assert!(check(&e, Some(near)).is_err(), "{near:?} was accepted");
        }
    }

    /// Both issuers are named as plain text, bounded, in the error.
    #[test]
    fn the_error_names_both_issuers_as_plain_text() {
        let e = expect(Some("https://as.honest.example"), true);
        let hostile = format!(
            "https://as.hostile.example\n\u{202e}elpmaxe.tsurt{}",
            "x".repeat(5000)
        );
        let err = check(&e, Some(&hostile)).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("\"https://as.honest.example\""), "{text}");
        assert!(text.contains("https://as.hostile.example"), "{text}");
        assert!(!text.contains('\n') && !text.contains('\u{202e}'), "{text}");
        let received = err.received().unwrap();
        assert!(
            received.chars().count() <= MAX_ISSUER_DISPLAY_CHARS,
            "{received}"
        );
        // At the bound: an issuer of exactly the bound is shown whole.
        let exact = "a".repeat(MAX_ISSUER_DISPLAY_CHARS);
        let err = check(&e, Some(&exact)).unwrap_err();
        assert_eq!(err.received(), Some(exact.as_str()));
        assert_eq!(err.expected(), Some("https://as.honest.example"));
        assert_eq!(err.kind(), "other_issuer");
    }

    #[test]
    fn read_from_the_metadata() {
        let m: AuthorizationMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example",
            "authorization_endpoint": "https://as.example/authorize",
            "token_endpoint": "https://as.example/token",
            "authorization_response_iss_parameter_supported": true
        }))
        .unwrap();
        assert_eq!(
            ExpectedIssuer::from_metadata(&m),
            expect(Some("https://as.example"), true)
        );
        let mut m = m;
        m.additional_fields
            .insert(ISS_SUPPORTED_FIELD.into(), serde_json::json!("true"));
        assert!(
            !ExpectedIssuer::from_metadata(&m).required,
            "only a JSON true is a promise"
        );
    }
}
