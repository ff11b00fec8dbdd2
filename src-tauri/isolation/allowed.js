// Written by build.rs from src/api_declaration.rs: do not edit.
// The IPC calls the isolation hook (index.js) lets through.
const AIRLOCK_COMMANDS = new Set(["app_info", "get_settings", "save_settings", "list_servers", "add_server", "update_server", "remove_server", "parse_config", "import_config", "connect", "disconnect", "set_paused", "sign_in", "cancel_sign_in", "sign_out", "set_oauth_client", "server_logs", "server_details", "call_tool", "history", "elicitations", "elicitation_page", "audit_events", "pending", "answer_consent", "answer_late", "answer_form", "url_check", "client_apps", "plan_app", "apply_app"]);
const AIRLOCK_PLUGIN_CALLS = new Set(["plugin:event|listen", "plugin:event|unlisten"]);
