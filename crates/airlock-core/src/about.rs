//! What this build of Airlock is: its version and the MCP protocol revisions
//! it speaks. The one source for `airlock --version`, the window's About and
//! the handshake itself.

use rmcp::model::ProtocolVersion;

/// Airlock's version: the workspace's `version` (every crate shares it, and
/// the packages built by `scripts/package.sh` carry it too).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The MCP protocol revisions Airlock negotiates, newest (preferred) first:
/// 2026-07-28 through discovery, 2025-11-25 through `initialize`.
pub static PROTOCOL_REVISIONS: [ProtocolVersion; 2] =
    [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25];

/// [`PROTOCOL_REVISIONS`] as text, newest first.
pub fn protocol_revisions() -> Vec<&'static str> {
    PROTOCOL_REVISIONS.iter().map(|v| v.as_str()).collect()
}

/// One line for `--version` and About: `0.1.0 (MCP 2026-07-28, 2025-11-25)`.
pub fn version_line() -> String {
    format!("{VERSION} (MCP {})", protocol_revisions().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_line_names_the_version_and_every_revision() {
        assert_eq!(protocol_revisions(), ["2026-07-28", "2025-11-25"]);
        assert_eq!(
            version_line(),
            format!("{VERSION} (MCP 2026-07-28, 2025-11-25)")
        );
    }
}
