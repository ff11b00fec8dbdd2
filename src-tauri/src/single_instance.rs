//! One Airlock window per user (and, on Linux, per data dir): a second
//! launch brings the running one forward and exits
//! (tauri-plugin-single-instance), so one process owns the data dir.
//!
//! - **Linux**: a name on the session bus per data dir
//!   (`dev.airlock.desktop.d<hash>`), so runs with another
//!   `AIRLOCK_DATA_DIR` (tests) are separate instances.
//! - **Windows**: the plugin's named mutex and message window, named after
//!   the app's identifier: one window per user session whatever the data
//!   dir.
//! - **macOS**: the plugin's socket, named after the identifier, likewise.
//!
//! Whatever the platform, the data dir's own lock (the gateway's
//! `gateway.lock`, airlock_platform::process_lock) still lets one host
//! serve it.

use tauri::{plugin::TauriPlugin, AppHandle, Wry};

/// The plugin; `on_second_launch` gets the second launch's arguments.
pub fn plugin(
    on_second_launch: impl Fn(&AppHandle, Vec<String>) + Send + Sync + 'static,
) -> TauriPlugin<Wry> {
    let builder = tauri_plugin_single_instance::Builder::new()
        .callback(move |app, argv, _cwd| on_second_launch(app, argv));
    imp::name(builder).build()
}

#[cfg(target_os = "linux")]
mod imp {
    /// The name on the session bus: one Airlock per data dir.
    pub(super) fn name(
        builder: tauri_plugin_single_instance::Builder<tauri::Wry>,
    ) -> tauri_plugin_single_instance::Builder<tauri::Wry> {
        builder.dbus_id(bus_name(&airlock_core::paths::resolve_data_dir(None)))
    }

    fn bus_name(data_dir: &std::path::Path) -> String {
        // FNV-1a: stable across builds, and only [0-9a-f] (D-Bus name rules).
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in data_dir.as_os_str().as_encoded_bytes() {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        format!("dev.airlock.desktop.d{hash:016x}")
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    /// The plugin's own name from the app's identifier.
    pub(super) fn name(
        builder: tauri_plugin_single_instance::Builder<tauri::Wry>,
    ) -> tauri_plugin_single_instance::Builder<tauri::Wry> {
        builder
    }
}
