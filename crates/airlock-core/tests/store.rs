//! The SQLite store: migrations from every earlier schema, history queries,
//! bounded logs. Real database files in temp dirs.

use airlock_core::store::{
    create_at_version, HistoryQuery, Store, StoreError, ToolCallOutcome, LATEST_VERSION,
    MAX_LOG_LINES_PER_SERVER,
};

#[test]
fn opens_a_database_of_every_earlier_version_and_keeps_its_data() {
    for version in 0..LATEST_VERSION {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("airlock.sqlite3");
        {
            let conn = create_at_version(&path, version).unwrap();
            let v: i64 = conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            assert_eq!(v, version);
            if version >= 1 {
                conn.execute(
                    "INSERT INTO servers (name, transport, config_json, created_at, updated_at)
                     VALUES ('old', 'stdio', '{\"type\":\"stdio\",\"command\":\"x\"}', 1, 1)",
                    [],
                )
                .unwrap();
                conn.execute(
                    "INSERT INTO tool_calls (server_name, tool, arguments_json, result_json, outcome, started_at, duration_ms)
                     VALUES ('old', 'echo', '{}', '{\"content\":[]}', 'ok', 5, 7)",
                    [],
                )
                .unwrap();
            }
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), LATEST_VERSION);
        if version >= 1 {
            assert_eq!(store.list_servers().unwrap()[0].name, "old");
            let page = store
                .history(&HistoryQuery {
                    limit: 10,
                    ..Default::default()
                })
                .unwrap();
            assert_eq!(page.calls.len(), 1);
            assert_eq!(page.calls[0].duration_ms, 7);
        }
        // The newest tables work on the upgraded file.
        store
            .audit(Some("old"), "test", &serde_json::json!({"ok": true}))
            .unwrap();
        assert_eq!(store.audit_events(None, 5).unwrap().len(), 1);
    }
}

#[test]
fn a_database_from_a_newer_airlock_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.sqlite3");
    {
        let conn = create_at_version(&path, LATEST_VERSION).unwrap();
        conn.pragma_update(None, "user_version", LATEST_VERSION + 5)
            .unwrap();
    }
    match Store::open(&path) {
        Err(e @ StoreError::TooNew { .. }) => assert!(e.to_string().contains("newer Airlock")),
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("a newer schema must be refused"),
    }
}

#[test]
fn history_filters_searches_and_paginates() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    for i in 0..25 {
        let server = if i % 2 == 0 { "a" } else { "b" };
        let outcome = if i % 5 == 0 {
            ToolCallOutcome::Failed
        } else {
            ToolCallOutcome::Ok
        };
        store
            .record_tool_call(
                server,
                "echo",
                &serde_json::json!({"message": format!("msg-{i}")}),
                Some(&serde_json::json!({"text": format!("result 50% done {i}")})),
                outcome,
                None,
                1000 + i,
                i,
            )
            .unwrap();
    }
    let q = |f: &dyn Fn(&mut HistoryQuery)| {
        let mut q = HistoryQuery {
            limit: 100,
            ..Default::default()
        };
        f(&mut q);
        store.history(&q).unwrap()
    };
    assert_eq!(q(&|q| q.server = Some("a".into())).calls.len(), 13);
    assert_eq!(q(&|q| q.search = Some("msg-7".into())).calls.len(), 1);
    // LIKE wildcards are literal: "50%" matches the text, "5_%" matches nothing.
    assert_eq!(q(&|q| q.search = Some("50%".into())).calls.len(), 25);
    assert_eq!(q(&|q| q.search = Some("5_%".into())).calls.len(), 0);
    assert_eq!(
        q(&|q| q.outcome = Some(ToolCallOutcome::Failed))
            .calls
            .len(),
        5
    );
    assert_eq!(q(&|q| q.since_ms = Some(1020)).calls.len(), 5);
    // Keyset pagination: newest first, no row twice, none lost.
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = q(&|q| {
            q.limit = 10;
            q.before_id = before;
        });
        seen.extend(page.calls.iter().map(|c| c.id));
        match page.next_before_id {
            Some(id) => before = Some(id),
            None => break,
        }
    }
    assert_eq!(seen.len(), 25);
    assert!(seen.windows(2).all(|w| w[0] > w[1]));
}

#[test]
fn history_records_and_filters_the_gateway_client() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    for (i, client) in [None, Some("cursor"), Some("claude"), Some("cursor")]
        .into_iter()
        .enumerate()
    {
        store
            .record_tool_call_for(
                client,
                "a",
                "echo",
                &serde_json::json!({}),
                None,
                ToolCallOutcome::Ok,
                None,
                1000 + i as i64,
                1,
            )
            .unwrap();
    }
    let q = |client: Option<&str>| {
        store
            .history(&HistoryQuery {
                limit: 100,
                app: client.map(str::to_owned),
                ..Default::default()
            })
            .unwrap()
            .calls
    };
    assert_eq!(q(None).len(), 4);
    let cursor = q(Some("cursor"));
    assert_eq!(cursor.len(), 2);
    assert!(cursor.iter().all(|c| c.app.as_deref() == Some("cursor")));
    assert_eq!(q(Some("nobody")).len(), 0);
    // Calls made in Airlock itself have no client.
    assert!(q(None).iter().any(|c| c.app.is_none()));
}

#[test]
fn server_log_is_bounded_per_server() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let n = MAX_LOG_LINES_PER_SERVER + 50;
    for i in 0..n {
        store
            .append_log("s", "stderr", "info", &format!("line {i}"))
            .unwrap();
    }
    store.append_log("other", "stderr", "info", "kept").unwrap();
    let lines = store.logs("s", 10_000).unwrap();
    assert!(lines.len() as i64 <= MAX_LOG_LINES_PER_SERVER);
    assert_eq!(lines.last().unwrap().text, format!("line {}", n - 1));
    assert_eq!(store.logs("other", 10).unwrap().len(), 1);
    // One huge line is cut, not stored whole.
    store
        .append_log("s", "stderr", "info", &"x".repeat(100_000))
        .unwrap();
    let last = store.logs("s", 1).unwrap();
    assert!(last[0].text.len() < 5000);
}
