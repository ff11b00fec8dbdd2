//! Import the configs users already have, export to `mcpServers` JSON.
//!
//! - Claude Desktop / Cursor: `{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`
//! - VS Code `mcp.json`: `{"servers": {name: {type, ...}}, "inputs": [{id, description, password}]}`
//!   with `${input:id}` placeholders in values.

mod parse;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{InputValue, ServerDef, ServerInput, StoredValue, Transport};

pub use parse::parse_config;

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
fn invalid(msg: String) -> ImportError {
    ImportError::Invalid(msg)
}

fn placeholder(id: &str) -> String {
    format!("${{input:{id}}}")
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
                    options: Default::default(),
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
            options: Default::default(),
            protocol_learned: None,
            paused: false,
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
