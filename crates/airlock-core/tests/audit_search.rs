//! Search in the audit trail gives what a plain scan gives (issue 15):
//! every page of every search, with every filter (server, kind, the app
//! named in the detail), holds the same events in the same order as
//! reading the whole table: the term a case-insensitive (ASCII, as
//! SQLite's LIKE) substring of the server, kind or detail, `%`, `_` and
//! `\` plain text; newest time first, then highest id. Also over events
//! whose ids and times disagree (the clock moved back).

use airlock_core::store::{create_at_version, AuditQuery, Store, LATEST_VERSION};

const T0: i64 = 1_767_225_600_000;

struct Event {
    at: i64,
    server: Option<String>,
    kind: String,
    detail: String,
}

const WORDS: [&str; 10] = [
    "alpha",
    "Beta",
    "été",
    "ÉTÉ",
    "中文",
    "100%",
    "a_b",
    "back\\slash",
    "qz",
    "x",
];

fn events(n: usize) -> Vec<Event> {
    let mut seed: u64 = 0x0a0d_17ed;
    let mut below = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    (0..n)
        .map(|i| {
            let words = (0..2)
                .map(|_| WORDS[below(WORDS.len())])
                .collect::<Vec<_>>();
            let client = ["cursor", "zed", ""][below(3)];
            let mut detail = serde_json::json!({"reason": words.join(" "), "n": i});
            if !client.is_empty() {
                detail["client"] = client.into();
            }
            let detail = match below(50) {
                0 => "not json".to_owned(),
                1 => serde_json::json!({"client": 7}).to_string(),
                _ => detail.to_string(),
            };
            // The clock moves back an hour now and then.
            let back = if below(40) == 0 { 3_600_000 } else { 0 };
            Event {
                at: T0 + i as i64 * 1000 - back - (below(3) as i64) * 1000,
                server: [None, Some("git"), Some("docs")][below(3)].map(str::to_owned),
                kind: ["elicitation", "connect", "client_paused"][below(3)].to_owned(),
                detail,
            }
        })
        .collect()
}

fn client_of(detail: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(detail)
        .ok()?
        .get("client")?
        .as_str()
        .map(str::to_owned)
}

fn scan(all: &[Event], q: &AuditQuery) -> Vec<i64> {
    let term = q.search.as_deref().unwrap_or("").to_ascii_lowercase();
    let mut hits: Vec<(i64, i64)> = all
        .iter()
        .zip(1..)
        .filter(|(e, _)| {
            [e.server.as_deref().unwrap_or(""), &e.kind, &e.detail]
                .iter()
                .any(|t| t.to_ascii_lowercase().contains(&term))
                && q.server
                    .as_ref()
                    .is_none_or(|s| e.server.as_ref() == Some(s))
                && q.kind.as_ref().is_none_or(|k| *k == e.kind)
                && q.app
                    .as_ref()
                    .is_none_or(|c| client_of(&e.detail).as_ref() == Some(c))
        })
        .map(|(e, id)| (e.at, id))
        .collect();
    hits.sort_by(|a, b| b.cmp(a));
    hits.into_iter().map(|(_, id)| id).collect()
}

fn paged(store: &Store, q: &AuditQuery, limit: u32) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut before = None;
    loop {
        let page = store
            .audit_page(&AuditQuery {
                limit,
                before_id: before,
                ..q.clone()
            })
            .unwrap();
        ids.extend(page.events.iter().map(|e| e.id));
        match page.next_before_id {
            Some(id) => before = Some(id),
            None => return ids,
        }
    }
}

#[test]
fn every_audit_search_with_every_filter_gives_what_a_scan_gives() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.sqlite3");
    let all = events(1200);
    {
        // Events with chosen times (the store stamps its own).
        let conn = create_at_version(&path, LATEST_VERSION).unwrap();
        let mut stmt = conn
            .prepare("INSERT INTO audit_events (at, server_name, kind, detail_json) VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        for e in &all {
            stmt.execute(rusqlite::params![e.at, e.server, e.kind, e.detail])
                .unwrap();
        }
    }
    let store = Store::open(&path).unwrap();
    let s = |t: &str| Some(t.to_owned());
    let filters = [
        AuditQuery::default(),
        AuditQuery {
            server: s("git"),
            ..Default::default()
        },
        AuditQuery {
            kind: s("connect"),
            ..Default::default()
        },
        AuditQuery {
            app: s("cursor"),
            ..Default::default()
        },
        AuditQuery {
            app: s("7"),
            ..Default::default()
        },
        AuditQuery {
            server: s("docs"),
            kind: s("elicitation"),
            app: s("zed"),
            ..Default::default()
        },
    ];
    let mut found = 0;
    for filter in &filters {
        for term in [
            None,
            Some("e"),
            Some("É"),
            Some("中文"),
            Some("%"),
            Some("_"),
            Some("qz"),
            Some("a_b"),
            Some("ÉTÉ"),
            Some("\"client\":\"z"),
            Some("git"),
            Some("paused"),
        ] {
            let q = AuditQuery {
                search: term.map(str::to_owned),
                ..filter.clone()
            };
            let want = scan(&all, &q);
            found += want.len();
            for limit in [3, 40] {
                let got = paged(&store, &q, limit);
                assert!(
                    got == want,
                    "{q:?} pages of {limit}: {} events instead of {}",
                    got.len(),
                    want.len()
                );
            }
        }
    }
    assert!(found > 1000);
    // The app filter walks its index, not every event's JSON.
    let plan = store
        .explain_audit(&AuditQuery {
            app: s("cursor"),
            ..Default::default()
        })
        .unwrap()
        .join(" | ");
    assert!(plan.contains("audit_events_client"), "{plan}");
}
