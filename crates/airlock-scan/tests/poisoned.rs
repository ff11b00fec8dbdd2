//! Published tool-poisoning attacks, re-written as fixtures
//! (tests/corpus/poisoned/*.json): each must give its Serious findings, of
//! the right kind in the right field; and once cleaned, no hidden character
//! is left for an app to read.

use std::path::Path;

use airlock_scan::{
    clean_json, scan_instructions, scan_prompt, scan_resource, scan_tool, worst, Context, Finding,
    FindingKind, Severity, ToolIndex,
};
use serde_json::Value;

/// Kinds that are characters (what cleaning removes).
const CHARACTER_KINDS: [FindingKind; 5] = [
    FindingKind::InvisibleCharacter,
    FindingKind::BidiControl,
    FindingKind::TagCharacter,
    FindingKind::VariationSelector,
    FindingKind::ControlCharacter,
];

fn fixtures() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/poisoned");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir)
        .expect("tests/corpus/poisoned")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p.file_stem().expect("stem").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).expect("read");
            (name, serde_json::from_str(&text).expect("json"))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn scan(fixture: &Value, index: &ToolIndex, definition: &Value) -> Vec<Finding> {
    let server = fixture["server"].as_str().expect("server");
    let ctx = Context::new(server, index);
    match fixture["kind"].as_str().expect("kind") {
        "tool" => scan_tool(definition, &ctx),
        "prompt" => scan_prompt(definition, &ctx),
        "resource" => scan_resource(definition, &ctx),
        "instructions" => scan_instructions(definition.as_str().expect("instructions"), &ctx),
        other => panic!("unknown fixture kind {other}"),
    }
}

fn index_of(fixture: &Value) -> ToolIndex {
    let others: Vec<(String, String, String)> = fixture["other_tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| {
                    let s = |i: usize| t[i].as_str().expect("other_tools entry").to_owned();
                    (s(0), s(1), s(2))
                })
                .collect()
        })
        .unwrap_or_default();
    ToolIndex::new(
        others
            .iter()
            .map(|(s, t, e)| (s.as_str(), t.as_str(), e.as_str())),
    )
}

fn definition(fixture: &Value) -> Value {
    if fixture["kind"] == "instructions" {
        fixture["instructions"].clone()
    } else {
        fixture["definition"].clone()
    }
}

#[test]
fn there_are_fixtures_of_each_published_attack() {
    let names: Vec<String> = fixtures().into_iter().map(|(n, _)| n).collect();
    for must in [
        "invariant-sidenote",
        "whatsapp-shadowing",
        "rug-pull-weather",
        "ansi-conceal",
        "line-jumping",
        "tag-smuggling",
    ] {
        assert!(names.iter().any(|n| n == must), "{must} missing: {names:?}");
    }
}

#[test]
fn every_poisoned_definition_gives_its_serious_findings() {
    let mut failures = Vec::new();
    for (name, fixture) in fixtures() {
        let index = index_of(&fixture);
        let found = scan(&fixture, &index, &definition(&fixture));
        if worst(&found) != Some(Severity::Serious) {
            failures.push(format!("{name}: not serious: {found:#?}"));
            continue;
        }
        for e in fixture["expect"].as_array().expect("expect") {
            let kind = e["kind"].as_str().expect("kind");
            let field = e["field"].as_str().expect("field");
            let hit = found.iter().any(|f| {
                f.kind.as_str() == kind && f.field == field && f.severity == Severity::Serious
            });
            if !hit {
                failures.push(format!(
                    "{name}: no serious {kind} in {field}; found:\n{}",
                    found
                        .iter()
                        .map(|f| format!(
                            "  {} {} {}: {}",
                            f.field,
                            f.kind.as_str(),
                            f.severity.as_str(),
                            f.excerpt
                        ))
                        .collect::<Vec<_>>()
                        .join("\n")
                ));
            }
        }
        for f in &found {
            assert!(f.excerpt.chars().count() <= airlock_scan::MAX_EXCERPT_CHARS);
            assert!(!f.detail.is_empty());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_shadowing_fixture_is_not_shadowing_without_the_other_server() {
    let all = fixtures();
    let (_, fixture) = all
        .iter()
        .find(|(n, _)| n == "whatsapp-shadowing")
        .expect("fixture");
    // The same definition when no server has send_message: no shadowing
    // (the other signs stay).
    let found = scan(fixture, &ToolIndex::new([]), &definition(fixture));
    assert!(found.iter().all(|f| f.kind != FindingKind::Shadowing));
    // And when the tool is the server's own, mentioning it is fine.
    let own = ToolIndex::new([("facts", "send_message", "facts__send_message")]);
    let found = scan(fixture, &own, &definition(fixture));
    assert!(found.iter().all(|f| f.kind != FindingKind::Shadowing));
}

#[test]
fn cleaned_fixtures_hide_no_character() {
    for (name, fixture) in fixtures() {
        let mut def = definition(&fixture);
        let removed = clean_json(&mut def);
        let found = scan(&fixture, &index_of(&fixture), &def);
        let left: Vec<&Finding> = found
            .iter()
            .filter(|f| {
                CHARACTER_KINDS.contains(&f.kind)
                    || (f.kind == FindingKind::TerminalEscape && f.severity == Severity::Serious)
            })
            .collect();
        assert!(left.is_empty(), "{name}: left after cleaning: {left:#?}");
        let had_characters = scan(&fixture, &index_of(&fixture), &definition(&fixture))
            .iter()
            .any(|f| CHARACTER_KINDS.contains(&f.kind) || f.kind == FindingKind::TerminalEscape);
        assert_eq!(had_characters, removed > 0, "{name}: removed {removed}");
    }
}
