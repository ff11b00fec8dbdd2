//! "Start Airlock at login" on Linux: an XDG autostart entry,
//! `$XDG_CONFIG_HOME/autostart/Airlock.desktop` (`~/.config` when the
//! variable is unset or not absolute, as the XDG spec says). Written here
//! rather than through tauri-plugin-autostart, whose Linux writer ignores
//! `XDG_CONFIG_HOME` (a user who sets it would get an entry nobody reads)
//! and leaves the program path unquoted (a path with a space would not
//! start). Windows and macOS: crate::autostart's other modules.
//!
//! The entry starts Airlock with `--hidden`: at login it goes straight to
//! the tray, where apps attach and notifications ask for consent.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::HIDDEN_ARG;
const FILE_NAME: &str = "Airlock.desktop";

/// Where the entry lives for this environment (`None`: no HOME either).
pub fn entry_path(xdg_config_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
    let base = match xdg_config_home.filter(|d| Path::new(d).is_absolute()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(home.filter(|h| Path::new(h).is_absolute())?).join(".config"),
    };
    Some(base.join("autostart").join(FILE_NAME))
}

fn current_entry_path() -> Result<PathBuf, String> {
    let var = |k: &str| std::env::var(k).ok();
    entry_path(var("XDG_CONFIG_HOME").as_deref(), var("HOME").as_deref())
        .ok_or_else(|| "HOME is not set, so there is no autostart folder".to_owned())
}

/// One argument of an `Exec` line, quoted (Desktop Entry spec: inside
/// double quotes `"`, `` ` ``, `$` and `\` take a backslash; then the value
/// itself escapes `\` once more, and `%` is written `%%`).
fn exec_arg(arg: &str) -> Result<String, String> {
    if arg.chars().any(char::is_control) {
        return Err("the program's path has a control character".into());
    }
    let mut quoted = String::with_capacity(arg.len() + 2);
    quoted.push('"');
    for c in arg.chars() {
        if matches!(c, '"' | '`' | '$' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    Ok(quoted.replace('\\', "\\\\").replace('%', "%%"))
}

/// The entry that starts `program` hidden.
pub fn desktop_entry(program: &Path) -> Result<String, String> {
    let program = program
        .to_str()
        .ok_or("the program's path is not UTF-8, so it cannot go in an autostart entry")?;
    Ok(format!(
        "[Desktop Entry]\nType=Application\nVersion=1.0\nName=Airlock\n\
         Comment=Asks before an AI tool sends you to a web page\n\
         Exec={} {HIDDEN_ARG}\nTerminal=false\nStartupNotify=false\n\
         X-GNOME-Autostart-enabled=true\n",
        exec_arg(program)?
    ))
}

pub fn is_enabled() -> Result<bool, String> {
    Ok(current_entry_path()?.is_file())
}

/// Write the entry (to a temporary file first, then renamed into place).
pub fn enable() -> Result<(), String> {
    let path = current_entry_path()?;
    let program =
        std::env::current_exe().map_err(|e| format!("cannot find Airlock's program: {e}"))?;
    let text = desktop_entry(&program)?;
    let dir = path.parent().ok_or("the autostart folder has no parent")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(".Airlock.desktop.tmp");
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
    let path = current_entry_path()?;
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_follows_xdg_config_home_and_falls_back_to_home() {
        assert_eq!(
            entry_path(Some("/x/cfg"), Some("/home/u")),
            Some(PathBuf::from("/x/cfg/autostart/Airlock.desktop"))
        );
        // Unset, empty or relative XDG_CONFIG_HOME: ~/.config (XDG spec).
        for xdg in [None, Some(""), Some("rel/cfg")] {
            assert_eq!(
                entry_path(xdg, Some("/home/u")),
                Some(PathBuf::from("/home/u/.config/autostart/Airlock.desktop"))
            );
        }
        assert_eq!(entry_path(None, None), None);
        assert_eq!(entry_path(None, Some("relative")), None);
    }

    #[test]
    fn the_program_path_is_quoted_so_spaces_and_specials_survive() {
        let e = desktop_entry(Path::new("/opt/My Apps/air$lock \"x\"/100%/a\\b")).unwrap();
        let exec = e.lines().find(|l| l.starts_with("Exec=")).unwrap();
        assert_eq!(
            exec,
            r#"Exec="/opt/My Apps/air\\$lock \\"x\\"/100%%/a\\\\b" --hidden"#
        );
        assert!(e.starts_with("[Desktop Entry]\n"));
        assert!(e.contains("\nType=Application\n"));
    }

    #[test]
    fn a_path_with_a_newline_is_refused_not_written() {
        let err = desktop_entry(Path::new("/tmp/a\nExec=evil")).unwrap_err();
        assert!(err.contains("control character"), "{err}");
    }
}
