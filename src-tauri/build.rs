use std::{fs, path::Path};

/// The build side of the API declaration: only the names. `COMMANDS` (each
/// command) and `CORE_PLUGIN_CALLS` (plugin, its commands the UI may call).
/// The app side, with the same name and shape, is in `src/api.rs`.
macro_rules! desktop_api {
    (
        commands {
            $(
                $(#[doc = $doc:literal])*
                $mode:ident fn $name:ident ( $($args:tt)* ) -> $ret:ty ;
            )*
        }
        core_plugins {
            $( $plugin:ident : [ $($call:ident),* $(,)? ] ),* $(,)?
        }
        events { $($events:tt)* }
    ) => {
        const COMMANDS: &[&str] = &[$(stringify!($name)),*];
        const CORE_PLUGIN_CALLS: &[(&str, &[&str])] =
            &[$( (stringify!($plugin), &[$(stringify!($call)),*]) ),*];
    };
}

include!("src/api_declaration.rs");

/// Where `tauri.conf.json` (`build.frontendDist`) expects the built UI.
const UI_DIST: &str = "../ui/dist";
/// The capability of the main window, written from the declaration.
const CAPABILITY: &str = "capabilities/default.json";
/// The isolation hook's allow-list, written from the declaration.
const HOOK_ALLOW_LIST: &str = "isolation/allowed.js";

fn main() {
    ensure_ui_dist();
    println!("cargo:rerun-if-changed=src/api_declaration.rs");
    write_if_changed(CAPABILITY, &capability());
    write_if_changed(HOOK_ALLOW_LIST, &hook_allow_list());

    // Declaring the app's commands makes each one need an explicit `allow-*`
    // permission in a capability, instead of being callable by default.
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri-build failed to prepare the app context");
}

/// What the main window's UI may call: each declared command (its `allow-*`
/// permission, from the app manifest below) and each declared core plugin
/// call. Committed, so a change shows in review.
fn capability() -> String {
    let mut permissions: Vec<String> = CORE_PLUGIN_CALLS
        .iter()
        .flat_map(|(plugin, calls)| {
            calls
                .iter()
                .map(move |c| format!("core:{plugin}:allow-{c}"))
        })
        .collect();
    permissions.extend(
        COMMANDS
            .iter()
            .map(|c| format!("allow-{}", c.replace('_', "-"))),
    );
    let permissions: Vec<String> = permissions.iter().map(|p| format!("    \"{p}\"")).collect();
    format!(
        r#"{{
  "$schema": "../gen/schemas/desktop-schema.json",
  "identifier": "default",
  "description": "Written by build.rs from src/api_declaration.rs: do not edit. What the main window's UI may call: Airlock's own commands and listening to its events. No other core plugin APIs (window, path, menu, tray...) and no dialog APIs from JavaScript.",
  "windows": [
    "main"
  ],
  "permissions": [
{}
  ]
}}
"#,
        permissions.join(",\n")
    )
}

/// The IPC calls the isolation hook (`isolation/index.js`) lets through.
fn hook_allow_list() -> String {
    let quoted = |names: &mut dyn Iterator<Item = String>| {
        names
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let commands = quoted(&mut COMMANDS.iter().map(|c| c.to_string()));
    let plugin_calls = quoted(
        &mut CORE_PLUGIN_CALLS
            .iter()
            .flat_map(|(plugin, calls)| calls.iter().map(move |c| format!("plugin:{plugin}|{c}"))),
    );
    format!(
        "// Written by build.rs from src/api_declaration.rs: do not edit.\n\
         // The IPC calls the isolation hook (index.js) lets through.\n\
         const AIRLOCK_COMMANDS = new Set([{commands}]);\n\
         const AIRLOCK_PLUGIN_CALLS = new Set([{plugin_calls}]);\n"
    )
}

/// Write a generated file only when its text changes: a rewrite would make
/// tauri-build (which watches these folders) run this script again.
fn write_if_changed(path: &str, text: &str) {
    if fs::read_to_string(path).ok().as_deref() == Some(text) {
        return;
    }
    fs::write(path, text).unwrap_or_else(|e| panic!("could not write {path}: {e}"));
}

/// `generate_context!` refuses to compile without `ui/dist`, which would break
/// `cargo check --workspace` in a fresh clone. Put a page there that says how
/// to build the real UI instead, and say so in the build output.
fn ensure_ui_dist() {
    let index = Path::new(UI_DIST).join("index.html");
    println!("cargo:rerun-if-changed={}", index.display());
    if index.exists() {
        return;
    }
    println!(
        "cargo:warning=ui/dist is missing: embedding a placeholder page. \
         Run `npm --prefix ui ci && npm --prefix ui run build` before building the app."
    );
    fs::create_dir_all(UI_DIST).expect("could not create ui/dist for the placeholder page");
    fs::write(&index, PLACEHOLDER_PAGE)
        .expect("could not write the placeholder ui/dist/index.html");
}

const PLACEHOLDER_PAGE: &str = r#"<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><title>Airlock</title></head>
  <body style="font-family: system-ui, sans-serif; padding: 2rem">
    <h1>Airlock</h1>
    <p>This build has no user interface: <code>ui/dist</code> was missing when it was compiled.</p>
    <p>Run <code>npm --prefix ui ci &amp;&amp; npm --prefix ui run build</code>, then rebuild <code>airlock-desktop</code>.</p>
  </body>
</html>
"#;
