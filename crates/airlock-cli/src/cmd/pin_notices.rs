//! The daemon's notifications about tool and prompt changes held for review
//! (issue 25): one per server per burst, saying what changed and how to
//! review it (`airlock tools review SERVER`). When the Airlock app is
//! installed next to this program, the notification's Review action starts
//! it on that change (`airlock-desktop --review ID`, on the daemon's data
//! dir); the app takes the gateway over from the daemon, as it does
//! whenever it starts, and a running one just comes forward. Never an
//! Approve action: approving needs the diff.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use airlock_core::paths::DATA_DIR_ENV;
use airlock_core::pins::notice::DESKTOP_REVIEW_ARG;
use airlock_core::Airlock;
use airlock_gateway::consent::notify::show_pin_change_notice;

/// The desktop app's program name, next to `airlock` when both are installed.
const DESKTOP_PROGRAM: &str = "airlock-desktop";

/// The Airlock app beside `cli` (this program), if it is installed there.
fn desktop_beside(cli: &Path) -> Option<PathBuf> {
    let app = cli.parent()?.join(DESKTOP_PROGRAM);
    app.is_file().then_some(app)
}

/// The command a Review action runs.
fn review_command(app: &Path, data_dir: &Path, change: i64) -> Command {
    let mut c = Command::new(app);
    c.arg(DESKTOP_REVIEW_ARG)
        .arg(change.to_string())
        .env(DATA_DIR_ENV, data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Follow `core`'s changes held for review for as long as the daemon runs.
pub(crate) fn follow(core: &Arc<Airlock>) {
    let data_dir = core.data_dir().to_owned();
    let app = std::env::current_exe()
        .ok()
        .and_then(|exe| desktop_beside(&exe));
    let open: Option<Arc<dyn Fn(i64) + Send + Sync>> = app.map(|app| {
        Arc::new(move |change: i64| {
            match review_command(&app, &data_dir, change).spawn() {
                // Reaped on a thread of its own: the app runs as long as the user wants.
                Ok(mut child) => {
                    std::thread::spawn(move || child.wait());
                }
                Err(e) => eprintln!("airlock: cannot start {}: {e}", app.display()),
            }
        }) as Arc<dyn Fn(i64) + Send + Sync>
    });
    tokio::spawn(
        core.clone()
            .follow_pin_notices(move |e| show_pin_change_notice(e, open.clone())),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_is_found_only_beside_the_cli() {
        let dir = tempfile::tempdir().unwrap();
        let cli = dir.path().join("airlock");
        assert_eq!(desktop_beside(&cli), None);
        std::fs::write(dir.path().join(DESKTOP_PROGRAM), b"").unwrap();
        assert_eq!(desktop_beside(&cli), Some(dir.path().join(DESKTOP_PROGRAM)));
    }

    #[test]
    fn review_opens_the_app_on_the_change_and_the_daemons_data_dir() {
        let c = review_command(Path::new("/usr/bin/airlock-desktop"), Path::new("/d"), 42);
        let args: Vec<_> = c.get_args().collect();
        assert_eq!(args, ["--review", "42"]);
        let env: Vec<_> = c.get_envs().collect();
        assert_eq!(
            env,
            [(
                std::ffi::OsStr::new(DATA_DIR_ENV),
                Some(std::ffi::OsStr::new("/d"))
            )]
        );
    }
}
