//! Airlock's desktop shell. Its modules name only their own layer or those
//! below, top to bottom: surfaces (`consent`, `pin_notices`, `tray`); `api`
//! (the declared commands and events); `commands` and the page modules whose
//! commands it re-exports; `ctx` (`Ctx`, `AppState`, `ApiError`); leaves
//! (`inbox`, `settings`, `main_window`, ...). `main` wires them together.

// Keeps a console window from opening next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod api;
mod app_config;
mod apps_page;
mod autostart;
mod catalog_page;
mod commands;
mod consent;
mod ctx;
mod desktop_notices;
mod inbox;
mod main_window;
mod native_dialog;
mod pin_notices;
mod pin_review;
mod presenter;
mod settings;
mod single_instance;
mod startup;
mod tray;
mod webview_memory;

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use airlock_core::auth::LoopbackBrowser;
use airlock_core::elicitation::ElicitationState;
use airlock_core::elicitation::{Opener, SystemBrowser};
use airlock_core::events::CoreEvent;
use airlock_core::servers::{ServerInput, Transport};
use airlock_core::{Airlock, AirlockOptions};
use airlock_gateway::routing::forms::HostConsent;
use airlock_gateway::routing::router::Router;
use airlock_gateway::wire::place::ClaimError;
use airlock_gateway::{HostError, HostOptions};
use tauri::{AppHandle, Manager, WindowEvent};

// Events go out only as declared (name and payload type) in api_declaration.rs.
use api::{EmitDeclared, CORE_EVENT};
use consent::DesktopConsent;
use ctx::AppState;
use inbox::Inbox;
use settings::Settings;

/// Set to call the demo server's `connect_demo_account` right after start.
const DEMO_AUTORUN_ENV: &str = "AIRLOCK_DEMO_AUTORUN";
/// File in the data dir that records that the demo server was offered once.
const DEMO_MARKER: &str = ".demo-configured";
/// When the gateway's socket could not be taken over (another host is taking
/// it, or its owner refused), try again this often.
const GATEWAY_RETRY: Duration = Duration::from_secs(10);

/// Start in the tray without showing the window (the login entry passes it).
const HIDDEN_ARG: &str = "--hidden";

fn main() {
    // Inside a server's room this binary is the room's helper: before any
    // thread exists (it forks).
    if let Some(code) = airlock_sandbox::helper::run_if_asked() {
        std::process::exit(code);
    }
    startup::mark_start();
    // What the web view costs in memory (webview_memory: WebKit's GPU
    // compositing off on Linux).
    webview_memory::tune();
    tauri::Builder::default()
        // First: a second launch hands over to the running Airlock (its
        // window comes forward) and exits, so one process owns the data dir.
        .plugin(single_instance::plugin(|app, argv| {
            // A daemon's Review action (`--review ID`): that change.
            if let Some(id) = airlock_core::pins::notice::review_arg(&argv) {
                pin_notices::open_review(app, id);
            // The login entry of an Airlock that already runs: stay in the tray.
            } else if !argv.iter().any(|a| a == HIDDEN_ARG) {
                main_window::bring_forward(app);
            }
        }))
        .plugin(tauri_plugin_dialog::init())
        .setup(|app| {
            startup::mark(startup::Milestone::Setup);
            let handle = app.handle().clone();
            let state =
                start_core(&handle).map_err(|e| -> Box<dyn std::error::Error> { e.into() })?;
            startup::mark(startup::Milestone::CoreReady);
            app.manage(state.0);
            app.manage(state.1);
            // Started by a daemon's Review action: the page opens on that change.
            app.manage(catalog_page::Staged::default());
            app.manage(pin_review::ReviewRequest(std::sync::Mutex::new(
                airlock_core::pins::notice::review_arg(std::env::args()),
            )));
            tray::build(&handle)?;
            tray_servers(&handle, &handle.state::<AppState>().core);
            // Started at login (`--hidden`): straight to the tray (the
            // window is created hidden). Otherwise it shows once its page
            // has loaded, or after a few seconds whatever the page does.
            if std::env::args().any(|a| a == HIDDEN_ARG) {
                startup::stay_hidden();
            } else {
                startup::show_anyway_after(&handle, startup::SHOW_AT_THE_LATEST);
            }
            Ok(())
        })
        // The window is created hidden and shown once its page has loaded
        // (src-tauri/src/startup.rs).
        .on_page_load(startup::show_when_loaded)
        .on_window_event(|window, event| {
            if let WindowEvent::CloseRequested { api, .. } = event {
                let keep = window
                    .app_handle()
                    .try_state::<AppState>()
                    .and_then(|s| s.settings.read().ok().map(|s| s.keep_running_in_tray))
                    .unwrap_or(false);
                if keep {
                    // Connections and pending elicitations survive; Quit is in the tray.
                    api.prevent_close();
                    let _ = window.hide();
                }
            }
        })
        // Every command declared in api_declaration.rs, and nothing else.
        .invoke_handler(api::invoke_handler())
        .build(tauri::generate_context!())
        .expect("Airlock could not start its window (is a display and WebKitGTK available?)")
        .run(|app, event| {
            // A clean quit: what is left open is not a crash (see airlock_core::Airlock::close).
            if let tauri::RunEvent::Exit = event {
                if let Some(state) = app.try_state::<AppState>() {
                    state.core.close();
                }
            }
        });
}

fn start_core(app: &AppHandle) -> Result<(AppState, apps_page::Attached), String> {
    let data_dir = airlock_core::paths::resolve_data_dir(None);
    let settings = Settings::load_with_mark(&data_dir);
    native_dialog::set_mark(&settings.consent_mark);
    let inbox = Arc::new(Inbox::default());
    let shared_settings = Arc::new(RwLock::new(settings.clone()));
    let desktop_consent = Arc::new(DesktopConsent {
        app: app.clone(),
        inbox: inbox.clone(),
        settings: shared_settings.clone(),
        surfaces: Arc::default(),
    });
    // Forms from a server go to the app that made the call when it can show
    // them (the gateway's routes); everything else to the window.
    let (consent, router) = HostConsent::wrap(desktop_consent);
    let opener: Arc<dyn Opener> = Arc::new(SystemBrowser);
    let mut opts = AirlockOptions::new(data_dir.clone(), consent, opener.clone());
    opts.sandbox_helper = std::env::current_exe().ok();
    opts.broker = settings.broker();
    // Sign-ins (MCP authorization) go through the same consent and the
    // system browser, with a loopback listener for the redirect back.
    opts.oauth_browser = Some(Arc::new(LoopbackBrowser::new(opener)));
    // Servers' sampling and roots go to the app whose call asked.
    opts.app_requests = Some(router.clone());
    let core = Airlock::open(opts).map_err(|e| e.to_string())?;
    // Off the start path: pruning a large history goes in batches.
    let pruner = core.clone();
    let days = settings.history_retention_days;
    std::thread::spawn(move || {
        let _ = pruner.prune_history(days);
    });
    configure_demo_once(&core, &data_dir);
    forward_events(app.clone(), core.clone());
    // Tool and prompt changes held for review: a notification per server.
    pin_notices::follow(app, &core, shared_settings.clone());
    let attached = apps_page::Attached::default();
    serve_gateway(core.clone(), router, attached.0.clone(), data_dir.clone());
    // Connect every configured server in the background.
    let names: Vec<String> = core
        .list_servers()
        .map(|v| v.into_iter().map(|d| d.name).collect())
        .unwrap_or_default();
    let c = core.clone();
    // `scripts/run.sh` sets this so a newcomer sees the consent flow at once.
    let autorun = std::env::var_os(DEMO_AUTORUN_ENV).is_some();
    tauri::async_runtime::spawn(async move {
        for name in &names {
            // No sign-in prompt out of the blue: a server that needs one
            // shows "Sign-in required" and a Sign in button.
            let _ = c.connect_in_background(name).await;
        }
        if autorun && names.iter().any(|n| n == "demo") {
            let _ = c.call_tool("demo", "connect_demo_account", None).await;
        }
    });
    Ok((
        AppState {
            core,
            inbox,
            settings: shared_settings,
            data_dir,
        },
        attached,
    ))
}

/// On the first run, configure the bundled demo server (if it sits next to
/// this binary) so a newcomer sees a URL elicitation at once.
fn configure_demo_once(core: &Arc<Airlock>, data_dir: &std::path::Path) {
    let marker = data_dir.join(DEMO_MARKER);
    if marker.exists() {
        return;
    }
    let demo = std::env::current_exe()
        .ok()
        .and_then(|p| {
            p.parent().map(|d| {
                d.join(format!(
                    "airlock-demo-server{}",
                    std::env::consts::EXE_SUFFIX
                ))
            })
        })
        .filter(|p| p.exists());
    if let Some(path) = demo {
        let input = ServerInput {
            name: "demo".into(),
            // Confined, but on this computer's network: its sign-in page is
            // served on 127.0.0.1 for the person's browser.
            options: airlock_core::servers::ServerOptions {
                sandbox: Some(airlock_sandbox::SandboxSettings {
                    host_network: true,
                    ..Default::default()
                }),
                ..Default::default()
            },
            transport: Transport::Stdio {
                command: path.display().to_string(),
                args: Vec::new(),
                env: Default::default(),
                cwd: None,
            },
        };
        let _ = core.add_server(&input);
    }
    let _ = std::fs::write(marker, b"");
}

/// Be the gateway host: apps connected to Airlock (`airlock gateway --stdio`)
/// attach to this app, share its server connections and get its consent
/// dialogs and notifications. A running `airlock daemon` (started by an app
/// before the window) is asked to hand its socket over: its calls in flight
/// finish, its apps' shims attach here and replay their handshake
/// (airlock_gateway::handover).
fn serve_gateway(
    core: Arc<Airlock>,
    router: Arc<Router>,
    attachments: Arc<airlock_gateway::Attachments>,
    data_dir: PathBuf,
) {
    tauri::async_runtime::spawn(async move {
        loop {
            let options = HostOptions {
                router: Some(router.clone()),
                attachments: Some(attachments.clone()),
                take_over: true,
                ..HostOptions::default()
            };
            let served = airlock_gateway::serve_host_until(
                core.clone(),
                &data_dir,
                options,
                std::future::pending(),
            )
            .await;
            match served {
                Err(HostError::Claim(
                    e @ (ClaimError::AlreadyRunning { .. } | ClaimError::Handover(_)),
                )) => {
                    eprintln!("airlock-desktop: apps attach to another host for now: {e}");
                    tokio::time::sleep(GATEWAY_RETRY).await;
                }
                Err(e) => {
                    eprintln!("airlock-desktop: apps cannot attach to this window: {e}");
                    break;
                }
                Ok(()) => break,
            }
        }
    });
}

/// Forward core events to the window; show blocked URLs to the user.
/// The tray's server lines, from the core's list, states and glances.
fn tray_servers(app: &AppHandle, core: &Airlock) {
    let defs = core.list_servers().unwrap_or_default();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    let mut glances = core.server_glances(&names).unwrap_or_default().into_iter();
    let servers: Vec<_> = defs
        .iter()
        .map(|d| {
            let glance = glances.next().unwrap_or_default();
            (d.name.clone(), core.status(&d.name), glance)
        })
        .collect();
    tray::set_servers(app, &tray::server_lines(&servers));
}

fn forward_events(app: AppHandle, core: Arc<Airlock>) {
    let mut rx = core.subscribe();
    // The tray's lines follow the servers' states, at most once a second
    // (a server flapping cannot make the menu rebuild without pause).
    let stale = Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let (app, core, stale) = (app.clone(), core.clone(), stale.clone());
        tauri::async_runtime::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                if stale.swap(false, std::sync::atomic::Ordering::Relaxed) {
                    tray_servers(&app, &core);
                }
            }
        });
    }
    tauri::async_runtime::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(ev) => {
                    if matches!(ev, CoreEvent::Status { .. } | CoreEvent::PinChanges { .. }) {
                        stale.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    // A blocked URL never reaches consent; the user still
                    // learns why, from what the broker inspected.
                    if let CoreEvent::Elicitation(e) = &ev {
                        if e.record.state == ElicitationState::RateLimited {
                            consent::notify_flood(&app, &e.record.server);
                        }
                        if let (ElicitationState::Blocked, Some(inspection)) =
                            (e.record.state, &e.inspection)
                        {
                            consent::show_blocked(
                                &app,
                                &e.record.server,
                                &e.record.message,
                                inspection,
                            );
                        }
                    }
                    let _ = app.emit(CORE_EVENT, &ev);
                }
                // A slow window missed some events; it re-reads state on the next one.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => break,
            }
        }
    });
}
