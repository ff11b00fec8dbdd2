//! Real definitions, as real MCP servers (not ours) list them
//! (tests/corpus/real/*.json, made by tests/corpus/refresh.sh): none may
//! get a Serious finding, alone or installed side by side (shadowing), and
//! every lesser finding is listed in tests/corpus/expected.txt so a change
//! shows in review. `AIRLOCK_SCAN_BLESS=1 cargo test -p airlock-scan --test
//! corpus` rewrites that list.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use airlock_scan::{
    scan_instructions, scan_prompt, scan_resource, scan_tool, Context, Finding, Severity, ToolIndex,
};
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Every server of the corpus: (label, its listing).
fn servers() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let dir = corpus_dir().join("real");
    for entry in std::fs::read_dir(&dir).expect("tests/corpus/real") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).expect("read");
            let value: Value = serde_json::from_str(&text).expect("json");
            let label = value["server"].as_str().expect("server").to_owned();
            out.push((label, value));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn items<'v>(listing: &'v Value, key: &str) -> &'v [Value] {
    listing[key].as_array().map_or(&[], Vec::as_slice)
}

/// Every finding of every definition of `listing`, as one line each.
fn scan_server(label: &str, listing: &Value, ctx: &Context<'_>) -> Vec<(String, Finding)> {
    let mut out = Vec::new();
    let mut add = |what: &str, name: &str, found: Vec<Finding>| {
        for f in found {
            out.push((format!("{label} {what} {name}"), f));
        }
    };
    for t in items(listing, "tools") {
        add("tool", t["name"].as_str().unwrap_or("?"), scan_tool(t, ctx));
    }
    for p in items(listing, "prompts") {
        add(
            "prompt",
            p["name"].as_str().unwrap_or("?"),
            scan_prompt(p, ctx),
        );
    }
    for r in items(listing, "resources")
        .iter()
        .chain(items(listing, "resourceTemplates"))
    {
        add(
            "resource",
            r["name"].as_str().unwrap_or("?"),
            scan_resource(r, ctx),
        );
    }
    if let Some(text) = listing["instructions"].as_str() {
        add("server", "instructions", scan_instructions(text, ctx));
    }
    out
}

fn line(what: &str, f: &Finding) -> String {
    format!(
        "{what} | {} | {} | {}",
        f.field,
        f.kind.as_str(),
        f.severity.as_str()
    )
}

#[test]
fn the_corpus_is_there() {
    let servers = servers();
    let tools: usize = servers.iter().map(|(_, l)| items(l, "tools").len()).sum();
    assert!(servers.len() >= 25, "only {} servers", servers.len());
    assert!(tools >= 400, "only {tools} tools");
    for must in [
        "everything",
        "filesystem",
        "memory",
        "sequential-thinking",
        "github",
        "time",
        "fetch",
        "git",
        "playwright",
    ] {
        assert!(servers.iter().any(|(l, _)| l == must), "{must} missing");
    }
}

#[test]
fn no_real_definition_is_held() {
    let servers = servers();
    // Every server installed side by side, as one user with all of them would.
    let names: Vec<(String, String, String)> = servers
        .iter()
        .flat_map(|(label, listing)| {
            items(listing, "tools").iter().filter_map(move |t| {
                let name = t["name"].as_str()?;
                Some((label.clone(), name.to_owned(), format!("{label}__{name}")))
            })
        })
        .collect();
    let index = ToolIndex::new(
        names
            .iter()
            .map(|(s, t, e)| (s.as_str(), t.as_str(), e.as_str())),
    );
    let mut serious = Vec::new();
    let mut lesser = BTreeSet::new();
    for (label, listing) in &servers {
        for ctx in [Context::alone(label), Context::new(label, &index)] {
            for (what, f) in scan_server(label, listing, &ctx) {
                if f.severity == Severity::Serious {
                    serious.push(format!(
                        "{} | {} | {}",
                        line(&what, &f),
                        f.excerpt,
                        f.detail
                    ));
                } else {
                    lesser.insert(line(&what, &f));
                }
            }
        }
    }
    assert!(
        serious.is_empty(),
        "{} serious findings on real definitions:\n{}",
        serious.len(),
        serious.join("\n")
    );

    let expected_path = corpus_dir().join("expected.txt");
    if std::env::var_os("AIRLOCK_SCAN_BLESS").is_some() {
        let got: String = lesser.iter().map(|l| format!("{l}\n")).collect();
        let header = "# Findings below Serious on the real corpus (tests/corpus.rs).\n\
                      # server kind name | field | finding | severity\n";
        std::fs::write(&expected_path, format!("{header}{got}")).expect("write expected.txt");
        return;
    }
    let expected: BTreeSet<String> = std::fs::read_to_string(&expected_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_owned)
        .collect();
    let added: Vec<String> = lesser
        .difference(&expected)
        .map(|l| format!("+ {l}"))
        .collect();
    let gone: Vec<String> = expected
        .difference(&lesser)
        .map(|l| format!("- {l}"))
        .collect();
    assert!(
        added.is_empty() && gone.is_empty(),
        "the findings on the real corpus changed (review, then AIRLOCK_SCAN_BLESS=1):\n{}\n{}",
        added.join("\n"),
        gone.join("\n")
    );
}
