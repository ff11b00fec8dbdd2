//! How long the catalog's scan takes: 10,000 real-looking tools (the real
//! corpus, tests/corpus/real, repeated under new names across 50 servers),
//! each scanned with every other server's tools in the index, then cleaned;
//! and 1 MB adversarial texts.
//!
//!   cargo run --release -p airlock-scan --example scan_bench [-- TOOLS]

use std::path::Path;
use std::time::{Duration, Instant};

use airlock_scan::{clean, clean_json, scan_text, scan_tool, Context, Severity, ToolIndex};
use serde_json::Value;

const SERVERS: usize = 50;
const RUNS: usize = 7;

fn corpus_tools() -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/real");
    let mut tools = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(listing) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if let Some(list) = listing["tools"].as_array() {
            tools.extend(list.iter().cloned());
        }
    }
    tools
}

/// This thread's CPU time (Linux: /proc/thread-self/schedstat), so the
/// figure means something on a machine shared with other builds.
fn cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Wall and CPU time of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration, Option<Duration>) {
    let c = cpu();
    let t = Instant::now();
    let r = f();
    let wall = t.elapsed();
    let used = cpu().zip(c).map(|(b, a)| b.saturating_sub(a));
    (r, wall, used)
}

fn median(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[d.len() / 2]
}

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let real = corpus_tools();
    if real.is_empty() {
        eprintln!("no corpus in tests/corpus/real");
        std::process::exit(1);
    }
    // 10,000 tools: the real ones again and again, renamed, spread over servers.
    let mut tools: Vec<(String, Value)> = Vec::with_capacity(count);
    for i in 0..count {
        let mut t = real[i % real.len()].clone();
        let name = format!(
            "{}_{}",
            t["name"].as_str().unwrap_or("tool"),
            i / real.len()
        );
        t["name"] = Value::String(name);
        tools.push((format!("server{}", i % SERVERS), t));
    }
    let bytes: usize = tools.iter().map(|(_, t)| t.to_string().len()).sum();
    let names: Vec<(String, String, String)> = tools
        .iter()
        .map(|(s, t)| {
            let n = t["name"].as_str().unwrap_or_default().to_owned();
            (s.clone(), n.clone(), format!("{s}__{n}"))
        })
        .collect();

    let mut index_times = Vec::new();
    let mut scan_times = Vec::new();
    let mut scan_cpu = Vec::new();
    let mut clean_times = Vec::new();
    let mut clean_cpu = Vec::new();
    let mut serious = 0;
    for _ in 0..RUNS {
        let (index, wall, _) = timed(|| {
            ToolIndex::new(
                names
                    .iter()
                    .map(|(s, n, e)| (s.as_str(), n.as_str(), e.as_str())),
            )
        });
        index_times.push(wall);

        let (held, wall, used) = timed(|| {
            tools
                .iter()
                .filter(|(server, tool)| {
                    let found = scan_tool(tool, &Context::new(server, &index));
                    airlock_scan::worst(&found) == Some(Severity::Serious)
                })
                .count()
        });
        serious = held;
        scan_times.push(wall);
        scan_cpu.extend(used);

        let mut copy: Vec<Value> = tools.iter().map(|(_, t)| t.clone()).collect();
        let (_, wall, used) = timed(|| copy.iter_mut().map(clean_json).sum::<usize>());
        clean_times.push(wall);
        clean_cpu.extend(used);
    }
    let cpu_of = |d: Vec<Duration>| {
        if d.is_empty() {
            "n/a".to_owned()
        } else {
            format!("{:?}", median(d))
        }
    };
    println!(
        "{count} tools ({} real ones repeated), {:.1} MB of JSON, {SERVERS} servers, median of {RUNS} runs:",
        real.len(),
        bytes as f64 / 1e6
    );
    println!("  ToolIndex::new     wall {:?}", median(index_times));
    println!(
        "  scan_tool (all)    wall {:?}, cpu {}  ({serious} held)",
        median(scan_times),
        cpu_of(scan_cpu)
    );
    println!(
        "  clean_json (all)   wall {:?}, cpu {}",
        median(clean_times),
        cpu_of(clean_cpu)
    );

    let index = ToolIndex::new(
        names
            .iter()
            .map(|(s, n, e)| (s.as_str(), n.as_str(), e.as_str())),
    );
    let ctx = Context::new("server0", &index);
    println!("1 MB texts (scan_text / clean):");
    for piece in [
        "a plain sentence. ",
        "a.",
        "<b ",
        "\u{1b}[",
        "\\x1b",
        "\u{200B}x",
        "\u{E0041}",
        "do not tell ",
    ] {
        let text = piece.repeat((1 << 20) / piece.len());
        let t = Instant::now();
        let found = scan_text("description", &text, &ctx);
        let scanned = t.elapsed();
        let t = Instant::now();
        let cleaned = clean(&text);
        let cleaned_in = t.elapsed();
        println!(
            "  {:<22} {scanned:>12?} {cleaned_in:>12?}  ({} findings, {} bytes cleaned)",
            format!("{piece:?}"),
            found.len(),
            cleaned.len()
        );
    }
}
