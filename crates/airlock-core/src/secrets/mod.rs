//! Secrets live in the OS keychain (keyring 3: Secret Service on Linux,
//! Keychain on macOS, Credential Manager on Windows). SQLite keeps only the
//! reference. There is no plaintext fallback: without a keychain, saving a
//! secret fails with an error that says what to do.

pub mod detect;
mod encodings;

use std::fmt;

/// Keychain service name under which every Airlock secret is filed.
pub const KEYCHAIN_SERVICE: &str = "dev.airlock";
/// Longest secret value accepted, in bytes.
pub const MAX_SECRET_BYTES: usize = 16 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("no OS keychain is reachable ({detail}). Airlock keeps secrets only in the OS keychain and never in plain text: on Linux start a Secret Service provider (gnome-keyring or KeePassXC) in your desktop session, then try again")]
    Unavailable { detail: String },
    #[error("the OS keychain is locked or has no default collection ({detail}). Unlock it (log in to your desktop session, or run `gnome-keyring-daemon --unlock`) and try again; Airlock never falls back to plain text")]
    Locked { detail: String },
    #[error("the secret `{reference}` is missing from the OS keychain; enter it again (for example `airlock servers add` with the same name, or edit the server)")]
    Missing { reference: String },
    #[error("the secret is too long ({len} bytes; at most {max})")]
    TooLong { len: usize, max: usize },
    #[error("the OS keychain refused the operation: {0}")]
    Other(String),
}

/// A secret value held in memory only. Its `Debug` never prints the value.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretValue(String);

impl SecretValue {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretValue(<redacted>)")
    }
}

/// Where secret values live. The OS keychain in every shell; tests that do
/// not exercise the keychain itself may use `test_support::InMemoryKeychain`.
pub trait SecretStore: Send + Sync + fmt::Debug {
    fn set(&self, reference: &str, value: &SecretValue) -> Result<(), SecretError>;
    fn get(&self, reference: &str) -> Result<SecretValue, SecretError>;
    /// Delete a secret; a secret that is already gone is not an error.
    fn delete(&self, reference: &str) -> Result<(), SecretError>;
}

/// The secret store Airlock uses, cheap to clone; values are bounded here,
/// whatever the store behind it.
#[derive(Debug, Clone)]
pub struct Keychain {
    store: std::sync::Arc<dyn SecretStore>,
}

impl Default for Keychain {
    fn default() -> Self {
        Self::new(KEYCHAIN_SERVICE)
    }
}

impl Keychain {
    /// The OS keychain, filed under `service`.
    pub fn new(service: impl Into<String>) -> Self {
        Self::with_store(OsKeychain {
            service: service.into(),
        })
    }

    /// Another secret store (tests).
    pub fn with_store(store: impl SecretStore + 'static) -> Self {
        Self {
            store: std::sync::Arc::new(store),
        }
    }

    pub fn set(&self, reference: &str, value: &SecretValue) -> Result<(), SecretError> {
        if value.0.len() > MAX_SECRET_BYTES {
            return Err(SecretError::TooLong {
                len: value.0.len(),
                max: MAX_SECRET_BYTES,
            });
        }
        self.store.set(reference, value)
    }

    pub fn get(&self, reference: &str) -> Result<SecretValue, SecretError> {
        self.store.get(reference)
    }

    /// Delete a secret; a secret that is already gone is not an error.
    pub fn delete(&self, reference: &str) -> Result<(), SecretError> {
        self.store.delete(reference)
    }
}

/// The OS keychain (keyring 3), filed under one service name.
#[derive(Debug, Clone)]
pub struct OsKeychain {
    service: String,
}

fn map_err(e: keyring::Error, reference: &str) -> SecretError {
    match e {
        keyring::Error::NoStorageAccess(inner) => SecretError::Locked {
            detail: inner.to_string(),
        },
        keyring::Error::PlatformFailure(inner) => SecretError::Unavailable {
            detail: inner.to_string(),
        },
        keyring::Error::NoEntry => SecretError::Missing {
            reference: reference.to_owned(),
        },
        other => SecretError::Other(other.to_string()),
    }
}

impl OsKeychain {
    fn entry(&self, reference: &str) -> Result<keyring::Entry, SecretError> {
        keyring::Entry::new(&self.service, reference).map_err(|e| map_err(e, reference))
    }
}

impl SecretStore for OsKeychain {
    fn set(&self, reference: &str, value: &SecretValue) -> Result<(), SecretError> {
        self.entry(reference)?
            .set_password(value.expose())
            .map_err(|e| map_err(e, reference))
    }

    fn get(&self, reference: &str) -> Result<SecretValue, SecretError> {
        self.entry(reference)?
            .get_password()
            .map(SecretValue)
            .map_err(|e| map_err(e, reference))
    }

    fn delete(&self, reference: &str) -> Result<(), SecretError> {
        match self.entry(reference)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(map_err(e, reference)),
        }
    }
}

/// Masks known secret values in text that is about to be stored or shown
/// (a server may echo its own token on stderr).
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    values: Vec<SecretValue>,
}

/// Secrets shorter than this are not masked: masking "1" would shred every log line.
const MIN_REDACT_LEN: usize = 4;
/// Derived forms (encodings, lines of a multi-line secret) shorter than this
/// are not masked on their own: too likely to match ordinary text.
const MIN_FORM_LEN: usize = 8;

impl Redactor {
    pub fn new(values: impl IntoIterator<Item = SecretValue>) -> Self {
        let mut forms: Vec<String> = Vec::new();
        for v in values {
            let v = v.expose();
            if v.len() < MIN_REDACT_LEN {
                continue;
            }
            forms.push(v.to_owned());
            forms.extend(
                encodings::derived_forms(v)
                    .into_iter()
                    .filter(|f| f.len() >= MIN_FORM_LEN && f != v),
            );
        }
        forms.sort();
        forms.dedup();
        // Longest first, so a secret containing another is masked whole.
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        Self {
            values: forms.into_iter().map(SecretValue).collect(),
        }
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for v in &self.values {
            if out.contains(v.expose()) {
                out = out.replace(v.expose(), "[secret redacted]");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_the_value() {
        let v = SecretValue::new("hunter2-token");
        assert!(!format!("{v:?}").contains("hunter2"));
    }

    #[test]
    fn redactor_masks_longest_first_and_skips_tiny_values() {
        let r = Redactor::new([
            SecretValue::new("abcd"),
            SecretValue::new("abcdefgh"),
            SecretValue::new("x"),
        ]);
        assert_eq!(r.redact("t=abcdefgh x"), "t=[secret redacted] x");
        assert_eq!(r.redact("abcd!"), "[secret redacted]!");
    }
}
