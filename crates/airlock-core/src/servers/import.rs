//! Import the configs users already have, export to `mcpServers` JSON.
//!
//! - Claude Desktop / Cursor: `{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`
//! - VS Code `mcp.json`: `{"servers": {name: {type, ...}}, "inputs": [{id, description, password}]}`
//!   with `${input:id}` placeholders in values.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{looks_secret, InputValue, ServerDef, ServerInput, StoredValue, Transport};

/// Largest config file accepted, in bytes.
pub const MAX_CONFIG_BYTES: usize = 4 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ConfigFormat {
    /// Claude Desktop and Cursor (`mcpServers`).
    McpServers,
    /// VS Code `mcp.json` (`servers` + `inputs`).
    VsCode,
}

/// A VS Code input the user must be asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InputPrompt {
    pub id: String,
    pub description: String,
    pub password: bool,
}

/// A parsed config, not yet written anywhere.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ImportPlan {
    pub format: ConfigFormat,
    pub servers: Vec<ServerInput>,
    /// Inputs referenced by the servers, in file order.
    pub prompts: Vec<InputPrompt>,
    /// Things the user should know (ignored keys, assumptions).
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("the config file is too large ({0} bytes; at most {MAX_CONFIG_BYTES})")]
    TooLarge(usize),
    #[error("the config file is not valid JSON: {0}")]
    Syntax(String),
    #[error("the config file has neither `mcpServers` (Claude Desktop / Cursor) nor `servers` (VS Code) at the top level")]
    UnknownFormat,
    #[error("{0}")]
    Invalid(String),
    #[error("input {id:?} was not answered")]
    MissingInput { id: String },
}

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

fn invalid(msg: String) -> ImportError {
    ImportError::Invalid(msg)
}

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

fn placeholder(id: &str) -> String {
    format!("${{input:{id}}}")
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

impl ImportPlan {
    /// Substitute `${input:id}` placeholders with the answers.
    pub fn resolve(
        &self,
        answers: &BTreeMap<String, String>,
    ) -> Result<Vec<ServerInput>, ImportError> {
        for p in &self.prompts {
            if !answers.contains_key(&p.id) {
                return Err(ImportError::MissingInput { id: p.id.clone() });
            }
        }
        let subst = |s: &str| -> String {
            let mut out = s.to_owned();
            for p in &self.prompts {
                if let Some(a) = answers.get(&p.id) {
                    out = out.replace(&placeholder(&p.id), a);
                }
            }
            out
        };
        self.servers
            .iter()
            .map(|s| {
                let transport = match &s.transport {
                    Transport::Stdio {
                        command,
                        args,
                        env,
                        cwd,
                    } => Transport::Stdio {
                        command: subst(command),
                        args: args.iter().map(|a| subst(a)).collect(),
                        env: env
                            .iter()
                            .map(|(k, v)| {
                                (
                                    k.clone(),
                                    InputValue {
                                        value: subst(&v.value),
                                        secret: v.secret,
                                    },
                                )
                            })
                            .collect(),
                        cwd: cwd.as_deref().map(subst),
                    },
                    Transport::Http { url, headers } => Transport::Http {
                        url: subst(url),
                        headers: headers
                            .iter()
                            .map(|(k, v)| {
                                (
                                    k.clone(),
                                    InputValue {
                                        value: subst(&v.value),
                                        secret: v.secret,
                                    },
                                )
                            })
                            .collect(),
                    },
                };
                let input = ServerInput {
                    name: s.name.clone(),
                    transport,
                };
                input.validate().map_err(|e| invalid(e.to_string()))?;
                Ok(input)
            })
            .collect()
    }
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExportedConfig {
    /// `{"mcpServers": {...}}` without any secret value.
    pub json: Value,
    /// `server: env NAME` / `server: header NAME` for every secret left out.
    pub omitted_secrets: Vec<String>,
}

/// Export to Claude Desktop / Cursor `mcpServers` JSON; secrets are left out.
pub fn export_mcp_servers(defs: &[ServerDef]) -> ExportedConfig {
    let mut servers = Map::new();
    let mut omitted = Vec::new();
    for d in defs {
        let mut plain = |kind: &str, m: &BTreeMap<String, StoredValue>| -> Map<String, Value> {
            let mut out = Map::new();
            for (k, v) in m {
                match v {
                    StoredValue::Plain { value } => {
                        out.insert(k.clone(), Value::String(value.clone()));
                    }
                    StoredValue::Secret { .. } => omitted.push(format!("{}: {kind} {k}", d.name)),
                }
            }
            out
        };
        let mut entry = Map::new();
        match &d.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                entry.insert("command".into(), Value::String(command.clone()));
                entry.insert("args".into(), Value::from(args.clone()));
                let env = plain("env", env);
                if !env.is_empty() {
                    entry.insert("env".into(), Value::Object(env));
                }
                if let Some(cwd) = cwd {
                    entry.insert("cwd".into(), Value::String(cwd.clone()));
                }
            }
            Transport::Http { url, headers } => {
                entry.insert("type".into(), Value::String("http".into()));
                entry.insert("url".into(), Value::String(url.clone()));
                let headers = plain("header", headers);
                if !headers.is_empty() {
                    entry.insert("headers".into(), Value::Object(headers));
                }
            }
        }
        servers.insert(d.name.clone(), Value::Object(entry));
    }
    let mut root = Map::new();
    root.insert("mcpServers".into(), Value::Object(servers));
    ExportedConfig {
        json: Value::Object(root),
        omitted_secrets: omitted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_desktop_config() {
        let plan = parse_config(
            r#"{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
                "env": {"GITHUB_TOKEN": "ghp_x", "DEBUG": "1"}}},
                "globalShortcut": "Ctrl+Space"}"#,
        )
        .unwrap();
        assert_eq!(plan.format, ConfigFormat::McpServers);
        assert_eq!(plan.servers.len(), 1);
        let Transport::Stdio { env, .. } = &plan.servers[0].transport else {
            panic!()
        };
        assert!(env["GITHUB_TOKEN"].secret);
        assert!(!env["DEBUG"].secret);
        assert_eq!(plan.notes.len(), 1);
    }

    #[test]
    fn vscode_inputs_become_secrets() {
        let plan = parse_config(
            r#"{"inputs": [{"type": "promptString", "id": "tok", "description": "API token", "password": true}],
                "servers": {"remote": {"type": "http", "url": "https://x.example/mcp",
                  "headers": {"X-Thing": "Bearer ${input:tok}"}}}}"#,
        )
        .unwrap();
        assert_eq!(plan.prompts.len(), 1);
        let resolved = plan
            .resolve(&[("tok".to_string(), "s3cret".to_string())].into())
            .unwrap();
        let Transport::Http { headers, .. } = &resolved[0].transport else {
            panic!()
        };
        assert_eq!(headers["X-Thing"].value, "Bearer s3cret");
        assert!(headers["X-Thing"].secret);
        assert!(plan.resolve(&BTreeMap::new()).is_err());
    }

    #[test]
    fn errors_are_specific() {
        let e = parse_config("{\"mcpServers\": {\"a\": {\"comand\": \"x\"}}}").unwrap_err();
        assert!(e.to_string().contains("unknown field `comand`"), "{e}");
        let e = parse_config("{\"mcpServers\": ").unwrap_err();
        assert!(matches!(e, ImportError::Syntax(_)));
        let e = parse_config("{\"other\": 1}").unwrap_err();
        assert!(matches!(e, ImportError::UnknownFormat));
        let e = parse_config(r#"{"servers": {"a": {"type": "sse", "url": "http://x/sse"}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("legacy HTTP+SSE"));
        let e = parse_config(r#"{"mcpServers": {"a": {"command": "x", "args": [1, {}]}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("args[1]"), "{e}");
    }

    #[test]
    fn export_leaves_secrets_out() {
        let defs = vec![ServerDef {
            name: "r".into(),
            transport: Transport::Http {
                url: "https://x.example/mcp".into(),
                headers: [
                    (
                        "Authorization".to_string(),
                        StoredValue::Secret {
                            secret_ref: "ref".into(),
                        },
                    ),
                    (
                        "Accept-Language".to_string(),
                        StoredValue::Plain { value: "en".into() },
                    ),
                ]
                .into(),
            },
        }];
        let out = export_mcp_servers(&defs);
        let text = out.json.to_string();
        assert!(!text.contains("Authorization") && !text.contains("ref"));
        assert!(text.contains("Accept-Language"));
        assert_eq!(
            out.omitted_secrets,
            vec!["r: header Authorization".to_string()]
        );
    }
}
