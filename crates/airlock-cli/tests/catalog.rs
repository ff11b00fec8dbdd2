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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_version_is_asked_of_its_registry() {
    let sb = Sandbox::new();
    let version = |v: &str, latest: bool| {
        json!({
            "server": {"name": "com.example/multi", "description": "Several versions", "version": v,
                       "packages": [{"registryType": "npm", "identifier": "@example/multi", "version": v}]},
            "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": latest}}
        })
    };
    let fake = FakeRegistry::start(
        vec![version("1.0.0", false), version("2.0.0", true)],
        10,
        Trick::None,
    )
    .await;
    sb.run(&["catalog", "refresh", "--registry", &fake.url])
        .ok();
    let latest = sb.run(&["catalog", "show", "com.example/multi"]);
    assert!(
        latest.stdout.contains("com.example/multi 2.0.0"),
        "{latest:?}"
    );
    let old = sb.run(&["catalog", "show", "com.example/multi", "--version", "1.0.0"]);
    old.ok();
    assert!(
        old.stdout.contains("com.example/multi 1.0.0")
            && old.stdout.contains("npm @example/multi@1.0.0"),
        "{old:?}"
    );
    let missing = sb.run(&["catalog", "show", "com.example/multi", "--version", "9.9.9"]);
    assert_ne!(missing.code, Some(0), "{missing:?}");
    assert!(missing.stderr.contains("9.9.9"), "{missing:?}");
    let range = sb.run(&[
        "catalog",
        "show",
        "com.example/multi",
        "--version",
        "^1.0.0",
    ]);
    assert_ne!(range.code, Some(0), "a range is never asked for: {range:?}");
    // An install of 1.0.0 goes to npm for exactly 1.0.0 (npm here points
    // at a closed port: it fails there, after the version was chosen).
    let install = sb
        .cmd()
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_fetch_retries", "0")
        .args(["catalog", "install", "com.example/multi@1.0.0", "--yes"])
        .run();
    assert_ne!(install.code, Some(0), "{install:?}");
    assert!(
        install
            .stderr
            .contains("com.example/multi was not installed: npm install failed"),
        "{install:?}"
    );
    assert!(sb.no_packages(), "nothing kept");
}
