//! Where the secrets of servers moved out of an app's config go: the OS
//! keychain, behind [`SecretVault`] (the shells implement it with the core's
//! keychain), and which values count as secrets, behind [`SecretDetector`]
//! (the core's detector). This crate never writes a secret value to disk:
//! its records keep only a reference.

use std::fmt;

/// Why the vault could not keep or give back a secret, in words a person
/// can act on (the shell's keychain says what to do).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct VaultError(pub String);

/// The OS keychain as this crate sees it: values filed under references
/// this crate makes (`app-config/<app>/<random>`).
pub trait SecretVault: Send + Sync {
    fn store(&self, reference: &str, value: &str) -> Result<(), VaultError>;
    /// The value, or None when the keychain has no such entry.
    fn fetch(&self, reference: &str) -> Result<Option<String>, VaultError>;
    /// Delete; an entry already gone is not an error.
    fn forget(&self, reference: &str) -> Result<(), VaultError>;
}

/// Which values of a moved server are secrets besides its env values (all of
/// which are): a header whose name usually carries one, or a value that
/// looks like a token, a password in a URL, a DSN with a password.
pub trait SecretDetector: Send + Sync {
    fn name_looks_secret(&self, name: &str) -> bool;
    fn value_looks_secret(&self, value: &str) -> bool;
}

/// The vault and the detector a connect or disconnect uses.
#[derive(Clone, Copy)]
pub struct Keeper<'a> {
    pub vault: &'a dyn SecretVault,
    pub detector: &'a dyn SecretDetector,
}

impl fmt::Debug for Keeper<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Keeper")
    }
}

/// A secret value held in memory on its way to or from the vault; its
/// `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(pub(crate) String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// A fresh keychain reference for one secret of `app`: random, so that it
/// says nothing about the value and never collides with an older one.
pub(crate) fn new_reference(app: &str) -> String {
    let mut bytes = [0u8; 12];
    // Without randomness the time and a counter still make it unique.
    if getrandom::fill(&mut bytes).is_err() {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        bytes[..8].copy_from_slice(&(t as u64 ^ n.rotate_left(32)).to_le_bytes());
        bytes[8..].copy_from_slice(&(n as u32).to_le_bytes());
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("app-config/{app}/{hex}")
}

/// Test doubles, named as fakes: an in-memory vault (the real one is the OS
/// keychain, exercised by the CLI's tests under `scripts/with-session.sh`)
/// and a detector with a few fixed rules (the real one is the core's).
pub mod fakes {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use super::{SecretDetector, SecretVault, VaultError};

    /// Secrets in a map in memory; `broken` makes every call fail as a
    /// locked keychain would.
    #[derive(Default)]
    pub struct InMemoryVaultFake {
        values: Mutex<BTreeMap<String, String>>,
        pub broken: bool,
    }

    impl InMemoryVaultFake {
        pub fn len(&self) -> usize {
            self.values.lock().map(|v| v.len()).unwrap_or_default()
        }
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }
        /// Every value held (to check what went in).
        pub fn values(&self) -> Vec<String> {
            self.values
                .lock()
                .map(|v| v.values().cloned().collect())
                .unwrap_or_default()
        }
        /// Drop one entry behind Airlock's back, as a user cleaning the
        /// keychain would.
        pub fn lose(&self, value: &str) {
            if let Ok(mut v) = self.values.lock() {
                v.retain(|_, x| x != value);
            }
        }
        fn check(&self) -> Result<(), VaultError> {
            if self.broken {
                Err(VaultError("the keychain is locked (fake)".into()))
            } else {
                Ok(())
            }
        }
    }

    impl SecretVault for InMemoryVaultFake {
        fn store(&self, reference: &str, value: &str) -> Result<(), VaultError> {
            self.check()?;
            if let Ok(mut v) = self.values.lock() {
                v.insert(reference.to_owned(), value.to_owned());
            }
            Ok(())
        }
        fn fetch(&self, reference: &str) -> Result<Option<String>, VaultError> {
            self.check()?;
            Ok(self
                .values
                .lock()
                .ok()
                .and_then(|v| v.get(reference).cloned()))
        }
        fn forget(&self, reference: &str) -> Result<(), VaultError> {
            self.check()?;
            if let Ok(mut v) = self.values.lock() {
                v.remove(reference);
            }
            Ok(())
        }
    }

    /// Names with TOKEN, KEY, SECRET, PASSWORD or AUTHORIZATION are secret;
    /// values starting `ghp_` or `sk-` are.
    pub struct FixedRulesDetectorFake;

    impl SecretDetector for FixedRulesDetectorFake {
        fn name_looks_secret(&self, name: &str) -> bool {
            let upper = name.to_ascii_uppercase();
            ["TOKEN", "KEY", "SECRET", "PASSWORD", "AUTHORIZATION"]
                .iter()
                .any(|w| upper.contains(w))
        }
        fn value_looks_secret(&self, value: &str) -> bool {
            value.contains("ghp_") || value.contains("sk-")
        }
    }
}
