//! Forms a server asks during an app's tool call, prompt or resource read
//! ([`crate::session::requests`]) go to that app when it can show them (it declared form elicitation: as a request on a 2025-11-25
//! session, as the call's answer in rounds on 2026-07-28, see
//! [`crate::session::rounds`]), and to Airlock's own consent otherwise. Either way the answer is Airlock's to
//! check: the broker validates it against the schema before the server
//! sees it, and records the form in history.
//!
//! Which app asked is the core's to say ([`FormConsentRequest::to_app`]):
//! the call whose input round raised it (2026-07-28), or the one app with
//! requests in flight on that server's connection (2025-11-25); when none
//! or several callers (Airlock's own included) have, it is never guessed:
//! Airlock's consent answers ([`crate::routing::router`]).

use std::sync::Arc;
use std::time::Duration;

use airlock_core::elicitation::form::{FieldKind, FormSchema, StringFormat};
use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, FormAnswer, FormConsentRequest,
    UrlConsentRequest,
};
use rmcp::model::{
    ClientResult, ElicitRequest, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    ServerRequest,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::{json, Map, Value};

use crate::catalog::log;
use crate::routing::router::{FormTarget, RoundForm, Router};

/// How long an app may take to answer a form it was shown.
pub const APP_FORM_TIMEOUT: Duration = Duration::from_secs(600);

/// The daemon's consent: URLs and sign-ins always Airlock's (`inner`);
/// forms to the app that asked, when it can show them.
pub struct HostConsent {
    inner: Arc<dyn Consent>,
    router: Arc<Router>,
}

impl HostConsent {
    /// Wrap a consent; the router goes to the host
    /// ([`crate::HostOptions::router`]) and to the core as its
    /// `AppRequests`.
    pub fn wrap(inner: Arc<dyn Consent>) -> (Arc<dyn Consent>, Arc<Router>) {
        let router = Arc::new(Router::default());
        (
            Arc::new(HostConsent {
                inner,
                router: router.clone(),
            }),
            router,
        )
    }
}

impl Consent for HostConsent {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        self.inner.ask_url(request)
    }

    /// A host is the person's question, never an app's.
    fn ask_host<'a>(
        &'a self,
        request: &'a airlock_core::elicitation::HostConsentRequest,
    ) -> BoxFuture<'a, airlock_core::elicitation::HostDecision> {
        self.inner.ask_host(request)
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        self.inner.continue_or_cancel(request)
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(async move {
            let target = request.to_app.and_then(|t| self.router.form_target(t));
            let answer = match target {
                Some(FormTarget::Ask(peer)) => ask_app(&peer, request).await,
                Some(FormTarget::Round(round)) => ask_round(&round, request).await,
                None => None,
            };
            match answer {
                Some(answer) => answer,
                None => self.inner.ask_form(request).await,
            }
        })
    }
}

/// Give the form to a 2026-07-28 app as its call's answer and wait for the
/// retry that answers it; `None` when it cannot go (Airlock asks instead).
/// An app that never comes back cancels the form.
async fn ask_round(
    round: &tokio::sync::mpsc::Sender<RoundForm>,
    request: &FormConsentRequest,
) -> Option<FormAnswer> {
    let params = form_params(request)?;
    let (answer, answered) = tokio::sync::oneshot::channel();
    round.try_send(RoundForm { params, answer }).ok()?;
    Some(
        match tokio::time::timeout(APP_FORM_TIMEOUT, answered).await {
            Ok(Ok(answer)) => answer,
            _ => FormAnswer::Cancel,
        },
    )
}

/// The form as the SDK's typed parameters; `None` when it cannot be put in
/// the SDK's typed schema (then Airlock's own consent asks).
fn form_params(request: &FormConsentRequest) -> Option<ElicitRequestParams> {
    let mut schema: ElicitationSchema =
        match serde_json::from_value(requested_schema(&request.schema)) {
            Ok(s) => s,
            Err(e) => {
                log(&format!(
                    "{}: form #{} not passed to the app ({e}); Airlock asks instead",
                    request.server, request.record_id
                ));
                return None;
            }
        };
    schema.property_order = Some(
        request
            .schema
            .fields
            .iter()
            .map(|f| f.name.clone())
            .collect(),
    );
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: attributed(request),
        requested_schema: schema,
    })
}

/// The form's message as the app shows it: which of Airlock's servers asks
/// comes first, in Airlock's words (the app cannot tell otherwise: every
/// form reaches it from Airlock), then the server's own text, which cannot
/// move it (it is one line: control characters are escaped).
fn attributed(request: &FormConsentRequest) -> String {
    format!("{} asks: {}", request.server, request.message)
}

/// Show the form to the app; `None` when the form cannot be put in the
/// SDK's typed schema (then Airlock's own consent asks).
async fn ask_app(peer: &Peer<RoleServer>, request: &FormConsentRequest) -> Option<FormAnswer> {
    let params = form_params(request)?;
    let form = ServerRequest::ElicitRequest(ElicitRequest::new(params));
    // Dropped when the server withdraws its form: the app's form goes too.
    let answer = match crate::routing::ask::ask(peer, form, APP_FORM_TIMEOUT).await {
        Ok(ClientResult::ElicitResult(result)) => match result.action {
            ElicitationAction::Accept => match result.content {
                Some(Value::Object(content)) => FormAnswer::Accept(content),
                // An accept without content: checked like any other.
                _ => FormAnswer::Accept(Map::new()),
            },
            ElicitationAction::Decline => FormAnswer::Decline,
            _ => FormAnswer::Cancel,
        },
        Ok(_) => {
            log(&format!(
                "{}: the app answered form #{} with something else",
                request.server, request.record_id
            ));
            FormAnswer::Cancel
        }
        Err(e) => {
            log(&format!(
                "{}: the app could not show form #{}: {e}",
                request.server, request.record_id
            ));
            FormAnswer::Cancel
        }
    };
    Some(answer)
}

/// A bound as JSON: whole numbers as integers (an `integer` field's bounds
/// must be, for the SDK's schema types), others as they are.
fn number(n: f64) -> Value {
    if n.is_finite() && n.trunc() == n && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// The form as a `requestedSchema` of the MCP form subset, rebuilt from
/// Airlock's parsed (bounded, neutralised) form rather than passed on as
/// the server sent it.
pub fn requested_schema(form: &FormSchema) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in &form.fields {
        let mut p = Map::new();
        match &f.kind {
            FieldKind::String {
                min_length,
                max_length,
                format,
            } => {
                p.insert("type".into(), json!("string"));
                if let Some(n) = min_length {
                    p.insert("minLength".into(), json!(n));
                }
                if let Some(n) = max_length {
                    p.insert("maxLength".into(), json!(n));
                }
                if let Some(fmt) = format {
                    let word = match fmt {
                        StringFormat::Email => "email",
                        StringFormat::Uri => "uri",
                        StringFormat::Date => "date",
                        StringFormat::DateTime => "date-time",
                    };
                    p.insert("format".into(), json!(word));
                }
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => {
                p.insert(
                    "type".into(),
                    json!(if *integer { "integer" } else { "number" }),
                );
                if let Some(n) = minimum {
                    p.insert("minimum".into(), number(*n));
                }
                if let Some(n) = maximum {
                    p.insert("maximum".into(), number(*n));
                }
            }
            FieldKind::Boolean => {
                p.insert("type".into(), json!("boolean"));
            }
            FieldKind::SingleSelect { options } => {
                p.insert("type".into(), json!("string"));
                if options.iter().any(|o| o.title.is_some()) {
                    let one_of: Vec<Value> = options
                        .iter()
                        .map(|o| json!({"const": o.value, "title": o.label()}))
                        .collect();
                    p.insert("oneOf".into(), Value::Array(one_of));
                } else {
                    let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
                    p.insert("enum".into(), json!(values));
                }
            }
            FieldKind::MultiSelect {
                options,
                min_items,
                max_items,
            } => {
                p.insert("type".into(), json!("array"));
                let items = if options.iter().any(|o| o.title.is_some()) {
                    let any_of: Vec<Value> = options
                        .iter()
                        .map(|o| json!({"const": o.value, "title": o.label()}))
                        .collect();
                    json!({"anyOf": any_of})
                } else {
                    let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
                    json!({"type": "string", "enum": values})
                };
                p.insert("items".into(), items);
                if let Some(n) = min_items {
                    p.insert("minItems".into(), json!(n));
                }
                if let Some(n) = max_items {
                    p.insert("maxItems".into(), json!(n));
                }
            }
        }
        if let Some(t) = &f.title {
            p.insert("title".into(), json!(t));
        }
        if let Some(d) = &f.description {
            p.insert("description".into(), json!(d));
        }
        if let Some(v) = &f.default {
            p.insert("default".into(), v.clone());
        }
        if f.required {
            required.push(f.name.clone());
        }
        properties.insert(f.name.clone(), Value::Object(p));
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    if let Some(t) = &form.title {
        schema.insert("title".into(), json!(t));
    }
    if let Some(d) = &form.description {
        schema.insert("description".into(), json!(d));
    }
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_core::elicitation::form::parse_schema;

    #[test]
    fn every_field_kind_survives_the_round_trip_into_the_sdk_schema() {
        let server = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 40},
                "email": {"type": "string", "format": "email"},
                "n": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
                "x": {"type": "number", "minimum": 0.5},
                "ok": {"type": "boolean", "default": true},
                "pick": {"type": "string", "enum": ["a", "b"]},
                "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
                "many": {"type": "array", "items": {"type": "string", "enum": ["g", "p"]}, "minItems": 1},
                "fish": {"type": "array", "items": {"anyOf": [{"const": "f1", "title": "Tuna"}]}},
                "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cat", "Dog"]}
            },
            "required": ["name"]
        });
        let form = parse_schema(&server).unwrap();
        let rebuilt = requested_schema(&form);
        // What the app is sent parses into the SDK's typed schema...
        let typed: ElicitationSchema = serde_json::from_value(rebuilt.clone()).unwrap();
        assert_eq!(typed.properties.len(), 10);
        // ...and back into the same form Airlock validates against.
        let again = parse_schema(&rebuilt).unwrap();
        assert_eq!(again.fields.len(), form.fields.len());
        for (a, b) in again.fields.iter().zip(&form.fields) {
            assert_eq!(a.name, b.name);
            assert_eq!(a.kind, b.kind, "{}", a.name);
            assert_eq!(a.required, b.required);
            assert_eq!(a.default, b.default);
        }
        // Legacy enumNames became titled options.
        assert_eq!(rebuilt["properties"]["pet"]["oneOf"][1]["title"], "Dog");
    }

    #[test]
    fn each_field_alone_parses_into_the_sdk_schema() {
        let fields = [
            json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 42}),
            json!({"type": "number", "minimum": 0, "maximum": 1000, "default": 2.5}),
            json!({"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["Guitar", "Piano"]}, "default": ["Guitar"]}),
            json!({"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}]}, "default": ["fish-1"]}),
            json!({"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}], "default": "hero-1"}),
            json!({"type": "string", "enum": ["Monica", "Rachel"], "default": "Monica"}),
            json!({"type": "string", "format": "date", "title": "d"}),
            json!({"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"], "default": "pet-1"}),
        ];
        for field in fields {
            let server = json!({"type": "object", "properties": {"f": field}});
            let rebuilt = requested_schema(&parse_schema(&server).unwrap());
            let typed: Result<ElicitationSchema, _> = serde_json::from_value(rebuilt.clone());
            assert!(typed.is_ok(), "{field} -> {rebuilt}: {typed:?}");
        }
    }
}
