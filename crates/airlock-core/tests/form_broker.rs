//! The broker's form path: records, states, audit, validation of what a
//! consent port answers, and the default `ask_form` of ports without forms.
//! Real SQLite; scripted consent ports.

use std::sync::Arc;

use airlock_core::elicitation::{
    BoxFuture, Broker, BrokerSettings, Consent, ConsentDecision, ContinueDecision, FixedConsent,
    FormAnswer, Origin, UrlConsentRequest,
};
use airlock_core::store::Store;
use airlock_core::test_support::{open_broker, RecordingOpener, ScriptedConsent};
use serde_json::{json, Map, Value};

/// Answers every form with `answer` and remembers what it was shown.
fn scripted(answer: FormAnswer) -> Arc<ScriptedConsent> {
    ScriptedConsent::new(ConsentDecision::Decline, ContinueDecision::Cancel)
        .then_forms(vec![answer])
}

/// A port written before forms existed: only the URL methods.
struct UrlOnly;

impl Consent for UrlOnly {
    fn ask_url<'a>(&'a self, _r: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async { ConsentDecision::Accept })
    }
    fn continue_or_cancel<'a>(
        &'a self,
        _r: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        Box::pin(async { ContinueDecision::Continue })
    }
}

/// Forms never open anything: the opener records, and tests check it stayed empty.
fn broker(consent: Arc<dyn Consent>) -> (Arc<Broker>, Arc<Store>, tempfile::TempDir) {
    open_broker(consent, RecordingOpener::new(), BrokerSettings::default())
}

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 2, "default": "Ada"},
        "age": {"type": "integer", "minimum": 0, "default": 36},
        "token": {"type": "string", "title": "API token"}
    }, "required": ["name"]})
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// The elicitation audit states of one record, oldest first, with details.
fn states(store: &Store, record: i64) -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = store
        .audit_events(None, 1000)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "elicitation" && e.detail["record_id"] == record)
        .map(|e| (e.detail["state"].as_str().unwrap().to_owned(), e.detail))
        .collect();
    v.reverse();
    v
}

#[tokio::test(flavor = "current_thread")]
async fn an_accepted_form_is_validated_recorded_and_audited_without_values() {
    let consent = scripted(FormAnswer::Accept(obj(
        json!({"name": "Grace", "token": "s3cr3t-canary"}),
    )));
    let (b, store, _dir) = broker(consent.clone());
    let out = b
        .handle_form(
            "srv",
            "Who are you?\u{1b}[31m",
            &schema(),
            Some(&["token".into(), "name".into()]),
            Origin::Request,
        )
        .await
        .unwrap();
    assert_eq!(
        out.answer,
        FormAnswer::Accept(obj(json!({"name": "Grace", "token": "s3cr3t-canary"})))
    );
    assert_eq!(
        out.result_json(),
        json!({"action": "accept", "content": {"name": "Grace", "token": "s3cr3t-canary"}})
    );
    let seen = consent.asked_forms.lock().unwrap();
    let shown = &seen[0];
    assert_eq!(shown.server, "srv");
    assert!(!shown.message.contains('\u{1b}'), "message neutralised");
    let order: Vec<&str> = shown
        .schema
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(order, ["token", "name", "age"], "server order first");

    let id = out.record_id.unwrap();
    let rec = store.elicitation(id).unwrap().unwrap();
    assert_eq!(
        (rec.mode.as_str(), rec.state.as_str()),
        ("form", "accepted")
    );
    assert!(rec.url.is_none());
    let st = states(&store, id);
    let names: Vec<&str> = st.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(names, ["requested", "accepted"]);
    assert_eq!(st[0].1["secret_looking_fields"], json!(["token"]));
    assert_eq!(st[1].1["fields_sent"], json!(["name", "token"]));
    let everything = serde_json::to_string(&store.audit_events(None, 1000).unwrap()).unwrap();
    assert!(!everything.contains("s3cr3t-canary"), "{everything}");
}

#[tokio::test(flavor = "current_thread")]
async fn an_answer_that_does_not_fit_is_never_sent() {
    let consent = scripted(FormAnswer::Accept(obj(
        json!({"name": "A", "age": "36", "extra": 1}),
    )));
    let (b, store, _dir) = broker(consent);
    let out = b
        .handle_form("srv", "m", &schema(), None, Origin::InputRequired)
        .await
        .unwrap();
    assert_eq!(out.answer, FormAnswer::Decline);
    assert_eq!(out.result_json(), json!({"action": "decline"}));
    let st = states(&store, out.record_id.unwrap());
    assert_eq!(st.last().unwrap().0, "declined");
    let mut bad: Vec<String> =
        serde_json::from_value(st.last().unwrap().1["invalid_fields"].clone()).unwrap();
    bad.sort();
    assert_eq!(bad, ["age", "extra", "name"]);
}

#[tokio::test(flavor = "current_thread")]
async fn decline_cancel_and_invalid_schema_states() {
    for (answer, state, json_action) in [
        (FormAnswer::Decline, "declined", "decline"),
        (FormAnswer::Cancel, "cancelled", "cancel"),
    ] {
        let (b, store, _dir) = broker(scripted(answer));
        let out = b
            .handle_form("srv", "m", &schema(), None, Origin::Request)
            .await
            .unwrap();
        assert_eq!(out.result_json(), json!({"action": json_action}));
        let rec = store.elicitation(out.record_id.unwrap()).unwrap().unwrap();
        assert_eq!(rec.state.as_str(), state);
    }

    let consent = scripted(FormAnswer::Decline);
    let (b, store, _dir) = broker(consent.clone());
    let err = b
        .handle_form(
            "srv",
            "m",
            &json!({"type": "object", "properties": {"o": {"type": "object"}}}),
            None,
            Origin::Request,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("nested object"), "{err}");
    assert!(
        consent.asked_forms.lock().unwrap().is_empty(),
        "nobody was asked"
    );
    let rows = store.elicitations(None, 10).unwrap();
    assert_eq!(rows[0].state.as_str(), "invalid_schema");
    let st = states(&store, rows[0].id);
    assert!(st[1].1["reason"]
        .as_str()
        .unwrap()
        .contains("nested object"));
}

#[tokio::test(flavor = "current_thread")]
async fn fixed_consent_answers_with_valid_defaults_and_old_ports_decline() {
    let (b, _store, _dir) = broker(Arc::new(FixedConsent(ConsentDecision::Accept)));
    let out = b
        .handle_form("srv", "m", &schema(), None, Origin::Request)
        .await
        .unwrap();
    assert_eq!(
        out.answer,
        FormAnswer::Accept(obj(json!({"name": "Ada", "age": 36})))
    );
    // A required field without a default: the defaults do not fill the form.
    let needs_more = json!({"properties": {"x": {"type": "string"}}, "required": ["x"]});
    let out = b
        .handle_form("srv", "m", &needs_more, None, Origin::Request)
        .await
        .unwrap();
    assert_eq!(out.answer, FormAnswer::Decline);

    for (d, expected) in [
        (ConsentDecision::Decline, FormAnswer::Decline),
        (ConsentDecision::Cancel, FormAnswer::Cancel),
    ] {
        let (b, _store, _dir) = broker(Arc::new(FixedConsent(d)));
        let out = b
            .handle_form("srv", "m", &schema(), None, Origin::Request)
            .await
            .unwrap();
        assert_eq!(out.answer, expected);
    }

    let (b, _store, _dir) = broker(Arc::new(UrlOnly));
    let out = b
        .handle_form("srv", "m", &schema(), None, Origin::Request)
        .await
        .unwrap();
    assert_eq!(
        out.answer,
        FormAnswer::Decline,
        "the default ask_form declines"
    );
}
