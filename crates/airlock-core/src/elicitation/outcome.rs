//! What comes out of the broker: why a request was refused (a typed reason
//! every shell reports in the same words), and the answer to one URL.

use airlock_url_safety::BlockReason;
use serde::Serialize;

use super::ports::{ConsentDecision, UrlConsentRequest};

/// Which rate limit stopped a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RateLimit {
    /// Too many of the server's requests wait for consent at once.
    Pending,
    /// Too many requests from the server in the last minute.
    PerMinute,
    /// Too many requests of all servers are open at once.
    Open,
}

impl RateLimit {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Pending => "too many requests from this server are already waiting for consent; answer or cancel the open ones",
            Self::PerMinute => "too many requests from this server in the last minute",
            Self::Open => "too many requests are open at once",
        }
    }
}

/// Why the broker did not go on with a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// The user said no.
    Declined,
    /// The user dismissed the prompt, or cancelled while waiting.
    Cancelled,
    /// The URL failed inspection; `scheme` when that was the reason.
    Blocked {
        reason: BlockReason,
        scheme: Option<String>,
    },
    /// The server asked too often.
    RateLimited { limit: RateLimit },
    /// The server asked again for a URL the user already went to.
    LoopDetected { url: String },
    /// No completion and no answer by the give-up deadline.
    Expired { after_secs: u64 },
    /// The connection that asked went away.
    ConnectionLost,
    /// History could not be written, so the user was not asked.
    NotRecorded { error: String },
    /// The team's policy refuses pages on this domain (the rule named).
    PolicyDenied { why: String },
}

impl Refusal {
    /// The answer the server gets for an elicitation refused this way.
    pub fn decision(&self) -> ConsentDecision {
        match self {
            Self::Cancelled | Self::ConnectionLost | Self::Expired { .. } => {
                ConsentDecision::Cancel
            }
            _ => ConsentDecision::Decline,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Declined => f.write_str("declined"),
            Self::Cancelled => f.write_str("cancelled"),
            Self::Blocked {
                reason: BlockReason::SchemeNotAllowed,
                scheme: Some(scheme),
            } => write!(
                f,
                "blocked: {scheme}: is not allowed (only https, or http to this computer, can be opened)"
            ),
            Self::Blocked { reason, .. } => write!(f, "blocked: {}", super::view::sentences::block(*reason)),
            Self::RateLimited { limit } => write!(f, "rate-limited: {}", limit.describe()),
            // Never the URL: this text reaches apps through the gateway;
            // the record in Airlock's history has it.
            Self::LoopDetected { .. } => f.write_str(
                "loop detected: the server asked again for the same page after a retry (its address is in Airlock's history)",
            ),
            Self::Expired { after_secs } => {
                write!(f, "expired: no completion within {after_secs} s")
            }
            Self::ConnectionLost => f.write_str("connection lost while waiting"),
            Self::NotRecorded { error } => write!(
                f,
                "not asked: the request could not be recorded in history ({error})"
            ),
            Self::PolicyDenied { why } => write!(f, "not asked: {why}"),
        }
    }
}

/// The answer to one URL: what the user consented to, or why not.
#[derive(Debug, Clone)]
pub struct UrlOutcome {
    /// The history record (absent only when it could not be written).
    pub record_id: Option<i64>,
    /// What the user was shown and accepted, or why the broker stopped.
    pub result: Result<UrlConsentRequest, Refusal>,
}

impl UrlOutcome {
    /// The answer for the server: accept means consent, not completion.
    pub fn decision(&self) -> ConsentDecision {
        match &self.result {
            Ok(_) => ConsentDecision::Accept,
            Err(r) => r.decision(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_says_why_in_words() {
        let js = Refusal::Blocked {
            reason: BlockReason::SchemeNotAllowed,
            scheme: Some("javascript".into()),
        };
        assert!(js
            .to_string()
            .starts_with("blocked: javascript: is not allowed"));
        let http = Refusal::Blocked {
            reason: BlockReason::InsecureScheme,
            scheme: Some("http".into()),
        };
        assert!(http.to_string().contains("unencrypted http"), "{http}");
        assert_eq!(Refusal::Declined.to_string(), "declined");
        assert!(Refusal::RateLimited {
            limit: RateLimit::PerMinute
        }
        .to_string()
        .starts_with("rate-limited: "));
        let looped = Refusal::LoopDetected {
            url: "https://secret.example/page".into(),
        }
        .to_string();
        assert!(looped.contains("asked again for the same page"), "{looped}");
        // The text reaches apps through the gateway: never the address.
        assert!(!looped.contains("secret.example"), "{looped}");
        assert!(Refusal::Expired { after_secs: 2 }
            .to_string()
            .contains("no completion within 2 s"));
    }

    #[test]
    fn the_server_hears_decline_or_cancel() {
        assert_eq!(Refusal::Declined.decision(), ConsentDecision::Decline);
        assert_eq!(
            Refusal::RateLimited {
                limit: RateLimit::Pending
            }
            .decision(),
            ConsentDecision::Decline
        );
        assert_eq!(Refusal::Cancelled.decision(), ConsentDecision::Cancel);
    }
}
