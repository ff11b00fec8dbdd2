//! `airlock-bench budget [--rows N] [--reps N] [--tools N]`: the tool
//! budget's two reads at scale (issue 26).
//!
//! - The tools an app used most (`Store::most_used_tools`, what a budgeted
//!   `tools/list` asks) over N generated history rows (default a million,
//!   shaped like real use: gen.rs), for an app with a quarter of them
//!   (claude-desktop) and one with a tenth (cursor): p50 / p99 and the
//!   query plan.
//! - `airlock__find_tools`' search: an index of N served tools (default
//!   2,000 on 20 servers) built, then each query timed: p50 / p99.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use airlock_core::store::{now_ms, Store};
use airlock_gateway::catalog::owners::Book;
use airlock_gateway::catalog::search::{Query, ToolSearch};
use airlock_gateway::catalog::{view, Served};
use rmcp::model::Tool;
use rusqlite::Connection;

use crate::{arg, gen, percentile};

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn p50_p99(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    format!("{:.3} / {:.3}", percentile(v, 0.5), percentile(v, 0.99))
}

pub fn run(args: &[String]) -> Result<(), String> {
    let number = |name: &str, default: usize| {
        arg(args, name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (rows, reps, tools) = (
        number("--rows", 1_000_000),
        number("--reps", 200),
        number("--tools", 2_000),
    );
    let dir = std::env::temp_dir().join(format!("airlock-bench-budget-{}", std::process::id()));
    let result = most_used(&dir, rows, reps).and_then(|()| search(tools, reps));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn most_used(dir: &std::path::Path, rows: usize, reps: usize) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    std::fs::create_dir_all(dir).map_err(|x| e(&x))?;
    let path = dir.join("airlock.sqlite3");
    let store = Store::open(&path).map_err(|x| e(&x))?;
    let conn = Connection::open(&path).map_err(|x| e(&x))?;
    let [c, _, _] = gen::fill(&store, &conn, rows, now_ms())?;
    println!(
        "{rows} tool calls generated ({c:.1} s); the newest {} of an app counted",
        airlock_core::store::MOST_USED_WINDOW
    );
    println!(
        "\n{:<44}{:>20}{:>8}",
        "most used tools of an app, p50 / p99 ms", "", "tools"
    );
    for client in ["claude-desktop", "cursor", "nobody"] {
        let mut times = Vec::with_capacity(reps);
        let mut n = 0;
        for _ in 0..reps {
            let t = Instant::now();
            n = store.most_used_tools(client, 200).map_err(|x| e(&x))?.len();
            times.push(ms(t));
        }
        println!("{client:<44}{:>20}{n:>8}", p50_p99(&mut times));
    }
    let plan = store.explain_most_used("cursor").map_err(|x| e(&x))?;
    println!("plan: {}", plan.join(" / "));
    Ok(())
}

/// `n` tools on 20 servers, named and described like real ones.
fn served(n: usize) -> BTreeMap<String, Arc<Served>> {
    const VERBS: [&str; 8] = [
        "create", "list", "get", "update", "delete", "search", "sync", "export",
    ];
    const THINGS: [&str; 10] = [
        "issue", "file", "invoice", "message", "page", "branch", "user", "event", "table", "image",
    ];
    let mut rooms: BTreeMap<String, Served> = BTreeMap::new();
    for i in 0..n {
        let server = format!("server{:02}", i % 20);
        let (verb, thing) = (VERBS[i % VERBS.len()], THINGS[(i / 8) % THINGS.len()]);
        let name = format!("{verb}_{thing}_{i}");
        let tool: Tool = serde_json::from_value(serde_json::json!({
            "name": name,
            "description": format!(
                "{verb} a {thing} in the {} workspace; {}",
                gen::word(i),
                (0..20).map(|k| gen::word(i * 7 + k)).collect::<Vec<_>>().join(" ")
            ),
            "inputSchema": {"type": "object", "properties": {
                "id": {"type": "string"}, "query": {"type": "string"}, "limit": {"type": "integer"}
            }},
        }))
        .unwrap_or_else(|_| unreachable!("a well-formed tool"));
        rooms.entry(server).or_default().tools.push((name, tool));
    }
    rooms.into_iter().map(|(k, v)| (k, Arc::new(v))).collect()
}

fn search(tools: usize, reps: usize) -> Result<(), String> {
    let rooms = served(tools);
    let mut v = view::build(&rooms, "__", &Book::default());
    v.generation = 1;
    let index = ToolSearch::new();
    let t = Instant::now();
    index.sync(&v).map_err(|e| e.to_string())?;
    println!(
        "\nairlock__find_tools over {tools} tools on 20 servers: index built in {:.1} ms",
        ms(t)
    );
    // One tool changed: the next view's sync writes one row.
    v.generation = 2;
    if let Some(t) = v.tools.first_mut() {
        t.description = Some("changed".into());
    }
    let t = Instant::now();
    index.sync(&v).map_err(|e| e.to_string())?;
    println!("one tool changed: index in step in {:.2} ms", ms(t));
    println!("{:<44}{:>20}{:>8}", "query, p50 / p99 ms", "", "found");
    for q in [
        "create issue",
        "invoice",
        "search the files of a branch",
        &gen::word(1234),
        "zyzzogeton",
    ] {
        let query = Query::parse(q)?;
        let mut times = Vec::with_capacity(reps);
        let mut n = 0;
        for _ in 0..reps {
            let t = Instant::now();
            n = index
                .find(&v, &query, 8, |_| true)
                .map_err(|e| e.to_string())?
                .len();
            times.push(ms(t));
        }
        println!("{q:<44}{:>20}{n:>8}", p50_p99(&mut times));
    }
    Ok(())
}
