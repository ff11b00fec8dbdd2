//! Managed settings for the apps, so their own locks admit only Airlock's
//! gateway entry. Each takes the `airlock` entry as written in the app's
//! config (`{"type": "stdio", "command": ..., "args": [...]}` or
//! `{"type": "http", "url": ...}`).

use serde_json::{json, Map, Value};

/// The name of the gateway's entry in the apps' configs.
pub const ENTRY_NAME: &str = "airlock";

/// How the apps' allowlists match the gateway entry: by its exact argv
/// (`serverCommand`) for a stdio entry, by its URL (`serverUrl`) for a
/// remote one, by name (`serverName`, not a security control) otherwise.
fn matcher(entry: &Value) -> Value {
    if let Some(program) = entry.get("command").and_then(Value::as_str) {
        let mut argv = vec![Value::String(program.to_owned())];
        if let Some(args) = entry.get("args").and_then(Value::as_array) {
            argv.extend(args.iter().cloned());
        }
        return json!({ "serverCommand": argv });
    }
    if let Some(url) = entry.get("url").and_then(Value::as_str) {
        return json!({ "serverUrl": url });
    }
    json!({ "serverName": ENTRY_NAME })
}

/// Claude Code's `managed-mcp.json` (`/etc/claude-code/managed-mcp.json`,
/// `/Library/Application Support/ClaudeCode/managed-mcp.json`,
/// `C:\Program Files\ClaudeCode\managed-mcp.json`): with it, Claude Code
/// loads only the servers the file defines (here only `airlock`), and
/// `claude mcp add` fails. Same format as a project `.mcp.json`.
pub fn export_claude_code(gateway_entry: &Value) -> Value {
    let mut servers = Map::new();
    servers.insert(ENTRY_NAME.to_owned(), gateway_entry.clone());
    json!({ "mcpServers": servers })
}

/// Claude Code's `managed-settings.json` part that goes with
/// [`export_claude_code`]: `allowedMcpServers` admitting only the gateway
/// entry, made authoritative with `allowManagedMcpServersOnly: true` (so a
/// user's own settings cannot broaden it).
pub fn export_claude_code_settings(gateway_entry: &Value) -> Value {
    json!({
        "allowManagedMcpServersOnly": true,
        "allowedMcpServers": [matcher(gateway_entry)],
    })
}

/// GitHub Copilot's enterprise `managed-settings.json` part: the same
/// `allowedMcpServers` keys as Claude Code, admitting only the gateway entry.
pub fn export_copilot(gateway_entry: &Value) -> Value {
    json!({ "allowedMcpServers": [matcher(gateway_entry)] })
}

/// VS Code's policy (`/etc/vscode/policy.json` on Linux; the same names in
/// the Windows registry and macOS profiles): `ChatAllowedMcpServers` (VS Code
/// 1.130 and later) admitting only the gateway entry. Its value is the JSON
/// text of the list, the form policies of object type take. `ChatMCP`
/// (`chat.mcp.access`: `none`, `registry`, `all`) is left alone: `none` would
/// shut out Airlock too, and `registry` admits only servers installed from
/// VS Code's registry. Taken from VS Code's sources, not yet tried against a
/// running VS Code.
pub fn export_vscode(gateway_entry: &Value) -> Value {
    let list = Value::Array(vec![matcher(gateway_entry)]);
    json!({ "ChatAllowedMcpServers": list.to_string() })
}
