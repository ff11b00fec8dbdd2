//! The broker's lifecycle end to end through a real rmcp server in this
//! process: the 2025-11-25 request path goes late like the other paths
//! (Continue lets the call go on, Cancel stops it with notifications/
//! cancelled), a completion before the deadline never goes late, refusals
//! carry their reason to the caller and to the events, and settings apply
//! at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use airlock_core::elicitation::{
    BrokerSettings, ConsentDecision, ContinueDecision, ElicitationState as S,
};
use airlock_core::events::CoreEvent;
use airlock_core::test_support::{
    open_core, text_result, InProcessServer, RecordingOpener, ScriptedConsent,
};
use airlock_core::url_safety::{BlockReason, Policy};
use airlock_core::Airlock;
use rmcp::model::{CustomNotification, ErrorCode, ErrorData, ServerNotification};
use rmcp::service::ClientLifecycleMode;

fn settings(late_secs: u64, give_up_secs: u64) -> BrokerSettings {
    BrokerSettings {
        late_after: Duration::from_secs(late_secs),
        give_up_after: Duration::from_secs(give_up_secs),
        ..BrokerSettings::default()
    }
}

/// The states a record went through, from the audit trail (oldest first).
fn states(core: &Airlock, record: i64) -> Vec<String> {
    let mut events = core.audit_events(None, 1000).unwrap();
    events.reverse();
    events
        .into_iter()
        .filter(|e| e.kind == "elicitation" && e.detail["record_id"] == record)
        .map(|e| e.detail["state"].as_str().unwrap().to_owned())
        .collect()
}

/// A 2025-11-25 server whose tool asks for a URL (request path) and then
/// waits: for `hold`, or until its request is cancelled.
fn asks_then_waits(hold: Duration, cancelled: Arc<AtomicBool>) -> InProcessServer {
    InProcessServer::new().tool("sign_up", move |_p, ctx| {
        let cancelled = cancelled.clone();
        async move {
            let answer = ctx
                .peer
                .elicit_url(
                    "Finish signing up",
                    url::Url::parse("https://signup.example/start").unwrap(),
                    "e-1",
                )
                .await;
            if !matches!(answer, Ok(rmcp::model::ElicitationAction::Accept)) {
                return Ok(text_result("not accepted"));
            }
            tokio::select! {
                () = tokio::time::sleep(hold) => Ok(text_result("signed up")),
                () = ctx.ct.cancelled() => {
                    cancelled.store(true, Ordering::SeqCst);
                    Err(ErrorData::internal_error("cancelled", None))
                }
            }
        }
    })
}

async fn connect_legacy(core: &Arc<Airlock>, server: InProcessServer) {
    core.connect_in_process("srv", server.serve(), ClientLifecycleMode::Initialize)
        .await
        .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn request_path_goes_late_and_cancel_stops_the_tool_call() {
    let consent = ScriptedConsent::new(ConsentDecision::Accept, ContinueDecision::Cancel);
    let opener = RecordingOpener::new();
    let (core, _dir) = open_core(consent.clone(), opener.clone(), settings(1, 30));
    let cancelled = Arc::new(AtomicBool::new(false));
    connect_legacy(
        &core,
        asks_then_waits(Duration::from_secs(60), cancelled.clone()),
    )
    .await;
    let started = std::time::Instant::now();
    let err = core
        .call_tool("srv", "sign_up", None)
        .await
        .expect_err("the user cancelled while it was late");
    assert!(
        err.to_string()
            .contains("cancelled while waiting for the browser step"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(opener.urls(), ["https://signup.example/start"]);
    let record = core.elicitations(Some("srv"), 1).unwrap().remove(0);
    assert_eq!(record.state, S::Cancelled);
    assert_eq!(
        states(&core, record.id),
        ["requested", "accepted", "opened", "late", "cancelled"]
    );
    assert_eq!(
        consent.asked_continue.lock().unwrap().as_slice(),
        [record.id]
    );
    // The server heard notifications/cancelled for its tool call.
    for _ in 0..100 {
        if cancelled.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        cancelled.load(Ordering::SeqCst),
        "the server saw no cancellation"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn request_path_continue_lets_the_tool_call_go_on() {
    let consent = ScriptedConsent::accepting();
    let (core, _dir) = open_core(consent.clone(), RecordingOpener::new(), settings(1, 30));
    let cancelled = Arc::new(AtomicBool::new(false));
    connect_legacy(
        &core,
        asks_then_waits(Duration::from_millis(2500), cancelled.clone()),
    )
    .await;
    let out = core.call_tool("srv", "sign_up", None).await.unwrap();
    assert!(
        out.result.to_string().contains("signed up"),
        "{}",
        out.result
    );
    assert!(!cancelled.load(Ordering::SeqCst));
    let record = core.elicitations(Some("srv"), 1).unwrap().remove(0);
    assert_eq!(
        states(&core, record.id),
        ["requested", "accepted", "opened", "late", "continued"]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_completion_before_the_deadline_never_goes_late() {
    let consent = ScriptedConsent::accepting();
    let (core, _dir) = open_core(consent.clone(), RecordingOpener::new(), settings(2, 30));
    let server = InProcessServer::new().tool("pay", |_p, ctx| async move {
        let _ = ctx
            .peer
            .elicit_url(
                "Pay",
                url::Url::parse("https://pay.example/").unwrap(),
                "pay-1",
            )
            .await;
        let done = CustomNotification::new(
            "notifications/elicitation/complete",
            Some(serde_json::json!({"elicitationId": "pay-1"})),
        );
        let _ = ctx
            .peer
            .send_notification(ServerNotification::CustomNotification(done))
            .await;
        Ok(text_result("paid"))
    });
    connect_legacy(&core, server).await;
    core.call_tool("srv", "pay", None).await.unwrap();
    let record = core.elicitations(Some("srv"), 1).unwrap().remove(0);
    for _ in 0..100 {
        if core.elicitation(record.id).unwrap().unwrap().state == S::Completed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Past the late deadline: still completed, never late, nobody asked.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        states(&core, record.id),
        ["requested", "accepted", "opened", "completed"]
    );
    assert!(consent.asked_continue.lock().unwrap().is_empty());
}

/// A -32042 error listing one URL elicitation.
fn required(url: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode(-32042),
        "URL elicitation required",
        Some(serde_json::json!({"elicitations": [
            {"mode": "url", "url": url, "elicitationId": "r-1", "message": "Authorize"}
        ]})),
    )
}

#[tokio::test(flavor = "current_thread")]
async fn a_refused_error_path_says_why_to_the_caller_and_in_the_event() {
    let consent = ScriptedConsent::accepting();
    let opener = RecordingOpener::new();
    let (core, _dir) = open_core(consent.clone(), opener.clone(), settings(1, 30));
    let server = InProcessServer::new()
        .tool("js", |_p, _ctx| async {
            Err(required("javascript:alert(1)"))
        })
        .tool("local", |_p, _ctx| async {
            Err(required("http://127.0.0.1:9/authorize"))
        });
    connect_legacy(&core, server).await;
    let mut events = core.subscribe();

    let err = core.call_tool("srv", "js", None).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("was blocked: javascript: is not allowed"),
        "{err}"
    );

    // With "block http to loopback" on, the event says why with the
    // policy's own inspection: no shell has to inspect again.
    let mut s = core.broker_settings();
    s.policy = Policy {
        allow_http_loopback: false,
    };
    core.set_broker_settings(s).unwrap();
    let err = core.call_tool("srv", "local", None).await.unwrap_err();
    assert!(err.to_string().contains("blocked: "), "{err}");
    let mut blocked = Vec::new();
    while let Ok(ev) = events.try_recv() {
        if let CoreEvent::Elicitation(e) = ev {
            if e.record.state == S::Blocked {
                blocked.push(e);
            }
        }
    }
    assert_eq!(blocked.len(), 2);
    let local = &blocked[1];
    assert_eq!(
        local.inspection.as_ref().and_then(|i| i.block_reason),
        Some(BlockReason::InsecureScheme)
    );
    assert!(local.reason.as_deref().unwrap_or_default().contains("http"));
    assert_eq!(
        local.record.url.as_deref(),
        Some("http://127.0.0.1:9/authorize")
    );
    assert!(opener.urls().is_empty(), "nothing opened");
    assert_eq!(consent.url_questions(), 0, "nobody was asked");
}

#[tokio::test(flavor = "current_thread")]
async fn settings_apply_to_the_next_request() {
    let consent = ScriptedConsent::accepting();
    let (core, _dir) = open_core(consent.clone(), RecordingOpener::new(), settings(5, 30));
    let server = InProcessServer::new().tool("ask", |_p, ctx| async move {
        let a = ctx
            .peer
            .elicit_url("Open", url::Url::parse("https://ok.example/").unwrap(), "a")
            .await;
        Ok(text_result(&format!("{a:?}")))
    });
    connect_legacy(&core, server).await;
    let mut s = core.broker_settings();
    s.max_per_minute = 1;
    core.set_broker_settings(s.clone()).unwrap();
    let first = core.call_tool("srv", "ask", None).await.unwrap();
    assert!(
        first.result.to_string().contains("Accept"),
        "{}",
        first.result
    );
    let second = core.call_tool("srv", "ask", None).await.unwrap();
    assert!(
        second.result.to_string().contains("Decline"),
        "{}",
        second.result
    );
    let newest = core.elicitations(Some("srv"), 1).unwrap().remove(0);
    assert_eq!(newest.state, S::RateLimited);
    // Out-of-bounds settings are refused and change nothing.
    s.late_after = Duration::ZERO;
    assert!(core.set_broker_settings(s).is_err());
    assert_eq!(core.broker_settings().late_after, Duration::from_secs(5));
}
