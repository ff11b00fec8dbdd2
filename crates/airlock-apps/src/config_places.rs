//! The folders of the apps whose MCP config is not in the same place under
//! the home folder on every platform, each from the app's documentation:
//!
//! | app | Linux | Windows | macOS |
//! |---|---|---|---|
//! | Claude Desktop | `$XDG_CONFIG_HOME/Claude` (no official build: the community builds' path) | `%APPDATA%\Claude` | `~/Library/Application Support/Claude` |
//! | VS Code | `$XDG_CONFIG_HOME/Code/User` | `%APPDATA%\Code\User` | `~/Library/Application Support/Code/User` |
//! | Goose | `$XDG_CONFIG_HOME/goose` | `%APPDATA%\Block\goose\config` | `$XDG_CONFIG_HOME/goose` (`~/.config/goose`) |
//! | Zed | `$XDG_CONFIG_HOME/zed` | `%APPDATA%\Zed` | `~/.config/zed` |
//!
//! Sources: Claude Desktop, modelcontextprotocol.io "Connect to local MCP
//! servers" (the config at `~/Library/Application Support/Claude/` on
//! macOS, `%APPDATA%\Claude\` on Windows); VS Code,
//! code.visualstudio.com/docs/copilot/customization/mcp-servers (the user
//! `mcp.json` in the profile's User folder) and /docs/configure/settings
//! (the User folder: `%APPDATA%\Code\User` on Windows,
//! `$HOME/Library/Application Support/Code/User` on macOS,
//! `$HOME/.config/Code/User` on Linux); Goose,
//! block.github.io/goose/docs/guides/config-files ("macOS/Linux:
//! ~/.config/goose/config.yaml - Windows:
//! %APPDATA%\Block\goose\config\config.yaml"); Zed,
//! zed.dev/docs/configuring-zed ("macOS: ~/.config/zed/settings.json;
//! Linux: ~/.config/zed/settings.json (or $XDG_CONFIG_HOME/...); Windows:
//! %APPDATA%\Zed\settings.json").
//!
//! Every other app keeps its file under the home folder on every platform
//! (`%USERPROFILE%` on Windows), as crate::apps cites: `~/.claude.json`,
//! `~/.cursor`, `~/.codeium/windsurf`, `~/.lmstudio`, `~/.gemini`,
//! `~/.codex`, `~/.qwen`, `~/.copilot`, `~/.continue`, `~/.cline`,
//! `~/.kiro`, `~/.aws/amazonq`; opencode reads `$XDG_CONFIG_HOME/opencode`
//! (`~/.config/opencode`) on all three (it uses xdg-basedir, which has no
//! Windows or macOS case).

use std::path::PathBuf;

use crate::Places;

/// `%APPDATA%` when it is an absolute path (Windows); `None` elsewhere.
pub(crate) fn app_data_from_env() -> Option<PathBuf> {
    imp::app_data_from_env()
}

/// Claude Desktop's folder.
pub(crate) fn claude_desktop(places: &Places) -> PathBuf {
    imp::claude_desktop(places)
}

/// VS Code's user folder.
pub(crate) fn vscode_user(places: &Places) -> PathBuf {
    imp::vscode_user(places)
}

/// Goose's config folder.
pub(crate) fn goose(places: &Places) -> PathBuf {
    imp::goose(places)
}

/// Zed's config folder.
pub(crate) fn zed(places: &Places) -> PathBuf {
    imp::zed(places)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::path::PathBuf;

    use crate::Places;

    pub(super) fn app_data_from_env() -> Option<PathBuf> {
        None
    }

    pub(super) fn claude_desktop(places: &Places) -> PathBuf {
        places.config_home().join("Claude")
    }

    pub(super) fn vscode_user(places: &Places) -> PathBuf {
        places.config_home().join("Code").join("User")
    }

    pub(super) fn goose(places: &Places) -> PathBuf {
        places.config_home().join("goose")
    }

    pub(super) fn zed(places: &Places) -> PathBuf {
        places.config_home().join("zed")
    }
}

#[cfg(windows)]
mod imp {
    use std::path::PathBuf;

    use crate::Places;

    pub(super) fn app_data_from_env() -> Option<PathBuf> {
        std::env::var_os("APPDATA")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    }

    /// `%APPDATA%`, or its usual place under the profile when unset.
    fn roaming(places: &Places) -> PathBuf {
        places
            .app_data
            .clone()
            .unwrap_or_else(|| places.home.join("AppData").join("Roaming"))
    }

    pub(super) fn claude_desktop(places: &Places) -> PathBuf {
        roaming(places).join("Claude")
    }

    pub(super) fn vscode_user(places: &Places) -> PathBuf {
        roaming(places).join("Code").join("User")
    }

    pub(super) fn goose(places: &Places) -> PathBuf {
        roaming(places).join("Block").join("goose").join("config")
    }

    pub(super) fn zed(places: &Places) -> PathBuf {
        roaming(places).join("Zed")
    }
}

#[cfg(target_os = "macos")]
mod imp {
    use std::path::PathBuf;

    use crate::Places;

    pub(super) fn app_data_from_env() -> Option<PathBuf> {
        None
    }

    fn application_support(places: &Places) -> PathBuf {
        places.home.join("Library").join("Application Support")
    }

    pub(super) fn claude_desktop(places: &Places) -> PathBuf {
        application_support(places).join("Claude")
    }

    pub(super) fn vscode_user(places: &Places) -> PathBuf {
        application_support(places).join("Code").join("User")
    }

    pub(super) fn goose(places: &Places) -> PathBuf {
        places.config_home().join("goose")
    }

    pub(super) fn zed(places: &Places) -> PathBuf {
        places.home.join(".config").join("zed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AppId;

    #[test]
    fn the_platform_folders_of_the_four_apps_that_move() {
        let home = PathBuf::from(if cfg!(windows) {
            r"C:\Users\u"
        } else {
            "/home/u"
        });
        let places = Places {
            home: home.clone(),
            xdg_config_home: None,
            app_data: None,
            state_dir: home.join("data"),
            app_homes: Default::default(),
        };
        let at = |app: AppId| app.config_path(&places);
        #[cfg(target_os = "linux")]
        {
            assert_eq!(
                at(AppId::ClaudeDesktop),
                home.join(".config/Claude/claude_desktop_config.json")
            );
            assert_eq!(at(AppId::Zed), home.join(".config/zed/settings.json"));
        }
        #[cfg(windows)]
        {
            let roaming = home.join("AppData").join("Roaming");
            assert_eq!(
                at(AppId::ClaudeDesktop),
                roaming.join("Claude").join("claude_desktop_config.json")
            );
            assert_eq!(
                at(AppId::Vscode),
                roaming.join("Code").join("User").join("mcp.json")
            );
            assert_eq!(
                at(AppId::Goose),
                roaming.join(r"Block\goose\config\config.yaml")
            );
            assert_eq!(at(AppId::Zed), roaming.join("Zed").join("settings.json"));
            assert_eq!(at(AppId::ClaudeCode), home.join(".claude.json"));
        }
        #[cfg(target_os = "macos")]
        {
            assert_eq!(
                at(AppId::ClaudeDesktop),
                home.join("Library/Application Support/Claude/claude_desktop_config.json")
            );
            assert_eq!(
                at(AppId::Vscode),
                home.join("Library/Application Support/Code/User/mcp.json")
            );
        }
        assert_eq!(at(AppId::Cursor), home.join(".cursor").join("mcp.json"));
    }
}
