//! Connect the user's AI apps (Claude Desktop, Claude Code, Cursor, VS Code,
//! Windsurf, Goose, Zed, LM Studio, Gemini CLI, Codex CLI, opencode, Qwen
//! Code, GitHub Copilot CLI, Continue, Cline, Kiro, Amazon Q Developer CLI)
//! to Airlock by writing one entry named `airlock` into each app's own MCP
//! config file: `<airlock> gateway --stdio --app <app id>`.
//!
//! Every change is planned first ([`plan_connect`], [`plan_disconnect`]: the
//! text before and after and a unified diff), then applied ([`apply`]):
//! backup first, then an atomic replace, and only if the file is still the
//! one the diff was made from. A file Airlock cannot parse is refused and
//! never written. Secrets of the servers moved out of an app go to the OS
//! keychain ([`SecretVault`]), never to a file. See README.md for the paths
//! per OS: the apps whose folder differs between Linux, Windows and macOS
//! are placed by `config_places`, and an app's program is found on `PATH`
//! by `program_on_path` (the executable bit; `PATHEXT` on Windows).

mod apps;
mod config_places;
mod doc;
mod entry;
mod files;
mod kept;
mod label;
mod plan;
mod program_on_path;
mod record;
mod vault;

use std::path::{Path, PathBuf};

pub use apps::{AppId, UnknownApp, ALL_APPS};
pub use doc::{MAX_NESTING_DEPTH, MAX_SERVER_ENTRIES};
pub use files::MAX_APP_CONFIG_BYTES;
pub use label::{caller_label, caller_label_capitalised, notice_prefix, MAX_CALLER_LABEL_CHARS};
pub use plan::{
    apply, plan_connect, plan_disconnect, status, Action, AppStatus, Applied, Change, MovedServer,
    MAX_MOVED_SECRETS,
};
pub use vault::{fakes, Keeper, SecretDetector, SecretVault, VaultError};

/// The entry name Airlock writes into every app's config.
pub const ENTRY_NAME: &str = "airlock";

/// Where the apps' configs and Airlock's own records live.
#[derive(Debug, Clone)]
pub struct Places {
    /// `$HOME`.
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME` when set to an absolute path.
    pub xdg_config_home: Option<PathBuf>,
    /// Windows: `%APPDATA%` (the roaming application data folder) when set
    /// to an absolute path; `None` elsewhere.
    pub app_data: Option<PathBuf>,
    /// Airlock's folder for backups and connection records (in its data dir).
    pub state_dir: PathBuf,
    /// Folders some apps let the user move with their own variable.
    pub app_homes: AppHomes,
}

/// An app's own folder, when the user moved it with the app's variable
/// (absolute paths only).
#[derive(Debug, Clone, Default)]
pub struct AppHomes {
    /// `$CODEX_HOME` (Codex docs/config.md; default `~/.codex`).
    pub codex: Option<PathBuf>,
    /// `$CONTINUE_GLOBAL_DIR` (continue extensions/cli/src/env.ts; default
    /// `~/.continue`).
    pub continue_dir: Option<PathBuf>,
}

impl AppHomes {
    pub fn from_env() -> AppHomes {
        let dir = |name: &str| {
            std::env::var_os(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        AppHomes {
            codex: dir("CODEX_HOME"),
            continue_dir: dir("CONTINUE_GLOBAL_DIR"),
        }
    }
}

impl Places {
    /// From the home folder (`$HOME`; `%USERPROFILE%` on Windows),
    /// `$XDG_CONFIG_HOME` and, on Windows, `%APPDATA%`; `state_dir` is
    /// Airlock's.
    pub fn from_env(state_dir: PathBuf) -> Result<Places, AppsError> {
        let home = airlock_platform::folders::home_dir().ok_or(AppsError::NoHome)?;
        // The XDG spec: a relative value is invalid and ignored.
        let xdg_config_home = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute());
        Ok(Places {
            home,
            xdg_config_home,
            app_data: config_places::app_data_from_env(),
            state_dir,
            app_homes: AppHomes::from_env(),
        })
    }

    pub(crate) fn config_home(&self) -> PathBuf {
        self.xdg_config_home
            .clone()
            .unwrap_or_else(|| self.home.join(".config"))
    }

    fn apps_dir(&self) -> PathBuf {
        self.state_dir.join("apps")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AppsError {
    #[error(
        "{} is not set: Airlock cannot tell where the apps keep their config",
        airlock_platform::folders::HOME_VARIABLE
    )]
    NoHome,
    #[error("cannot read {path}: {reason}. Airlock left it untouched")]
    Unreadable { path: PathBuf, reason: String },
    #[error("{path} cannot be edited safely: {reason}. Airlock left it untouched; fix or move it, then try again")]
    Malformed { path: PathBuf, reason: String },
    #[error("{path} changed since the diff was shown; nothing was written. Look at the new diff and try again")]
    ChangedSinceShown { path: PathBuf },
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("cannot keep the secrets of the servers moved out of {app} in the OS keychain: {reason}. Nothing was written")]
    Vault { app: &'static str, reason: String },
    #[error("the path of the airlock program is not absolute: {0}")]
    RelativeProgram(PathBuf),
}

/// The arguments an app runs Airlock's gateway with.
pub fn gateway_args(app: AppId) -> Vec<String> {
    ["gateway", "--stdio", "--app", app.as_str()]
        .into_iter()
        .map(str::to_owned)
        .collect()
}

fn check_program(program: &Path) -> Result<(), AppsError> {
    if program.is_absolute() {
        Ok(())
    } else {
        Err(AppsError::RelativeProgram(program.to_owned()))
    }
}
