//! Desktop settings, kept as a small JSON file in the data dir (written
//! atomically). Deadlines, limits and the URL policy take effect at once.

use std::path::{Path, PathBuf};
use std::time::Duration;

use airlock_core::elicitation::BrokerSettings;
use airlock_core::limits;
use airlock_core::url_safety::Policy;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub const SETTINGS_FILE: &str = "desktop-settings.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct Settings {
    /// Seconds after which an accepted elicitation without completion is late.
    pub late_after_secs: u32,
    /// Seconds after which Airlock stops waiting for a completion.
    pub give_up_after_secs: u32,
    /// URL elicitations of one server waiting for consent at once.
    pub max_pending_per_server: u32,
    /// URL elicitations one server may start per minute.
    pub max_per_minute: u32,
    /// Desktop notifications for elicitations that arrive while the window is not focused.
    pub notifications: bool,
    /// Closing the window keeps Airlock running in the tray.
    pub keep_running_in_tray: bool,
    /// Days of history kept (0 = forever).
    pub history_retention_days: u32,
    /// Allow http:// to loopback hosts (local development), with warnings.
    pub allow_http_loopback: bool,
    /// "Start Airlock at login" was offered (once, after the first app was connected).
    pub autostart_offered: bool,
}

fn default_u32(b: limits::Bound) -> u32 {
    u32::try_from(b.default).unwrap_or(u32::MAX)
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            late_after_secs: default_u32(limits::LATE_AFTER_SECS),
            give_up_after_secs: default_u32(limits::GIVE_UP_AFTER_SECS),
            max_pending_per_server: default_u32(limits::MAX_PENDING_PER_SERVER),
            max_per_minute: default_u32(limits::MAX_PER_MINUTE),
            notifications: true,
            keep_running_in_tray: true,
            history_retention_days: default_u32(limits::HISTORY_RETENTION_DAYS),
            allow_http_loopback: true,
            autostart_offered: false,
        }
    }
}

impl Settings {
    fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(SETTINGS_FILE)
    }

    /// Read the settings; a missing or unreadable file gives the defaults.
    pub fn load(data_dir: &Path) -> Settings {
        std::fs::read_to_string(Self::path(data_dir))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// The same bounds as the CLI's flags ([`airlock_core::limits`]).
    pub fn validate(&self) -> Result<(), String> {
        self.broker().validate()?;
        limits::HISTORY_RETENTION_DAYS.check(u64::from(self.history_retention_days))?;
        Ok(())
    }

    /// Write atomically: a crash leaves the old file or the new one, never half.
    pub fn save(&self, data_dir: &Path) -> Result<(), String> {
        self.validate()?;
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        let tmp = data_dir.join(format!("{SETTINGS_FILE}.tmp"));
        std::fs::create_dir_all(data_dir).map_err(|e| e.to_string())?;
        std::fs::write(&tmp, text).map_err(|e| format!("cannot write settings: {e}"))?;
        std::fs::rename(&tmp, Self::path(data_dir))
            .map_err(|e| format!("cannot save settings: {e}"))
    }

    pub fn broker(&self) -> BrokerSettings {
        BrokerSettings {
            policy: Policy {
                allow_http_loopback: self.allow_http_loopback,
            },
            max_pending_per_server: self.max_pending_per_server as usize,
            max_per_minute: self.max_per_minute as usize,
            late_after: Duration::from_secs(u64::from(self.late_after_secs)),
            give_up_after: Duration::from_secs(u64::from(self.give_up_after_secs)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_bounds() {
        let dir = std::env::temp_dir().join(format!("airlock-settings-{}", std::process::id()));
        let mut s = Settings {
            late_after_secs: 30,
            ..Settings::default()
        };
        s.save(&dir).unwrap();
        assert_eq!(Settings::load(&dir), s);
        s.late_after_secs = 0;
        assert!(s.save(&dir).is_err());
        assert_eq!(
            Settings::load(&dir).late_after_secs,
            30,
            "a refused save changes nothing"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
