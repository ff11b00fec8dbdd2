//! `airlock-bench activity --rows N`: the activity overview (issue 13) at
//! scale. Fills a real SQLite database with the history generator (N tool
//! calls, N/10 elicitations over its time span), then times the overview
//! for 14 and 30 days and prints each query's plan. `--db PATH` times an
//! existing database instead (opened through the store, so migrated).

use std::time::Instant;

use airlock_core::activity::ActivityQuery;
use airlock_core::store::{now_ms, Store};
use rusqlite::Connection;

use crate::{arg, gen, percentile};

pub fn run(args: &[String]) -> Result<(), String> {
    let rows: usize = arg(args, "--rows")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let reps: usize = arg(args, "--reps")
        .and_then(|v| v.parse().ok())
        .unwrap_or(11);
    if let Some(db) = arg(args, "--db") {
        let store = Store::open(std::path::Path::new(&db)).map_err(|e| e.to_string())?;
        return time(&store, now_ms(), reps);
    }
    let dir = std::env::temp_dir().join(format!("airlock-bench-activity-{}", std::process::id()));
    let result = bench(&dir, rows, reps);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn bench(dir: &std::path::Path, rows: usize, reps: usize) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    std::fs::create_dir_all(dir).map_err(|x| e(&x))?;
    let path = dir.join("airlock.sqlite3");
    let store = Store::open(&path).map_err(|x| e(&x))?;
    let conn = Connection::open(&path).map_err(|x| e(&x))?;
    let now = now_ms();
    let [c, el, _] = gen::fill(&store, &conn, rows, now)?;
    // Domains opened: one row per (server, domain), as consents record them.
    conn.execute_batch(
        "INSERT OR IGNORE INTO opened_domains (server_name, domain, times, first_at, last_at)
         SELECT server_name, registrable_domain, COUNT(*), MIN(created_at), MAX(created_at)
         FROM elicitations WHERE registrable_domain IS NOT NULL GROUP BY server_name, registrable_domain;",
    )
    .map_err(|x| e(&x))?;
    println!(
        "filled: {rows} tool calls ({c:.1} s), {} elicitations ({el:.1} s)",
        rows / 10
    );
    time(&store, now, reps)
}

fn time(store: &Store, now: i64, reps: usize) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    for line in store.explain_activity().map_err(|x| e(&x))? {
        println!("plan  {line}");
    }
    for days in [14, 30] {
        let q = ActivityQuery {
            days,
            tz_offset_min: 60,
            top: 8,
        };
        let mut ms = Vec::new();
        let mut last = None;
        for _ in 0..reps {
            let t = Instant::now();
            last = Some(store.activity(&q, now).map_err(|x| e(&x))?);
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        ms.sort_by(f64::total_cmp);
        let o = last.unwrap_or_default();
        let calls: u32 = o
            .calls_by_day
            .iter()
            .map(|d| d.ok + d.tool_error + d.failed)
            .sum();
        let asks: u32 = o
            .elicitations_by_day
            .iter()
            .map(|d| d.allowed + d.declined + d.blocked + d.other)
            .sum();
        println!(
            "activity, last {days} days: p50 {:.1} ms, max {:.1} ms ({calls} calls, {asks} requests, {} domains, {} apps, {} servers)",
            percentile(&ms, 0.5),
            ms[ms.len() - 1],
            o.domains.len(),
            o.apps.len(),
            o.servers.len()
        );
    }
    Ok(())
}
