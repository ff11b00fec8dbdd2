// Airlock's isolation application (Tauri isolation pattern): every IPC
// message from the UI passes through here, in a sandboxed frame the UI's
// scripts cannot reach, before it gets to Rust. Only Airlock's own commands
// and listening to its events get through; anything else is refused.
const COMMANDS = new Set(["app_info", "get_settings", "save_settings", "list_servers", "add_server", "update_server", "remove_server", "parse_config", "import_config", "connect", "disconnect", "sign_in", "cancel_sign_in", "sign_out", "set_oauth_client", "server_logs", "server_details", "call_tool", "history", "elicitations", "audit_events", "pending", "answer_consent", "answer_late", "answer_form", "url_check"]);
const PLUGIN_CALLS = new Set(['plugin:event|listen', 'plugin:event|unlisten']);

window.__TAURI_ISOLATION_HOOK__ = (payload) => {
  const cmd = payload && typeof payload.cmd === 'string' ? payload.cmd : '';
  if (COMMANDS.has(cmd) || PLUGIN_CALLS.has(cmd)) {
    return payload;
  }
  throw new Error('Airlock refused an IPC call to ' + JSON.stringify(cmd.slice(0, 80)));
};
