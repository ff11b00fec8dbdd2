//! The tray icon: how many elicitations wait, Show, Open inbox, Quit.

use tauri::menu::{Menu, MenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager};

use crate::api::{EmitDeclared, NAVIGATE_EVENT};

pub const TRAY_ID: &str = "airlock";

pub fn build(app: &AppHandle) -> tauri::Result<()> {
    let show = MenuItem::with_id(app, "show", "Show Airlock", true, None::<&str>)?;
    let inbox = MenuItem::with_id(app, "inbox", "Open inbox", true, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit Airlock", true, None::<&str>)?;
    let menu = Menu::with_items(app, &[&show, &inbox, &quit])?;
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
