//! `cargo xtask`: every task of the repository in one list.
//!
//! Each task runs one of the scripts in `scripts/`, which stay the one place
//! that knows the commands (and what `bash scripts/run.sh` and
//! `bash scripts/test.sh` run, the README's quick start). Arguments after the
//! task name go to the script.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One entry of the list.
struct Task {
    name: &'static str,
    /// The script under `scripts/` and the arguments it always gets.
    script: &'static str,
    fixed_args: &'static [&'static str],
    /// What a user may add after the task name.
    usage: &'static str,
    about: &'static str,
}

const TASKS: &[Task] = &[
    Task {
        name: "setup",
        script: "setup.sh",
        fixed_args: &[],
        usage: "[--test] [--e2e]",
        about: "install what is missing (toolchain, Debian packages, test peers; --test: cargo-deny; --e2e: tauri-driver)",
    },
    Task {
        name: "run",
        script: "run.sh",
        fixed_args: &[],
        usage: "",
        about: "build and start the desktop app with the demo server (in the terminal without a display)",
    },
    Task {
        name: "test",
        script: "test.sh",
        fixed_args: &[],
        usage: "",
        about: "everything CI runs: lint, UI tests, cargo test, conformance, e2e, bindings check",
    },
    Task {
        name: "test-fresh",
        script: "test-fresh.sh",
        fixed_args: &[],
        usage: "[DIR]",
        about: "the test command from a clone under an empty HOME (no cargo, npm or pip cache, no build): a fresh machine's time",
    },
    Task {
        name: "lint",
        script: "lint.sh",
        fixed_args: &[],
        usage: "",
        about: "rustfmt --check, clippy -D warnings, the UI's type check and eslint, cargo-deny",
    },
    Task {
        name: "deny",
        script: "deny.sh",
        fixed_args: &[],
        usage: "[--fetch]",
        about: "cargo-deny: licences, bans, sources (advisories with a local RustSec copy, or --fetch)",
    },
    Task {
        name: "ui",
        script: "ui.sh",
        fixed_args: &[],
        usage: "[install|check|lint|test|build]...",
        about: "the UI's steps in ui/ (default: all of them, in that order)",
    },
    Task {
        name: "ui-test",
        script: "ui.sh",
        fixed_args: &["install", "test"],
        usage: "",
        about: "the UI's unit tests (Vitest: form, schema and format logic)",
    },
    Task {
        name: "bindings",
        script: "bindings.sh",
        fixed_args: &[],
        usage: "[--check]",
        about: "regenerate ui/src/lib/bindings from the Rust types and fail if they differ from git",
    },
    Task {
        name: "e2e",
        script: "e2e.sh",
        fixed_args: &[],
        usage: "[FILE-FILTER...]",
        about: "desktop end-to-end tests: the real window under Xvfb through WebDriver, two files at once",
    },
    Task {
        name: "conformance",
        script: "conformance.sh",
        fixed_args: &[],
        usage: "[SCENARIO...]",
        about: "the official MCP conformance suite's client scenarios against `airlock conformance-client`",
    },
    Task {
        name: "bench",
        script: "bench.sh",
        fixed_args: &[],
        usage: "[--calls N] [--rounds R]",
        about: "tools/call throughput: Airlock's core vs the TypeScript SDK, stdio and HTTP",
    },
    Task {
        name: "bench-desktop",
        script: "bench-desktop.sh",
        fixed_args: &[],
        usage: "[--runs N] [--release] [--data] [--pages] [--consent] [--flood]",
        about: "the desktop window: cold start, memory, pages at scale, consent latency, a flood (Xvfb)",
    },
    Task {
        name: "bench-gateway",
        script: "bench-gateway.sh",
        fixed_args: &[],
        usage: "[--calls N] [--rounds R] [--before PATH]",
        about: "an app's calls direct vs through the gateway (and do-nothing relays), then a quiet server beside each noisy neighbour",
    },
    Task {
        name: "bench-consent",
        script: "bench-consent.sh",
        fixed_args: &[],
        usage: "[--requests N] [--per-process N] [--debug]",
        about: "consent latency in the terminal: a server's URL elicitation to the prompt (pty)",
    },
    Task {
        name: "bench-apps",
        script: "bench-apps.sh",
        fixed_args: &[],
        usage: "[--reps N] [--ks \"1 3 5\"] [--apps py,ts,claude] [--svg PATH]",
        about: "K apps with six registry servers each, directly vs one airlock entry and a shared daemon: time, processes, PSS",
    },
    Task {
        name: "package",
        script: "package.sh",
        fixed_args: &[],
        usage: "[--out DIR] | --tools-only",
        about: "the Linux packages (.deb, .rpm) with the Tauri bundler, release build",
    },
    Task {
        name: "package-test",
        script: "package-test.sh",
        fixed_args: &[],
        usage: "[--no-build]",
        about: "install, check and purge the .deb on this machine (root); inspect the .rpm",
    },
    Task {
        name: "build-windows",
        script: "build-windows.sh",
        fixed_args: &[],
        usage: "[--dev] [--no-desktop] [--installer] [--out DIR]",
        about: "cross-build airlock.exe, the demo server and the desktop app for Windows (mingw-w64), zipped",
    },
    Task {
        name: "test-windows",
        script: "test-windows.sh",
        fixed_args: &[],
        usage: "[--dev]",
        about: "the Windows build under Wine: CLI, elicitation, Credential Manager, daemon + gateway over the named pipe",
    },
    Task {
        name: "check-macos",
        script: "check-macos.sh",
        fixed_args: &[],
        usage: "[--target TRIPLE]...",
        about: "clippy of the whole workspace for aarch64/x86_64-apple-darwin (zig as C compiler; checked, not run)",
    },
    Task {
        name: "fuzz",
        script: "fuzz.sh",
        fixed_args: &[],
        usage: "TARGET|all [--minutes N] [--no-save]",
        about: "coverage-guided fuzzing (libFuzzer, stable toolchain) of URL inspection, form schemas, config import, server messages",
    },
    Task {
        name: "with-session",
        script: "with-session.sh",
        fixed_args: &[],
        usage: "CMD [ARGS...]",
        about: "run a command in a private D-Bus session with an unlocked keychain (e.g. cargo test -p airlock-core)",
    },
];

fn find(name: &str) -> Option<&'static Task> {
    TASKS.iter().find(|t| t.name == name)
}

/// Scripts that are not tasks of their own: each helps the named task's
/// script (or is run by hand, as its own header says).
const HELPERS: &[(&str, &str)] = &[
    (
        "activity-db.py",
        "makes a 1M-row database for `airlock-bench activity --db`, by hand",
    ),
    (
        "bench-apps.py",
        "the runs, the table and the plot of bench-apps.sh",
    ),
    ("bench-consent.py", "the measuring part of bench-consent.sh"),
    (
        "check-cycles.py",
        "finds import circles between sibling modules, for lint.sh",
    ),
    (
        "code-size.py",
        "prints the largest files and longest functions, by hand",
    ),
    (
        "fuzz-corpus.py",
        "packs and unpacks the saved corpus, for fuzz.sh",
    ),
    (
        "run-tests.py",
        "runs the test executables (test.sh) or the e2e test files (e2e.sh) a few at once, each in its own session",
    ),
    (
        "well-known-domains.py",
        "rebuilds the look-alike check's list of well-known domains from PyPI, by hand",
    ),
];

/// The README's block of tasks, between these lines (made by [`markdown`]).
const README_BEGIN: &str =
    "<!-- tasks: made by `cargo xtask help --markdown`; checked by cargo test -p xtask -->";
const README_END: &str = "<!-- /tasks -->";

/// The README's block of tasks.
fn markdown() -> String {
    let mut out = String::from("```sh\n");
    let cmds: Vec<(String, &str)> = TASKS
        .iter()
        .map(|t| {
            let cmd = std::iter::once(format!("cargo xtask {}", t.name))
                .chain((!t.usage.is_empty()).then(|| t.usage.to_owned()))
                .collect::<Vec<_>>()
                .join(" ");
            (cmd, t.about)
        })
        .collect();
    for (cmd, about) in cmds {
        out.push_str(&format!("{cmd:<44} # {about}\n"));
    }
    out.push_str("```\n\nHelpers (no task of their own): ");
    let helpers: Vec<String> = HELPERS
        .iter()
        .map(|(script, what)| format!("`scripts/{script}` ({what})"))
        .collect();
    out.push_str(&helpers.join("; "));
    out.push_str(".\n");
    out
}

/// The repository root: this crate lives in `<root>/xtask`.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn help() -> String {
    let width = TASKS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let mut out = String::from(
        "Airlock's tasks. Usage: cargo xtask <task> [args...]\n\
         Each task runs the script shown under it; args after the task go to the script.\n\n",
    );
    for t in TASKS {
        let cmd = std::iter::once(format!("bash scripts/{}", t.script))
            .chain(t.fixed_args.iter().map(|a| (*a).to_owned()))
            .chain((!t.usage.is_empty()).then(|| t.usage.to_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!(
            "  {:width$}  {}\n  {:width$}  = {cmd}\n",
            t.name, t.about, ""
        ));
    }
    out
}

fn run(task: &Task, args: &[String]) -> ExitCode {
    let root = root();
    let script = root.join("scripts").join(task.script);
    let status = Command::new("bash")
        .arg(&script)
        .args(task.fixed_args)
        .args(args)
        .current_dir(&root)
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        // A script's own exit code (1 failed, 2 bad usage...); killed by a signal: 1.
        Ok(s) => ExitCode::from(s.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1)),
        Err(e) => {
            eprintln!("xtask: cannot run bash {}: {e}", script.display());
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(name) = args.next() else {
        print!("{}", help());
        return ExitCode::SUCCESS;
    };
    if matches!(name.as_str(), "help" | "-h" | "--help") {
        if args.next().as_deref() == Some("--markdown") {
            print!("{README_BEGIN}\n{}{README_END}\n", markdown());
        } else {
            print!("{}", help());
        }
        return ExitCode::SUCCESS;
    }
    match find(&name) {
        Some(task) => run(task, &args.collect::<Vec<_>>()),
        None => {
            eprint!("xtask: unknown task {name:?}\n\n{}", help());
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_a_script_that_exists() {
        for t in TASKS {
            let script = root().join("scripts").join(t.script);
            assert!(
                script.is_file(),
                "task {}: {} is missing",
                t.name,
                script.display()
            );
        }
    }

    #[test]
    fn task_names_are_unique_and_all_listed() {
        let h = help();
        for (i, t) in TASKS.iter().enumerate() {
            assert!(
                TASKS[i + 1..].iter().all(|u| u.name != t.name),
                "task {} twice",
                t.name
            );
            assert!(
                h.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{} ", t.name))),
                "help does not list {}",
                t.name
            );
            assert_eq!(find(t.name).map(|f| f.script), Some(t.script));
        }
        assert!(find("no-such-task").is_none());
    }

    /// Every script in scripts/ is a task or a helper (a new one is listed
    /// here, once, and the README's list follows).
    #[test]
    fn every_script_is_a_task_or_a_helper() {
        let mut missing = Vec::new();
        for entry in std::fs::read_dir(root().join("scripts")).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if !(name.ends_with(".sh") || name.ends_with(".py")) {
                continue;
            }
            let known =
                TASKS.iter().any(|t| t.script == name) || HELPERS.iter().any(|(h, _)| *h == name);
            if !known {
                missing.push(name);
            }
        }
        assert!(
            missing.is_empty(),
            "scripts in no task and no helper (add them to xtask/src/main.rs): {missing:?}"
        );
        for (h, _) in HELPERS {
            assert!(
                root().join("scripts").join(h).is_file(),
                "helper {h} is missing"
            );
        }
    }

    /// The README's list of tasks is the one `cargo xtask help --markdown` makes.
    #[test]
    fn the_readme_lists_the_tasks_as_made_here() {
        let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
        let (Some(begin), Some(end)) = (readme.find(README_BEGIN), readme.find(README_END)) else {
            panic!("README.md has no block between {README_BEGIN:?} and {README_END:?}");
        };
        let block = &readme[begin + README_BEGIN.len() + 1..end];
        assert_eq!(
            block,
            markdown(),
            "README.md's tasks differ: replace that block with `cargo xtask help --markdown`"
        );
    }

    #[test]
    fn the_alias_and_the_readme_point_here() {
        let config = std::fs::read_to_string(root().join(".cargo/config.toml")).unwrap();
        assert!(
            config.contains("xtask = \"run --quiet --package xtask --\""),
            "{config}"
        );
        let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
        assert!(
            readme.contains("cargo xtask"),
            "README.md does not mention cargo xtask"
        );
    }
}
