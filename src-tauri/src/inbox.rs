//! Elicitations waiting for the user: consent (open or not), late ones
//! (continue or cancel) and forms (fill in, decline or cancel). The native
//! dialog, a notification action and the window's inbox all answer through
//! here; the first answer wins.

use std::collections::BTreeMap;
use std::sync::Mutex;

use airlock_core::elicitation::form::{FieldError, FormSchema};
use airlock_core::elicitation::{ConsentView, FormAnswer};
use serde::Serialize;
use tokio::sync::oneshot;
use ts_rs::TS;

/// Most entries the inbox holds; the broker's rate limits keep it far below.
pub const MAX_INBOX: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PendingKind {
    /// Waiting for "Open in browser" / "Decline".
    Consent,
    /// Accepted, completion is late: waiting for "Continue" / "Cancel".
    Late,
    /// A form to fill in: waiting for "Accept" (with the answers) / "Decline" / "Cancel".
    Form,
}

/// What the window shows for one waiting elicitation: the core's view of
/// it (every word the card shows), and for a form its fields.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PendingView {
    pub record_id: i64,
    pub kind: PendingKind,
    pub since_ms: i64,
    /// The server's name as configured, to find its page (what the card
    /// shows is `view.server`).
    pub server: String,
    /// Who asks, the domain, the lines, the warnings, the buttons.
    pub view: ConsentView,
    /// The form to fill in (`form`); `null` otherwise. Titles and
    /// descriptions are neutralised; field names and option values are the
    /// server's own bytes, shown as plain text only.
    pub form: Option<FormSchema>,
    /// Names of the form's fields that look like they ask for a password,
    /// API key or token (the core's `looks_secret`); the window warns on
    /// them with the view's `secret_field` warning.
    pub secret_fields: Vec<String>,
}

/// An answer from any surface: "accept", "decline", "cancel" (consent) or
/// "continue", "cancel" (late).
pub type Answer = &'static str;

/// Who waits for an entry's answer.
enum Waiter {
    Choice(oneshot::Sender<Answer>),
    Form(oneshot::Sender<FormAnswer>),
}

struct Entry {
    view: PendingView,
    tx: Option<Waiter>,
}

#[derive(Default)]
pub struct Inbox {
    entries: Mutex<BTreeMap<(i64, u8), Entry>>,
}

fn key(view: &PendingView) -> (i64, u8) {
    (view.record_id, view.kind as u8)
}

impl Inbox {
    fn insert(&self, view: PendingView, tx: Waiter) -> bool {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_INBOX {
            return false;
        }
        entries.insert(key(&view), Entry { view, tx: Some(tx) });
        true
    }

    /// Add a consent or late entry; returns the receiver of its answer, or
    /// `None` when full.
    pub fn add(&self, view: PendingView) -> Option<oneshot::Receiver<Answer>> {
        let (tx, rx) = oneshot::channel();
        self.insert(view, Waiter::Choice(tx)).then_some(rx)
    }

    /// Add a form entry (`view.form` set); returns the receiver of its
    /// answer, or `None` when full.
    pub fn add_form(&self, view: PendingView) -> Option<oneshot::Receiver<FormAnswer>> {
        debug_assert!(view.kind == PendingKind::Form && view.form.is_some());
        let (tx, rx) = oneshot::channel();
        self.insert(view, Waiter::Form(tx)).then_some(rx)
    }

    /// Deliver an answer; `false` if nobody is waiting for it any more.
    pub fn answer(&self, record_id: i64, kind: PendingKind, answer: Answer) -> bool {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let Some(entry) = entries.get_mut(&(record_id, kind as u8)) else {
            return false;
        };
        match entry.tx.take() {
            Some(Waiter::Choice(tx)) => tx.send(answer).is_ok(),
            other => {
                entry.tx = other;
                false
            }
        }
    }

    /// Deliver the answer to a form. An `Accept` is validated against the
    /// form first: when it does not fit, the field errors come back and the
    /// entry stays pending, so the person can fix them. `Ok(false)` if
    /// nobody is waiting for it any more.
    pub fn answer_form(&self, record_id: i64, answer: FormAnswer) -> Result<bool, Vec<FieldError>> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let Some(entry) = entries.get_mut(&(record_id, PendingKind::Form as u8)) else {
            return Ok(false);
        };
        if !matches!(entry.tx, Some(Waiter::Form(_))) {
            return Ok(false);
        }
        let answer = match answer {
            FormAnswer::Accept(content) => {
                let Some(schema) = &entry.view.form else {
                    return Ok(false);
                };
                FormAnswer::Accept(schema.validate(&content)?)
            }
            other => other,
        };
        match entry.tx.take() {
            Some(Waiter::Form(tx)) => Ok(tx.send(answer).is_ok()),
            _ => Ok(false),
        }
    }

    /// The form of a waiting form entry.
    pub fn form(&self, record_id: i64) -> Option<FormSchema> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(record_id, PendingKind::Form as u8))
            .and_then(|e| e.view.form.clone())
    }

    pub fn remove(&self, record_id: i64, kind: PendingKind) {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(record_id, kind as u8));
    }

    pub fn list(&self) -> Vec<PendingView> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(|e| e.view.clone())
            .collect()
    }

    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_core::elicitation::form::parse_schema;
    use serde_json::{json, Map, Value};

    fn form_view(record_id: i64) -> PendingView {
        use airlock_core::elicitation::{FormConsentRequest, Origin};
        let schema = parse_schema(&json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2},
                "age": {"type": "integer", "minimum": 0, "default": 30}
            },
            "required": ["name"]
        }))
        .unwrap();
        crate::presenter::form_inbox_entry(
            &FormConsentRequest {
                record_id,
                server: "s".into(),
                message: "m".into(),
                origin: Origin::Request,
                schema,
                app: None,
                to_app: None,
            },
            0,
        )
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn an_invalid_form_answer_stays_pending_and_a_valid_one_is_delivered() {
        let inbox = Inbox::default();
        let mut rx = inbox.add_form(form_view(7)).unwrap();
        let errors = inbox
            .answer_form(7, FormAnswer::Accept(obj(json!({"name": "A", "age": "3"}))))
            .unwrap_err();
        let mut fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        fields.sort();
        assert_eq!(fields, ["age", "name"]);
        assert!(rx.try_recv().is_err(), "nothing was delivered");
        assert_eq!(inbox.len(), 1);
        assert!(inbox.form(7).is_some());

        // A consent answer does not reach a form.
        assert!(!inbox.answer(7, PendingKind::Form, "accept"));

        let ok = inbox
            .answer_form(7, FormAnswer::Accept(obj(json!({"age": 4, "name": "Ada"}))))
            .unwrap();
        assert!(ok);
        assert_eq!(
            rx.try_recv().unwrap(),
            FormAnswer::Accept(obj(json!({"name": "Ada", "age": 4})))
        );
        // The first answer wins.
        assert!(!inbox.answer_form(7, FormAnswer::Decline).unwrap());
    }

    #[test]
    fn decline_and_cancel_need_no_content_and_unknown_ids_are_not_waiting() {
        let inbox = Inbox::default();
        let mut rx = inbox.add_form(form_view(1)).unwrap();
        assert!(inbox.answer_form(1, FormAnswer::Decline).unwrap());
        assert_eq!(rx.try_recv().unwrap(), FormAnswer::Decline);
        let mut rx = inbox.add_form(form_view(2)).unwrap();
        assert!(inbox.answer_form(2, FormAnswer::Cancel).unwrap());
        assert_eq!(rx.try_recv().unwrap(), FormAnswer::Cancel);
        assert!(!inbox.answer_form(99, FormAnswer::Decline).unwrap());
        assert!(!inbox
            .answer_form(99, FormAnswer::Accept(Map::new()))
            .unwrap());
    }
}
