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
    /// The person's mark: a few words shown on every consent Airlock draws
    /// (the native dialog, the window's cards), so a dialog drawn by another
    /// program, which cannot know it, can be told apart. Made at the first
    /// start; the person may choose their own in Settings.
    pub consent_mark: String,
    /// The first run's guide (Get started) was finished or skipped.
    pub guide_done: bool,
    /// The window's colours.
    pub theme: Theme,
    /// The MCP registries the Catalog page reads (the official one unless
    /// the person removed it; a company's own beside or instead of it).
    pub registries: Vec<String>,
}

/// Most registries kept in the settings.
pub const MAX_REGISTRIES: usize = 16;

/// The window's colours.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// The system's choice (and its changes).
    #[default]
    System,
    Light,
    Dark,
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
            consent_mark: String::new(),
            guide_done: false,
            theme: Theme::System,
            registries: vec![airlock_core::airlock_catalog::OFFICIAL_REGISTRY.to_owned()],
        }
    }
}

/// Longest mark, in characters.
pub const MAX_MARK_CHARS: usize = 40;

const MARK_COLOURS: [&str; 16] = [
    "amber", "azure", "coral", "crimson", "golden", "indigo", "ivory", "jade", "lilac", "olive",
    "orange", "plum", "ruby", "silver", "teal", "violet",
];
const MARK_THINGS: [&str; 32] = [
    "anchor", "badger", "beacon", "bison", "canyon", "comet", "cedar", "falcon", "fern", "fjord",
    "gecko", "glacier", "harbor", "heron", "island", "kestrel", "lantern", "lynx", "maple",
    "meadow", "otter", "pebble", "pine", "quarry", "raven", "river", "saddle", "summit", "thistle",
    "tundra", "walrus", "willow",
];

/// A new mark: a colour, a thing and a number (16 × 32 × 90 = 46,080
/// marks), from the system's random source.
pub fn new_mark() -> String {
    let mut b = [0u8; 3];
    if getrandom::fill(&mut b).is_err() {
        // No random source: the clock's nanoseconds, still unknown to others.
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        b = [n as u8, (n >> 8) as u8, (n >> 16) as u8];
    }
    format!(
        "{} {} {}",
        MARK_COLOURS[usize::from(b[0]) % MARK_COLOURS.len()],
        MARK_THINGS[usize::from(b[1]) % MARK_THINGS.len()],
        10 + usize::from(b[2]) % 90
    )
}

/// Whether `mark` may be a mark: 1 to [`MAX_MARK_CHARS`] characters, shown
/// as they are (no control, invisible or text-direction character).
pub fn check_mark(mark: &str) -> Result<(), String> {
    let chars = mark.chars().count();
    if mark.trim().is_empty() || chars > MAX_MARK_CHARS {
        return Err(format!(
            "The mark must be 1 to {MAX_MARK_CHARS} characters."
        ));
    }
    if airlock_core::url_safety::neutralize_for_display(mark, MAX_MARK_CHARS) != mark {
        return Err(
            "The mark may not contain control, invisible or text-direction characters.".into(),
        );
    }
    Ok(())
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

    /// [`Settings::load`], and at the first start (no mark yet, or one that
    /// is not valid) a new mark, saved at once so it stays.
    pub fn load_with_mark(data_dir: &Path) -> Settings {
        let mut s = Self::load(data_dir);
        if check_mark(&s.consent_mark).is_err() {
            s.consent_mark = new_mark();
            if let Err(e) = s.save(data_dir) {
                eprintln!("airlock: cannot save the consent mark: {e}");
            }
        }
        s
    }

    /// The same bounds as the CLI's flags ([`airlock_core::limits`]).
    pub fn validate(&self) -> Result<(), String> {
        self.broker().validate()?;
        limits::HISTORY_RETENTION_DAYS.check(u64::from(self.history_retention_days))?;
        if !self.consent_mark.is_empty() {
            check_mark(&self.consent_mark)?;
        }
        if self.registries.len() > MAX_REGISTRIES {
            return Err(format!("at most {MAX_REGISTRIES} registries"));
        }
        for r in &self.registries {
            airlock_core::airlock_catalog::client::registry_base(r).map_err(|e| e.to_string())?;
        }
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

    #[test]
    fn registries_are_https_or_this_computer_and_bounded() {
        let mut s = Settings::default();
        assert_eq!(
            s.registries,
            vec![airlock_core::airlock_catalog::OFFICIAL_REGISTRY.to_owned()]
        );
        s.registries.push("https://registry.corp.example".into());
        s.registries.push("http://127.0.0.1:8080".into());
        s.validate().unwrap();
        s.registries.push("http://registry.corp.example".into());
        assert!(s.validate().is_err(), "plain http to another computer");
        s.registries = vec!["https://r.example".into(); MAX_REGISTRIES + 1];
        assert!(s.validate().is_err());
    }

    #[test]
    fn the_mark_is_made_once_kept_and_checked() {
        let dir = std::env::temp_dir().join(format!("airlock-mark-{}", std::process::id()));
        let first = Settings::load_with_mark(&dir);
        assert!(check_mark(&first.consent_mark).is_ok(), "{first:?}");
        assert_eq!(
            Settings::load_with_mark(&dir).consent_mark,
            first.consent_mark
        );
        let marks: std::collections::HashSet<String> = (0..50).map(|_| new_mark()).collect();
        assert!(marks.len() > 40, "marks differ: {marks:?}");
        let long = "m".repeat(MAX_MARK_CHARS + 1);
        for bad in [
            "   ",
            "a\u{202E}b",
            "x\ny",
            "zero\u{200B}width",
            long.as_str(),
        ] {
            let s = Settings {
                consent_mark: bad.to_owned(),
                ..first.clone()
            };
            assert!(s.save(&dir).is_err(), "{bad:?}");
        }
        let own = Settings {
            consent_mark: "🦊 Oma's garden".to_owned(),
            ..first.clone()
        };
        own.save(&dir).unwrap();
        assert_eq!(
            Settings::load_with_mark(&dir).consent_mark,
            "🦊 Oma's garden"
        );
        first.save(&dir).unwrap();
        assert_eq!(Settings::load(&dir).consent_mark, first.consent_mark);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
