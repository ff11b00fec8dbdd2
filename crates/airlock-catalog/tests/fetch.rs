//! Reading a registry (the fake one, on loopback): pages followed, entries
//! checked, a looping cursor and a huge page stopped.

use airlock_catalog::fake::{FakeRegistry, Trick};
use airlock_catalog::{fetch_latest, FetchLimits, Status};
use serde_json::{json, Value};

fn item(name: &str, version: &str, latest: bool, status: &str) -> Value {
    json!({
        "server": {"name": name, "version": version, "description": format!("The {name} server"),
                   "packages": [{"registryType": "npm", "identifier": "@example/x", "version": version}]},
        "_meta": {"io.modelcontextprotocol.registry/official": {"status": status, "isLatest": latest}}
    })
}

#[tokio::test]
async fn every_page_is_read_and_bad_entries_are_left_out() {
    let mut items: Vec<Value> = (0..25)
        .map(|i| {
            item(
                &format!("io.github.example/server-{i:02}"),
                "1.0.0",
                true,
                "active",
            )
        })
        .collect();
    items.push(item(
        "io.github.example/server-00",
        "0.9.0",
        false,
        "active",
    ));
    items.push(item("not-a-name", "1.0.0", true, "active"));
    items.push(item("com.example/ranged", "^1.0", true, "active"));
    items.push(item("com.example/gone", "2.0.0", true, "deleted"));
    let fake = FakeRegistry::start(items, 10, Trick::None).await;
    let got = fetch_latest(&fake.url, None, FetchLimits::default())
        .await
        .unwrap();
    assert_eq!(got.pages, 3, "28 latest entries, 10 a page");
    assert_eq!(
        got.entries.len(),
        26,
        "25 + the deleted one (kept, as deleted)"
    );
    assert_eq!(got.refused, 2, "{:?}", got.reasons);
    assert!(got
        .entries
        .iter()
        .any(|e| e.name == "com.example/gone" && e.status == Status::Deleted));
    assert!(!got.cut);

    let searched = fetch_latest(&fake.url, Some("server-1"), FetchLimits::default())
        .await
        .unwrap();
    assert_eq!(searched.entries.len(), 10, "server-10 to server-19");
}

#[tokio::test]
async fn a_hostile_registry_cannot_keep_the_reader_going() {
    let items: Vec<Value> = (0..5)
        .map(|i| item(&format!("com.example/s{i}"), "1.0.0", true, "active"))
        .collect();
    let looping = FakeRegistry::start(items.clone(), 2, Trick::LoopingCursor).await;
    let got = fetch_latest(&looping.url, None, FetchLimits::default())
        .await
        .unwrap();
    assert!(
        looping.requests() <= 3,
        "a cursor that comes back ends the read ({} requests)",
        looping.requests()
    );
    assert!(got.entries.len() <= 4);

    let huge = FakeRegistry::start(items.clone(), 2, Trick::HugePage(2 * 1024 * 1024)).await;
    let limits = FetchLimits {
        max_page_bytes: 1024 * 1024,
        ..FetchLimits::default()
    };
    let err = fetch_latest(&huge.url, None, limits).await.unwrap_err();
    assert!(err.to_string().contains("over 1048576 bytes"), "{err}");

    let bounded = FakeRegistry::start(items, 1, Trick::None).await;
    let limits = FetchLimits {
        max_pages: 2,
        ..FetchLimits::default()
    };
    let got = fetch_latest(&bounded.url, None, limits).await.unwrap();
    assert!(got.cut && got.entries.len() == 2, "{got:?}");
}
