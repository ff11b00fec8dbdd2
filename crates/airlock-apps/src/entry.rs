//! Entries in an app's config: the `airlock` entry in the app's own shape,
//! how to tell an entry that runs Airlock's gateway, and how an app's other
//! entries read as servers Airlock can import.

use std::path::Path;

use serde_json::{json, Value};

use crate::apps::Shape;
use crate::doc::Entry;
use crate::{gateway_args, AppId, ENTRY_NAME};

/// Seconds a tool call may take in the apps that bound it (Goose, Codex,
/// Amazon Q): a call through Airlock may wait for the user to finish a
/// sign-in in the browser.
pub(crate) const CALL_TIMEOUT_SECS: u64 = 600;

/// The `airlock` entry in the app's own format.
pub(crate) fn desired_entry(app: AppId, program: &Path) -> Entry {
    let program = Value::String(program.to_string_lossy().into_owned());
    let args = Value::from(gateway_args(app));
    let pairs: Vec<(&str, Value)> = match app.shape() {
        Shape::Plain => vec![("command", program), ("args", args)],
        Shape::Typed(kind) => vec![("type", kind.into()), ("command", program), ("args", args)],
        Shape::ClaudeCode => vec![
            ("type", "stdio".into()),
            ("command", program),
            ("args", args),
            ("env", json!({})),
        ],
        Shape::Copilot => vec![
            ("type", "local".into()),
            ("command", program),
            ("args", args),
            ("tools", json!(["*"])),
        ],
        Shape::Goose => vec![
            ("enabled", true.into()),
            ("type", "stdio".into()),
            ("name", ENTRY_NAME.into()),
            (
                "description",
                "Airlock: your MCP servers, with Airlock's consent for sign-ins and web pages"
                    .into(),
            ),
            ("cmd", program),
            ("args", args),
            ("envs", json!({})),
            ("env_keys", json!([])),
            ("timeout", CALL_TIMEOUT_SECS.into()),
        ],
        Shape::Opencode => {
            let mut command = vec![program];
            command.extend(args.as_array().cloned().unwrap_or_default());
            vec![
                ("type", "local".into()),
                ("command", Value::Array(command)),
                ("enabled", true.into()),
            ]
        }
        Shape::Continue => vec![
            ("name", ENTRY_NAME.into()),
            ("command", program),
            ("args", args),
        ],
        Shape::Cline => vec![(
            "transport",
            json!({"type": "stdio", "command": program, "args": args}),
        )],
        Shape::Codex => vec![
            ("command", program),
            ("args", args),
            ("tool_timeout_sec", CALL_TIMEOUT_SECS.into()),
        ],
        Shape::AmazonQ => vec![
            ("command", program),
            ("args", args),
            ("timeout", (CALL_TIMEOUT_SECS * 1000).into()),
        ],
    };
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

pub(crate) fn as_value(entry: &Entry) -> Value {
    Value::Object(entry.iter().cloned().collect())
}

/// An entry from a parsed value; `name` first (Continue's items lead with
/// it), the other keys in order.
pub(crate) fn as_entry(value: &Value) -> Entry {
    match value {
        Value::Object(map) => {
            let mut entry: Entry = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            entry.sort_by_key(|(k, _)| k != "name");
            entry
        }
        _ => Vec::new(),
    }
}

/// An entry that runs Airlock's gateway (any path to the program, any
/// shape): one of its lists of strings holds both `gateway` and `--stdio`.
pub(crate) fn is_gateway(entry: &Value) -> bool {
    fn lists(v: &Value, out: &mut Vec<Vec<String>>, depth: usize) {
        if depth > 4 {
            return;
        }
        match v {
            Value::Array(items) => {
                out.push(
                    items
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_owned))
                        .collect(),
                );
            }
            Value::Object(map) => {
                for (k, v) in map {
                    if matches!(k.as_str(), "args" | "command" | "transport") {
                        lists(v, out, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    lists(entry, &mut found, 0);
    found
        .iter()
        .any(|l| l.iter().any(|a| a == "gateway") && l.iter().any(|a| a == "--stdio"))
}

/// An app entry in the `mcpServers` shape Airlock's import reads, or None
/// when Airlock cannot run it (Zed extensions, Goose built-ins, a VS Code
/// server that needs VS Code's inputs, a disabled one stays as it is too).
pub(crate) fn importable(app: AppId, entry: &Value) -> Option<Value> {
    let obj = entry.as_object()?;
    let pick = |keys: &[(&str, &str)]| -> Value {
        let mut out = serde_json::Map::new();
        for (from, to) in keys {
            if let Some(v) = obj.get(*from).filter(|v| !v.is_null()) {
                out.insert((*to).to_owned(), v.clone());
            }
        }
        Value::Object(out)
    };
    let runnable = |v: &Value| {
        v.get("command").is_some_and(Value::is_string) || v.get("url").is_some_and(Value::is_string)
    };
    let out = match app.shape() {
        Shape::Goose => {
            if obj.get("type").and_then(Value::as_str) != Some("stdio") {
                return None;
            }
            pick(&[("cmd", "command"), ("args", "args"), ("envs", "env")])
        }
        Shape::Opencode => {
            let mut out = pick(&[
                ("url", "url"),
                ("headers", "headers"),
                ("environment", "env"),
            ]);
            if let Some(cmd) = obj.get("command").and_then(Value::as_array) {
                let (first, rest) = cmd.split_first()?;
                out["command"] = first.clone();
                out["args"] = Value::Array(rest.to_vec());
            }
            out
        }
        Shape::Cline => {
            let t = obj.get("transport")?;
            let mut out = json!({});
            for k in ["command", "args", "env", "url", "headers"] {
                if let Some(v) = t.get(k) {
                    out[k] = v.clone();
                }
            }
            out
        }
        Shape::Continue => pick(&[
            ("command", "command"),
            ("args", "args"),
            ("env", "env"),
            ("url", "url"),
        ]),
        Shape::Codex => pick(&[
            ("command", "command"),
            ("args", "args"),
            ("env", "env"),
            ("url", "url"),
            ("http_headers", "headers"),
        ]),
        // A VS Code `${input:...}` is answered by VS Code: such a server stays.
        Shape::Typed(_) if app == AppId::Vscode && entry.to_string().contains("${input:") => {
            return None
        }
        _ => pick(&[
            ("type", "type"),
            ("command", "command"),
            ("args", "args"),
            ("env", "env"),
            ("cwd", "cwd"),
            ("url", "url"),
            ("headers", "headers"),
        ]),
    };
    // Copilot's `local` means stdio; Airlock's import knows stdio and http.
    let mut out = out;
    if let Some(kind) = out.get("type").and_then(Value::as_str) {
        if !matches!(kind, "stdio" | "http" | "sse" | "streamable-http") {
            if let Some(map) = out.as_object_mut() {
                map.remove("type");
            }
        }
    }
    runnable(&out).then_some(out)
}
