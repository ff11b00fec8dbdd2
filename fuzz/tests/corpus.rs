//! The saved fuzz corpus, replayed: every seed of `fuzz/corpus/<target>/`,
//! every input of `fuzz/corpus/<target>.pack` (one a line, format in
//! `scripts/fuzz-corpus.py`) and every file of `fuzz/regressions/<target>/`
//! through its target, as the fuzzer ran it. CI runs this (it is part of `cargo test --workspace`), not the
//! fuzzers; `bash scripts/fuzz.sh` runs those.
//!
//! A panic anywhere, Airlock's own tasks included (tokio would otherwise
//! swallow those), fails the test and names the input; so does an input
//! that takes longer than [`SLOW`].

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// Longest one input may take here (an unoptimised build, on a shared
/// machine): far above what any saved input needs, far below a hang.
const SLOW: Duration = Duration::from_secs(20);

/// Panic messages since the last [`take_panics`], with their thread. Each
/// test runs its inputs on its own thread (a current-thread runtime for the
/// server sessions), so tests running side by side keep theirs apart.
static PANICS: Mutex<Vec<(ThreadId, String)>> = Mutex::new(Vec::new());

fn record_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((std::thread::current().id(), info.to_string()));
            default(info);
        }));
    });
}

/// This thread's panics since the last call.
fn take_panics() -> Vec<String> {
    let me = std::thread::current().id();
    let mut all = PANICS.lock().unwrap_or_else(|e| e.into_inner());
    let (mine, others) = std::mem::take(&mut *all)
        .into_iter()
        .partition::<Vec<_>, _>(|(t, _)| *t == me);
    *all = others;
    mine.into_iter().map(|(_, m)| m).collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The saved inputs of a target, each with where it comes from: the seeds,
/// the pack, the regressions.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for folder in ["corpus", "regressions"] {
        let dir = root().join(folder).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name();
            if p.is_file() && !name.to_string_lossy().starts_with('.') {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut inputs: Vec<_> = files
        .iter()
        .map(|p| (rel(p), std::fs::read(p).expect("read a corpus file")))
        .collect();
    let pack = root().join("corpus").join(format!("{target}.pack"));
    if let Ok(text) = std::fs::read_to_string(&pack) {
        for (n, line) in text.lines().enumerate() {
            if !line.starts_with('#') {
                let data = unescape(line)
                    .unwrap_or_else(|| panic!("{}:{}: a bad escape", rel(&pack), n + 1));
                inputs.push((format!("{}:{}", rel(&pack), n + 1), data));
            }
        }
    }
    inputs
}

/// One line of a pack back to its bytes (`\\`, `\n`, `\xHH`; see
/// scripts/fuzz-corpus.py), or `None` for a bad escape.
fn unescape(line: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(line.len());
    let mut bytes = line.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next()? {
            b'\\' => out.push(b'\\'),
            b'n' => out.push(b'\n'),
            b'x' => {
                let hex = [bytes.next()?, bytes.next()?];
                out.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Replays a target's saved inputs on `threads` threads side by side (a
/// server session mostly waits: on its pipe, on timers), and fails with
/// every input that panicked or took longer than [`SLOW`].
fn replay(target: &str, threads: usize) {
    record_panics();
    let run = airlock_fuzz::target(target).expect("a known target");
    let files = inputs(target);
    assert!(
        !files.is_empty(),
        "no saved inputs for {target} under {}",
        root().display()
    );
    let started = Instant::now();
    let results: Vec<(Vec<String>, Duration, &str)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|k| {
                let mine = files.iter().skip(k).step_by(threads);
                s.spawn(move || replay_some(run, mine))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a replay thread"))
            .collect()
    });
    let failures: Vec<String> = results.iter().flat_map(|r| r.0.clone()).collect();
    let (slowest, name) = results
        .iter()
        .map(|r| (r.1, r.2))
        .max()
        .unwrap_or((Duration::ZERO, ""));
    eprintln!(
        "{target}: {} saved inputs replayed in {:?} on {threads} thread(s); slowest {name} ({slowest:?})",
        files.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{target}: {} of {} inputs failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Runs `inputs` on this thread: the failures, and the slowest input.
fn replay_some<'a>(
    run: fn(&[u8]),
    inputs: impl Iterator<Item = &'a (String, Vec<u8>)>,
) -> (Vec<String>, Duration, &'a str) {
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, "");
    for (name, data) in inputs {
        let t0 = Instant::now();
        let outcome = std::panic::catch_unwind(|| run(data));
        let took = t0.elapsed();
        slowest = slowest.max((took, name.as_str()));
        let mut panics = take_panics();
        if outcome.is_err() && panics.is_empty() {
            panics.push("panicked".into());
        }
        if !panics.is_empty() {
            failures.push(format!("{name}: {}", panics.join(" | ")));
        } else if took > SLOW {
            failures.push(format!("{name}: took {took:?} (at most {SLOW:?})"));
        }
    }
    (failures, slowest.0, slowest.1)
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap_or(p)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn url_inspect_corpus() {
    replay("url_inspect", 1);
}

#[test]
fn form_schema_corpus() {
    replay("form_schema", 1);
}

#[test]
fn config_import_corpus() {
    replay("config_import", 1);
    airlock_fuzz::config_import::cleanup();
}

#[test]
fn scan_definition_corpus() {
    replay("scan_definition", 1);
}

#[test]
fn server_messages_corpus() {
    replay("server_messages", 4);
}

#[test]
fn every_target_has_a_test_and_a_driver() {
    let drivers = root().join("libfuzzer/fuzz_targets");
    for (name, _) in airlock_fuzz::TARGETS {
        assert!(
            drivers.join(format!("{name}.rs")).is_file(),
            "{name} has no libfuzzer/fuzz_targets/{name}.rs"
        );
        let this = std::fs::read_to_string(root().join("tests/corpus.rs")).unwrap_or_default();
        assert!(
            this.contains(&format!("replay(\"{name}\", ")),
            "{name} is not replayed here"
        );
    }
}

#[test]
fn pack_lines_unescape_as_the_packer_escapes() {
    // scripts/fuzz-corpus.py's escape of b"#a\\b\n\x00\xe2\x80\xae" and a bad line.
    assert_eq!(
        unescape(r"\x23a\\b\n\x00\xe2\x80\xae").as_deref(),
        Some(&b"#a\\b\n\x00\xe2\x80\xae"[..])
    );
    assert_eq!(unescape(""), Some(Vec::new()));
    for bad in [r"\", r"\q", r"\x4", r"\xzz"] {
        assert_eq!(unescape(bad), None, "{bad:?}");
    }
}
