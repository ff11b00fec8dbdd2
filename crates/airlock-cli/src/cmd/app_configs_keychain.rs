//! airlock-apps' keychain and secret detector, over the core's: the
//! secrets of servers moved out of an app's config go to the OS keychain
//! (Airlock's service, `app-config/...` references), and "looks secret"
//! means what it means when a server is added.

use airlock_apps::{Keeper, SecretDetector, SecretVault, VaultError};
use airlock_core::secrets::{Keychain, SecretError, SecretValue};

pub(crate) struct CoreVault(pub(crate) Keychain);

impl SecretVault for CoreVault {
    fn store(&self, reference: &str, value: &str) -> Result<(), VaultError> {
        self.0
            .set(reference, &SecretValue::new(value))
            .map_err(|e| VaultError(e.to_string()))
    }
    fn fetch(&self, reference: &str) -> Result<Option<String>, VaultError> {
        match self.0.get(reference) {
            Ok(v) => Ok(Some(v.expose().to_owned())),
            Err(SecretError::Missing { .. }) => Ok(None),
            Err(e) => Err(VaultError(e.to_string())),
        }
    }
    fn forget(&self, reference: &str) -> Result<(), VaultError> {
        self.0
            .delete(reference)
            .map_err(|e| VaultError(e.to_string()))
    }
}

pub(crate) struct CoreDetector;

impl SecretDetector for CoreDetector {
    fn name_looks_secret(&self, name: &str) -> bool {
        airlock_core::servers::looks_secret(name)
    }
    fn value_looks_secret(&self, value: &str) -> bool {
        airlock_core::secrets::detect::secret_in_value(value).is_some()
    }
}

/// The OS keychain and the core's detector, for one command.
pub(crate) fn with_keeper<T>(f: impl FnOnce(Keeper<'_>) -> T) -> T {
    let vault = CoreVault(Keychain::default());
    f(Keeper {
        vault: &vault,
        detector: &CoreDetector,
    })
}
