//! `airlock-bench history --rows N`: history at scale. Fills a real SQLite
//! file through the core's store, copies it into a database at schema 7
//! (before migration 0009) for the earlier queries, then times each list,
//! filter and search both ways, alternated, and prints p50/p99, the rows
//! each returned, and `EXPLAIN QUERY PLAN` of both.

use std::path::Path;
use std::time::Instant;

use airlock_core::lifecycle::ElicitationState;
use airlock_core::store::{
    create_at_version, now_ms, AuditQuery, ElicitationQuery, HistoryQuery, Store, ToolCallOutcome,
};
use rusqlite::{params_from_iter, types::Value, Connection};

use crate::gen::{self, word, NO_MATCH, SPAN_MS};
use crate::old;
use crate::{arg, percentile};

const PAGE: u32 = 50;
const DAY: i64 = 86_400_000;

/// One list the window or the CLI can ask for.
enum Case {
    Calls(HistoryQuery),
    Elicitations(ElicitationQuery),
    Audit(AuditQuery),
}

fn calls(f: impl FnOnce(&mut HistoryQuery)) -> Case {
    let mut q = HistoryQuery {
        limit: PAGE,
        ..Default::default()
    };
    f(&mut q);
    Case::Calls(q)
}

fn elicitations(f: impl FnOnce(&mut ElicitationQuery)) -> Case {
    let mut q = ElicitationQuery {
        limit: PAGE,
        ..Default::default()
    };
    f(&mut q);
    Case::Elicitations(q)
}

fn cases(now: i64) -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    let common = word(0);
    let nomatch_common = format!("{}{}", word(0), word(1));
    vec![
        ("first page".into(), calls(|_| ())),
        ("server git".into(), calls(|q| q.server = s("git"))),
        (
            "server stripe (3%)".into(),
            calls(|q| q.server = s("stripe")),
        ),
        (
            "outcome failed".into(),
            calls(|q| q.outcome = Some(ToolCallOutcome::Failed)),
        ),
        ("client cursor".into(), calls(|q| q.client = s("cursor"))),
        ("last 24 h".into(), calls(|q| q.since_ms = Some(now - DAY))),
        (
            "a week, a month ago".into(),
            calls(|q| {
                q.since_ms = Some(now - 37 * DAY);
                q.until_ms = Some(now - 30 * DAY);
            }),
        ),
        (
            "older than 60 days".into(),
            calls(|q| q.until_ms = Some(now - 60 * DAY)),
        ),
        (
            "server git + failed".into(),
            calls(|q| {
                q.server = s("git");
                q.outcome = Some(ToolCallOutcome::Failed);
            }),
        ),
        (
            "client cursor + stripe".into(),
            calls(|q| {
                q.client = s("cursor");
                q.server = s("stripe");
            }),
        ),
        (
            format!("search common '{common}'"),
            calls(|q| q.search = s(&common)),
        ),
        (
            format!("search rare '{}'", word(3999)),
            calls(|q| q.search = s(&word(3999))),
        ),
        (
            "search 'timed out' (error)".into(),
            calls(|q| q.search = s("timed out")),
        ),
        (
            format!("search no match '{NO_MATCH}'"),
            calls(|q| q.search = s(NO_MATCH)),
        ),
        (
            format!("search no match, common trigrams '{nomatch_common}'"),
            calls(|q| q.search = s(&nomatch_common)),
        ),
        (
            "search 2 chars 'qz' (scan)".into(),
            calls(|q| q.search = s("qz")),
        ),
        (
            "search common + server git".into(),
            calls(|q| {
                q.search = s(&common);
                q.server = s("git");
            }),
        ),
        (
            "search rare + failed".into(),
            calls(|q| {
                q.search = s(&word(3999));
                q.outcome = Some(ToolCallOutcome::Failed);
            }),
        ),
        (
            "search common + client vscode + week".into(),
            calls(|q| {
                q.search = s(&common);
                q.client = s("vscode");
                q.since_ms = Some(now - 7 * DAY);
            }),
        ),
        (
            "search no match + server git".into(),
            calls(|q| {
                q.search = s(NO_MATCH);
                q.server = s("git");
            }),
        ),
    ]
}

fn audit(f: impl FnOnce(&mut AuditQuery)) -> Case {
    let mut q = AuditQuery {
        limit: 100,
        ..Default::default()
    };
    f(&mut q);
    Case::Audit(q)
}

/// The audit trail: before, the window read the newest 500 events (of one
/// server at most) and filtered those in memory; now one page of 100 with
/// every filter in SQL.
fn audit_cases() -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    vec![
        ("audit first page".into(), audit(|_| ())),
        ("audit server git".into(), audit(|q| q.server = s("git"))),
        (
            "audit kind connect".into(),
            audit(|q| q.kind = s("connect")),
        ),
        (
            format!("audit search '{}'", word(0)),
            audit(|q| q.search = s(&word(0))),
        ),
        (
            format!("audit search no match '{NO_MATCH}'"),
            audit(|q| q.search = s(NO_MATCH)),
        ),
    ]
}

fn elicitation_cases(now: i64) -> Vec<(String, Case)> {
    let s = |t: &str| Some(t.to_owned());
    vec![
        ("elicitations first page".into(), elicitations(|_| ())),
        (
            "elicitations server git".into(),
            elicitations(|q| q.server = s("git")),
        ),
        (
            "elicitations state declined".into(),
            elicitations(|q| q.state = Some(ElicitationState::Declined)),
        ),
        (
            "elicitations month ago".into(),
            elicitations(|q| {
                q.since_ms = Some(now - 37 * DAY);
                q.until_ms = Some(now - 30 * DAY);
            }),
        ),
        (
            "elicitations search domain 'stripe.com'".into(),
            elicitations(|q| q.search = s("stripe.com")),
        ),
        (
            "elicitations search message 'invoice 4242'".into(),
            elicitations(|q| q.search = s("invoice 4242")),
        ),
        (
            "elicitations search URL 'login.microsoftonline'".into(),
            elicitations(|q| q.search = s("login.microsoftonline")),
        ),
        (
            "elicitations search no match 'paypal'".into(),
            elicitations(|q| q.search = s("paypal")),
        ),
        (
            "elicitations search 'atlassian' + declined".into(),
            elicitations(|q| {
                q.search = s("atlassian");
                q.state = Some(ElicitationState::Declined);
            }),
        ),
    ]
}

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
    println!(
        "database size: {:.0} MB with FTS and indexes; {:.0} MB at schema 7 (same rows)",
        file_mb(&new_path),
        file_mb(&old_path)
    );
    migrate_copy(dir, &old_path)?;
    let mut list = cases(now);
    list.extend(elicitation_cases(now));
    list.extend(audit_cases());
    pages(&store, &old_conn, rows, reps)?;
    println!(
        "\n{:<52}{:>9}{:>9}{:>9}{:>9}{:>8}{:>7}",
        "query (page of 50)", "old p50", "old p99", "new p50", "new p99", "rows", "old"
    );
    let mut plans = Vec::new();
    for (name, case) in &list {
        let sql = match case {
            Case::Calls(q) => old::history_sql(q),
            Case::Elicitations(q) => old::elicitations_sql(q),
            Case::Audit(q) => old::audit_sql(q),
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (mut n_old, mut n_new) = (0, 0);
        for _ in 0..reps {
            let t = Instant::now();
            n_old = run_old(&old_conn, &sql)?;
            a.push(ms(t));
            let t = Instant::now();
            n_new = run_new(&store, case)?;
            b.push(ms(t));
        }
        let ((a50, a99), (b50, b99)) = (stats(&mut a), stats(&mut b));
        println!("{name:<52}{a50:>9.2}{a99:>9.2}{b50:>9.2}{b99:>9.2}{n_new:>8}{n_old:>7}");
        plans.push((
            name.clone(),
            plan_old(&old_conn, &sql),
            plan_new(&store, case),
        ));
    }
    println!("\nEXPLAIN QUERY PLAN (old | new)");
    for (name, old_plan, new_plan) in plans {
        println!(
            "{name}\n  old: {}\n  new: {}",
            old_plan.join(" / "),
            new_plan.join(" / ")
        );
    }
    drop(old_conn);
    prune(&store, now)
}

/// Migrating a copy of the schema-7 file (the FTS backfill of every row).
fn migrate_copy(dir: &Path, old_path: &Path) -> Result<(), String> {
    let copy = dir.join("migrate").join("airlock.sqlite3");
    std::fs::create_dir_all(dir.join("migrate")).map_err(|e| e.to_string())?;
    std::fs::copy(old_path, &copy).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let migrated = Store::open(&copy).map_err(|e| e.to_string())?;
    println!(
        "upgrade of the schema-7 copy to schema {} (indexes + FTS backfill): {:.1} s",
        migrated.schema_version().map_err(|e| e.to_string())?,
        t.elapsed().as_secs_f64()
    );
    drop(migrated);
    let _ = std::fs::remove_dir_all(dir.join("migrate"));
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
