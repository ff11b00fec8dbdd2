//! Tool calls reach history off the call's path (a bounded queue and a
//! writer thread), and none is lost on a clean exit. Real SQLite files.

use std::sync::Arc;

use airlock_core::elicitation::ConsentDecision;
use airlock_core::store::{
    HistoryQuery, HistoryWriter, NewToolCall, Store, ToolCallOutcome, HISTORY_QUEUE,
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
                client: None,
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
            client: None,
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
