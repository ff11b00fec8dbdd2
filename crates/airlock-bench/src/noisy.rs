//! `airlock-bench noisy [--calls N] [--one-thread] [--only TEXT]`: a quiet
//! server's calls through the gateway while another server misbehaves in
//! each way issues 25 and 34 name (with --only: the scenarios whose name
//! has TEXT), beside the same calls with the other server idle; on two
//! worker threads, or with --one-thread on one as `airlock daemon` runs. The gateway runs in
//! this process (airlock_gateway::test_support): servers and apps on the
//! official Rust SDK over in-memory pipes, so the figures are the gateway's
//! own isolation, not process hops. Goal: each scenario's p99 within
//! +50 ms of the quiet p99.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_gateway::test_support::{call, call_with, tool, App, Harness, Server};
use rmcp::model::SubscribeRequestParams;
use serde_json::json;

use crate::{arg, percentile};

/// How much slower than quiet a scenario's p99 may be.
const GOAL_MS: f64 = 50.0;

/// Each misbehaviour, started in the background until `stop`.
#[derive(Clone, Copy)]
enum Noise {
    Quiet,
    SlowListerFlood,
    StuckSubscriptions,
    LogFlood,
    SamplingFlood,
    OversizedAnswers,
    NameChurn,
}

impl Noise {
    fn name(self) -> &'static str {
        match self {
            Self::Quiet => "quiet (the other server idle)",
            Self::SlowListerFlood => "lists in 12 s + list_changed every 20 ms",
            Self::StuckSubscriptions => "subscriptions that never answer (8 at once)",
            Self::LogFlood => "log flood (5,000 lines per call, in a loop)",
            Self::SamplingFlood => "sampling flood (50 at once, in a loop)",
            Self::OversizedAnswers => "answers over the limit (20 MB, in a loop)",
            Self::NameChurn => "1,000 fresh tool names at every refresh",
        }
    }
}

fn hostile() -> Server {
    let s = Server::with_tools(vec![
        tool("talk", "Talks."),
        tool("sample", "Samples."),
        tool("big", "Big."),
    ]);
    s.set(|st| {
        st.resources = vec![
            serde_json::from_value(json!({"uri": "noisy://note", "name": "note"}))
                .expect("a resource"),
        ];
        st.subscribe_hangs = true;
    });
    s
}

/// Start `noise` against `h`'s hostile server; it runs until `stop`.
#[allow(deprecated)] // resources/subscribe and logging: 2025-11-25 apps use them
async fn start(h: &Harness, noisy: &Server, noise: Noise, stop: Arc<AtomicBool>) {
    match noise {
        Noise::Quiet => {}
        Noise::SlowListerFlood => {
            noisy.set(|s| s.list_delay = Duration::from_secs(12));
            let noisy = noisy.clone();
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    noisy.tools_changed().await;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                noisy.set(|s| s.list_delay = Duration::ZERO);
            });
        }
        Noise::NameChurn => {
            // Issue 34: every name new, so every refresh is a thousand
            // changes held for review (and the last ones dropped).
            let noisy = noisy.clone();
            tokio::spawn(async move {
                let mut round = 0;
                while !stop.load(Ordering::Relaxed) {
                    let names = (0..1000)
                        .map(|i| tool(&format!("t{round}_{i}"), "A tool that came just now."))
                        .collect();
                    noisy.set(|s| s.tools = names);
                    noisy.tools_changed().await;
                    round += 1;
                    // Past the catalog's one refresh a second.
                    tokio::time::sleep(Duration::from_millis(1100)).await;
                }
            });
        }
        Noise::StuckSubscriptions => {
            for i in 0..8 {
                let app = h.app(&format!("subscriber-{i}"), App::default()).await;
                let stop = stop.clone();
                tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        let _ = app
                            .peer()
                            .subscribe(SubscribeRequestParams::new("noisy://note"))
                            .await;
                    }
                });
            }
        }
        Noise::LogFlood | Noise::SamplingFlood | Noise::OversizedAnswers => {
            let state = App {
                sampling: Some(Duration::from_millis(50)),
                ..App::default()
            };
            let app = h.app("noisy-app", state).await;
            if matches!(noise, Noise::LogFlood) {
                let _ = app
                    .peer()
                    .set_level(rmcp::model::SetLevelRequestParams::new(
                        rmcp::model::LoggingLevel::Debug,
                    ))
                    .await;
            }
            let (name, args) = match noise {
                Noise::LogFlood => ("noisy__talk", json!({"lines": 5000, "message": "noise"})),
                Noise::SamplingFlood => ("noisy__sample", json!({"times": 50})),
                _ => ("noisy__big", json!({"bytes": 20 * 1024 * 1024})),
            };
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let _ = call_with(&app, name, args.clone()).await;
                }
            });
        }
    }
}

/// Between two quiet calls: a call is timed from when it was wanted, so a
/// blocked thread counts whether it delays the call or its wake-up.
const GAP: Duration = Duration::from_millis(2);

/// `calls` quiet calls, each timed (ms), sorted.
async fn quiet_calls(
    app: &rmcp::service::RunningService<rmcp::service::RoleClient, App>,
    calls: usize,
) -> Result<Vec<f64>, String> {
    let mut times = Vec::with_capacity(calls);
    for i in 0..calls {
        let t = Instant::now() + GAP;
        tokio::time::sleep(GAP).await;
        let r = call(app, "quiet__echo", &format!("m{i}"))
            .await
            .map_err(|e| format!("quiet call {i}: {e}"))?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if r.is_error == Some(true) {
            return Err(format!("quiet call {i} failed: {r:?}"));
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

async fn scenario(noise: Noise, calls: usize) -> Result<Vec<f64>, String> {
    let h = Harness::new().await;
    let noisy = hostile();
    h.server(
        "quiet",
        Server::with_tools(vec![tool("echo", "Echo.")]),
        false,
    )
    .await;
    h.server_limited("noisy", noisy.clone(), false, 16 * 1024 * 1024)
        .await;
    let app = h.app("measured", App::default()).await;
    // Warm up, then let the noise start.
    quiet_calls(&app, calls.min(50)).await?;
    let stop = Arc::new(AtomicBool::new(false));
    start(&h, &noisy, noise, stop.clone()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let times = quiet_calls(&app, calls).await;
    stop.store(true, Ordering::Relaxed);
    times
}

pub fn run(args: &[String]) -> Result<(), String> {
    let calls: usize = arg(args, "--calls")
        .map(|c| c.parse().map_err(|_| "--calls: a number".to_owned()))
        .transpose()?
        .unwrap_or(500);
    // --one-thread: as `airlock daemon` runs (work that blocks its thread
    // shows); otherwise two workers.
    let rt = if args.iter().any(|a| a == "--one-thread") {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    }
    .map_err(|e| e.to_string())?;
    let only = arg(args, "--only");
    let noises = [
        Noise::Quiet,
        Noise::SlowListerFlood,
        Noise::StuckSubscriptions,
        Noise::LogFlood,
        Noise::SamplingFlood,
        Noise::OversizedAnswers,
        Noise::NameChurn,
    ];
    println!("a quiet server's echo through the gateway while another server misbehaves ({calls} calls each, ms)");
    println!(
        "{:<46} {:>8} {:>8} {:>8} {:>10}  goal (p99 <= quiet + {GOAL_MS} ms)",
        "the other server", "p50", "p99", "max", "p99 added"
    );
    let mut quiet_p99 = 0.0;
    let mut missed = 0;
    for noise in noises {
        let wanted = only
            .as_deref()
            .is_none_or(|o| noise.name().contains(o) || matches!(noise, Noise::Quiet));
        if !wanted {
            continue;
        }
        let times = rt.block_on(scenario(noise, calls))?;
        let (p50, p99) = (percentile(&times, 0.5), percentile(&times, 0.99));
        let max = times.last().copied().unwrap_or(0.0);
        if matches!(noise, Noise::Quiet) {
            quiet_p99 = p99;
        }
        let added = p99 - quiet_p99;
        let met = added <= GOAL_MS;
        if !met {
            missed += 1;
        }
        println!(
            "{:<46} {p50:>8.3} {p99:>8.3} {max:>8.3} {added:>+10.3}  {}",
            noise.name(),
            if met { "met" } else { "MISSED" }
        );
    }
    println!(
        "{}",
        if missed == 0 {
            "every scenario within the goal".to_owned()
        } else {
            format!("{missed} scenario(s) over the goal")
        }
    );
    Ok(())
}
