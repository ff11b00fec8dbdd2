//! The tray icon: how many elicitations wait, each server's state at a
//! glance, Show, Open requests, Quit.

use airlock_core::status::ConnStatus;
use airlock_core::store::ServerGlance;
use airlock_core::url_safety::neutralize_for_display;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager};

use crate::api::{EmitDeclared, NAVIGATE_EVENT};

pub const TRAY_ID: &str = "airlock";

/// Most servers named in the menu; the rest are counted.
const MENU_SERVERS: usize = 10;

/// The menu: a line per server (not clickable), then the actions.
fn menu(app: &AppHandle, servers: &[String]) -> tauri::Result<Menu<tauri::Wry>> {
    let menu = Menu::new(app)?;
    for (i, line) in servers.iter().enumerate() {
        menu.append(&MenuItem::with_id(
            app,
            format!("server-{i}"),
            line,
            false,
            None::<&str>,
        )?)?;
    }
    if !servers.is_empty() {
        menu.append(&PredefinedMenuItem::separator(app)?)?;
    }
    menu.append(&MenuItem::with_id(
        app,
        "show",
        "Show Airlock",
        true,
        None::<&str>,
    )?)?;
    menu.append(&MenuItem::with_id(
        app,
        "inbox",
        "Open requests",
        true,
        None::<&str>,
    )?)?;
    menu.append(&MenuItem::with_id(
        app,
        "quit",
        "Quit Airlock",
        true,
        None::<&str>,
    )?)?;
    Ok(menu)
}

/// One line per server for the menu: its name, its state in a word, its
/// approved tools and the apps that used it; at most [`MENU_SERVERS`].
pub fn server_lines(servers: &[(String, ConnStatus, ServerGlance)]) -> Vec<String> {
    let mut out: Vec<String> = servers
        .iter()
        .take(MENU_SERVERS)
        .map(|(name, status, glance)| {
            let (mark, state) = match status {
                ConnStatus::Ready { .. } => ("●", "ready"),
                ConnStatus::Connecting | ConnStatus::Reconnecting { .. } => ("◐", "connecting"),
                ConnStatus::Failed { .. } => ("✕", "failed"),
                ConnStatus::SignInRequired { .. } | ConnStatus::SigningIn { .. } => {
                    ("○", "sign-in needed")
                }
                ConnStatus::Paused => ("‖", "paused"),
                ConnStatus::Disconnected => ("○", "stopped"),
            };
            let tools = match glance.tools_approved {
                1 => "1 tool".to_owned(),
                n => format!("{n} tools"),
            };
            let apps = if glance.apps.is_empty() {
                String::new()
            } else {
                format!(" · {}", glance.apps.join(", "))
            };
            // A server's and an app's names are the person's or an app's
            // words: plain, bounded.
            neutralize_for_display(&format!("{mark} {name}: {state}, {tools}{apps}"), 80)
        })
        .collect();
    if servers.len() > MENU_SERVERS {
        out.push(format!("and {} more", servers.len() - MENU_SERVERS));
    }
    out
}

/// Put these server lines in the tray's menu.
pub fn set_servers(app: &AppHandle, lines: &[String]) {
    if let (Some(tray), Ok(menu)) = (app.tray_by_id(TRAY_ID), menu(app, lines)) {
        let _ = tray.set_menu(Some(menu));
    }
}

pub fn build(app: &AppHandle) -> tauri::Result<()> {
    let menu = menu(app, &[])?;
    let mut builder = TrayIconBuilder::with_id(TRAY_ID)
        .tooltip("Airlock: nothing waiting")
        .menu(&menu)
        .on_menu_event(|app, event| match event.id().as_ref() {
            "show" => crate::main_window::bring_forward(app),
            "inbox" => {
                crate::main_window::bring_forward(app);
                let _ = app.emit(NAVIGATE_EVENT, &"elicitations".to_owned());
            }
            "quit" => app.exit(0),
            _ => {}
        });
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    builder.build(app)?;
    Ok(())
}

/// Show the number of elicitations waiting for the user.
pub fn set_pending(app: &AppHandle, n: usize) {
    if let Some(tray) = app.tray_by_id(TRAY_ID) {
        let text = match n {
            0 => "Airlock: nothing waiting".to_owned(),
            1 => "Airlock: 1 request waiting".to_owned(),
            n => format!("Airlock: {n} requests waiting"),
        };
        let _ = tray.set_tooltip(Some(&text));
        let _ = tray.set_title((n > 0).then(|| n.to_string()));
    }
    if let Some(w) = app.get_webview_window("main") {
        let title = if n == 0 {
            "Airlock".to_owned()
        } else {
            format!("Airlock ({n} waiting)")
        };
        let _ = w.set_title(&title);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_per_server_says_its_state_tools_and_apps() {
        let glance = |tools, apps: &[&str]| ServerGlance {
            tools_approved: tools,
            tools_off: 0,
            apps: apps.iter().map(|a| (*a).to_owned()).collect(),
        };
        let ready = ConnStatus::Ready {
            protocol_version: "2026-07-28".into(),
        };
        let lines = server_lines(&[
            (
                "weather".into(),
                ready,
                glance(12, &["cursor", "claude-code"]),
            ),
            ("demo".into(), ConnStatus::Paused, glance(1, &[])),
            (
                "evil\u{202E}name".into(),
                ConnStatus::Failed { reason: "x".into() },
                glance(0, &[]),
            ),
        ]);
        assert_eq!(lines[0], "● weather: ready, 12 tools · cursor, claude-code");
        assert_eq!(lines[1], "‖ demo: paused, 1 tool");
        assert!(
            lines[2].starts_with("✕ evil") && !lines[2].contains('\u{202E}'),
            "{lines:?}"
        );
        let many: Vec<(String, ConnStatus, ServerGlance)> = (0..13)
            .map(|i| (format!("s{i}"), ConnStatus::Disconnected, glance(0, &[])))
            .collect();
        let lines = server_lines(&many);
        assert_eq!(lines.len(), MENU_SERVERS + 1);
        assert_eq!(lines.last().map(String::as_str), Some("and 3 more"));
    }
}
