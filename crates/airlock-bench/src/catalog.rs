//! `airlock-bench catalog [--entries N] [--reps N]`: the catalog's search
//! over N cached registry entries (default 10,000; issue 35 asks under
//! 20 ms): a text that matches a few, one that matches many, one that
//! matches none, and all entries; p50 / p99 in ms.

use std::time::Instant;

use airlock_core::store::Store;

use crate::{arg, percentile};

pub fn run(args: &[String]) -> Result<(), String> {
    let number = |name: &str, default: usize| {
        arg(args, name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (entries, reps) = (number("--entries", 10_000), number("--reps", 200));
    let dir = std::env::temp_dir().join(format!("airlock-bench-catalog-{}", std::process::id()));
    let result = bench(&dir, entries, reps);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn bench(dir: &std::path::Path, entries: usize, reps: usize) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    std::fs::create_dir_all(dir).map_err(|x| e(&x))?;
    let store = Store::open(&dir.join("airlock.sqlite3")).map_err(|x| e(&x))?;
    let words = [
        "files", "weather", "github", "postgres", "search", "browser", "slack", "notes",
    ];
    let rows: Vec<(String, String, String, String, String)> = (0..entries)
        .map(|i| {
            let w = words[i % words.len()];
            let name = format!("io.github.owner{i}/{w}-server-{i}");
            let description =
                format!("A {w} server number {i}: reads, writes and lists {w} for your apps.");
            let entry =
                serde_json::json!({"name": name, "version": "1.0.0", "description": description})
                    .to_string();
            (
                name,
                "1.0.0".to_owned(),
                "active".to_owned(),
                description,
                entry,
            )
        })
        .collect();
    let t = Instant::now();
    store
        .replace_catalog("https://registry.example", &rows)
        .map_err(|x| e(&x))?;
    println!(
        "{entries} entries cached in {:.1} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    for (label, text) in [
        ("a few (owner123)", "owner123/"),
        ("many (weather)", "weather"),
        ("none", "zzzz-nothing"),
        ("all", ""),
    ] {
        let mut times = Vec::with_capacity(reps);
        let mut hits = 0;
        for _ in 0..reps {
            let t = Instant::now();
            hits = store.search_catalog(text, 50).map_err(|x| e(&x))?.len();
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "search {label:<18} {hits:>3} shown   p50 {:.3} ms   p99 {:.3} ms",
            percentile(&times, 0.5),
            percentile(&times, 0.99)
        );
    }
    Ok(())
}
