//! The examples parse, and the JSON Schema's keys are the Rust types' keys
//! at every level (so the two cannot drift apart).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use airlock_policy::{
    parse_policy, ApprovedTool, Apps, Audit, Contact, ElicitationDomains, PinMode, PolicyFile,
    ServerRule,
};
use serde_json::Value;

const H: &str = "1111111111111111111111111111111111111111111111111111111111111111";

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_example_parses() {
    let mut seen = 0;
    for entry in std::fs::read_dir(crate_dir().join("examples")).expect("examples") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        if let Err(e) = parse_policy(&text) {
            panic!("{}: {e}", path.display());
        }
        seen += 1;
    }
    assert!(seen >= 2, "examples/*.json");
}

fn full() -> PolicyFile {
    let rule = ServerRule {
        registry_name: Some("io.github.a/b".into()),
        version: Some("1".into()),
        artifact_sha256: Some(H.into()),
        command: Some(vec!["a".into()]),
        url: Some("https://a.example/*".into()),
    };
    PolicyFile {
        schema: Some("x".into()),
        registries: Some(vec!["https://r.example/".into()]),
        allowed_servers: Some(vec![rule.clone()]),
        denied_servers: Some(vec![rule]),
        only_listed_servers: Some(true),
        require_confinement: Some(true),
        denied_hosts: Some(vec!["a.example".into()]),
        denied_paths: Some(vec!["/a".into()]),
        pin_mode: Some(PinMode::Hold),
        approved_tools: Some(vec![ApprovedTool {
            server: "s".into(),
            tool: "t".into(),
            sha256: H.into(),
        }]),
        elicitation_domains: Some(ElicitationDomains {
            deny: Some(vec!["a.example".into()]),
            only: Some(vec!["b.example".into()]),
        }),
        apps: Some(Apps {
            allow: Some(vec!["claude-code".into()]),
        }),
        audit: Some(Audit {
            otlp_endpoint: "https://c.example".into(),
            headers: Some(BTreeMap::from([("X-Key".into(), "v".into())])),
        }),
        contact: Some(Contact {
            name: Some("n".into()),
            email: Some("a@b.example".into()),
            url: Some("https://c.example/ask".into()),
        }),
    }
}

/// Compares the object keys of `value` with the `properties` of `schema`,
/// recursively; `$ref`s into `$defs` are followed.
fn compare(schema: &Value, root: &Value, value: &Value, at: &str) {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/$defs/");
            &root["$defs"][name]
        }
        None => schema,
    };
    match value {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                // A free-form map (audit.headers).
                assert!(
                    schema.get("additionalProperties").is_some(),
                    "{at}: no properties"
                );
                return;
            };
            assert_eq!(
                schema.get("additionalProperties"),
                Some(&Value::Bool(false)),
                "{at}: additionalProperties"
            );
            let from_rust: BTreeSet<&String> = map.keys().collect();
            let from_schema: BTreeSet<&String> = props.keys().collect();
            assert_eq!(from_rust, from_schema, "keys at {at}");
            for (k, v) in map {
                compare(&props[k], root, v, &format!("{at}.{k}"));
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                compare(&schema["items"], root, first, &format!("{at}[]"));
            }
        }
        _ => {}
    }
}

#[test]
fn schema_keys_match_the_types() {
    let text = std::fs::read_to_string(crate_dir().join("policy.schema.json")).expect("schema");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let full = full();
    let value = serde_json::to_value(&full).expect("serialize");
    compare(&schema, &schema, &value, "$");
    // The fully populated value is itself a valid policy.
    let back = parse_policy(&value.to_string()).expect("round trip");
    assert_eq!(back, full);
}
