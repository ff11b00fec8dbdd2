//! airlock-apps' keychain and secret detector over the core's, for every
//! surface that connects an app's own MCP config (the CLI's `airlock apps
//! connect|disconnect`, the window's Apps page): the secrets of servers
//! moved out of an app's config go to the OS keychain (Airlock's service,
//! `app-config/...` references), and "looks secret" means what it means
//! when a server is added.
//!
//! ```ignore
//! let change = airlock_apps::plan_connect(app, &places, &program, true, app_configs::keeper());
//! ```

use std::sync::LazyLock;

use airlock_apps::{Keeper, SecretDetector, SecretVault, VaultError};

use crate::secrets::{Keychain, SecretError, SecretValue};

/// The OS keychain, as airlock-apps' vault.
pub struct KeychainVault(pub Keychain);

impl SecretVault for KeychainVault {
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

/// "Looks secret" as when a server is added.
pub struct CoreDetector;

impl SecretDetector for CoreDetector {
    fn name_looks_secret(&self, name: &str) -> bool {
        crate::servers::looks_secret(name)
    }
    fn value_looks_secret(&self, value: &str) -> bool {
        crate::secrets::detect::secret_in_value(value).is_some()
    }
}

static VAULT: LazyLock<KeychainVault> = LazyLock::new(|| KeychainVault(Keychain::default()));

/// The OS keychain and the core's detector.
pub fn keeper() -> Keeper<'static> {
    Keeper {
        vault: &*VAULT,
        detector: &CoreDetector,
    }
}
