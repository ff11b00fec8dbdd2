//! What the check at every start costs: a folder hashed into a lock once,
//! then checked again (`lock::verify`) a few times; the median and the
//! spread printed, with the folder's size. The default folder is the test
//! peers' node_modules (server-everything and the TypeScript SDK, about
//! the size of an installed npm server).
//!
//!   cargo run --release -p airlock-install --example lock_timing [DIR] [RUNS]

use std::path::PathBuf;
use std::time::Instant;

use airlock_install::lock::{digest, manifest, verify, Lock};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/node_modules")
    });
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(7);
    let dir = match std::fs::canonicalize(&dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!(
                "{}: {e} (run bash scripts/setup.sh --test, or name a folder)",
                dir.display()
            );
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    let files = match manifest(&dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let first = t.elapsed();
    let bytes: u64 = walk_bytes(&dir);
    let lock = Lock {
        kind: "npm".into(),
        identifier: "timing".into(),
        version: "0".into(),
        artifacts: Vec::new(),
        lockfile: String::new(),
        digest: digest(&files),
        files,
    };
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        match verify(&dir, &lock) {
            Ok(Ok(())) => {}
            Ok(Err(d)) => eprintln!("changed while timing: {d}"),
            Err(e) => eprintln!("{e}"),
        }
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{}: {} files, {:.1} MiB",
        dir.display(),
        lock.files.len(),
        bytes as f64 / (1024.0 * 1024.0)
    );
    println!(
        "lock made in {:.1} ms (first read)",
        first.as_secs_f64() * 1000.0
    );
    println!(
        "check at start over {} runs: median {:.1} ms, min {:.1} ms, max {:.1} ms",
        times.len(),
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
}

fn walk_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map(|m| m.len()).unwrap_or(0),
                _ => {}
            }
        }
    }
    total
}
