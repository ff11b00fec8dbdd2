//! A server that cancels its own elicitation request (notifications/
//! cancelled, here on its request timeout) stops Airlock's consent for it:
//! the question is dropped, nothing opens even if the user says yes later,
//! and the record ends instead of staying pending.

use std::time::Duration;

use airlock_core::elicitation::{BrokerSettings, ElicitationState as S};
use airlock_core::test_support::{
    open_core, text_result, InProcessServer, RecordingOpener, ScriptedConsent,
};
use rmcp::service::ClientLifecycleMode;

#[tokio::test(flavor = "current_thread")]
async fn a_server_cancelling_its_elicitation_stops_the_consent_for_it() {
    // The user does not answer until released.
    let consent = ScriptedConsent::accepting().hold();
    let opener = RecordingOpener::new();
    let (core, _dir) = open_core(consent.clone(), opener.clone(), BrokerSettings::default());
    let server = InProcessServer::new().tool("sign_up", |_p, ctx| async move {
        // rmcp sends notifications/cancelled when its request times out.
        let answer = ctx
            .peer
            .elicit_url_with_timeout(
                "Finish signing up",
                url::Url::parse("https://signup.example/start").unwrap(),
                "e-1",
                Some(Duration::from_millis(500)),
            )
            .await;
        Ok(text_result(if answer.is_ok() {
            "answered"
        } else {
            "gave up"
        }))
    });
    core.connect_in_process("srv", server.serve(), ClientLifecycleMode::Initialize)
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let out = core.call_tool("srv", "sign_up", None).await.unwrap();
    assert!(out.result.to_string().contains("gave up"), "{}", out.result);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(consent.url_questions(), 1, "the user was asked");
    // The record is over once the server withdrew its request.
    let mut state = S::Requested;
    for _ in 0..100 {
        state = core.elicitations(Some("srv"), 1).unwrap().remove(0).state;
        if state != S::Requested {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_ne!(state, S::Requested);
    // A yes after that opens nothing.
    consent.release();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(opener.urls().is_empty(), "{:?}", opener.urls());
    let state = core.elicitations(Some("srv"), 1).unwrap().remove(0).state;
    assert!(
        !matches!(state, S::Accepted | S::Opened | S::Requested),
        "{state:?}"
    );
}
