//! Benchmarks that print figures (never timed tests):
//!
//!   airlock-bench --transport stdio|http [--url URL] [--server-js PATH] [--calls N] [--warmup N]
//!                 [--client airlock-core|rmcp] [--stages]
//!     Sequential `tools/call` of `echo`, through Airlock's core (the path of
//!     `airlock call`, history included) or a bare rmcp client (same
//!     runtime, same server, no history). One JSON line in the shape of
//!     tests/peers/bench_ts_client.mjs so scripts/bench.sh can compare;
//!     `--stages` adds where the time of one core call goes (tracing spans).
//!   airlock-bench history [--rows N] [--reps N]
//!     History at scale (see history.rs).
//!   airlock-bench history --rows N --fill DIR
//!     Only generate the rows into DIR/airlock.sqlite3 (a data dir to start
//!     the app on; tests/e2e/bench/pages.mjs).
//!   airlock-bench activity [--rows N] [--reps N]
//!     The activity overview at scale (see activity.rs).
//!   airlock-bench relay -- CMD [ARGS...]
//!     A do-nothing stdio relay in front of CMD: the floor of one proxy hop
//!     (see relay.rs; scripts/bench-gateway.sh).
//!   airlock-bench budget [--rows N] [--reps N] [--tools N]
//!     The tool budget's reads at scale: an app's most used tools over N
//!     history rows, and airlock__find_tools' search over N tools (see
//!     budget.rs).
//!   airlock-bench rooms [--calls N] [--rounds R]
//!     Start and call figures of a server confined against unconfined (see rooms.rs).
//!   airlock-bench noisy [--calls N] [--one-thread] [--only TEXT]
//!     A quiet server's calls through the gateway while another misbehaves,
//!     beside the quiet figures (see noisy.rs; scripts/bench-gateway.sh --noisy).

mod activity;
mod budget;
mod calls;
mod cases;
mod catalog;
mod gen;
mod history;
mod noisy;
mod relay;
mod rooms;
mod stages;

pub(crate) fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn main() -> Result<(), String> {
    // Inside a server's room this binary is the room's helper (the rooms
    // benchmark, and the calls benchmark's confined default).
    if let Some(code) = airlock_sandbox::helper::run_if_asked() {
        std::process::exit(code);
    }
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("rooms") {
        return rooms::run(&args);
    }
    if args.get(1).map(String::as_str) == Some("history") {
        return history::run(&args);
    }
    if args.get(1).map(String::as_str) == Some("activity") {
        return activity::run(&args);
    }
    if args.get(1).map(String::as_str) == Some("relay") {
        return relay::run(&args);
    }
    if args.get(1).map(String::as_str) == Some("budget") {
        return budget::run(&args);
    }
    if args.get(1).map(String::as_str) == Some("catalog") {
        return catalog::run(&args);
    }
    if args.get(1).map(String::as_str) == Some("noisy") {
        return noisy::run(&args);
    }
    calls::run(&args)
}
