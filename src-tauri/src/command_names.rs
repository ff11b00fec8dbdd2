/// Every command of the app. `build.rs` declares them to tauri-build (so
/// each needs an `allow-*` permission); `commands.rs` tests that the
/// capability and the isolation hook list the same. Keep in step with
/// `generate_handler!` in main.rs.
pub const COMMANDS: &[&str] = &[
    "app_info",
    "get_settings",
    "save_settings",
    "list_servers",
    "add_server",
    "update_server",
    "remove_server",
    "parse_config",
    "import_config",
    "connect",
    "disconnect",
    "sign_in",
    "cancel_sign_in",
    "sign_out",
    "set_oauth_client",
    "server_logs",
    "server_details",
    "call_tool",
    "history",
    "elicitations",
    "audit_events",
    "pending",
    "answer_consent",
    "answer_late",
    "answer_form",
    "url_check",
];
