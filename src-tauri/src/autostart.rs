//! "Start Airlock at login", one way per platform, each starting Airlock
//! with `--hidden` (straight to the tray):
//!
//! - **Linux** ([`xdg`]): an XDG autostart entry,
//!   `$XDG_CONFIG_HOME/autostart/Airlock.desktop`.
//! - **Windows** (`run_key`): the value `Airlock` under
//!   `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`, the program's
//!   path quoted (`"C:\...\Airlock.exe" --hidden`). Turning it off in Task
//!   Manager's Startup apps (`...\Explorer\StartupApproved\Run`) counts as
//!   off; turning it on here clears that switch.
//! - **macOS** (`launch_agent`): `~/Library/LaunchAgents/dev.airlock.desktop.plist`
//!   with `RunAtLoad`, which launchd reads at the next login. Compile-checked
//!   only: no macOS machine runs it here.
//!
//! Written here rather than through tauri-plugin-autostart (see [`xdg`] for
//! what its Linux writer gets wrong), so each platform's entry is text this
//! crate builds and tests ([`run_value`], [`launch_agent_plist`]).

#[cfg(any(windows, target_os = "macos", test))]
use std::path::Path;

#[cfg(target_os = "linux")]
pub mod xdg;
#[cfg(target_os = "linux")]
use xdg as imp;

#[cfg(windows)]
mod run_key;
#[cfg(windows)]
use run_key as imp;

#[cfg(target_os = "macos")]
mod launch_agent;
#[cfg(target_os = "macos")]
use launch_agent as imp;

/// Longest program path put in an entry (Windows' own limit for a path
/// with the long-path prefix).
#[cfg(any(windows, target_os = "macos", test))]
const MAX_PROGRAM_CHARS: usize = 32 * 1024;

pub fn is_enabled() -> Result<bool, String> {
    imp::is_enabled()
}

pub fn enable() -> Result<(), String> {
    imp::enable()
}

pub fn disable() -> Result<(), String> {
    imp::disable()
}

#[cfg(any(windows, target_os = "macos", test))]
fn program_text(program: &Path) -> Result<&str, String> {
    let text = program
        .to_str()
        .ok_or("the program's path is not Unicode, so it cannot go in a login entry")?;
    if text.chars().any(char::is_control) {
        return Err("the program's path has a control character".into());
    }
    if text.chars().count() > MAX_PROGRAM_CHARS {
        return Err("the program's path is too long for a login entry".into());
    }
    Ok(text)
}

/// Windows: the Run value that starts `program` hidden. The path is
/// quoted (it usually has a space: `C:\Program Files\...`); a Windows path
/// cannot hold `"`, so one is refused rather than escaped.
#[cfg(any(windows, test))]
pub fn run_value(program: &Path) -> Result<String, String> {
    let text = program_text(program)?;
    if text.contains('"') {
        return Err("the program's path has a quote".into());
    }
    Ok(format!("\"{text}\" {}", crate::HIDDEN_ARG))
}

/// macOS: the LaunchAgent property list that starts `program` hidden at
/// login (XML: `&`, `<`, `>`, `"`, `'` escaped).
#[cfg(any(target_os = "macos", test))]
pub fn launch_agent_plist(program: &Path, label: &str) -> Result<String, String> {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&apos;")
    };
    let program = escape(program_text(program)?);
    Ok(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <plist version=\"1.0\">\n<dict>\n\
         \t<key>Label</key>\n\t<string>{}</string>\n\
         \t<key>ProgramArguments</key>\n\t<array>\n\t\t<string>{program}</string>\n\t\t<string>{}</string>\n\t</array>\n\
         \t<key>RunAtLoad</key>\n\t<true/>\n\
         \t<key>ProcessType</key>\n\t<string>Interactive</string>\n\
         </dict>\n</plist>\n",
        escape(label),
        crate::HIDDEN_ARG
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_windows_run_value_quotes_the_path_and_refuses_what_it_cannot_quote() {
        assert_eq!(
            run_value(Path::new(r"C:\Program Files\Airlock\Airlock.exe")).unwrap(),
            r#""C:\Program Files\Airlock\Airlock.exe" --hidden"#
        );
        assert!(run_value(Path::new("C:\\a\"b.exe")).is_err());
        assert!(run_value(Path::new("C:\\a\r\nb.exe")).is_err());
    }

    #[test]
    fn the_macos_launch_agent_escapes_the_path_as_xml() {
        let plist = launch_agent_plist(
            Path::new("/Applications/A & <B>.app/Contents/MacOS/Airlock"),
            "dev.airlock.desktop",
        )
        .unwrap();
        assert!(plist.contains(
            "<string>/Applications/A &amp; &lt;B&gt;.app/Contents/MacOS/Airlock</string>"
        ));
        assert!(plist.contains("<string>--hidden</string>"));
        assert!(plist.contains("<key>RunAtLoad</key>\n\t<true/>"));
        assert!(launch_agent_plist(Path::new("/a\nb"), "x").is_err());
    }
}
