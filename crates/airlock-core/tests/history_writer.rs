//! Tool calls reach history off the call's path (a bounded queue and a
//! writer thread), and none is lost on a clean exit. Real SQLite files.

use std::sync::Arc;

use airlock_core::elicitation::ConsentDecision;
use airlock_core::store::{
    HistoryQuery, HistoryWriter, NewToolCall, Store, ToolCallOutcome, HISTORY_GATHER, HISTORY_QUEUE,
};
use airlock_core::test_support::{
    open_core, text_result, InProcessServer, RecordingOpener, ScriptedConsent,
};
use rmcp::service::ClientLifecycleMode;

fn count(store: &Store) -> usize {
    let mut n = 0;
    let mut before = None;
    loop {
        let page = store
            .history(&HistoryQuery {
                limit: 1000,
                before_id: before,
                ..Default::default()
            })
            .unwrap();
        n += page.calls.len();
        match page.next_before_id {
            Some(id) => before = Some(id),
            None => return n,
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn every_call_is_in_history_after_a_clean_close() {
    let consent = ScriptedConsent::new(
        ConsentDecision::Decline,
        airlock_core::elicitation::ContinueDecision::Cancel,
    );
    let (core, dir) = open_core(consent, RecordingOpener::new(), Default::default());
    let server = InProcessServer::new().tool("echo", |_, _| async { Ok(text_result("hi")) });
    core.connect_in_process("srv", server.serve(), ClientLifecycleMode::Initialize)
        .await
        .unwrap();
    let n = 300;
    for i in 0..n {
        let serde_json::Value::Object(args) = serde_json::json!({"i": i}) else {
            unreachable!()
        };
        core.call_tool("srv", "echo", Some(args)).await.unwrap();
        if i == 0 {
            // A reader in this process sees a call as soon as it returned.
            let page = core
                .history(&HistoryQuery {
                    limit: 5,
                    ..Default::default()
                })
                .unwrap();
            assert_eq!(page.calls.len(), 1);
        }
    }
    core.close();
    drop(core);
    let store = Store::open_in(dir.path()).unwrap();
    assert_eq!(count(&store), n);
}

#[test]
fn the_queue_stays_bounded_and_closing_writes_what_waits() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(dir.path()).unwrap());
    let writer = HistoryWriter::start(store.clone());
    let total = HISTORY_QUEUE * 3 + 5;
    for i in 0..total {
        writer
            .record(NewToolCall {
                app: None,
                server: "s".into(),
                tool: "echo".into(),
                arguments_json: format!("{{\"i\":{i}}}"),
                result_json: None,
                outcome: ToolCallOutcome::Ok,
                error: None,
                started_at: i as i64,
                duration_ms: 0,
            })
            .unwrap();
        assert!(
            writer.waiting() < HISTORY_QUEUE,
            "at most {HISTORY_QUEUE} records wait"
        );
    }
    writer.close();
    assert_eq!(writer.waiting(), 0);
    assert_eq!(count(&store), total);
    // After close, a record is written by its caller.
    writer
        .record(NewToolCall {
            app: None,
            server: "s".into(),
            tool: "late".into(),
            arguments_json: "{}".into(),
            result_json: None,
            outcome: ToolCallOutcome::Failed,
            error: Some("x".into()),
            started_at: 0,
            duration_ms: 0,
        })
        .unwrap();
    assert_eq!(count(&store), total + 1);
}

fn record(i: usize) -> NewToolCall {
    NewToolCall {
        app: Some("app".into()),
        server: "s".into(),
        tool: "echo".into(),
        arguments_json: format!("{{\"message\":\"call {i}\"}}"),
        result_json: Some(format!(
            "{{\"content\":[{{\"type\":\"text\",\"text\":\"Echo: call {i}\"}}]}}"
        )),
        outcome: ToolCallOutcome::Ok,
        error: None,
        started_at: i as i64,
        duration_ms: 0,
    }
}

#[test]
fn calls_in_a_steady_stream_share_transactions_and_a_flush_writes_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(dir.path()).unwrap());
    let writer = HistoryWriter::start(store.clone());
    // One call per millisecond: each transaction alone takes less than
    // that, so a writer that wrote per record would write about `total`.
    let total = 120;
    for i in 0..total {
        writer.record(record(i)).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // A reader in this process flushes first: every record is there.
    writer.flush().unwrap();
    assert_eq!(count(&store), total);
    let batches = writer.batches();
    assert!(
        batches * 2 < total as u64,
        "{batches} transactions for {total} records (gathering for {HISTORY_GATHER:?})"
    );
    // A lone record after a quiet spell is written without waiting for more.
    std::thread::sleep(HISTORY_GATHER * 3);
    writer.record(record(total)).unwrap();
    let lone = std::time::Instant::now();
    while count(&store) < total + 1 {
        assert!(
            lone.elapsed() < std::time::Duration::from_secs(10),
            "the lone record was never written"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    writer.close();
    assert_eq!(count(&store), total + 1);
}
