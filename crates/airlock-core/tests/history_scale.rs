//! History at scale (issue 15): full-text search through the FTS5 trigram
//! tables kept in step by triggers, filled for databases that already had
//! rows, keyset pages of searches and filters, and pruning in batches.
//! Real database files in temp dirs.

use airlock_core::lifecycle::{ElicitationState, Mode, Origin};
use airlock_core::store::{
    create_at_version, ElicitationQuery, HistoryQuery, NewElicitation, Store, ToolCallOutcome,
    PRUNE_BATCH,
};

fn search(store: &Store, term: &str) -> Vec<i64> {
    store
        .history(&HistoryQuery {
            search: Some(term.into()),
            limit: 1000,
            ..Default::default()
        })
        .unwrap()
        .calls
        .iter()
        .map(|c| c.id)
        .collect()
}

fn elicitation<'a>(
    server: &'a str,
    message: &'a str,
    url: &'a str,
    domain: &'a str,
) -> NewElicitation<'a> {
    NewElicitation {
        server,
        elicitation_id: None,
        mode: Mode::Url,
        origin: Origin::Request,
        message,
        url: Some(url),
        registrable_domain: Some(domain),
        verdict: None,
        warnings: vec![],
        app: None,
    }
}

#[test]
fn a_database_with_rows_from_before_full_text_search_is_searchable_after_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.sqlite3");
    {
        let conn = create_at_version(&path, 7).unwrap();
        conn.execute_batch(
            "INSERT INTO tool_calls (server_name, tool, arguments_json, result_json, outcome, started_at, duration_ms)
               VALUES ('git', 'git_log', '{\"path\":\"/src/Kangaroo\"}', '{\"text\":\"done\"}', 'ok', 5, 7);
             INSERT INTO tool_calls (server_name, tool, arguments_json, outcome, error, started_at, duration_ms)
               VALUES ('web', 'fetch', '{}', 'failed', 'connection refused', 6, 1);
             INSERT INTO elicitations (server_name, mode, origin, message, url, registrable_domain, state, created_at, updated_at)
               VALUES ('pay', 'url', 'request', 'Pay the invoice', 'https://checkout.stripe.com/x', 'stripe.com', 'completed', 5, 5);",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    // Case-insensitive substrings of arguments, results and errors, as before.
    assert_eq!(search(&store, "kangaroo").len(), 1);
    assert_eq!(search(&store, "REFUSED").len(), 1);
    assert_eq!(search(&store, "nothing like this").len(), 0);
    let q = |term: &str| {
        store
            .elicitation_page(&ElicitationQuery {
                search: Some(term.into()),
                limit: 10,
                ..Default::default()
            })
            .unwrap()
            .records
            .len()
    };
    assert_eq!(q("stripe"), 1, "domain");
    assert_eq!(q("invoice"), 1, "message");
    assert_eq!(q("checkout.str"), 1, "URL");
    assert_eq!(q("paypal"), 0);
    // Rows written after the upgrade are indexed by the triggers.
    store
        .record_tool_call(
            "git",
            "git_diff",
            &serde_json::json!({"rev": "Wombat"}),
            None,
            ToolCallOutcome::Ok,
            None,
            9,
            1,
        )
        .unwrap();
    assert_eq!(search(&store, "wombat").len(), 1);
}

#[test]
fn short_terms_scan_and_searches_page_by_keyset_with_filters() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    for i in 0..30 {
        let server = if i % 3 == 0 { "a" } else { "b" };
        store
            .record_tool_call(
                server,
                "echo",
                &serde_json::json!({"message": format!("item-{i} xy")}),
                None,
                ToolCallOutcome::Ok,
                None,
                1000 + i,
                1,
            )
            .unwrap();
    }
    // Two characters: below the trigram index, still found (LIKE scan).
    assert_eq!(search(&store, "xy").len(), 30);
    assert_eq!(search(&store, "zq").len(), 0);
    // An indexed search with a server filter, paged 4 at a time.
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = store
            .history(&HistoryQuery {
                search: Some("item-".into()),
                server: Some("a".into()),
                limit: 4,
                before_id: before,
                ..Default::default()
            })
            .unwrap();
        assert!(page.calls.iter().all(|c| c.server == "a"));
        seen.extend(page.calls.iter().map(|c| c.id));
        match page.next_before_id {
            Some(id) => before = Some(id),
            None => break,
        }
    }
    assert_eq!(seen.len(), 10);
    assert!(
        seen.windows(2).all(|w| w[0] > w[1]),
        "newest first, no repeats"
    );
    // A time range with a search.
    let ranged = store
        .history(&HistoryQuery {
            search: Some("item".into()),
            since_ms: Some(1010),
            until_ms: Some(1020),
            limit: 100,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(ranged.calls.len(), 10);
}

#[test]
fn elicitations_filter_by_state_and_page_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    for i in 0..12 {
        let r = store
            .insert_elicitation(&elicitation(
                "s",
                &format!("Sign in {i}"),
                "https://example.com/a",
                "example.com",
            ))
            .unwrap();
        if i % 4 == 0 {
            store
                .set_elicitation_state(r.id, ElicitationState::Declined, r.created_at)
                .unwrap();
        }
    }
    let declined = store
        .elicitation_page(&ElicitationQuery {
            state: Some(ElicitationState::Declined),
            limit: 100,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(declined.records.len(), 3);
    // A state change does not touch the search index: still found by message.
    assert_eq!(
        store
            .elicitation_page(&ElicitationQuery {
                search: Some("sign in 8".into()),
                limit: 10,
                ..Default::default()
            })
            .unwrap()
            .records
            .len(),
        1
    );
    let first = store
        .elicitation_page(&ElicitationQuery {
            limit: 5,
            ..Default::default()
        })
        .unwrap();
    let second = store
        .elicitation_page(&ElicitationQuery {
            limit: 5,
            before_id: first.next_before_id,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(first.records.len() + second.records.len(), 10);
    assert!(first.records.last().unwrap().id > second.records[0].id);
}

#[test]
fn pruning_many_rows_goes_in_batches_and_leaves_the_search_index_in_step() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let old = PRUNE_BATCH * 2 + 17;
    for i in 0..old + 5 {
        let (word, at) = if i < old {
            ("ancient", 1000)
        } else {
            ("recent", i64::MAX / 2)
        };
        store
            .record_tool_call(
                "s",
                "echo",
                &serde_json::json!({"w": word}),
                None,
                ToolCallOutcome::Ok,
                None,
                at,
                1,
            )
            .unwrap();
    }
    store
        .audit(Some("s"), "test", &serde_json::json!({}))
        .unwrap();
    let removed = store.prune_history(2000).unwrap();
    assert_eq!(removed, old);
    assert_eq!(search(&store, "ancient").len(), 0);
    assert_eq!(search(&store, "recent").len(), 5);
    // Its own event (opening a data dir that was not private adds one of
    // the store's: tempdirs are 0755 here).
    assert_eq!(
        store
            .audit_events(None, 10)
            .unwrap()
            .iter()
            .filter(|e| e.kind == "test")
            .count(),
        1,
        "newer than the cut-off"
    );
}

/// A server chooses the text history holds; a user searching for it must get
/// exactly the rows holding it, whatever FTS5 would read as syntax in it.
#[test]
fn search_terms_with_fts_syntax_are_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let texts = [
        r#"say "hi" NEAR x"#,
        "a* OR b^c",
        "col:value AND (x)",
        "plain words only",
    ];
    for (i, t) in texts.iter().enumerate() {
        store
            .record_tool_call(
                "s",
                "echo",
                &serde_json::json!({ "message": t }),
                None,
                ToolCallOutcome::Ok,
                None,
                1000 + i64::try_from(i).unwrap(),
                1,
            )
            .unwrap();
    }
    for (term, hits) in [
        // History holds the arguments as JSON: the quotes are escaped there.
        (r#"\"hi\" NEAR"#, 1),
        ("a* OR b", 1),
        ("col:value AND (", 1),
        // Case-insensitive substrings: "a* OR b^c" and "words".
        ("OR", 2),
        ("NEAR x", 1),
        ("words", 1),
        ("\"message\"", 4),
    ] {
        assert_eq!(search(&store, term).len(), hits, "search {term:?}");
    }
}

/// The audit trail pages through every event (the window used to show
/// only the newest 500 and filter those), and filters in the database:
/// server, kind, the app named in the detail, and text (plain text, not
/// LIKE wildcards).
#[test]
fn the_audit_trail_pages_through_every_event_with_its_filters() {
    use airlock_core::store::AuditQuery;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("airlock.sqlite3")).unwrap();
    for i in 0..1_250 {
        let (server, kind) = match i % 5 {
            0 => (Some("git"), "server_added"),
            1 => (Some("git"), "elicitation"),
            2 => (None, "client_paused"),
            _ => (Some("docs"), "elicitation"),
        };
        let client = if i % 5 == 2 { "cursor" } else { "claude-code" };
        let detail = serde_json::json!({"n": i, "client": client, "note": if i == 7 { "100%_done" } else { "x" }});
        store.audit(server, kind, &detail).unwrap();
    }
    let all = |q: AuditQuery| {
        let mut ids = Vec::new();
        let mut before = None;
        loop {
            let page = store
                .audit_page(&AuditQuery {
                    before_id: before,
                    limit: 100,
                    ..q.clone()
                })
                .unwrap();
            assert!(page.events.len() <= 100);
            ids.extend(page.events.iter().map(|e| e.id));
            match page.next_before_id {
                Some(b) => before = Some(b),
                None => return ids,
            }
        }
    };
    // Every event once, newest first.
    let every = all(AuditQuery::default());
    assert_eq!(every.len(), 1_250);
    assert!(
        every.windows(2).all(|w| w[0] > w[1]),
        "newest first, no repeats"
    );
    assert_eq!(
        all(AuditQuery {
            server: Some("git".into()),
            ..Default::default()
        })
        .len(),
        500
    );
    let kind = |k: &str| AuditQuery {
        kind: Some(k.into()),
        ..Default::default()
    };
    assert_eq!(all(kind("elicitation")).len(), 750);
    assert_eq!(all(kind("nothing")).len(), 0);
    assert_eq!(
        all(AuditQuery {
            app: Some("cursor".into()),
            ..Default::default()
        })
        .len(),
        250
    );
    assert_eq!(
        all(AuditQuery {
            server: Some("git".into()),
            kind: Some("elicitation".into()),
            app: Some("claude-code".into()),
            ..Default::default()
        })
        .len(),
        250
    );
    // Text is text: `%` and `_` are not wildcards.
    let found = all(AuditQuery {
        search: Some("100%_DONE".into()),
        ..Default::default()
    });
    assert_eq!(found.len(), 1, "case-insensitive, wildcards literal");
    assert_eq!(
        all(AuditQuery {
            search: Some("%".into()),
            ..Default::default()
        })
        .len(),
        1
    );
    // The kinds on record, for the filter menu.
    assert_eq!(
        store.audit_kinds().unwrap(),
        ["client_paused", "elicitation", "server_added"]
    );
    // A kind filter walks the kind index.
    let plan = store
        .explain_audit(&kind("elicitation"))
        .unwrap()
        .join(" | ");
    assert!(plan.contains("audit_events_kind"), "{plan}");
}
