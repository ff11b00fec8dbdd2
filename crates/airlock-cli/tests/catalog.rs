//! `airlock catalog refresh|search|show` against a FAKE MCP Registry (ours,
//! on the published /v0.1 API, on loopback: the real one cannot run here):
//! pages followed, entries checked, search and show offline from the cache,
//! deprecated and deleted entries said, hidden characters shown.

mod common;

use airlock_catalog::fake::{FakeRegistry, Trick};
use common::*;
use serde_json::{json, Value};

fn item(name: &str, description: &str, status: &str, message: Option<&str>) -> Value {
    let mut meta =
        json!({"status": status, "isLatest": true, "publishedAt": "2026-11-30T12:00:00Z"});
    if let Some(m) = message {
        meta["statusMessage"] = json!(m);
    }
    json!({
        "server": {
            "name": name, "description": description, "version": "1.4.0",
            "repository": {"url": "https://github.com/example/servers", "source": "github"},
            "packages": [{"registryType": "npm", "identifier": "@example/server", "version": "1.4.0",
                          "environmentVariables": [{"name": "EXAMPLE_TOKEN", "isSecret": true, "isRequired": true}]}]
        },
        "_meta": {"io.modelcontextprotocol.registry/official": meta}
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalog_reads_every_page_and_searches_offline() {
    let sb = Sandbox::new();
    let mut items: Vec<Value> = (0..25)
        .map(|i| {
            item(
                &format!("io.github.example/server-{i:02}"),
                "Files and folders",
                "active",
                None,
            )
        })
        .collect();
    items.push(item(
        "com.example/old",
        "An old one",
        "deprecated",
        Some("Use com.example/new instead"),
    ));
    items.push(item("com.example/gone", "Taken down", "deleted", None));
    items.push(item("not a name", "Broken", "active", None));
    items.push(item(
        "com.example/hidden",
        "Weather\u{200B} for you",
        "active",
        None,
    ));
    let fake = FakeRegistry::start(items, 10, Trick::None).await;

    let read = sb.run(&["catalog", "refresh", "--registry", &fake.url]);
    read.ok();
    assert!(read.stdout.contains("Read 28 entries"), "{read:?}");
    assert!(read.stdout.contains("(3 pages)"), "{read:?}");
    assert!(read.stdout.contains("Left out 1 entries"), "{read:?}");
    drop(fake);

    // Offline from here on: the registry is gone.
    let hits = sb.run(&["--json", "catalog", "search", "server-1"]);
    hits.ok();
    let names: Vec<String> = hits
        .json()
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(names
        .iter()
        .all(|n| n.starts_with("io.github.example/server-1")));

    let all = sb
        .run(&["--json", "catalog", "search", "--limit", "500"])
        .json();
    let all: Vec<&str> = all
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| h["name"].as_str())
        .collect();
    assert_eq!(all.len(), 27, "deleted entries are not offered: {all:?}");
    assert!(!all.contains(&"com.example/gone"));

    let old = sb.run(&["catalog", "show", "com.example/old"]);
    old.ok();
    assert!(
        old.stdout
            .contains("DEPRECATED: Use com.example/new instead"),
        "{old:?}"
    );
    assert!(
        old.stdout
            .contains("EXAMPLE_TOKEN (required, secret: kept in the keychain)"),
        "{old:?}"
    );
    assert!(
        old.stdout.contains("Package:   npm @example/server@1.4.0"),
        "{old:?}"
    );
    let gone = sb.run(&["catalog", "show", "com.example/gone"]);
    assert!(gone.stdout.contains("DELETED by the registry"), "{gone:?}");
    let hidden = sb.run(&["catalog", "search", "Weather"]);
    assert!(
        hidden.stdout.contains("U+200B"),
        "hidden characters shown: {hidden:?}"
    );
    let missing = sb.run(&["catalog", "show", "com.example/nothing"]);
    assert_eq!(missing.code, Some(1), "{missing:?}");

    // A registry over plain http to another computer is not read.
    let refused = sb.run(&[
        "catalog",
        "refresh",
        "--registry",
        "http://registry.example",
    ]);
    assert_ne!(refused.code, Some(0), "{refused:?}");
    assert!(refused.stderr.contains("https only"), "{refused:?}");
}
