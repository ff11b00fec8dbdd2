// Airlock's isolation application (Tauri isolation pattern): every IPC
// message from the UI passes through here, in a sandboxed frame the UI's
// scripts cannot reach, before it gets to Rust. Only Airlock's own commands
// and listening to its events get through; anything else is refused.
// AIRLOCK_COMMANDS and AIRLOCK_PLUGIN_CALLS come from allowed.js, which
// build.rs writes from the API declaration (src/api_declaration.rs).

window.__TAURI_ISOLATION_HOOK__ = (payload) => {
  const cmd = payload && typeof payload.cmd === 'string' ? payload.cmd : '';
  if (AIRLOCK_COMMANDS.has(cmd) || AIRLOCK_PLUGIN_CALLS.has(cmd)) {
    return payload;
  }
  throw new Error('Airlock refused an IPC call to ' + JSON.stringify(cmd.slice(0, 80)));
};
