//! `airlock-bench history --rows N`: history at scale. Fills a real SQLite
//! file through the core's store, then times each list, filter and search
//! and prints p50/p99, the rows each returned, and `EXPLAIN QUERY PLAN`,
//! then prunes half the rows while another thread reads. (The queries of
//! schemas 7 and 13 it once ran beside these are gone; their figures are in
//! the README's benchmarks section.)

use std::path::Path;
use std::time::Instant;

use airlock_core::store::{now_ms, HistoryQuery, Store};
use rusqlite::Connection;

use crate::cases::{audit_cases, cases, elicitation_cases, Case, PAGE};
use crate::gen::{self, SPAN_MS};
use crate::{arg, percentile};

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn run_query(store: &Store, case: &Case) -> Result<usize, String> {
    match case {
        Case::Calls(q) => store.history(q).map(|p| p.calls.len()),
        Case::Elicitations(q) => store.elicitation_page(q).map(|p| p.records.len()),
        Case::Audit(q) => store.audit_page(q).map(|p| p.events.len()),
    }
    .map_err(|e| e.to_string())
}

fn plan(store: &Store, case: &Case) -> Vec<String> {
    match case {
        Case::Calls(q) => store.explain_history(q),
        Case::Elicitations(q) => store.explain_elicitations(q),
        Case::Audit(q) => store.explain_audit(q),
    }
    .unwrap_or_else(|e| vec![e.to_string()])
}

fn stats(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (percentile(v, 0.5), percentile(v, 0.99))
}

fn file_mb(path: &Path) -> f64 {
    ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok())
        .map(|m| m.len() as f64 / 1e6)
        .sum()
}

pub fn run(args: &[String]) -> Result<(), String> {
    let rows: usize = arg(args, "--rows")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let reps: usize = arg(args, "--reps")
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    if let Some(dir) = arg(args, "--fill") {
        // Only generate the rows, into a data dir the app can start on
        // (tests/e2e/bench/pages.mjs: the window at a million rows).
        let dir = Path::new(&dir);
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let path = dir.join(airlock_core::store::DB_FILE);
        let store = Store::open(&path).map_err(|e| e.to_string())?;
        let conn = Connection::open(&path).map_err(|e| e.to_string())?;
        let [c, el, au] = gen::fill(&store, &conn, rows, now_ms())?;
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .map_err(|e| e.to_string())?;
        println!(
            "{}: {rows} tool calls ({c:.1} s), {} elicitations ({el:.1} s), {} audit events ({au:.1} s)",
            path.display(),
            rows / 10,
            rows / 5
        );
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("airlock-bench-history-{}", std::process::id()));
    let result = bench(&dir, rows, reps);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn bench(dir: &Path, rows: usize, reps: usize) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    std::fs::create_dir_all(dir).map_err(|x| e(&x))?;
    let path = dir.join("airlock.sqlite3");
    let store = Store::open(&path).map_err(|x| e(&x))?;
    let conn = Connection::open(&path).map_err(|x| e(&x))?;
    let now = now_ms();
    let [c, el, au] = gen::fill(&store, &conn, rows, now)?;
    println!(
        "insert through the store (schema {}): {rows} tool calls {c:.1} s ({:.0}/s), {} elicitations {el:.1} s, {} audit events {au:.1} s",
        airlock_core::store::LATEST_VERSION,
        rows as f64 / c,
        rows / 10,
        rows / 5
    );
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .map_err(|x| e(&x))?;
    drop(conn);
    // What the app does after pruning at start: merge the search indexes'
    // segments (each token a search asks costs a look in each segment).
    let t = Instant::now();
    let steps = store.tidy_search().map_err(|x| e(&x))?;
    println!(
        "tidy of the search indexes (after pruning at start): {steps} merges of {} pages, {:.1} s",
        airlock_core::store::TIDY_PAGES,
        t.elapsed().as_secs_f64()
    );
    println!("database size: {:.0} MB", file_mb(&path));
    let mut list = cases(now);
    list.extend(elicitation_cases(now));
    list.extend(audit_cases());
    pages(&store, rows, reps)?;
    search_pages(&store, reps)?;
    println!("\nqueries timed {reps} times each");
    println!(
        "\n{:<46}{:>17}{:>6}",
        "query (page of 50), p50 / p99 ms", "now", "rows"
    );
    let mut plans = Vec::new();
    for (name, case) in &list {
        let mut times = Vec::new();
        let mut n = 0;
        for _ in 0..reps {
            let t = Instant::now();
            n = run_query(&store, case)?;
            times.push(ms(t));
        }
        println!("{name:<46}{:>17}{n:>6}", p50_p99(&mut times));
        plans.push((name.clone(), plan(&store, case)));
    }
    println!("\nEXPLAIN QUERY PLAN");
    for (name, plan) in plans {
        println!("{name}\n  {}", plan.join(" / "));
    }
    prune(&store, now)
}

/// "p50 / p99" of the timings, "-" when there are none.
fn p50_p99(v: &mut [f64]) -> String {
    if v.is_empty() {
        return "-".to_owned();
    }
    let (p50, p99) = stats(v);
    format!("{p50:.2} / {p99:.2}")
}

/// Keyset pages of searches from the top.
fn search_pages(store: &Store, reps: usize) -> Result<(), String> {
    for term in [crate::gen::word(0), "ka".to_owned()] {
        let mut times = Vec::new();
        let mut before = None;
        for _ in 0..reps.max(100) {
            let q = HistoryQuery {
                limit: PAGE,
                before_id: before,
                search: Some(term.clone()),
                ..Default::default()
            };
            let t = Instant::now();
            let page = store.history(&q).map_err(|x| x.to_string())?;
            times.push(ms(t));
            before = page.next_before_id;
        }
        let (p50, p99) = stats(&mut times);
        println!(
            "keyset pages of {PAGE} of search '{term}' ({} pages): p50 {p50:.2} p99 {p99:.2} ms",
            times.len()
        );
    }
    Ok(())
}

/// Keyset pages from the top and from the middle.
fn pages(store: &Store, rows: usize, reps: usize) -> Result<(), String> {
    for (label, start) in [
        ("from the top", None),
        ("from the middle", Some(rows as i64 / 2)),
    ] {
        let mut times = Vec::new();
        let mut before = start;
        for _ in 0..reps.max(100) {
            let q = HistoryQuery {
                limit: PAGE,
                before_id: before,
                ..Default::default()
            };
            let t = Instant::now();
            let page = store.history(&q).map_err(|e| e.to_string())?;
            times.push(ms(t));
            before = page.next_before_id;
        }
        let (p50, p99) = stats(&mut times);
        println!(
            "keyset pages of {PAGE} {label} ({} pages): p50 {p50:.2} p99 {p99:.2} ms",
            times.len()
        );
    }
    Ok(())
}

/// Prune half the history while another thread keeps reading the first page.
fn prune(store: &Store, now: i64) -> Result<(), String> {
    let done = std::sync::atomic::AtomicBool::new(false);
    let cutoff = now - SPAN_MS / 2;
    let (removed, secs, mut lat) = std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut lat = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let t = Instant::now();
                let _ = store.history(&HistoryQuery {
                    limit: PAGE,
                    ..Default::default()
                });
                lat.push(ms(t));
            }
            lat
        });
        let t = Instant::now();
        let removed = store.prune_history(cutoff);
        let secs = t.elapsed().as_secs_f64();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (removed, secs, reader.join().unwrap_or_default())
    });
    let removed = removed.map_err(|e| e.to_string())?;
    let (p50, p99) = stats(&mut lat);
    let max = lat.last().copied().unwrap_or(0.0);
    println!(
        "\nprune of {removed} rows (older than 45 days) in batches of {}: {secs:.1} s; first page read {} times meanwhile: p50 {p50:.2} p99 {p99:.2} max {max:.1} ms",
        airlock_core::store::PRUNE_BATCH,
        lat.len()
    );
    Ok(())
}
