//! Forms for 2026-07-28 apps: a request in rounds (SEP-2322). There is no
//! server-to-app request on that revision, so a form a server asks
//! during an app's `tools/call`, `prompts/get` or `resources/read` goes back
//! to the app as that request's answer, an `InputRequiredResult` with the
//! form and an opaque `requestState`; the app shows the form and sends the
//! request again with its answer and that state. Meanwhile the request to
//! the server stays in flight, parked here.
//!
//! What a hostile app could try, and what stops it:
//! - Guess or reuse another app's state: the state is 128 random bits,
//!   used once, and only by the app (by name) it was given to, and
//!   only with the method it was given for (a prompt's state does not
//!   resume a tool call).
//! - Never come back: a parked call is dropped after
//!   [`crate::routing::forms::APP_FORM_TIMEOUT`] (the server's form is cancelled and
//!   the call ends); at most [`MAX_PARKED`] calls are parked at once, and
//!   each holds one of its app's in-flight call slots.
//! - Answer with something else: a missing or malformed answer is a cancel;
//!   an answer is checked against the form by the broker like any other.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_core::elicitation::FormAnswer;
use rmcp::model::{
    CallToolResponse, ElicitRequest, ErrorData, GetPromptResponse, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ReadResourceResponse,
};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::routing::router::RoundForm;

/// Calls parked at once for every app together.
pub const MAX_PARKED: usize = 256;
/// The key of the form in `inputRequests` / `inputResponses`.
pub const FORM_KEY: &str = "form";

/// The answer to an app's request that may come in rounds: `tools/call`,
/// `prompts/get`, `resources/read`.
pub trait Reply: Send + 'static {
    /// The answer that hands the app a form.
    fn input_required(form: InputRequiredResult) -> Self;
}

impl Reply for CallToolResponse {
    fn input_required(form: InputRequiredResult) -> Self {
        Self::InputRequired(form)
    }
}

impl Reply for GetPromptResponse {
    fn input_required(form: InputRequiredResult) -> Self {
        Self::InputRequired(form)
    }
}

impl Reply for ReadResourceResponse {
    fn input_required(form: InputRequiredResult) -> Self {
        Self::InputRequired(form)
    }
}

/// The end of a request: what the app gets.
pub type Finish<T> = Result<T, ErrorData>;

/// A request in flight on its own task, and the forms it raises.
pub struct Running<T> {
    pub task: JoinHandle<Finish<T>>,
    pub forms: mpsc::Receiver<RoundForm>,
    /// Held while the call lives (the app's in-flight slot, its form route).
    pub hold: Box<dyn Send + Sync>,
}

impl<T> Drop for Running<T> {
    fn drop(&mut self) {
        // Nobody waits for this call any more: end it (the server's request
        // is cancelled when its future is dropped).
        self.task.abort();
    }
}

struct Parked {
    owner: String,
    /// A [`Running`] of the method the state was given for.
    running: Box<dyn Any + Send>,
    answer: oneshot::Sender<FormAnswer>,
}

/// The calls waiting for their app's answer to a form. Each is dropped
/// when its time is up, by a timer of its own (not when the next call
/// comes, which may be never): dropping it cancels its form and ends it.
#[derive(Default)]
pub struct Rounds {
    parked: Arc<Mutex<HashMap<String, Parked>>>,
}

/// Why a retry cannot go on.
pub fn unknown_state() -> ErrorData {
    ErrorData::invalid_params(
        "requestState is unknown or expired (the form was answered already, or waited too long): call the tool again",
        None,
    )
}

fn new_state() -> Result<String, ErrorData> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        ErrorData::internal_error(format!("no randomness for a request state: {e}"), None)
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The app's answer to the form, from a retry's `inputResponses`: an
/// `ElicitResult`; anything else (missing, malformed) is a cancel.
pub fn answer_of(responses: Option<&InputResponses>) -> FormAnswer {
    let Some(result) = responses.and_then(|r| r.get(FORM_KEY)) else {
        return FormAnswer::Cancel;
    };
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => match result.get("content") {
            Some(Value::Object(content)) => FormAnswer::Accept(content.clone()),
            _ => FormAnswer::Accept(Map::new()),
        },
        Some("decline") => FormAnswer::Decline,
        _ => FormAnswer::Cancel,
    }
}

impl Rounds {
    /// Drive a call until it ends (its result), or until it raises a form
    /// (then it is parked and the app gets the form), or the app cancels.
    pub async fn drive<T: Reply>(
        &self,
        owner: &str,
        mut running: Running<T>,
        timeout: Duration,
        cancelled: tokio_util::sync::WaitForCancellationFuture<'_>,
    ) -> Finish<T> {
        tokio::select! {
            end = &mut running.task => end.unwrap_or_else(|e| {
                Err(ErrorData::internal_error(format!("the call stopped: {e}"), None))
            }),
            form = running.forms.recv() => match form {
                Some(form) => self.park(owner, running, form, timeout),
                // The call's form route is gone: it is ending; wait for it.
                None => (&mut running.task).await.unwrap_or_else(|e| {
                    Err(ErrorData::internal_error(format!("the call stopped: {e}"), None))
                }),
            },
            () = cancelled => Err(ErrorData::invalid_request("cancelled by the app", None)),
        }
    }

    fn park<T: Reply>(
        &self,
        owner: &str,
        running: Running<T>,
        form: RoundForm,
        timeout: Duration,
    ) -> Finish<T> {
        let state = new_state()?;
        let mut parked = self.parked.lock().unwrap_or_else(|e| e.into_inner());
        if parked.len() >= MAX_PARKED {
            // The form (its answer dropped) and the call (`running` dropped) end.
            return Err(ErrorData::invalid_request(
                format!("too many calls wait for a form answer (at most {MAX_PARKED}); answer those first"),
                None,
            ));
        }
        let request = InputRequest::Elicitation(ElicitRequest::new(form.params));
        parked.insert(
            state.clone(),
            Parked {
                owner: owner.to_owned(),
                running: Box::new(running),
                answer: form.answer,
            },
        );
        drop(parked);
        // The app never came back: the call ends (outside the lock).
        let (all, key) = (self.parked.clone(), state.clone());
        tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            let gone = all.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
            drop(gone);
        });
        let requests: InputRequests = [(FORM_KEY.to_owned(), request)].into_iter().collect();
        Ok(T::input_required(InputRequiredResult::new(
            Some(requests),
            Some(state),
        )))
    }

    /// A retry: the parked request whose state this is (given to `owner`
    /// for this method), with the app's answer passed on. `None`: no such
    /// request for this app (a wrong try changes nothing).
    pub fn resume<T: Reply>(
        &self,
        owner: &str,
        state: &str,
        answer: FormAnswer,
    ) -> Option<Running<T>> {
        let mut parked = self.parked.lock().unwrap_or_else(|e| e.into_inner());
        let p = parked.get(state)?;
        if p.owner != owner || !p.running.is::<Running<T>>() {
            return None;
        }
        let p = parked.remove(state)?;
        let running = p.running.downcast::<Running<T>>().ok()?;
        let _ = p.answer.send(answer);
        Some(*running)
    }

    /// Calls parked now (for tests and the log).
    pub fn len(&self) -> usize {
        self.parked.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ElicitRequestParams;
    use serde_json::json;

    #[test]
    fn answers_are_read_strictly() {
        let r = |v: Value| -> InputResponses { [(FORM_KEY.to_owned(), v)].into_iter().collect() };
        assert!(matches!(answer_of(None), FormAnswer::Cancel));
        assert!(matches!(
            answer_of(Some(&r(json!({"action": "accept", "content": {"a": 1}})))),
            FormAnswer::Accept(m) if m["a"] == 1
        ));
        assert!(matches!(
            answer_of(Some(&r(json!({"action": "decline"})))),
            FormAnswer::Decline
        ));
        assert!(matches!(
            answer_of(Some(&r(json!({"action": "yes please"})))),
            FormAnswer::Cancel
        ));
        let other: InputResponses = [("x".to_owned(), json!({"action": "accept"}))]
            .into_iter()
            .collect();
        assert!(matches!(answer_of(Some(&other)), FormAnswer::Cancel));
    }

    /// A call on its own task that raises one form and returns the answer it got.
    fn call_with_a_form() -> (Running<CallToolResponse>, oneshot::Receiver<()>) {
        let (forms_tx, forms) = mpsc::channel(1);
        let (ended_tx, ended) = oneshot::channel();
        let task = tokio::spawn(async move {
            let (answer, answered) = oneshot::channel();
            let params: ElicitRequestParams = serde_json::from_value(json!({
                "mode": "form", "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
            }))
            .unwrap();
            forms_tx.send(RoundForm { params, answer }).await.ok();
            let got = answered.await;
            let _ = ended_tx.send(());
            let text = match got {
                Ok(FormAnswer::Accept(m)) => format!("hello {}", m["name"].as_str().unwrap_or("")),
                Ok(_) => "no".to_owned(),
                Err(_) => "dropped".to_owned(),
            };
            Ok(CallToolResponse::Complete(
                rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]),
            ))
        });
        let running = Running {
            task,
            forms,
            hold: Box::new(()),
        };
        (running, ended)
    }

    fn state_of(r: &Finish<CallToolResponse>) -> String {
        match r {
            Ok(CallToolResponse::InputRequired(i)) => i.request_state.clone().unwrap(),
            other => panic!("expected a form round: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_call_parks_on_its_form_and_only_its_app_can_answer_it() {
        let rounds = Rounds::default();
        let never = tokio_util::sync::CancellationToken::new();
        let (running, _ended) = call_with_a_form();
        let first = rounds
            .drive("app-a", running, Duration::from_secs(60), never.cancelled())
            .await;
        let state = state_of(&first);
        assert_eq!(rounds.len(), 1);
        let accept = || {
            let r: InputResponses = [(
                FORM_KEY.to_owned(),
                json!({"action": "accept", "content": {"name": "Ada"}}),
            )]
            .into_iter()
            .collect();
            answer_of(Some(&r))
        };
        // Another app, a made-up state, or another method: nothing.
        assert!(rounds
            .resume::<CallToolResponse>("app-b", &state, accept())
            .is_none());
        assert!(rounds
            .resume::<CallToolResponse>("app-a", "00", accept())
            .is_none());
        assert!(rounds
            .resume::<GetPromptResponse>("app-a", &state, accept())
            .is_none());
        assert!(rounds
            .resume::<ReadResourceResponse>("app-a", &state, accept())
            .is_none());
        assert_eq!(rounds.len(), 1, "a wrong try does not end the call");
        let running = rounds
            .resume::<CallToolResponse>("app-a", &state, accept())
            .expect("its own state");
        let end = rounds
            .drive("app-a", running, Duration::from_secs(60), never.cancelled())
            .await;
        let Ok(CallToolResponse::Complete(result)) = end else {
            panic!("{end:?}")
        };
        assert!(format!("{result:?}").contains("hello Ada"), "{result:?}");
        // Used once.
        assert!(rounds
            .resume::<CallToolResponse>("app-a", &state, accept())
            .is_none());
    }

    #[tokio::test]
    async fn an_app_that_never_comes_back_loses_its_call() {
        let rounds = Rounds::default();
        let never = tokio_util::sync::CancellationToken::new();
        let (running, ended) = call_with_a_form();
        let first = rounds
            .drive(
                "app-a",
                running,
                Duration::from_millis(50),
                never.cancelled(),
            )
            .await;
        let state = state_of(&first);
        assert_eq!(rounds.len(), 1);
        // Nothing else happens: its own timer drops it, and the call ends
        // (its form is cancelled with it).
        let got = tokio::time::timeout(Duration::from_secs(5), ended)
            .await
            .expect("the call ended");
        assert!(got.is_err(), "the call was stopped, not answered");
        assert!(rounds.is_empty());
        assert!(rounds
            .resume::<CallToolResponse>("app-a", &state, FormAnswer::Cancel)
            .is_none());
    }

    #[test]
    fn states_are_random_and_long() {
        let a = new_state().unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, new_state().unwrap());
    }
}
