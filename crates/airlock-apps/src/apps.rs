//! The apps Airlock can connect, where each keeps its MCP config (on Linux,
//! Windows and macOS: the four whose folder differs are in
//! crate::config_places),
//! the format of that file and the shape of an entry, each from the app's
//! own documentation or source (cited beside it; the shapes of the apps on
//! npm were also checked against what their own `mcp add` writes, with the
//! versions pinned in tests/apps/package.json).

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
    GeminiCli,
    CodexCli,
    Opencode,
    QwenCode,
    CopilotCli,
    Continue,
    Cline,
    Kiro,
    AmazonQ,
}

/// Every supported app, in the order the CLI and the window list them.
pub const ALL_APPS: [AppId; 17] = [
    AppId::ClaudeDesktop,
    AppId::ClaudeCode,
    AppId::Cursor,
    AppId::Vscode,
    AppId::Windsurf,
    AppId::Goose,
    AppId::Zed,
    AppId::LmStudio,
    AppId::GeminiCli,
    AppId::CodexCli,
    AppId::Opencode,
    AppId::QwenCode,
    AppId::CopilotCli,
    AppId::Continue,
    AppId::Cline,
    AppId::Kiro,
    AppId::AmazonQ,
];

/// How an app's config file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// JSON, servers under `key`; `lenient`: comments and trailing commas
    /// allowed (and kept).
    Json { key: &'static str, lenient: bool },
    /// TOML, one table per server under `key` (Codex).
    Toml { key: &'static str },
    /// YAML, a mapping of servers under `key` (Goose).
    YamlMap { key: &'static str },
    /// YAML, a list of servers with a `name` under `key` (Continue);
    /// `new_file` starts a file that does not exist yet.
    YamlList {
        key: &'static str,
        new_file: &'static str,
    },
}

/// The shape of one stdio server entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `{command, args}`.
    Plain,
    /// `{type: <kind>, command, args}`.
    Typed(&'static str),
    /// Claude Code: `{type: "stdio", command, args, env: {}}`.
    ClaudeCode,
    /// GitHub Copilot CLI: `{type: "local", command, args, tools: ["*"]}`.
    Copilot,
    /// Goose: `{enabled, type: stdio, name, description, cmd, args, envs, env_keys, timeout}`.
    Goose,
    /// opencode: `{type: "local", command: [program, args...], enabled: true}`.
    Opencode,
    /// Continue: `{name, command, args}` (an item of a list).
    Continue,
    /// Cline's CLI: `{transport: {type: "stdio", command, args}}`.
    Cline,
    /// Codex: `{command, args, tool_timeout_sec}`.
    Codex,
    /// Amazon Q Developer CLI: `{command, args, timeout}` (milliseconds).
    AmazonQ,
}

impl AppId {
    /// The id used on the command line and in `--app`.
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
            AppId::GeminiCli => "gemini-cli",
            AppId::CodexCli => "codex-cli",
            AppId::Opencode => "opencode",
            AppId::QwenCode => "qwen-code",
            AppId::CopilotCli => "copilot-cli",
            AppId::Continue => "continue",
            AppId::Cline => "cline",
            AppId::Kiro => "kiro",
            AppId::AmazonQ => "amazon-q",
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
            AppId::GeminiCli => "Gemini CLI",
            AppId::CodexCli => "Codex CLI",
            AppId::Opencode => "opencode",
            AppId::QwenCode => "Qwen Code",
            AppId::CopilotCli => "GitHub Copilot CLI",
            AppId::Continue => "Continue",
            AppId::Cline => "Cline",
            AppId::Kiro => "Kiro",
            AppId::AmazonQ => "Amazon Q Developer CLI",
        }
    }

    /// The programs whose presence on PATH means the app is installed.
    pub fn programs(self) -> &'static [&'static str] {
        match self {
            AppId::ClaudeDesktop => &["claude-desktop"],
            AppId::ClaudeCode => &["claude"],
            AppId::Cursor => &["cursor"],
            AppId::Vscode => &["code"],
            AppId::Windsurf => &["windsurf"],
            AppId::Goose => &["goose"],
            AppId::Zed => &["zed", "zeditor"],
            AppId::LmStudio => &["lms", "lm-studio"],
            AppId::GeminiCli => &["gemini"],
            AppId::CodexCli => &["codex"],
            AppId::Opencode => &["opencode"],
            AppId::QwenCode => &["qwen"],
            AppId::CopilotCli => &["copilot"],
            AppId::Continue => &["cn"],
            AppId::Cline => &["cline"],
            AppId::Kiro => &["kiro", "kiro-cli"],
            AppId::AmazonQ => &["q", "qchat"],
        }
    }

    pub(crate) fn format(self) -> Format {
        const MCP_SERVERS: Format = Format::Json {
            key: "mcpServers",
            lenient: false,
        };
        match self {
            AppId::ClaudeDesktop
            | AppId::ClaudeCode
            | AppId::Cursor
            | AppId::Windsurf
            | AppId::LmStudio
            | AppId::CopilotCli
            | AppId::Cline
            | AppId::Kiro
            | AppId::AmazonQ => MCP_SERVERS,
            AppId::Vscode => Format::Json {
                key: "servers",
                lenient: true,
            },
            AppId::Zed => Format::Json {
                key: "context_servers",
                lenient: true,
            },
            // Both read settings.json through strip-json-comments
            // (gemini-cli packages/cli/src/config/settings.ts; Qwen Code is
            // its fork): comments are allowed and kept.
            AppId::GeminiCli | AppId::QwenCode => Format::Json {
                key: "mcpServers",
                lenient: true,
            },
            // opencode reads its config as JSONC (opencode.ai/docs/config).
            AppId::Opencode => Format::Json {
                key: "mcp",
                lenient: true,
            },
            AppId::CodexCli => Format::Toml { key: "mcp_servers" },
            AppId::Goose => Format::YamlMap { key: "extensions" },
            // Continue's own first config (core/config/default.ts), so a
            // config.yaml Airlock starts is one Continue would have made.
            AppId::Continue => Format::YamlList {
                key: "mcpServers",
                new_file: "name: Main Config\nversion: 1.0.0\nschema: v1\nmodels: []\n",
            },
        }
    }

    pub(crate) fn shape(self) -> Shape {
        match self {
            // Claude Desktop, Cursor, Windsurf, LM Studio, Zed: the
            // `mcpServers` notation of their docs (README.md lists them).
            AppId::ClaudeDesktop
            | AppId::Cursor
            | AppId::Windsurf
            | AppId::LmStudio
            | AppId::Zed => Shape::Plain,
            AppId::ClaudeCode => Shape::ClaudeCode,
            AppId::Vscode => Shape::Typed("stdio"),
            AppId::Goose => Shape::Goose,
            // geminicli.com/docs/tools/mcp-server ("mcpServers": command,
            // args, env, cwd, timeout, trust); `gemini mcp add` 0.61 writes
            // {command, args}.
            AppId::GeminiCli => Shape::Plain,
            // Qwen Code docs (qwenlm.github.io/qwen-code-docs, MCP servers):
            // the same `mcpServers` shape; `qwen mcp add` 0.24 writes
            // {command, args}.
            AppId::QwenCode => Shape::Plain,
            // Codex docs (docs/config.md, "MCP servers"): [mcp_servers.NAME]
            // with command, args, env, startup_timeout_sec, tool_timeout_sec
            // (default 60 s; a call through Airlock may wait for a sign-in).
            AppId::CodexCli => Shape::Codex,
            // opencode.ai/docs/mcp-servers: "mcp": {NAME: {type: "local",
            // command: [..], enabled, environment}}.
            AppId::Opencode => Shape::Opencode,
            // `copilot mcp --help` 1.0.102: user config ~/.copilot/mcp-config.json;
            // `copilot mcp add` writes {tools: ["*"], type: "local", command, args}.
            AppId::CopilotCli => Shape::Copilot,
            // Continue docs (docs.continue.dev/customize/deep-dives/mcp) and
            // packages/config-yaml/src/schemas/mcp/index.ts: a list of
            // {name, command, args, env, cwd}.
            AppId::Continue => Shape::Continue,
            // @cline/core McpServerRegistration (dist/extensions/mcp/types.d.ts):
            // {transport: {type: "stdio", command, args}}, as `cline mcp add
            // --yes` 3.0 writes it.
            AppId::Cline => Shape::Cline,
            // kiro.dev/docs/mcp/configuration and /docs/cli/mcp/configuration:
            // "mcpServers": {NAME: {command, args, env, disabled, autoApprove}}.
            AppId::Kiro => Shape::Plain,
            // aws/amazon-q-developer-cli crates/chat-cli/src/cli/chat/tools/custom_tool.rs
            // (CustomToolConfig: command, args, env, timeout in ms, default
            // 120000; disabled), read from the legacy global mcp.json that the
            // default agent includes (use_legacy_mcp_json: true).
            AppId::AmazonQ => Shape::AmazonQ,
        }
    }

    /// The user-level MCP config file of the app on this machine
    /// (`$XDG_CONFIG_HOME` defaults to `$HOME/.config`; the four apps whose
    /// folder differs per platform are placed by crate::config_places).
    pub fn config_path(self, places: &Places) -> PathBuf {
        let home = &places.home;
        let config = places.config_home();
        match self {
            AppId::ClaudeDesktop => {
                crate::config_places::claude_desktop(places).join("claude_desktop_config.json")
            }
            AppId::ClaudeCode => home.join(".claude.json"),
            AppId::Cursor => home.join(".cursor").join("mcp.json"),
            AppId::Vscode => crate::config_places::vscode_user(places).join("mcp.json"),
            AppId::Windsurf => home
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            AppId::Goose => crate::config_places::goose(places).join("config.yaml"),
            AppId::Zed => crate::config_places::zed(places).join("settings.json"),
            AppId::LmStudio => home.join(".lmstudio").join("mcp.json"),
            // gemini-cli packages/core/src/utils/paths.ts: ~/.gemini/settings.json.
            AppId::GeminiCli => home.join(".gemini").join("settings.json"),
            // Codex docs/config.md: $CODEX_HOME/config.toml, ~/.codex by default.
            AppId::CodexCli => places
                .app_homes
                .codex
                .clone()
                .unwrap_or_else(|| home.join(".codex"))
                .join("config.toml"),
            // opencode.ai/docs/config: ~/.config/opencode/opencode.json (or
            // opencode.jsonc, used when that is the one there).
            AppId::Opencode => {
                let dir = config.join("opencode");
                let jsonc = dir.join("opencode.jsonc");
                if jsonc.exists() {
                    jsonc
                } else {
                    dir.join("opencode.json")
                }
            }
            AppId::QwenCode => home.join(".qwen").join("settings.json"),
            AppId::CopilotCli => home.join(".copilot").join("mcp-config.json"),
            // continue extensions/cli/src/env.ts: $CONTINUE_GLOBAL_DIR or
            // ~/.continue; configLoader.ts reads config.yaml there.
            AppId::Continue => places
                .app_homes
                .continue_dir
                .clone()
                .unwrap_or_else(|| home.join(".continue"))
                .join("config.yaml"),
            // @cline/core resolveDefaultMcpSettingsPath(): ~/.cline/data/settings.
            AppId::Cline => home
                .join(".cline")
                .join("data")
                .join("settings")
                .join("cline_mcp_settings.json"),
            AppId::Kiro => home.join(".kiro").join("settings").join("mcp.json"),
            // amazon-q-developer-cli crates/chat-cli/src/util/paths.rs
            // (global MCP_CONFIG = ".aws/amazonq/mcp.json").
            AppId::AmazonQ => home.join(".aws").join("amazonq").join("mcp.json"),
        }
    }

    /// Whether the app's config file or the folder that holds it exists.
    pub fn config_found(self, places: &Places) -> bool {
        let path = self.config_path(places);
        path.exists()
            || path.parent().is_some_and(|dir| {
                dir.is_dir()
                    && dir != places.home
                    && dir != places.config_home()
                    && places.app_data.as_deref() != Some(dir)
            })
    }

    /// Whether one of the app's programs is on `path` (a `PATH` value).
    pub fn installed(self, path: Option<&std::ffi::OsStr>) -> bool {
        let Some(path) = path else { return false };
        std::env::split_paths(path).any(|dir| {
            self.programs()
                .iter()
                .any(|p| crate::program_on_path::in_folder(&dir, p))
        })
    }

    /// Whether the app looks installed for this user: its program on PATH,
    /// or its config file or folder there.
    pub fn detected(self, places: &Places) -> bool {
        self.config_found(places) || self.installed(std::env::var_os("PATH").as_deref())
    }
}

impl fmt::Display for AppId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An app id that is not one of [`ALL_APPS`].
#[derive(Debug, thiserror::Error)]
#[error("unknown app {0:?}; known apps: {known}", known = known_ids())]
pub struct UnknownApp(pub String);

fn known_ids() -> String {
    ALL_APPS.map(AppId::as_str).join(", ")
}

impl FromStr for AppId {
    type Err = UnknownApp;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ALL_APPS
            .into_iter()
            .find(|app| app.as_str() == s)
            .ok_or_else(|| UnknownApp(s.to_owned()))
    }
}
