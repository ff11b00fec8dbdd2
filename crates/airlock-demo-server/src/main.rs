//! `airlock-demo-server`: a small MCP server (stdio) that shows URL
//! elicitation end to end, with its own web page on 127.0.0.1.
//!
//! Environment:
//! - `AIRLOCK_DEMO_PORT`: port of the page (default: a random free port).
//! - `AIRLOCK_DEMO_PROTOCOL`: `2025-11-25` or `2026-07-28` pins one protocol
//!   revision (default: both, as rmcp negotiates them).
//!
//! Prints `airlock-demo ready http://127.0.0.1:PORT` on stderr once the page
//! is up; stdout carries only MCP messages.

mod flows;
mod server;
mod web;

use std::net::Ipv4Addr;
use std::process::ExitCode;
use std::sync::Arc;

use rmcp::model::ProtocolVersion;
use rmcp::ServiceExt;
use tokio::net::TcpListener;

use crate::flows::Flows;
use crate::server::DemoServer;
use crate::web::Web;

const USAGE: &str = "\
airlock-demo-server: Airlock's demo MCP server (stdio) for URL elicitation.

Usage: airlock-demo-server
  Speaks MCP on stdin/stdout; start it from an MCP client, e.g.
  airlock servers add demo --command airlock-demo-server

Tools: connect_demo_account, fetch_private_data, never_completes, echo.

Environment:
  AIRLOCK_DEMO_PORT      port of the local page on 127.0.0.1 (default: random)
  AIRLOCK_DEMO_PROTOCOL  2025-11-25 or 2026-07-28 to pin one protocol revision
                         (default: both, negotiated by the client)
";

fn port_from_env() -> Result<u16, String> {
    match std::env::var("AIRLOCK_DEMO_PORT") {
        Err(std::env::VarError::NotPresent) => Ok(0),
        Err(e) => Err(format!("AIRLOCK_DEMO_PORT: {e}")),
        Ok(v) if v.trim().is_empty() => Ok(0),
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("AIRLOCK_DEMO_PORT must be a port number, not {v:?}")),
    }
}

fn versions_from_env() -> Result<Vec<ProtocolVersion>, String> {
    match std::env::var("AIRLOCK_DEMO_PROTOCOL") {
        Err(std::env::VarError::NotPresent) => Ok(ProtocolVersion::KNOWN_VERSIONS.to_vec()),
        Err(e) => Err(format!("AIRLOCK_DEMO_PROTOCOL: {e}")),
        Ok(v) => match v.trim() {
            "" | "all" => Ok(ProtocolVersion::KNOWN_VERSIONS.to_vec()),
            // Every revision with the initialize handshake, up to 2025-11-25.
            "2025-11-25" => {
                Ok(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25).to_vec())
            }
            "2026-07-28" => Ok(vec![ProtocolVersion::V_2026_07_28]),
            other => Err(format!(
                "AIRLOCK_DEMO_PROTOCOL must be 2025-11-25, 2026-07-28 or all, not {other:?}"
            )),
        },
    }
}

async fn run() -> Result<(), String> {
    if let Some(arg) = std::env::args().nth(1) {
        return match arg.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                Ok(())
            }
            "-V" | "--version" => {
                println!("airlock-demo-server {}", env!("CARGO_PKG_VERSION"));
                Ok(())
            }
            other => Err(format!("unknown argument {other:?}; see --help")),
        };
    }
    let port = port_from_env()?;
    let versions = versions_from_env()?;
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?
        .port();
    let flows = Arc::new(Flows::new());
    let web = Web::new(flows.clone(), port);
    tokio::spawn(web.clone().serve(listener));
    eprintln!("airlock-demo ready {}", web.base_url());

    let service = DemoServer::new(flows, web, versions)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("MCP session did not start: {e}"))?;
    service
        .waiting()
        .await
        .map_err(|e| format!("MCP session ended with an error: {e}"))?;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("airlock-demo: {e}");
            ExitCode::FAILURE
        }
    }
}
