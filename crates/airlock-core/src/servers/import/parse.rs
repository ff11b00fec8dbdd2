//! Reading a config file into an [`ImportPlan`]: the format, each server,
//! and the VS Code inputs its values use.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{
    invalid, placeholder, ConfigFormat, ImportError, ImportPlan, InputPrompt, MAX_CONFIG_BYTES,
};
use crate::servers::{looks_secret, InputValue, ServerInput, Transport};

const STDIO_KEYS: &[&str] = &["type", "command", "args", "env", "cwd"];
const HTTP_KEYS: &[&str] = &["type", "url", "headers"];
/// Keys other hosts write that do not change how to connect; ignored with a note.
const HARMLESS_KEYS: &[&str] = &[
    "disabled",
    "autoApprove",
    "alwaysAllow",
    "timeout",
    "description",
    "dev",
    "gallery",
    "version",
];

fn string_field(
    server: &str,
    obj: &Map<String, Value>,
    key: &str,
) -> Result<Option<String>, ImportError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(format!(
            "server {server:?}: `{key}` must be a string, found {}",
            kind_of(other)
        ))),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn string_map(
    server: &str,
    obj: &Map<String, Value>,
    key: &str,
) -> Result<BTreeMap<String, String>, ImportError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                // Numbers and booleans in env are common in hand-written files.
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                other => Err(invalid(format!(
                    "server {server:?}: `{key}.{k}` must be a string, found {}",
                    kind_of(other)
                ))),
            })
            .collect(),
        Some(other) => Err(invalid(format!(
            "server {server:?}: `{key}` must be an object, found {}",
            kind_of(other)
        ))),
    }
}

fn string_list(
    server: &str,
    obj: &Map<String, Value>,
    key: &str,
) -> Result<Vec<String>, ImportError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(invalid(format!(
                    "server {server:?}: `{key}[{i}]` must be a string, found {}",
                    kind_of(other)
                ))),
            })
            .collect(),
        Some(other) => Err(invalid(format!(
            "server {server:?}: `{key}` must be an array of strings, found {}",
            kind_of(other)
        ))),
    }
}

/// Parse a config file's text into a plan. Nothing is stored.
pub fn parse_config(text: &str) -> Result<ImportPlan, ImportError> {
    let root = parse_root(text)?;
    let (format, servers_key) = detect_format(&root)?;
    let mut notes = top_level_notes(&root, format, servers_key);
    let Some(Value::Object(entries)) = root.get(servers_key) else {
        return Err(invalid(format!(
            "`{servers_key}` must be an object of servers"
        )));
    };
    let mut inputs = Inputs {
        declared: if format == ConfigFormat::VsCode {
            parse_inputs(root.get("inputs"))?
        } else {
            Vec::new()
        },
        used: Vec::new(),
    };
    let mut servers = Vec::new();
    for (name, entry) in entries {
        servers.push(parse_server(name, entry, &mut inputs, &mut notes)?);
    }
    inputs.check_plain_texts(&servers)?;
    Ok(ImportPlan {
        format,
        servers,
        prompts: inputs.into_prompts(),
        notes,
    })
}

/// The file's text as a JSON object, within the size limit.
fn parse_root(text: &str) -> Result<Map<String, Value>, ImportError> {
    if text.len() > MAX_CONFIG_BYTES {
        return Err(ImportError::TooLarge(text.len()));
    }
    let root: Value = serde_json::from_str(text).map_err(|e| ImportError::Syntax(e.to_string()))?;
    let Value::Object(root) = root else {
        return Err(ImportError::Syntax(
            "the top level must be an object".into(),
        ));
    };
    Ok(root)
}

/// The format, from the top-level key, and that key.
fn detect_format(root: &Map<String, Value>) -> Result<(ConfigFormat, &'static str), ImportError> {
    if root.contains_key("mcpServers") {
        Ok((ConfigFormat::McpServers, "mcpServers"))
    } else if root.contains_key("servers") {
        Ok((ConfigFormat::VsCode, "servers"))
    } else {
        Err(ImportError::UnknownFormat)
    }
}

/// A note for every top-level key that is not about MCP servers.
fn top_level_notes(
    root: &Map<String, Value>,
    format: ConfigFormat,
    servers_key: &str,
) -> Vec<String> {
    root.keys()
        .filter(|key| *key != servers_key && !(format == ConfigFormat::VsCode && *key == "inputs"))
        .map(|key| format!("top-level key `{key}` is not about MCP servers; ignored"))
        .collect()
}

/// One server entry, its values marked secret by name or by password input.
fn parse_server(
    name: &str,
    entry: &Value,
    inputs: &mut Inputs,
    notes: &mut Vec<String>,
) -> Result<ServerInput, ImportError> {
    let Value::Object(obj) = entry else {
        return Err(invalid(format!(
            "server {name:?} must be an object, found {}",
            kind_of(entry)
        )));
    };
    let is_http = is_http_server(name, obj)?;
    check_server_keys(name, obj, is_http, notes)?;
    let transport = if is_http {
        let url = string_field(name, obj, "url")?
            .ok_or_else(|| invalid(format!("server {name:?}: an http server needs `url`")))?;
        let headers = inputs.values(string_map(name, obj, "headers")?);
        Transport::Http { url, headers }
    } else {
        let command = string_field(name, obj, "command")?.ok_or_else(|| {
            invalid(format!(
                "server {name:?} needs `command` (stdio) or `url` (http)"
            ))
        })?;
        let env = inputs.values(string_map(name, obj, "env")?);
        Transport::Stdio {
            command,
            args: string_list(name, obj, "args")?,
            env,
            cwd: string_field(name, obj, "cwd")?,
        }
    };
    let input = ServerInput {
        name: name.to_owned(),
        transport,
        options: Default::default(),
    };
    input.validate().map_err(|e| invalid(e.to_string()))?;
    Ok(input)
}

/// Streamable HTTP or stdio, from `type` or else from `url` / `command`.
fn is_http_server(name: &str, obj: &Map<String, Value>) -> Result<bool, ImportError> {
    match string_field(name, obj, "type")?.as_deref() {
        Some("stdio") => Ok(false),
        Some("http") | Some("streamable-http") | Some("streamableHttp") => Ok(true),
        Some("sse") => Err(invalid(format!(
            "server {name:?} uses the legacy HTTP+SSE transport, which Airlock does not speak; use the server's Streamable HTTP endpoint (often `/mcp`) with type \"http\""
        ))),
        Some(other) => Err(invalid(format!("server {name:?}: unknown type {other:?} (expected \"stdio\" or \"http\")"))),
        None => Ok(obj.contains_key("url") && !obj.contains_key("command")),
    }
}

/// Refuse unknown keys; note the harmless ones other hosts write.
fn check_server_keys(
    name: &str,
    obj: &Map<String, Value>,
    is_http: bool,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    let allowed = if is_http { HTTP_KEYS } else { STDIO_KEYS };
    for key in obj.keys() {
        if allowed.contains(&key.as_str()) {
            continue;
        }
        if HARMLESS_KEYS.contains(&key.as_str()) {
            notes.push(format!("server {name:?}: `{key}` ignored"));
            continue;
        }
        return Err(invalid(format!(
            "server {name:?}: unknown field `{key}` (a {} server takes {})",
            if is_http { "http" } else { "stdio" },
            allowed
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// The VS Code inputs a file declares, and the ids its servers use, in the
/// order they were first used.
struct Inputs {
    declared: Vec<InputPrompt>,
    used: Vec<String>,
}

impl Inputs {
    /// Env vars or headers as values: secret when the name looks secret or a
    /// password input is used in the value.
    fn values(&mut self, map: BTreeMap<String, String>) -> BTreeMap<String, InputValue> {
        map.into_iter()
            .map(|(k, v)| {
                let iv = self.value(&k, v);
                (k, iv)
            })
            .collect()
    }

    fn value(&mut self, key: &str, v: String) -> InputValue {
        let mut secret = looks_secret(key);
        for i in &self.declared {
            if v.contains(&placeholder(&i.id)) {
                secret |= i.password;
                if !self.used.contains(&i.id) {
                    self.used.push(i.id.clone());
                }
            }
        }
        InputValue { value: v, secret }
    }

    /// Inputs referenced from the command, args, cwd or url count too; a
    /// password there would land in the database in plain text (only env vars
    /// and headers go to the keychain), so such a file is refused.
    fn check_plain_texts(&mut self, servers: &[ServerInput]) -> Result<(), ImportError> {
        for s in servers {
            let texts: Vec<&str> = match &s.transport {
                Transport::Stdio {
                    args, command, cwd, ..
                } => args
                    .iter()
                    .map(String::as_str)
                    .chain([command.as_str()])
                    .chain(cwd.as_deref())
                    .collect(),
                Transport::Http { url, .. } => vec![url.as_str()],
            };
            for i in &self.declared {
                let placeholder = placeholder(&i.id);
                if !texts.iter().any(|t| t.contains(&placeholder)) {
                    continue;
                }
                if i.password {
                    return Err(invalid(format!(
                        "server {:?} uses the password input {:?} in its command, arguments, URL or working directory; Airlock keeps secrets only in env vars or headers (in the OS keychain): move it into `env` or `headers`",
                        s.name, i.id
                    )));
                }
                if !self.used.contains(&i.id) {
                    self.used.push(i.id.clone());
                }
            }
        }
        Ok(())
    }

    /// The declared inputs some server uses, in file order.
    fn into_prompts(self) -> Vec<InputPrompt> {
        self.declared
            .into_iter()
            .filter(|i| self.used.contains(&i.id))
            .collect()
    }
}

fn parse_inputs(v: Option<&Value>) -> Result<Vec<InputPrompt>, ImportError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let Value::Array(items) = v else {
        return Err(invalid("`inputs` must be an array".into()));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let Value::Object(o) = item else {
                return Err(invalid(format!("inputs[{i}] must be an object")));
            };
            let id = match o.get("id") {
                Some(Value::String(s)) if !s.is_empty() => s.clone(),
                _ => return Err(invalid(format!("inputs[{i}] needs a string `id`"))),
            };
            match o.get("type") {
                None => {}
                Some(Value::String(t)) if t == "promptString" => {}
                Some(other) => {
                    return Err(invalid(format!(
                        "input {id:?}: only type \"promptString\" is supported, found {other}"
                    )))
                }
            }
            Ok(InputPrompt {
                description: o
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or(&id)
                    .to_owned(),
                password: o.get("password").and_then(Value::as_bool).unwrap_or(false),
                id,
            })
        })
        .collect()
}
