//! Form elicitations through the broker: requested -> invalid_schema |
//! accepted | declined | cancelled. What the person typed is sent to the
//! server but never stored or audited; only the names of the fields sent are.

use super::broker::{bounded_message, Broker, Withdrawal};
use super::form::{parse_schema, SchemaError};
use super::ports::{FormAnswer, FormConsentRequest, FormOutcome};
use crate::lifecycle::{ElicitationState as S, Mode, Origin};
use crate::store::NewElicitation;

/// A form question in flight: when it is dropped unanswered (the server
/// withdrew its request, the connection went away) the record says which.
struct Unanswered<'a> {
    broker: &'a Broker,
    server: &'a str,
    record_id: i64,
    answered: bool,
    withdrawal: &'a Withdrawal,
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        self.broker.release(self.server);
        if !self.answered {
            self.broker.unanswered(self.record_id, self.withdrawal);
        }
    }
}

impl Broker {
    /// Record a question dropped unanswered: withdrawn by the server, or
    /// its connection lost.
    pub(super) fn unanswered(&self, record_id: i64, withdrawal: &Withdrawal) {
        let state = withdrawal.dropped_state();
        let reason = (state == S::Withdrawn).then(|| "the server withdrew the request".to_owned());
        self.advance(
            record_id,
            state,
            reason,
            serde_json::json!({"while": "asking for consent"}),
        );
    }
}

impl Broker {
    /// Take one form elicitation through schema checking, the consent port
    /// and validation. `Err` means the schema is outside the form subset (the
    /// caller answers -32602); the record then ends in `invalid_schema`.
    /// `field_order` is the server's property order, when the JSON value
    /// lost it.
    pub async fn handle_form(
        &self,
        server: &str,
        message: &str,
        schema_json: &serde_json::Value,
        field_order: Option<&[String]>,
        origin: Origin,
    ) -> Result<FormOutcome, SchemaError> {
        let never = Withdrawal::default();
        self.handle_form_for(
            None,
            None,
            server,
            message,
            schema_json,
            field_order,
            origin,
            &never,
        )
        .await
    }

    /// [`Broker::handle_form`] for the app `app` (`None`: Airlock
    /// itself), which the consent port may show it to when `to_app` names
    /// it (see [`FormConsentRequest::to_app`]); `withdrawal` tells, if the
    /// question is dropped unanswered, whether the server withdrew it.
    #[allow(clippy::too_many_arguments)]
    pub async fn handle_form_for(
        &self,
        app: Option<&str>,
        to_app: Option<crate::caller::AppTarget>,
        server: &str,
        message: &str,
        schema_json: &serde_json::Value,
        field_order: Option<&[String]>,
        origin: Origin,
        withdrawal: &Withdrawal,
    ) -> Result<FormOutcome, SchemaError> {
        let message = bounded_message(message);
        let parsed = parse_schema(schema_json).map(|s| match field_order {
            Some(order) => s.in_order(order),
            None => s,
        });
        let fields: Vec<&str> = parsed
            .as_ref()
            .map(|s| s.fields.iter().map(|f| f.name.as_str()).collect())
            .unwrap_or_default();
        let secret_looking: Vec<&str> = parsed
            .as_ref()
            .map(|s| s.secret_looking().map(|f| f.name.as_str()).collect())
            .unwrap_or_default();
        let new = NewElicitation {
            server,
            elicitation_id: None,
            mode: Mode::Form,
            origin,
            message: &message,
            url: None,
            registrable_domain: None,
            verdict: None,
            warnings: Vec::new(),
            app,
        };
        let record_id = self
            .create(
                &new,
                None,
                serde_json::json!({"fields": fields, "secret_looking_fields": secret_looking, "client": app}),
            )
            .ok();
        let schema = match parsed {
            Ok(s) => s,
            Err(e) => {
                if let Some(id) = record_id {
                    self.advance(
                        id,
                        S::InvalidSchema,
                        Some(e.to_string()),
                        serde_json::json!({"reason": e.to_string()}),
                    );
                }
                return Err(e);
            }
        };
        let Some(record_id) = record_id else {
            // Without a record there is no history of the answer: do not ask.
            return Ok(FormOutcome {
                record_id: None,
                answer: FormAnswer::Decline,
            });
        };
        // Forms count against the same per-server limits as URLs.
        if self.admit_or_refuse(server, record_id).is_err() {
            return Ok(FormOutcome {
                record_id: Some(record_id),
                answer: FormAnswer::Decline,
            });
        }
        let request = FormConsentRequest {
            record_id,
            server: server.to_owned(),
            message,
            origin,
            schema,
            app: app.map(str::to_owned),
            to_app,
        };
        let mut asking = Unanswered {
            broker: self,
            server,
            record_id,
            answered: false,
            withdrawal,
        };
        let given = self.consent.ask_form(&request).await;
        asking.answered = true;
        let answer = self.settle_form(record_id, &request, given);
        Ok(FormOutcome {
            record_id: Some(record_id),
            answer,
        })
    }

    /// Record what the person answered; an accept is validated again and
    /// never sent when it does not fit the form.
    fn settle_form(
        &self,
        record_id: i64,
        request: &FormConsentRequest,
        given: FormAnswer,
    ) -> FormAnswer {
        match given {
            FormAnswer::Accept(content) => match request.schema.validate(&content) {
                Ok(clean) => {
                    let sent: Vec<&String> = clean.keys().collect();
                    self.advance(
                        record_id,
                        S::Accepted,
                        None,
                        serde_json::json!({"fields_sent": sent}),
                    );
                    FormAnswer::Accept(clean)
                }
                Err(errors) => {
                    // The audit names the fields, not what was typed into them.
                    let fields: Vec<&String> = errors.iter().map(|e| &e.field).collect();
                    self.advance(
                        record_id,
                        S::Declined,
                        Some("the answer did not fit the form".into()),
                        serde_json::json!({"reason": "the answer did not fit the form", "invalid_fields": fields}),
                    );
                    FormAnswer::Decline
                }
            },
            FormAnswer::Decline => {
                self.advance(record_id, S::Declined, None, serde_json::json!({}));
                FormAnswer::Decline
            }
            FormAnswer::Cancel => {
                self.advance(record_id, S::Cancelled, None, serde_json::json!({}));
                FormAnswer::Cancel
            }
        }
    }
}
