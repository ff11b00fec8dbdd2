//! Sequential `tools/call` of server-everything's `echo`: Airlock's core or
//! a bare rmcp client, on the same current-thread runtime.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use airlock_core::elicitation::{ConsentDecision, FixedConsent, PrintOpener};
use airlock_core::servers::{ServerInput, Transport};
use airlock_core::{Airlock, AirlockOptions};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;

use crate::{arg, percentile};

type Args = serde_json::Map<String, serde_json::Value>;

/// Time `calls` sequential calls after `warmup` ones; milliseconds each.
async fn timed<F, Fut>(warmup: usize, calls: usize, mut call: F) -> Result<(Vec<f64>, f64), String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    for _ in 0..warmup {
        call().await?;
    }
    let mut lat = Vec::with_capacity(calls);
    let t0 = Instant::now();
    for _ in 0..calls {
        let t = Instant::now();
        call().await?;
        lat.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    Ok((lat, t0.elapsed().as_secs_f64()))
}

struct Setup {
    transport: String,
    js: Option<String>,
    url: Option<String>,
    calls: usize,
    warmup: usize,
    args: Args,
    no_sandbox: bool,
}

async fn core_calls(s: &Setup, stages: bool) -> Result<(Vec<f64>, f64), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let server = match s.transport.as_str() {
        "stdio" => Transport::Stdio {
            command: "node".into(),
            args: vec![
                s.js.clone().ok_or("--server-js PATH is needed for stdio")?,
                "stdio".into(),
            ],
            env: Default::default(),
            cwd: None,
        },
        "http" => Transport::Http {
            url: s.url.clone().ok_or("--url is needed for http")?,
            headers: Default::default(),
        },
        other => return Err(format!("unknown transport {other}")),
    };
    let dir = std::env::temp_dir().join(format!("airlock-bench-{}", std::process::id()));
    let mut opts = AirlockOptions::new(
        dir.clone(),
        Arc::new(FixedConsent(ConsentDecision::Decline)),
        Arc::new(PrintOpener { print: false }),
    );
    // Confined, as a server added today runs (`--no-sandbox`: unconfined).
    opts.sandbox_helper = std::env::current_exe().ok();
    let core = Airlock::open(opts).map_err(|x| e(&x))?;
    core.add_server(&ServerInput {
        name: "everything".into(),
        transport: server,
        options: airlock_core::servers::ServerOptions {
            sandbox: s
                .no_sandbox
                .then(airlock_sandbox::SandboxSettings::unconfined),
            ..Default::default()
        },
    })
    .map_err(|x| e(&x))?;
    core.connect("everything").await.map_err(|x| e(&x))?;
    let call = || async {
        core.call_tool("everything", "echo", Some(s.args.clone()))
            .await
            .map(drop)
            .map_err(|x| x.to_string())
    };
    let out = if stages {
        crate::stages::breakdown(&core, s.calls, call).await
    } else {
        timed(s.warmup, s.calls, call).await
    };
    core.disconnect("everything");
    core.close();
    drop(core);
    let _ = std::fs::remove_dir_all(&dir);
    out
}

async fn rmcp_calls(s: &Setup) -> Result<(Vec<f64>, f64), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let client = match s.transport.as_str() {
        "stdio" => {
            let mut cmd = tokio::process::Command::new("node");
            cmd.arg(s.js.clone().ok_or("--server-js PATH is needed for stdio")?)
                .arg("stdio")
                .kill_on_drop(true);
            ().serve(TokioChildProcess::new(cmd).map_err(|x| e(&x))?)
                .await
                .map_err(|x| e(&x))?
        }
        _ => {
            let url = s.url.clone().ok_or("--url is needed for http")?;
            ().serve(StreamableHttpClientTransport::from_uri(url))
                .await
                .map_err(|x| e(&x))?
        }
    };
    let call = || async {
        let mut params = CallToolRequestParams::new("echo");
        params.arguments = Some(s.args.clone());
        client
            .call_tool(params)
            .await
            .map(drop)
            .map_err(|x| x.to_string())
    };
    let out = timed(s.warmup, s.calls, call).await;
    let _ = client.cancel().await;
    out
}

pub fn run(args: &[String]) -> Result<(), String> {
    let num = |name: &str, default: usize| {
        arg(args, name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let serde_json::Value::Object(call_args) = serde_json::json!({"message": "hello"}) else {
        return Err("bad args".into());
    };
    let setup = Setup {
        transport: arg(args, "--transport").unwrap_or_else(|| "stdio".into()),
        js: arg(args, "--server-js"),
        url: arg(args, "--url"),
        calls: num("--calls", 3000),
        warmup: num("--warmup", 200),
        args: call_args,
        no_sandbox: args.iter().any(|a| a == "--no-sandbox"),
    };
    let client = arg(args, "--client").unwrap_or_else(|| "airlock-core".into());
    let stages = args.iter().any(|a| a == "--stages");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (mut lat, total) = runtime.block_on(async {
        match client.as_str() {
            "airlock-core" => core_calls(&setup, stages).await,
            "rmcp" => rmcp_calls(&setup).await,
            other => Err(format!("unknown client {other}")),
        }
    })?;
    lat.sort_by(f64::total_cmp);
    println!(
        "{}",
        serde_json::json!({
            "client": client,
            "transport": setup.transport,
            "calls": lat.len(),
            "calls_per_sec": (lat.len() as f64 / total * 10.0).round() / 10.0,
            "p50_ms": (percentile(&lat, 0.5) * 1000.0).round() / 1000.0,
            "p99_ms": (percentile(&lat, 0.99) * 1000.0).round() / 1000.0,
        })
    );
    Ok(())
}
