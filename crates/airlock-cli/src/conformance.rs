//! `airlock conformance-client <url>`: the client side of the official MCP
//! conformance suite (`@modelcontextprotocol/conformance`, see
//! `scripts/conformance.sh`). The suite starts a test server, runs
//! `<command> <server url>` with `MCP_CONFORMANCE_SCENARIO` set, and grades
//! what reaches the server.
//!
//! It runs on Airlock's real core: `Airlock::open` on a throw-away data dir,
//! a Streamable HTTP server definition, `FixedConsent(Accept)` (a form is
//! answered with the server's defaults, validated), and an opener that opens
//! nothing. Each scenario: connect (initialize), list the tools, and, except
//! for `initialize`, call every tool with arguments made from its input
//! schema (`tools_call`: `add_numbers`; `elicitation-sep1034-client-defaults`:
//! the tool that sends the form; `sse-retry`: the tool whose SSE stream the
//! server closes, resumed by the transport with `Last-Event-ID`).
//! Progress goes to stderr; the exit code is 0 when every step worked.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use airlock_core::auth::{ClientIdentity, FollowRedirects};
use airlock_core::elicitation::{ConsentDecision, FixedConsent, PrintOpener};
use airlock_core::secrets::SecretValue;
use airlock_core::servers::{ServerInput, Transport};
use airlock_core::{Airlock, AirlockOptions};
use serde_json::{Map, Value};

use crate::output::plain;

/// The name of the suite's server inside the throw-away data dir.
const SERVER: &str = "conformance";
/// Longest a whole scenario may take before the client gives up.
const SCENARIO_DEADLINE: Duration = Duration::from_secs(60);

/// A data dir removed when the run ends (also on error).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<Self, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir = std::env::temp_dir().join(format!(
            "airlock-conformance-{}-{nanos:x}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create a data dir at {}: {e}", dir.display()))?;
        Ok(Self(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn note(text: &str) {
    eprintln!("airlock conformance-client: {text}");
}

/// Arguments for a tool from its input schema: each required property gets
/// its default, its first enum value, or a plain value of its type.
pub fn sample_arguments(input_schema: &Map<String, Value>) -> Map<String, Value> {
    let properties = input_schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<&str> = input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args = Map::new();
    for (i, name) in required.iter().enumerate() {
        let prop = properties.get(*name).cloned().unwrap_or(Value::Null);
        let value = if let Some(d) = prop.get("default") {
            d.clone()
        } else if let Some(first) = prop
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            first.clone()
        } else {
            match prop.get("type").and_then(Value::as_str) {
                // Distinct small numbers, so a sum shows both operands.
                Some("number") | Some("integer") => Value::from(i as i64 + 2),
                Some("boolean") => Value::Bool(true),
                Some("array") => Value::Array(Vec::new()),
                Some("object") => Value::Object(Map::new()),
                _ => Value::String("airlock".into()),
            }
        };
        args.insert((*name).to_owned(), value);
    }
    args
}

async fn scenario(core: &Arc<Airlock>, name: &str) -> Result<(), String> {
    let report = core.connect(SERVER).await.map_err(|e| e.to_string())?;
    note(&format!(
        "connected (protocol {})",
        report
            .info
            .as_ref()
            .map(|i| plain(&i.protocol_version))
            .unwrap_or_else(|| "unknown".into())
    ));
    let tools = core.list_tools(SERVER).await.map_err(|e| e.to_string())?;
    note(&format!(
        "{} tool(s): {}",
        tools.len(),
        tools
            .iter()
            .map(|t| plain(&t.name))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if name == "initialize" {
        return Ok(());
    }
    let mut failures = Vec::new();
    for tool in &tools {
        let args = sample_arguments(&tool.input_schema);
        note(&format!(
            "calling {} with {}",
            plain(&tool.name),
            plain(&Value::Object(args.clone()).to_string())
        ));
        match core.call_tool(SERVER, &tool.name, Some(args)).await {
            Ok(outcome) => {
                note(&format!(
                    "{} answered{}: {}",
                    plain(&tool.name),
                    if outcome.is_error {
                        " with an error"
                    } else {
                        ""
                    },
                    plain(&outcome.result.to_string())
                ));
                if outcome.is_error {
                    failures.push(format!("{} returned an error result", tool.name));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", tool.name)),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// The suite's Client ID Metadata Document URL (`auth/basic-cimd`).
const CONFORMANCE_CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Client identity from `MCP_CONFORMANCE_CONTEXT` (`client_id`,
/// `client_secret` of a pre-registered client), plus the suite's metadata
/// document URL, used when the authorization server supports them.
pub fn conformance_identity(context: Option<String>) -> ClientIdentity {
    let ctx: Value = context
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let text = |k: &str| ctx.get(k).and_then(Value::as_str).map(str::to_owned);
    ClientIdentity {
        client_name: "Airlock conformance client".into(),
        client_id: text("client_id"),
        client_secret: text("client_secret").map(SecretValue::new),
        metadata_url: Some(CONFORMANCE_CIMD_URL.into()),
        redirect_port: None,
    }
}

/// Run the scenario named by `MCP_CONFORMANCE_SCENARIO` against `url`.
pub async fn run(url: &str) -> Result<u8, String> {
    let name = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    note(&format!(
        "scenario {:?} against {}",
        plain(&name),
        plain(url)
    ));
    let dir = TempDir::new()?;
    let mut opts = AirlockOptions::new(
        dir.0.clone(),
        Arc::new(FixedConsent(ConsentDecision::Accept)),
        Arc::new(PrintOpener { print: false }),
    );
    opts.connect_timeout = Duration::from_secs(15);
    // `auth/*`: the test authorization server redirects at once, so follow
    // its redirect instead of opening a browser; identity from the context.
    opts.oauth_browser = Some(Arc::new(FollowRedirects::default()));
    opts.oauth_identity = conformance_identity(std::env::var("MCP_CONFORMANCE_CONTEXT").ok());
    let core = Airlock::open(opts).map_err(|e| e.to_string())?;
    core.add_server(&ServerInput {
        name: SERVER.into(),
        options: Default::default(),
        transport: Transport::Http {
            url: url.to_owned(),
            headers: BTreeMap::new(),
        },
    })
    .map_err(|e| e.to_string())?;
    let result = match tokio::time::timeout(SCENARIO_DEADLINE, scenario(&core, &name)).await {
        Ok(r) => r,
        Err(_) => Err(format!(
            "the scenario did not finish within {} s",
            SCENARIO_DEADLINE.as_secs()
        )),
    };
    core.disconnect(SERVER);
    drop(core);
    drop(dir);
    match result {
        Ok(()) => {
            note("done");
            Ok(0)
        }
        Err(e) => Err(format!("scenario {name:?} failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conformance_identity_reads_the_context() {
        let id = conformance_identity(Some(
            r#"{"name":"auth/pre-registration","client_id":"c1","client_secret":"s1"}"#.into(),
        ));
        assert_eq!(id.client_id.as_deref(), Some("c1"));
        assert_eq!(
            id.client_secret.map(|s| s.expose().to_owned()).as_deref(),
            Some("s1")
        );
        let none = conformance_identity(None);
        assert!(none.client_id.is_none() && none.metadata_url.is_some());
    }

    #[test]
    fn sample_arguments_fill_required_properties() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "number"}, "b": {"type": "number"},
            "mode": {"type": "string", "enum": ["x", "y"]},
            "n": {"type": "integer", "default": 7},
            "flag": {"type": "boolean"}, "opt": {"type": "string"}
        }, "required": ["a", "b", "mode", "n", "flag"]});
        let args = sample_arguments(schema.as_object().unwrap());
        assert_eq!(
            Value::Object(args),
            json!({"a": 2, "b": 3, "mode": "x", "n": 7, "flag": true})
        );
        assert!(sample_arguments(&Map::new()).is_empty());
    }
}
