//! What the window's web view costs in memory, per platform.
//!
//! - **Linux** (WebKitGTK): GPU compositing off. Airlock's own page is
//!   light; compositing costs about 70 MB here for nothing (measured by
//!   scripts/bench-desktop.sh). A user who sets
//!   `WEBKIT_DISABLE_COMPOSITING_MODE` keeps their choice.
//! - **Windows** (WebView2) and **macOS** (WKWebView): the system's
//!   defaults; neither has this switch.

/// Call first thing in `main`, before any thread starts.
pub fn tune() {
    imp::tune()
}

#[cfg(target_os = "linux")]
mod imp {
    pub(super) fn tune() {
        if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
            std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn tune() {}
}
