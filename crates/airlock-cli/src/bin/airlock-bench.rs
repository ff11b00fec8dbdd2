//! Sequential `tools/call` of `echo` through Airlock's core (the same path as
//! `airlock call`, history write included). Prints one JSON line in the same
//! shape as tests/peers/bench_ts_client.mjs so scripts/bench.sh can compare.
//!
//!   airlock-bench --transport stdio|http [--url URL] [--server-js PATH] [--calls N] [--warmup N]

use std::sync::Arc;
use std::time::Instant;

use airlock_core::elicitation::{ConsentDecision, FixedConsent, PrintOpener};
use airlock_core::servers::{ServerInput, Transport};
use airlock_core::{Airlock, AirlockOptions};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let transport = arg(&args, "--transport").unwrap_or_else(|| "stdio".into());
    let calls: usize = arg(&args, "--calls")
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let warmup: usize = arg(&args, "--warmup")
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let server = match transport.as_str() {
        "stdio" => {
            let js = arg(&args, "--server-js").ok_or("--server-js PATH is needed for stdio")?;
            Transport::Stdio {
                command: "node".into(),
                args: vec![js, "stdio".into()],
                env: Default::default(),
                cwd: None,
            }
        }
        "http" => Transport::Http {
            url: arg(&args, "--url").ok_or("--url is needed for http")?,
            headers: Default::default(),
        },
        other => return Err(format!("unknown transport {other}")),
    };
    let dir = std::env::temp_dir().join(format!("airlock-bench-{}", std::process::id()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let result = runtime.block_on(async {
        let core = Airlock::open(AirlockOptions::new(
            dir.clone(),
            Arc::new(FixedConsent(ConsentDecision::Decline)),
            Arc::new(PrintOpener { print: false }),
        ))
        .map_err(|e| e.to_string())?;
        core.add_server(&ServerInput {
            name: "everything".into(),
            transport: server,
            options: Default::default(),
        })
        .map_err(|e| e.to_string())?;
        core.connect("everything")
            .await
            .map_err(|e| e.to_string())?;
        let args = serde_json::json!({"message": "hello"});
        let serde_json::Value::Object(map) = args else {
            return Err("bad args".to_string());
        };
        for _ in 0..warmup {
            core.call_tool("everything", "echo", Some(map.clone()))
                .await
                .map_err(|e| e.to_string())?;
        }
        let mut lat = Vec::with_capacity(calls);
        let t0 = Instant::now();
        for _ in 0..calls {
            let t = Instant::now();
            core.call_tool("everything", "echo", Some(map.clone()))
                .await
                .map_err(|e| e.to_string())?;
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let total = t0.elapsed().as_secs_f64();
        core.disconnect("everything");
        lat.sort_by(|a, b| a.total_cmp(b));
        Ok::<_, String>(serde_json::json!({
            "client": "airlock-core",
            "transport": transport,
            "calls": calls,
            "calls_per_sec": (calls as f64 / total * 10.0).round() / 10.0,
            "p50_ms": (percentile(&lat, 0.5) * 1000.0).round() / 1000.0,
            "p99_ms": (percentile(&lat, 0.99) * 1000.0).round() / 1000.0,
        }))
    });
    let _ = std::fs::remove_dir_all(&dir);
    println!("{}", result?);
    Ok(())
}
