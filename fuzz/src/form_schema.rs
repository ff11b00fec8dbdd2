//! Form-mode elicitation: a server's `requestedSchema`, and the answers a
//! person (or a shell's bug) may send back through it.
//!
//! Input: up to three JSON values one after the other (whitespace between
//! them optional): the schema, an answer, and a field order (an array of
//! names, as the SDK's `propertyOrder`). Anything that is not JSON ends the
//! list.

use airlock_core::elicitation::form::{parse_schema, FieldKind, FormSchema};
use serde_json::{Map, Value};

use crate::assert_shown_safely;

/// Limits the parser promises (see `elicitation/form/mod.rs`).
const MAX_PROPERTIES: usize = 64;
const MAX_OPTIONS: usize = 256;
const MAX_TITLE_CHARS: usize = 200;
const MAX_DESCRIPTION_CHARS: usize = 2000;

pub fn run(data: &[u8]) {
    let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
    let Some(Ok(schema)) = values.next() else {
        return;
    };
    let answer = values.next().and_then(Result::ok);
    let order = values.next().and_then(Result::ok);
    let Ok(form) = parse_schema(&schema) else {
        return;
    };
    check_form(&form);
    if let Some(Value::Array(order)) = &order {
        let names: Vec<String> = order
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        let before: Vec<&str> = form.fields.iter().map(|f| f.name.as_str()).collect();
        let sorted = form.clone().in_order(&names);
        let mut after: Vec<&str> = sorted.fields.iter().map(|f| f.name.as_str()).collect();
        let mut was = before.clone();
        was.sort_unstable();
        after.sort_unstable();
        assert_eq!(was, after, "in_order lost or added a field");
    }
    match answer {
        Some(Value::Object(answer)) => check_answer(&form, &answer),
        Some(other) => {
            // Shells send an object; a value of any kind as the answer of
            // every field must be judged without panicking.
            let all: Map<String, Value> = form
                .fields
                .iter()
                .map(|f| (f.name.clone(), other.clone()))
                .collect();
            check_answer(&form, &all);
        }
        None => {}
    }
}

/// What a shell shows of a parsed form is bounded and plain, and the
/// server's defaults fill it validly.
pub(crate) fn check_form(form: &FormSchema) {
    assert!(form.fields.len() <= MAX_PROPERTIES);
    if let Some(t) = &form.title {
        assert_shown_safely("form title", t, MAX_TITLE_CHARS);
    }
    if let Some(d) = &form.description {
        assert_shown_safely("form description", d, MAX_DESCRIPTION_CHARS);
    }
    for f in &form.fields {
        if let Some(t) = &f.title {
            assert_shown_safely("field title", t, MAX_TITLE_CHARS);
        }
        if let Some(d) = &f.description {
            assert_shown_safely("field description", d, MAX_DESCRIPTION_CHARS);
        }
        assert!(
            !f.label().chars().any(crate::is_hidden),
            "label {:?}",
            f.label()
        );
        let _ = f.looks_secret();
        let _ = f.constraints();
        assert!(f.options().len() <= MAX_OPTIONS);
        for o in f.options() {
            assert!(
                !o.label().chars().any(crate::is_hidden),
                "option {:?}",
                o.label()
            );
            if let Some(t) = &o.title {
                assert_shown_safely("option title", t, MAX_TITLE_CHARS);
            }
        }
        if let FieldKind::Number {
            minimum: Some(lo),
            maximum: Some(hi),
            ..
        } = f.kind
        {
            assert!(lo <= hi, "{}: minimum {lo} above maximum {hi}", f.name);
        }
        if let Some(d) = &f.default {
            assert_eq!(f.check(d), Ok(()), "{}: the default does not fit", f.name);
        }
        let by_name = form
            .field(&f.name)
            .expect("every field is found by its name");
        assert!(std::ptr::eq(by_name, f), "two fields named {:?}", f.name);
    }
    let _ = form.secret_looking().count();
    // "defaults() of a parsed schema always fits its fields" (the fields
    // that have no default and are required make it incomplete, not wrong).
    let defaults = form.defaults();
    match form.validate(&defaults) {
        Ok(out) => assert_eq!(out.len(), defaults.len()),
        Err(errors) => {
            for e in &errors {
                let f = form.field(&e.field).expect("an error names a field");
                assert!(
                    f.required && f.default.is_none(),
                    "the defaults do not fit {:?}: {}",
                    e.field,
                    e.message
                );
            }
        }
    }
    // What the UI gets is plain JSON.
    let json = serde_json::to_value(form).expect("a parsed form serialises");
    assert!(json.is_object());
}

/// An accepted answer is exactly the form's fields, in range, and accepting
/// it again changes nothing.
fn check_answer(form: &FormSchema, answer: &Map<String, Value>) {
    match form.validate(answer) {
        Ok(out) => {
            for (k, v) in &out {
                let f = form.field(k).expect("an accepted key is a field");
                assert_eq!(f.check(v), Ok(()), "{k}");
                assert_eq!(answer.get(k), Some(v), "{k} changed on the way");
            }
            for f in &form.fields {
                if f.required {
                    assert!(out.contains_key(&f.name), "required {:?} missing", f.name);
                }
            }
            assert_eq!(
                out.len(),
                answer.len(),
                "an answer key was dropped silently"
            );
            assert_eq!(
                form.validate(&out),
                Ok(out.clone()),
                "validate is not idempotent"
            );
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                let _ = e.to_string();
                assert!(!e.message.is_empty());
            }
        }
    }
}
