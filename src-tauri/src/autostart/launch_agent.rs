//! macOS: a LaunchAgent in the user's `~/Library/LaunchAgents` (see
//! crate::autostart). launchd reads it at the next login; nothing is
//! loaded now.

use std::io::Write;
use std::path::PathBuf;

/// The agent's label and file name: the app's identifier.
const LABEL: &str = "dev.airlock.desktop";

fn agent_path() -> Result<PathBuf, String> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or("HOME is not set, so there is no LaunchAgents folder")?;
    Ok(home
        .join("Library")
        .join("LaunchAgents")
        .join(format!("{LABEL}.plist")))
}

pub fn is_enabled() -> Result<bool, String> {
    Ok(agent_path()?.is_file())
}

pub fn enable() -> Result<(), String> {
    let path = agent_path()?;
    let program =
        std::env::current_exe().map_err(|e| format!("cannot find Airlock's program: {e}"))?;
    let text = super::launch_agent_plist(&program, LABEL)?;
    let dir = path
        .parent()
        .ok_or("the LaunchAgents folder has no parent")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(format!(".{LABEL}.plist.tmp"));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

pub fn disable() -> Result<(), String> {
    let path = agent_path()?;
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}
