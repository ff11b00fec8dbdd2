//! What a room costs (issue 33): for server-everything (Node) and the
//! Python SDK server, the time from adding the server to its tools listed
//! (the process started, the handshake, `tools/list`), and the p50/p99 of
//! sequential `echo` calls, confined against unconfined, rounds
//! alternated, medians printed with their ratio.
//!
//!   airlock-bench rooms [--calls N] [--rounds R] [--peers DIR]

use std::sync::Arc;
use std::time::Instant;

use airlock_core::elicitation::{ConsentDecision, FixedConsent, PrintOpener};
use airlock_core::servers::{ServerInput, ServerOptions, Transport};
use airlock_core::{Airlock, AirlockOptions};
use airlock_sandbox::SandboxSettings;

use crate::{arg, percentile};

struct Figures {
    start_ms: f64,
    p50_ms: f64,
    p99_ms: f64,
}

async fn one_round(
    command: &str,
    args: &[String],
    echo_arg: &str,
    confined: bool,
    calls: usize,
) -> Result<Figures, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let dir = std::env::temp_dir().join(format!(
        "airlock-bench-rooms-{}-{}",
        std::process::id(),
        confined
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = AirlockOptions::new(
        dir.clone(),
        Arc::new(FixedConsent(ConsentDecision::Decline)),
        Arc::new(PrintOpener { print: false }),
    );
    opts.sandbox_helper = std::env::current_exe().ok();
    let core = Airlock::open(opts).map_err(|x| e(&x))?;
    let sandbox = if confined {
        SandboxSettings::default()
    } else {
        SandboxSettings::unconfined()
    };
    core.add_server(&ServerInput {
        name: "s".into(),
        transport: Transport::Stdio {
            command: command.into(),
            args: args.to_vec(),
            env: Default::default(),
            cwd: None,
        },
        options: ServerOptions {
            sandbox: Some(sandbox),
            ..Default::default()
        },
    })
    .map_err(|x| e(&x))?;
    let t = Instant::now();
    core.connect("s").await.map_err(|x| e(&x))?;
    core.list_tools("s").await.map_err(|x| e(&x))?;
    let start_ms = t.elapsed().as_secs_f64() * 1000.0;
    let serde_json::Value::Object(a) = serde_json::json!({ echo_arg: "hello" }) else {
        return Err("bad args".into());
    };
    for _ in 0..calls / 10 {
        core.call_tool("s", "echo", Some(a.clone()))
            .await
            .map_err(|x| x.to_string())?;
    }
    let mut lat = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        core.call_tool("s", "echo", Some(a.clone()))
            .await
            .map_err(|x| x.to_string())?;
        lat.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    lat.sort_by(f64::total_cmp);
    core.disconnect("s");
    core.close();
    drop(core);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Figures {
        start_ms,
        p50_ms: percentile(&lat, 0.5),
        p99_ms: percentile(&lat, 0.99),
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let num = |name: &str, default: usize| {
        arg(args, name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let calls = num("--calls", 1000);
    let rounds = num("--rounds", 3);
    let peers = arg(args, "--peers").map_or_else(
        || {
            let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers");
            // Without `..`: a room holds the peers' folder, not the path
            // through this crate's.
            std::fs::canonicalize(&p).unwrap_or(p)
        },
        std::path::PathBuf::from,
    );
    let servers: Vec<(&str, String, Vec<String>, &str)> = vec![
        (
            "server-everything (Node)",
            "node".into(),
            vec![
                peers
                    .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
                    .display()
                    .to_string(),
                "stdio".into(),
            ],
            "message",
        ),
        (
            "Python SDK server",
            peers.join(".venv/bin/python").display().to_string(),
            vec![
                peers.join("py_server.py").display().to_string(),
                "stdio".into(),
            ],
            "message",
        ),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    println!(
        "rooms: {calls} sequential echo calls per round, {rounds} rounds alternated, medians (ms)"
    );
    println!(
        "{:<26} {:>10} {:>10} {:>7} {:>9} {:>9} {:>7} {:>9} {:>9}",
        "server", "start", "start", "", "p50", "p50", "", "p99", "p99"
    );
    println!(
        "{:<26} {:>10} {:>10} {:>7} {:>9} {:>9} {:>7} {:>9} {:>9}",
        "", "unconf.", "confined", "+ms", "unconf.", "confined", "ratio", "unconf.", "confined"
    );
    for (label, command, sargs, echo_arg) in &servers {
        let mut f: [Vec<Figures>; 2] = [Vec::new(), Vec::new()];
        for r in 0..rounds {
            // Alternate which goes first, so neither always gets a warm cache.
            let order = if r % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            for confined in order {
                let got = runtime.block_on(one_round(command, sargs, echo_arg, confined, calls))?;
                f[usize::from(confined)].push(got);
            }
        }
        let m = |i: usize, g: fn(&Figures) -> f64| median(f[i].iter().map(g).collect());
        let (s0, s1) = (m(0, |x| x.start_ms), m(1, |x| x.start_ms));
        let (p0, p1) = (m(0, |x| x.p50_ms), m(1, |x| x.p50_ms));
        let (q0, q1) = (m(0, |x| x.p99_ms), m(1, |x| x.p99_ms));
        println!(
            "{label:<26} {s0:>10.1} {s1:>10.1} {:>+7.1} {p0:>9.3} {p1:>9.3} {:>7.3} {q0:>9.3} {q1:>9.3}",
            s1 - s0,
            p1 / p0
        );
    }
    Ok(())
}
