//! The words of MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865) that
//! Airlock reads: a leaf, so that the connection (`mcp`), the pins and the
//! gateway name them from one place.

/// The MCP Apps extension (`_meta.ui` on tools, `ui://` resources).
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// `_meta` key of a tool's App settings (`resourceUri`, `visibility`).
pub const UI_META: &str = "ui";
/// The deprecated flat `_meta` key of a tool's App that the TypeScript SDK
/// still writes beside [`UI_META`].
pub const LEGACY_RESOURCE_URI_META: &str = "ui/resourceUri";
/// What an MCP App's HTML is served as.
pub const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";
