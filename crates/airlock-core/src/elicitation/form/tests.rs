use serde_json::{json, Map};

use super::validate::mentions_secret;
use super::*;

/// server-everything's `trigger-elicitation-request` form: every type.
fn everything() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"title": "String", "type": "string", "description": "Your full, legal name"},
            "check": {"title": "Boolean", "type": "boolean", "description": "Agree to the terms and conditions"},
            "firstLine": {"title": "String with default", "type": "string", "default": "It was a dark and stormy night."},
            "email": {"type": "string", "format": "email"},
            "homepage": {"type": "string", "format": "uri"},
            "birthdate": {"type": "string", "format": "date"},
            "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
            "number": {"type": "number", "minimum": 0, "maximum": 1000, "default": 2.5},
            "untitledSingleSelectEnum": {"type": "string", "enum": ["Monica", "Rachel", "Joey"], "default": "Monica"},
            "untitledMultipleSelectEnum": {"type": "array", "minItems": 1, "maxItems": 3,
                "items": {"type": "string", "enum": ["Guitar", "Piano", "Violin", "Drums", "Bass"]}, "default": ["Guitar"]},
            "titledSingleSelectEnum": {"type": "string", "oneOf": [
                {"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Green Lantern"}], "default": "hero-1"},
            "titledMultipleSelectEnum": {"type": "array", "minItems": 1, "maxItems": 3,
                "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2", "title": "Salmon"}]}, "default": ["fish-1"]},
            "legacyTitledEnum": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"], "default": "pet-1"},
            "when": {"type": "string", "format": "date-time"},
            "nick": {"type": "string", "minLength": 2, "maxLength": 5}
        },
        "required": ["name"]
    })
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

fn err_of(v: Value) -> String {
    parse_schema(&v).expect_err("should be rejected").0
}

fn field_errors(schema: &FormSchema, answer: Value) -> Vec<FieldError> {
    schema
        .validate(&obj(answer))
        .expect_err("should not validate")
}

#[test]
fn parses_every_type_of_the_subset() {
    let s = parse_schema(&everything()).unwrap();
    assert_eq!(s.fields.len(), 15);
    let kind = |n: &str| s.field(n).unwrap().kind.clone();
    assert_eq!(
        kind("email"),
        FieldKind::String {
            min_length: None,
            max_length: None,
            format: Some(StringFormat::Email)
        }
    );
    assert_eq!(
        kind("nick"),
        FieldKind::String {
            min_length: Some(2),
            max_length: Some(5),
            format: None
        }
    );
    assert_eq!(
        kind("integer"),
        FieldKind::Number {
            integer: true,
            minimum: Some(1.0),
            maximum: Some(100.0)
        }
    );
    assert_eq!(kind("check"), FieldKind::Boolean);
    match kind("legacyTitledEnum") {
        FieldKind::SingleSelect { options } => {
            assert_eq!(options[1].value, "pet-2");
            assert_eq!(options[1].title.as_deref(), Some("Dogs"));
        }
        k => panic!("{k:?}"),
    }
    match kind("titledSingleSelectEnum") {
        FieldKind::SingleSelect { options } => {
            assert_eq!(options[0].label(), "Superman");
            assert_eq!(options[0].value, "hero-1");
        }
        k => panic!("{k:?}"),
    }
    match kind("untitledSingleSelectEnum") {
        FieldKind::SingleSelect { options } => assert_eq!(options[2].label(), "Joey"),
        k => panic!("{k:?}"),
    }
    match kind("titledMultipleSelectEnum") {
        FieldKind::MultiSelect {
            options,
            min_items,
            max_items,
        } => {
            assert_eq!(options.len(), 2);
            assert_eq!((min_items, max_items), (Some(1), Some(3)));
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(
        kind("untitledMultipleSelectEnum"),
        FieldKind::MultiSelect { .. }
    ));
    assert!(s.field("name").unwrap().required);
    assert!(!s.field("check").unwrap().required);
}

#[test]
fn defaults_are_collected_and_validate_when_nothing_is_required() {
    let s = parse_schema(&everything()).unwrap();
    let d = s.defaults();
    assert_eq!(d["integer"], json!(42));
    assert_eq!(d["number"], json!(2.5));
    assert_eq!(d["untitledMultipleSelectEnum"], json!(["Guitar"]));
    assert_eq!(d["legacyTitledEnum"], json!("pet-1"));
    assert_eq!(d.len(), 8);
    assert!(!d.contains_key("name"));
    // `name` is required without a default: defaults alone do not validate.
    let errs = s.validate(&d).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].field, "name");
    assert!(errs[0].message.contains("required"), "{errs:?}");
    // With a name they do.
    let mut with_name = d.clone();
    with_name.insert("name".into(), json!("Ada"));
    let ok = s.validate(&with_name).unwrap();
    assert_eq!(ok.len(), 9);
}

#[test]
fn conformance_defaults_schema_validates_from_defaults() {
    let s = parse_schema(&json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": true}
    }, "required": []}))
    .unwrap();
    let v = s.validate(&s.defaults()).unwrap();
    assert_eq!(
        Value::Object(v),
        json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
    );
}

#[test]
fn rejects_what_is_outside_the_subset() {
    let nested = err_of(json!({"type": "object", "properties": {
        "address": {"type": "object", "properties": {"street": {"type": "string"}}}}}));
    assert!(
        nested.contains("address") && nested.contains("nested object"),
        "{nested}"
    );
    let arr_obj = err_of(json!({"type": "object", "properties": {
        "people": {"type": "array", "items": {"type": "object"}}}}));
    assert!(arr_obj.contains("array of objects"), "{arr_obj}");
    let unknown = err_of(json!({"type": "object", "properties": {"f": {"type": "file"}}}));
    assert!(
        unknown.contains("unknown type") && unknown.contains("\"file\""),
        "{unknown}"
    );
    let untyped = err_of(json!({"type": "object", "properties": {"f": {"title": "x"}}}));
    assert!(untyped.contains("no `type`"), "{untyped}");
    let multi_type = err_of(json!({"properties": {"f": {"type": ["string", "null"]}}}));
    assert!(multi_type.contains("list of types"), "{multi_type}");
    let free_array =
        err_of(json!({"properties": {"f": {"type": "array", "items": {"type": "string"}}}}));
    assert!(free_array.contains("free text"), "{free_array}");
    let num_array =
        err_of(json!({"properties": {"f": {"type": "array", "items": {"type": "number"}}}}));
    assert!(num_array.contains("enum strings"), "{num_array}");
    let no_items = err_of(json!({"properties": {"f": {"type": "array"}}}));
    assert!(no_items.contains("without `items`"), "{no_items}");
    let fmt = err_of(json!({"properties": {"f": {"type": "string", "format": "ipv4"}}}));
    assert!(
        fmt.contains("ipv4") && fmt.contains("email, uri, date and date-time"),
        "{fmt}"
    );
    assert!(err_of(json!("a string")).contains("JSON object"));
    assert!(err_of(json!({"type": "array"})).contains("type: \"object\""));
    assert!(err_of(json!({"properties": []})).contains("properties"));
    let req = err_of(json!({"properties": {"a": {"type": "string"}}, "required": ["b"]}));
    assert!(req.contains("\"b\""), "{req}");
    assert!(
        err_of(json!({"properties": {"a": {"type": "string"}}, "required": "a"}))
            .contains("required")
    );
    assert!(err_of(json!({"properties": {"a": {"type": "null"}}})).contains("null"));
    assert!(err_of(json!({"properties": {"a": "string"}})).contains("must be a JSON object"));
}

#[test]
fn rejects_inconsistent_constraints_and_defaults() {
    assert!(err_of(
        json!({"properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}}})
    )
    .contains("no answer could fit"));
    assert!(
        err_of(json!({"properties": {"a": {"type": "number", "minimum": 5, "maximum": 2}}}))
            .contains("no answer could fit")
    );
    assert!(err_of(
        json!({"properties": {"a": {"type": "integer", "minimum": 1.2, "maximum": 1.8}}})
    )
    .contains("no whole number"));
    assert!(
        err_of(json!({"properties": {"a": {"type": "string", "minLength": -1}}}))
            .contains("whole number")
    );
    assert!(
        err_of(json!({"properties": {"a": {"type": "string", "enum": []}}})).contains("no options")
    );
    assert!(
        err_of(json!({"properties": {"a": {"type": "string", "enum": ["x", "x"]}}}))
            .contains("twice")
    );
    assert!(
        err_of(json!({"properties": {"a": {"type": "string", "enum": [1, 2]}}}))
            .contains("strings")
    );
    assert!(err_of(
        json!({"properties": {"a": {"type": "string", "enum": ["x", "y"], "enumNames": ["X"]}}})
    )
    .contains("1 names for 2 values"));
    assert!(
        err_of(json!({"properties": {"a": {"type": "string", "oneOf": [{"title": "x"}]}}}))
            .contains("no `const`")
    );
    assert!(
        err_of(json!({"properties": {"a": {"type": "array", "minItems": 3,
        "items": {"enum": ["x", "y"]}}}}))
        .contains("at least 3 choices")
    );
    let d = err_of(json!({"properties": {"age": {"type": "integer", "default": "thirty"}}}));
    assert!(
        d.contains("default of property `age`") && d.contains("whole number"),
        "{d}"
    );
    let d = err_of(json!({"properties": {"s": {"type": "string", "enum": ["a"], "default": "b"}}}));
    assert!(d.contains("default"), "{d}");
    let d = err_of(json!({"properties": {"n": {"type": "number", "maximum": 3, "default": 4}}}));
    assert!(d.contains("at most 3"), "{d}");
    assert!(
        err_of(json!({"properties": {"a": {"type": "string", "title": 5}}})).contains("`title`")
    );
}

#[test]
fn bounds_are_enforced() {
    let mut props = Map::new();
    for i in 0..=MAX_PROPERTIES {
        props.insert(format!("f{i}"), json!({"type": "boolean"}));
    }
    let e = err_of(json!({"properties": props}));
    assert!(e.contains(&format!("at most {MAX_PROPERTIES}")), "{e}");

    let many: Vec<String> = (0..=MAX_OPTIONS).map(|i| format!("o{i}")).collect();
    let e = err_of(json!({"properties": {"a": {"type": "string", "enum": many}}}));
    assert!(e.contains(&format!("at most {MAX_OPTIONS}")), "{e}");
    let e = err_of(json!({"properties": {"a": {"type": "array", "items": {"enum": many}}}}));
    assert!(e.contains(&format!("at most {MAX_OPTIONS}")), "{e}");

    let long_value = "v".repeat(MAX_OPTION_VALUE_CHARS + 1);
    assert!(
        err_of(json!({"properties": {"a": {"type": "string", "enum": [long_value]}}}))
            .contains("longer than")
    );
    let long_name = "n".repeat(MAX_NAME_CHARS + 1);
    assert!(err_of(json!({"properties": {long_name: {"type": "string"}}})).contains("longer than"));
    assert!(
        err_of(json!({"properties": {"a\u{202E}b": {"type": "string"}}})).contains("invisible")
    );
    assert!(err_of(json!({"properties": {"": {"type": "string"}}})).contains("empty name"));

    // Titles and descriptions are cut and neutralised, not rejected.
    let s = parse_schema(&json!({"properties": {"a": {"type": "string",
        "title": "t".repeat(MAX_TITLE_CHARS * 2),
        "description": format!("evil\u{1b}[31m{}", "d".repeat(MAX_DESCRIPTION_CHARS * 2))}}}))
    .unwrap();
    let f = &s.fields[0];
    assert_eq!(f.title.as_ref().unwrap().chars().count(), MAX_TITLE_CHARS);
    let d = f.description.as_ref().unwrap();
    assert!(
        d.chars().count() <= MAX_DESCRIPTION_CHARS && !d.contains('\u{1b}'),
        "{d}"
    );

    // What a person may type is bounded too.
    let s = parse_schema(&json!({"properties": {"a": {"type": "string"}}})).unwrap();
    let e = field_errors(&s, json!({"a": "x".repeat(MAX_VALUE_CHARS + 1)}));
    assert!(e[0].message.contains("too long"), "{e:?}");
    assert!(s
        .validate(&obj(json!({"a": "x".repeat(MAX_VALUE_CHARS)})))
        .is_ok());
}

#[test]
fn validation_coerces_nothing() {
    let s = parse_schema(&everything()).unwrap();
    let e = field_errors(
        &s,
        json!({"name": 5, "check": "true", "integer": "42", "number": "3", "untitledMultipleSelectEnum": "Guitar"}),
    );
    let by = |f: &str| {
        e.iter()
            .find(|x| x.field == f)
            .map(|x| x.message.clone())
            .unwrap()
    };
    assert_eq!(by("name"), "must be text");
    assert_eq!(by("check"), "must be true or false");
    assert_eq!(by("integer"), "must be a whole number");
    assert_eq!(by("number"), "must be a number");
    assert!(by("untitledMultipleSelectEnum").contains("list"));
    let e = field_errors(&s, json!({"name": "x", "integer": 4.5}));
    assert!(e[0].message.contains("whole number"), "{e:?}");
    let e = field_errors(&s, json!({"name": "x", "check": null}));
    assert_eq!(e[0].message, "must be true or false");
}

#[test]
fn validation_messages_say_what_to_do() {
    let s = parse_schema(&everything()).unwrap();
    let cases = [
        (
            json!({"email": "not-an-email"}),
            "email",
            "an email address",
        ),
        (json!({"homepage": "example.com"}), "homepage", "scheme"),
        (
            json!({"birthdate": "2023-02-29"}),
            "birthdate",
            "YYYY-MM-DD",
        ),
        (
            json!({"when": "2024-01-01 10:00"}),
            "when",
            "YYYY-MM-DDTHH:MM:SS",
        ),
        (json!({"integer": 0}), "integer", "must be from 1 to 100"),
        (
            json!({"number": 1000.5}),
            "number",
            "must be from 0 to 1000",
        ),
        (
            json!({"nick": "a"}),
            "nick",
            "at least 2 characters long (got 1)",
        ),
        (
            json!({"nick": "abcdef"}),
            "nick",
            "at most 5 characters long (got 6)",
        ),
        (
            json!({"untitledSingleSelectEnum": "Ross"}),
            "untitledSingleSelectEnum",
            "\"Monica\", \"Rachel\", \"Joey\"",
        ),
        (
            json!({"titledSingleSelectEnum": "Superman"}),
            "titledSingleSelectEnum",
            "\"hero-1\"",
        ),
        (
            json!({"untitledMultipleSelectEnum": []}),
            "untitledMultipleSelectEnum",
            "at least 1 choice (got 0)",
        ),
        (
            json!({"untitledMultipleSelectEnum": ["Guitar", "Piano", "Violin", "Drums"]}),
            "untitledMultipleSelectEnum",
            "at most 3",
        ),
        (
            json!({"untitledMultipleSelectEnum": ["Guitar", "Guitar"]}),
            "untitledMultipleSelectEnum",
            "twice",
        ),
        (
            json!({"titledMultipleSelectEnum": ["Tuna"]}),
            "titledMultipleSelectEnum",
            "not an option",
        ),
        (json!({"stranger": 1}), "stranger", "not a field"),
    ];
    for (mut answer, field, expected) in cases {
        answer["name"] = json!("Ada");
        let e = field_errors(&s, answer.clone());
        assert_eq!(e.len(), 1, "{answer}: {e:?}");
        assert_eq!(e[0].field, field);
        assert!(
            e[0].message.contains(expected),
            "{answer}: {:?} lacks {expected:?}",
            e[0].message
        );
        assert!(e[0].to_string().starts_with(&format!("{field}: ")));
    }
}

#[test]
fn valid_answers_of_every_type_pass_in_field_order() {
    let s = parse_schema(&everything())
        .unwrap()
        .in_order(&["nick".into(), "name".into()]);
    assert_eq!(s.fields[0].name, "nick");
    assert_eq!(s.fields[1].name, "name");
    let answer = json!({
        "name": "Ada Lovelace", "check": false, "firstLine": "Call me Ishmael.",
        "email": "ada@example.org", "homepage": "https://example.org/ada", "birthdate": "2024-02-29",
        "integer": 100, "number": 0.5, "untitledSingleSelectEnum": "Joey",
        "untitledMultipleSelectEnum": ["Piano", "Bass"], "titledSingleSelectEnum": "hero-2",
        "titledMultipleSelectEnum": ["fish-2", "fish-1"], "legacyTitledEnum": "pet-2",
        "when": "2025-12-31T23:59:60.123+05:30", "nick": "ada"
    });
    let out = s.validate(&obj(answer.clone())).unwrap();
    assert_eq!(Value::Object(out.clone()), answer);
    // Optional fields may be left out.
    assert!(s.validate(&obj(json!({"name": "x"}))).is_ok());
}

#[test]
fn secret_looking_fields() {
    let s = parse_schema(&json!({"properties": {
        "password": {"type": "string"},
        "apiKey": {"type": "string"},
        "x1": {"type": "string", "title": "API key"},
        "x2": {"type": "string", "description": "Your GitHub personal access token"},
        "x3": {"type": "string", "title": "Client secret"},
        "x4": {"type": "string", "title": "Passcode"},
        "x5": {"type": "string", "description": "Paste your private key"},
        "x6": {"type": "string", "title": "Cloud credentials"},
        "api_key": {"type": "string"},
        "name": {"type": "string", "title": "Your name"},
        "email": {"type": "string", "description": "We never share it"},
        "pets": {"type": "integer", "title": "Number of pets"}
    }}))
    .unwrap();
    let secret: Vec<&str> = s.secret_looking().map(|f| f.name.as_str()).collect();
    let mut expected = vec![
        "password", "apiKey", "x1", "x2", "x3", "x4", "x5", "x6", "api_key",
    ];
    expected.sort();
    let mut got = secret.clone();
    got.sort();
    assert_eq!(got, expected);
    assert!(mentions_secret("PRIVATE-KEY"));
    assert!(!mentions_secret("favourite colour"));
}

#[test]
fn empty_and_minimal_schemas() {
    let s = parse_schema(&json!({"type": "object", "properties": {}})).unwrap();
    assert!(s.fields.is_empty());
    assert!(s.validate(&Map::new()).unwrap().is_empty());
    let s = parse_schema(&json!({})).unwrap();
    assert!(s.fields.is_empty());
    // Whole-number floats from a re-encoded schema are fine as counts.
    let s =
        parse_schema(&json!({"properties": {"a": {"type": "string", "minLength": 1.0}}})).unwrap();
    assert_eq!(
        s.fields[0].kind,
        FieldKind::String {
            min_length: Some(1),
            max_length: None,
            format: None
        }
    );
}

#[test]
fn constraints_read_well() {
    let s = parse_schema(&everything()).unwrap();
    let c = |n: &str| s.field(n).unwrap().constraints().join(", ");
    assert_eq!(c("integer"), "whole number, from 1 to 100");
    assert_eq!(c("number"), "number, from 0 to 1000");
    assert_eq!(c("nick"), "text, 2 to 5 characters");
    assert!(c("email").contains("email address"));
    assert_eq!(c("titledMultipleSelectEnum"), "choose 1 to 3 of 2");
    assert_eq!(c("check"), "yes or no");
    assert_eq!(c("legacyTitledEnum"), "choose one of 2");
}
