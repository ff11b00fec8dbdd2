use std::{fs, path::Path};

// The app's commands (`COMMANDS`), shared with the app's tests.
include!("src/command_names.rs");

/// Where `tauri.conf.json` (`build.frontendDist`) expects the built UI.
const UI_DIST: &str = "../ui/dist";

fn main() {
    ensure_ui_dist();
    println!("cargo:rerun-if-changed=src/command_names.rs");

    // Declaring the app's commands makes each one need an explicit `allow-*`
    // permission in a capability, instead of being callable by default.
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri-build failed to prepare the app context");
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
