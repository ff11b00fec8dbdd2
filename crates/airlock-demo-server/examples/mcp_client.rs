//! A bare MCP client on the official Rust SDK (`rmcp`): it starts a stdio
//! server (any command), prints the server's name and protocol revision,
//! lists its tools and calls the ones asked for. The Windows check
//! (scripts/test-windows.sh) runs it under Wine against
//! `airlock.exe gateway --stdio`, so the app's side of the gateway is the
//! SDK and not Airlock's own code.
//!
//! ```text
//! mcp_client [--call TOOL JSON]... -- PROGRAM [ARGS...]
//! ```
//!
//! Prints `server: NAME (REVISION)`, `tools: A, B, ...` and one
//! `call TOOL: TEXT` line per call; exits 1 when a call fails or returns a
//! tool error.

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;

const USAGE: &str = "usage: mcp_client [--call TOOL JSON]... -- PROGRAM [ARGS...]";

type Failure = Box<dyn std::error::Error>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1);
    let mut calls = Vec::new();
    loop {
        match args.next().as_deref() {
            Some("--call") => {
                let (Some(tool), Some(json)) = (args.next(), args.next()) else {
                    return Err(USAGE.into());
                };
                let arguments: serde_json::Value = serde_json::from_str(&json)?;
                calls.push((tool, arguments.as_object().cloned()));
            }
            Some("--") => break,
            _ => return Err(USAGE.into()),
        }
    }
    let program = args.next().ok_or(USAGE)?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    let client = ().serve(TokioChildProcess::new(cmd)?).await?;
    if let Some(info) = client.peer().peer_info() {
        let name = info
            .server_info
            .as_ref()
            .map_or("(unnamed)", |s| s.name.as_str());
        println!("server: {name} ({})", info.protocol_version);
    }
    let tools = client.peer().list_all_tools().await?;
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    println!("tools: {}", names.join(", "));
    let mut failed = false;
    for (tool, arguments) in calls {
        let mut params = CallToolRequestParams::new(tool.clone());
        params.arguments = arguments;
        match client.peer().call_tool(params).await {
            Ok(result) => {
                let text: Vec<String> = result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                    .collect();
                let error = result.is_error.unwrap_or(false);
                failed |= error;
                let tag = if error { " (tool error)" } else { "" };
                println!("call {tool}{tag}: {}", text.join(" | "));
            }
            Err(e) => {
                failed = true;
                println!("call {tool} failed: {e}");
            }
        }
    }
    let _ = client.cancel().await;
    if failed {
        std::process::exit(1);
    }
    Ok(())
}
