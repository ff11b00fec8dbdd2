//! A server that cancels its own elicitation request (notifications/
//! cancelled, here on its request timeout) stops Airlock's consent for it:
//! the question is dropped, nothing opens even if the user says yes later,
//! and the record ends `withdrawn` instead of staying pending; a question
//! whose connection goes away ends `connection_lost`.

use std::time::Duration;

use airlock_core::elicitation::{BrokerSettings, ElicitationState as S};
use airlock_core::test_support::{
    open_core, text_result, InProcessServer, RecordingOpener, ScriptedConsent,
};
use rmcp::model::ElicitRequestParams;
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
    // The record is over once the server withdrew its request, and says so.
    assert_eq!(ended(&core).await, S::Withdrawn);
    // A yes after that opens nothing.
    consent.release();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(opener.urls().is_empty(), "{:?}", opener.urls());
    let state = core.elicitations(Some("srv"), 1).unwrap().remove(0).state;
    assert_eq!(state, S::Withdrawn);
}

/// The state `srv`'s newest record ends in (waits up to 5 s).
async fn ended(core: &airlock_core::Airlock) -> S {
    let mut state = S::Requested;
    for _ in 0..250 {
        state = core.elicitations(Some("srv"), 1).unwrap().remove(0).state;
        if state != S::Requested {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    state
}

/// A server whose tool asks for a form, giving up after `give_up` (none:
/// it waits for ever).
fn asks_a_form(give_up: Option<Duration>) -> InProcessServer {
    InProcessServer::new().tool("ask", move |_p, ctx| async move {
        let params: ElicitRequestParams = serde_json::from_value(serde_json::json!({
            "mode": "form", "message": "Your email?",
            "requestedSchema": {"type": "object", "properties": {"email": {"type": "string"}}}
        }))
        .unwrap();
        let answer = ctx
            .peer
            .create_elicitation_with_timeout(params, give_up)
            .await;
        Ok(text_result(if answer.is_ok() {
            "answered"
        } else {
            "gave up"
        }))
    })
}

#[tokio::test(flavor = "current_thread")]
async fn a_form_the_server_withdraws_is_recorded_withdrawn() {
    let consent = ScriptedConsent::accepting().hold();
    let (core, _dir) = open_core(
        consent.clone(),
        RecordingOpener::new(),
        BrokerSettings::default(),
    );
    let server = asks_a_form(Some(Duration::from_millis(500)));
    core.connect_in_process("srv", server.serve(), ClientLifecycleMode::Initialize)
        .await
        .unwrap();
    let out = core.call_tool("srv", "ask", None).await.unwrap();
    assert!(out.result.to_string().contains("gave up"), "{}", out.result);
    assert_eq!(
        consent.asked_forms.lock().unwrap().len(),
        1,
        "the user was asked"
    );
    assert_eq!(ended(&core).await, S::Withdrawn);
    consent.release();
}

#[tokio::test(flavor = "current_thread")]
async fn a_form_whose_connection_goes_away_is_recorded_connection_lost() {
    let consent = ScriptedConsent::accepting().hold();
    let (core, _dir) = open_core(
        consent.clone(),
        RecordingOpener::new(),
        BrokerSettings::default(),
    );
    core.connect_in_process(
        "srv",
        asks_a_form(None).serve(),
        ClientLifecycleMode::Initialize,
    )
    .await
    .unwrap();
    let call = {
        let core = core.clone();
        tokio::spawn(async move { core.call_tool("srv", "ask", None).await })
    };
    for _ in 0..250 {
        if !consent.asked_forms.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        consent.asked_forms.lock().unwrap().len(),
        1,
        "the user is asked"
    );
    core.disconnect("srv");
    let _ = call.await;
    assert_eq!(ended(&core).await, S::ConnectionLost);
    consent.release();
}
