//! `airlock-bench history --rows N`: history at scale. Fills a real SQLite
//! file through the core's store, copies it into a database at schema 7
//! (before migration 0009) for the earlier queries, then times each list,
//! filter and search both ways, alternated, and prints p50/p99, the rows
//! each returned, and `EXPLAIN QUERY PLAN` of both.

use std::path::Path;
use std::time::Instant;

use airlock_core::store::{create_at_version, now_ms, HistoryQuery, Store};
use rusqlite::{params_from_iter, types::Value, Connection};

use crate::cases::{audit_cases, cases, elicitation_cases, Case, PAGE};
use crate::gen::{self, SPAN_MS};
use crate::{arg, old, percentile, v13};

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Run SQL on the schema-7 copy, reading every column of every row.
fn run_old(conn: &Connection, (sql, args): &(String, Vec<Value>)) -> Result<usize, String> {
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let n = stmt.column_count();
    let rows = stmt
        .query_map(params_from_iter(args.iter()), |r| {
            (0..n)
                .map(|i| r.get::<_, Value>(i))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| e.to_string())?;
    Ok(rows.count())
}

fn run_new(store: &Store, case: &Case) -> Result<usize, String> {
    match case {
        Case::Calls(q) => store.history(q).map(|p| p.calls.len()),
        Case::Elicitations(q) => store.elicitation_page(q).map(|p| p.records.len()),
        Case::Audit(q) => store.audit_page(q).map(|p| p.events.len()),
    }
    .map_err(|e| e.to_string())
}

fn plan_old(conn: &Connection, (sql, args): &(String, Vec<Value>)) -> Vec<String> {
    conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .and_then(|mut s| {
            s.query_map(params_from_iter(args.iter()), |r| r.get::<_, String>(3))?
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap_or_else(|e| vec![e.to_string()])
}

fn plan_new(store: &Store, case: &Case) -> Vec<String> {
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
    // The older schemas' queries take up to a second each at a million
    // rows: `--old-reps K` times them K times only, so that a p99 of the
    // current queries over many repetitions stays quick to get.
    let old_reps: usize = arg(args, "--old-reps")
        .and_then(|v| v.parse().ok())
        .unwrap_or(reps)
        .clamp(1, reps.max(1));
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
    let result = bench(&dir, rows, reps, old_reps);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn bench(dir: &Path, rows: usize, reps: usize, old_reps: usize) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    std::fs::create_dir_all(dir).map_err(|x| e(&x))?;
    let new_path = dir.join("airlock.sqlite3");
    let store = Store::open(&new_path).map_err(|x| e(&x))?;
    let conn = Connection::open(&new_path).map_err(|x| e(&x))?;
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
    let old_path = dir.join("schema7.sqlite3");
    let old_conn = create_at_version(&old_path, 7).map_err(|x| e(&x))?;
    old::copy_rows(&old_conn, &new_path)?;
    let v13_conn = upgrades(dir, &old_path)?;
    // What the app does after pruning at start: merge the search indexes'
    // segments (each token a search asks costs a look in each segment).
    let t = Instant::now();
    let steps = store.tidy_search().map_err(|x| e(&x))?;
    println!(
        "tidy of the search indexes (after pruning at start): {steps} merges of {} pages, {:.1} s",
        airlock_core::store::TIDY_PAGES,
        t.elapsed().as_secs_f64()
    );
    println!(
        "database size: {:.0} MB now; {:.0} MB at schema 13; {:.0} MB at schema 7 (same rows)",
        file_mb(&new_path),
        file_mb(&dir.join("schema13.sqlite3")),
        file_mb(&old_path)
    );
    let mut list = cases(now);
    list.extend(elicitation_cases(now));
    list.extend(audit_cases());
    pages(&store, &old_conn, rows, reps)?;
    search_pages(&store, &v13_conn, reps)?;
    println!("\nqueries timed {reps} times each (schemas 7 and 13: {old_reps} times)");
    println!(
        "\n{:<46}{:>17}{:>17}{:>17}{:>6}{:>6}{:>6}",
        "query (page of 50), p50 / p99 ms", "schema 7", "schema 13", "now", "rows", "7", "13"
    );
    let mut plans = Vec::new();
    for (name, case) in &list {
        let (sql, sql13) = match case {
            Case::Calls(q) => (old::history_sql(q), Some(v13::history_sql(q))),
            Case::Elicitations(q) => (old::elicitations_sql(q), None),
            Case::Audit(q) => (old::audit_sql(q), Some(v13::audit_sql(q))),
        };
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let (mut n_old, mut n_new, mut n13) = (0, 0, None);
        for i in 0..reps {
            if i < old_reps {
                let t = Instant::now();
                n_old = run_old(&old_conn, &sql)?;
                a.push(ms(t));
                if let Some(sql13) = &sql13 {
                    let t = Instant::now();
                    n13 = Some(run_old(&v13_conn, sql13)?);
                    c.push(ms(t));
                }
            }
            let t = Instant::now();
            n_new = run_new(&store, case)?;
            b.push(ms(t));
        }
        let n13 = n13.map_or("-".to_owned(), |n| n.to_string());
        println!(
            "{name:<46}{:>17}{:>17}{:>17}{n_new:>6}{n_old:>6}{n13:>6}",
            p50_p99(&mut a),
            p50_p99(&mut c),
            p50_p99(&mut b)
        );
        plans.push((
            name.clone(),
            plan_old(&old_conn, &sql),
            sql13.map(|s| plan_old(&v13_conn, &s)),
            plan_new(&store, case),
        ));
    }
    println!("\nEXPLAIN QUERY PLAN (schema 7 | schema 13 | now)");
    for (name, old_plan, plan13, new_plan) in plans {
        println!("{name}\n  7:   {}", old_plan.join(" / "));
        if let Some(p) = plan13 {
            println!("  13:  {}", p.join(" / "));
        }
        println!("  now: {}", new_plan.join(" / "));
    }
    drop(old_conn);
    drop(v13_conn);
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

/// Upgrades of copies of the schema-7 file: to schema 13 (kept, for the
/// queries of schema 13), then that to the latest (the search backfill of
/// migration 0014: what an upgrade costs a database of this size).
fn upgrades(dir: &Path, old_path: &Path) -> Result<Connection, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let path13 = dir.join("schema13.sqlite3");
    std::fs::copy(old_path, &path13).map_err(|x| e(&x))?;
    let t = Instant::now();
    let conn13 = v13::upgrade(&path13)?;
    conn13
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .map_err(|x| e(&x))?;
    let to13 = t.elapsed().as_secs_f64();
    let copy = dir.join("migrate").join("airlock.sqlite3");
    std::fs::create_dir_all(dir.join("migrate")).map_err(|x| e(&x))?;
    std::fs::copy(&path13, &copy).map_err(|x| e(&x))?;
    let t = Instant::now();
    let migrated = Store::open(&copy).map_err(|x| e(&x))?;
    println!(
        "upgrade of a schema-7 copy to schema 13 (indexes + tool_calls_fts backfill): {to13:.1} s; of that to schema {} (tool_calls_search backfill): {:.1} s",
        migrated.schema_version().map_err(|x| e(&x))?,
        t.elapsed().as_secs_f64()
    );
    drop(migrated);
    let _ = std::fs::remove_dir_all(dir.join("migrate"));
    Ok(conn13)
}

/// Keyset pages of searches from the top, schema 13 and now alternated.
fn search_pages(store: &Store, v13_conn: &Connection, reps: usize) -> Result<(), String> {
    let e = |e: rusqlite::Error| e.to_string();
    for term in [crate::gen::word(0), "ka".to_owned()] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (mut before13, mut before) = (None, None);
        for _ in 0..reps.max(100) {
            let q = |before| HistoryQuery {
                limit: PAGE,
                before_id: before,
                search: Some(term.clone()),
                ..Default::default()
            };
            let t = Instant::now();
            let (mut sql, args) = v13::history_sql(&q(None));
            if let Some(b) = before13 {
                // Schema 13 paged its indexed searches by id alone, its
                // scans by start time and id.
                let at: i64 = v13_conn
                    .query_row(
                        "SELECT started_at FROM tool_calls WHERE id = ?1",
                        [b],
                        |r| r.get(0),
                    )
                    .map_err(e)?;
                let keyset = if term.chars().count() < 3 {
                    format!(" AND t.started_at <= {at} AND (t.started_at < {at} OR t.id < {b})")
                } else {
                    format!(" AND t.id < {b}")
                };
                sql = sql.replace(" ORDER BY", &format!("{keyset} ORDER BY"));
            }
            let mut stmt = v13_conn.prepare(&sql).map_err(e)?;
            let ids: Vec<i64> = stmt
                .query_map(params_from_iter(args), |r| r.get(0))
                .map_err(e)?
                .collect::<Result<_, _>>()
                .map_err(e)?;
            a.push(ms(t));
            before13 = ids.get(PAGE as usize - 1).copied();
            let t = Instant::now();
            let page = store.history(&q(before)).map_err(|x| x.to_string())?;
            b.push(ms(t));
            before = page.next_before_id;
        }
        let ((a50, a99), (b50, b99)) = (stats(&mut a), stats(&mut b));
        println!(
            "keyset pages of {PAGE} of search '{term}' ({} pages): schema 13 p50 {a50:.2} p99 {a99:.2} ms | now p50 {b50:.2} p99 {b99:.2} ms",
            a.len()
        );
    }
    Ok(())
}

/// Keyset pages from the top and from the middle, old and new alternated.
fn pages(store: &Store, old_conn: &Connection, rows: usize, reps: usize) -> Result<(), String> {
    for (label, start) in [
        ("from the top", None),
        ("from the middle", Some(rows as i64 / 2)),
    ] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (mut before_old, mut before_new) = (start, start);
        for _ in 0..reps.max(100) {
            let q = |before| HistoryQuery {
                limit: PAGE,
                before_id: before,
                ..Default::default()
            };
            let t = Instant::now();
            let sql = old::history_sql(&q(before_old));
            let mut stmt = old_conn.prepare(&sql.0).map_err(|e| e.to_string())?;
            let ids: Vec<i64> = stmt
                .query_map(params_from_iter(sql.1.iter()), |r| r.get(0))
                .map_err(|e| e.to_string())?
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?;
            a.push(ms(t));
            before_old = ids.get(PAGE as usize - 1).copied();
            let t = Instant::now();
            let page = store.history(&q(before_new)).map_err(|e| e.to_string())?;
            b.push(ms(t));
            before_new = page.next_before_id;
        }
        let ((a50, a99), (b50, b99)) = (stats(&mut a), stats(&mut b));
        println!(
            "keyset pages of {PAGE} {label} ({} pages): old p50 {a50:.2} p99 {a99:.2} ms | new p50 {b50:.2} p99 {b99:.2} ms",
            a.len()
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
