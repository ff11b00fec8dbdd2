//! The apps Airlock can connect, where each keeps its MCP config on Linux,
//! and the shape of its entries.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::Serialize;

use crate::Places;

/// An app whose MCP config file Airlock knows how to edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AppId {
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    Vscode,
    Windsurf,
    Goose,
    Zed,
    LmStudio,
}

/// Every supported app, in the order the CLI and the window list them.
pub const ALL_APPS: [AppId; 8] = [
    AppId::ClaudeDesktop,
    AppId::ClaudeCode,
    AppId::Cursor,
    AppId::Vscode,
    AppId::Windsurf,
    AppId::Goose,
    AppId::Zed,
    AppId::LmStudio,
];

/// How an app's config file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Strict JSON, servers under `key` (`mcpServers`), entries
    /// `{command, args}` (with `"type": "stdio"` when `typed`).
    Json { key: &'static str, typed: bool },
    /// JSON with comments and trailing commas (VS Code `servers`, Zed
    /// `context_servers`), kept as the user wrote them.
    Jsonc { key: &'static str, typed: bool },
    /// Goose's YAML: `extensions: {name: {type: stdio, cmd, args, ...}}`.
    GooseYaml,
}

impl AppId {
    /// The id used on the command line and in `--client`.
    pub fn as_str(self) -> &'static str {
        match self {
            AppId::ClaudeDesktop => "claude-desktop",
            AppId::ClaudeCode => "claude-code",
            AppId::Cursor => "cursor",
            AppId::Vscode => "vscode",
            AppId::Windsurf => "windsurf",
            AppId::Goose => "goose",
            AppId::Zed => "zed",
            AppId::LmStudio => "lm-studio",
        }
    }

    /// The app's name as people write it.
    pub fn display_name(self) -> &'static str {
        match self {
            AppId::ClaudeDesktop => "Claude Desktop",
            AppId::ClaudeCode => "Claude Code",
            AppId::Cursor => "Cursor",
            AppId::Vscode => "VS Code",
            AppId::Windsurf => "Windsurf",
            AppId::Goose => "Goose",
            AppId::Zed => "Zed",
            AppId::LmStudio => "LM Studio",
        }
    }

    pub(crate) fn format(self) -> Format {
        match self {
            AppId::ClaudeCode => Format::Json {
                key: "mcpServers",
                typed: true,
            },
            AppId::ClaudeDesktop | AppId::Cursor | AppId::Windsurf | AppId::LmStudio => {
                Format::Json {
                    key: "mcpServers",
                    typed: false,
                }
            }
            AppId::Vscode => Format::Jsonc {
                key: "servers",
                typed: true,
            },
            AppId::Zed => Format::Jsonc {
                key: "context_servers",
                typed: false,
            },
            AppId::Goose => Format::GooseYaml,
        }
    }

    /// The user-level MCP config file of the app on this machine (Linux
    /// paths; `$XDG_CONFIG_HOME` defaults to `$HOME/.config`).
    pub fn config_path(self, places: &Places) -> PathBuf {
        let home = &places.home;
        let config = places.config_home();
        match self {
            AppId::ClaudeDesktop => config.join("Claude").join("claude_desktop_config.json"),
            AppId::ClaudeCode => home.join(".claude.json"),
            AppId::Cursor => home.join(".cursor").join("mcp.json"),
            AppId::Vscode => config.join("Code").join("User").join("mcp.json"),
            AppId::Windsurf => home
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            AppId::Goose => config.join("goose").join("config.yaml"),
            AppId::Zed => config.join("zed").join("settings.json"),
            AppId::LmStudio => home.join(".lmstudio").join("mcp.json"),
        }
    }

    /// Whether the app looks installed for this user: its config file or
    /// the folder that holds it exists.
    pub fn detected(self, places: &Places) -> bool {
        let path = self.config_path(places);
        path.exists()
            || path
                .parent()
                .is_some_and(|dir| dir.is_dir() && dir != places.home)
    }
}

impl fmt::Display for AppId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An app id that is not one of [`ALL_APPS`].
#[derive(Debug, thiserror::Error)]
#[error("unknown app {0:?}; known apps: claude-desktop, claude-code, cursor, vscode, windsurf, goose, zed, lm-studio")]
pub struct UnknownApp(pub String);

impl FromStr for AppId {
    type Err = UnknownApp;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ALL_APPS
            .into_iter()
            .find(|app| app.as_str() == s)
            .ok_or_else(|| UnknownApp(s.to_owned()))
    }
}
