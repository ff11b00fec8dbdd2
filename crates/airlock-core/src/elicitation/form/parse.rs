//! Parsing a `requestedSchema` into a [`FormSchema`]: the checks that keep
//! a schema inside the form subset.

use airlock_url_safety::neutralize_for_display;
use serde_json::{Map, Value};

use super::{
    bad, Choice, FieldKind, FormField, FormSchema, SchemaError, StringFormat,
    MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_OPTIONS, MAX_OPTION_VALUE_CHARS, MAX_PROPERTIES,
    MAX_TITLE_CHARS, MAX_VALUE_CHARS,
};

fn opt_text(
    obj: &Map<String, Value>,
    key: &str,
    max: usize,
    what: &str,
) -> Result<Option<String>, SchemaError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(neutralize_for_display(s, max))),
        Some(_) => Err(bad(format!("`{key}` of {what} must be a string"))),
    }
}

fn opt_count(obj: &Map<String, Value>, key: &str, what: &str) -> Result<Option<u32>, SchemaError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                // 3.0 is a whole number in JSON Schema.
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= f64::from(u32::MAX))
                    .map(|f| f as u64)
            })
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| bad(format!("`{key}` of {what} must be a whole number ≥ 0"))),
    }
}

fn opt_number(obj: &Map<String, Value>, key: &str, what: &str) -> Result<Option<f64>, SchemaError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|f| f.is_finite())
            .map(Some)
            .ok_or_else(|| bad(format!("`{key}` of {what} must be a number"))),
    }
}

fn check_range<T: PartialOrd + std::fmt::Display>(
    lo: Option<T>,
    hi: Option<T>,
    lo_key: &str,
    hi_key: &str,
    what: &str,
) -> Result<(), SchemaError> {
    if let (Some(lo), Some(hi)) = (&lo, &hi) {
        if lo > hi {
            return Err(bad(format!(
                "{what} has `{lo_key}` {lo} above `{hi_key}` {hi}: no answer could fit"
            )));
        }
    }
    Ok(())
}

fn option_value(v: &Value, what: &str) -> Result<String, SchemaError> {
    let s = v
        .as_str()
        .ok_or_else(|| bad(format!("the options of {what} must be strings")))?;
    if s.chars().count() > MAX_OPTION_VALUE_CHARS {
        return Err(bad(format!(
            "an option of {what} is longer than {MAX_OPTION_VALUE_CHARS} characters"
        )));
    }
    Ok(s.to_owned())
}

fn check_options(options: &[Choice], what: &str) -> Result<(), SchemaError> {
    if options.is_empty() {
        return Err(bad(format!("{what} offers no options to choose from")));
    }
    if options.len() > MAX_OPTIONS {
        return Err(bad(format!(
            "{what} has {} options; Airlock shows at most {MAX_OPTIONS}",
            options.len()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    for o in options {
        if !seen.insert(o.value.as_str()) {
            return Err(bad(format!(
                "{what} lists the option {:?} twice",
                neutralize_for_display(&o.value, 80)
            )));
        }
    }
    Ok(())
}

/// `enum` (+ legacy `enumNames`) as choices.
fn enum_choices(
    values: &Value,
    names: Option<&Value>,
    what: &str,
) -> Result<Vec<Choice>, SchemaError> {
    let values = values
        .as_array()
        .ok_or_else(|| bad(format!("`enum` of {what} must be an array of strings")))?;
    if values.len() > MAX_OPTIONS {
        return Err(bad(format!(
            "{what} has {} options; Airlock shows at most {MAX_OPTIONS}",
            values.len()
        )));
    }
    let names = match names {
        None | Some(Value::Null) => None,
        Some(Value::Array(n)) => {
            if n.len() != values.len() {
                return Err(bad(format!(
                    "`enumNames` of {what} has {} names for {} values",
                    n.len(),
                    values.len()
                )));
            }
            Some(n)
        }
        Some(_) => {
            return Err(bad(format!(
                "`enumNames` of {what} must be an array of strings"
            )))
        }
    };
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let title = match names.map(|n| &n[i]) {
                None => None,
                Some(Value::String(t)) => Some(neutralize_for_display(t, MAX_TITLE_CHARS)),
                Some(_) => {
                    return Err(bad(format!(
                        "`enumNames` of {what} must be an array of strings"
                    )))
                }
            };
            Ok(Choice {
                value: option_value(v, what)?,
                title,
            })
        })
        .collect()
}

/// `[{const, title}]` as choices.
fn titled_choices(list: &Value, key: &str, what: &str) -> Result<Vec<Choice>, SchemaError> {
    let list = list.as_array().ok_or_else(|| {
        bad(format!(
            "`{key}` of {what} must be an array of {{const, title}}"
        ))
    })?;
    if list.len() > MAX_OPTIONS {
        return Err(bad(format!(
            "{what} has {} options; Airlock shows at most {MAX_OPTIONS}",
            list.len()
        )));
    }
    list.iter()
        .map(|item| {
            let o = item.as_object().ok_or_else(|| {
                bad(format!(
                    "`{key}` of {what} must be an array of {{const, title}}"
                ))
            })?;
            let value = o
                .get("const")
                .ok_or_else(|| bad(format!("an entry of `{key}` of {what} has no `const`")))?;
            Ok(Choice {
                value: option_value(value, what)?,
                title: opt_text(o, "title", MAX_TITLE_CHARS, what)?,
            })
        })
        .collect()
}

fn check_name(name: &str) -> Result<(), SchemaError> {
    if name.is_empty() {
        return Err(bad("a property has an empty name"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(bad(format!(
            "a property name is longer than {MAX_NAME_CHARS} characters"
        )));
    }
    if neutralize_for_display(name, MAX_NAME_CHARS * 12) != name {
        return Err(bad(format!(
            "the property name {:?} contains control or invisible characters",
            neutralize_for_display(name, MAX_NAME_CHARS)
        )));
    }
    Ok(())
}

fn parse_field(name: &str, prop: &Value, required: bool) -> Result<FormField, SchemaError> {
    check_name(name)?;
    let what = format!("property `{name}`");
    let p = prop
        .as_object()
        .ok_or_else(|| bad(format!("{what} must be a JSON object describing the field")))?;
    let title = opt_text(p, "title", MAX_TITLE_CHARS, &what)?;
    let description = opt_text(p, "description", MAX_DESCRIPTION_CHARS, &what)?;
    let kind = match field_type(p, &what)? {
        "string" => string_kind(p, &what)?,
        ty @ ("number" | "integer") => number_kind(p, ty == "integer", &what)?,
        "boolean" => FieldKind::Boolean,
        "array" => multi_select_kind(p, &what)?,
        "object" => {
            return Err(bad(format!(
                "{what} is a nested object; Airlock's forms take flat properties (string, number, integer, boolean, arrays of enum strings)"
            )))
        }
        "null" => return Err(bad(format!("{what} has type null, which asks for nothing"))),
        other => {
            return Err(bad(format!(
                "{what} has the unknown type {:?}; Airlock's forms take string, number, integer, boolean or array",
                neutralize_for_display(other, 40)
            )))
        }
    };
    let mut field = FormField {
        name: name.to_owned(),
        title,
        description,
        required,
        kind,
        default: None,
    };
    field.default = checked_default(&field, p, &what)?;
    Ok(field)
}

/// The one `type` of a property.
fn field_type<'a>(p: &'a Map<String, Value>, what: &str) -> Result<&'a str, SchemaError> {
    match p.get("type") {
        Some(Value::String(t)) => Ok(t.as_str()),
        Some(Value::Array(_)) => Err(bad(format!(
            "{what} has a list of types; Airlock's forms take exactly one of string, number, integer, boolean or array"
        ))),
        Some(_) => Err(bad(format!("`type` of {what} must be a string"))),
        None => Err(bad(format!(
            "{what} has no `type` (string, number, integer, boolean or array)"
        ))),
    }
}

/// `type: "string"`: a single select (`enum`, legacy `enumNames`, `oneOf`)
/// or text.
fn string_kind(p: &Map<String, Value>, what: &str) -> Result<FieldKind, SchemaError> {
    let options = if let Some(values) = p.get("enum") {
        enum_choices(values, p.get("enumNames"), what)?
    } else if let Some(list) = p.get("oneOf") {
        titled_choices(list, "oneOf", what)?
    } else {
        return text_kind(p, what);
    };
    check_options(&options, what)?;
    Ok(FieldKind::SingleSelect { options })
}

/// `type: "string"` without options: `minLength`, `maxLength`, `format`.
fn text_kind(p: &Map<String, Value>, what: &str) -> Result<FieldKind, SchemaError> {
    let min_length = opt_count(p, "minLength", what)?;
    let max_length = opt_count(p, "maxLength", what)?;
    check_range(min_length, max_length, "minLength", "maxLength", what)?;
    if min_length.is_some_and(|m| m as usize > MAX_VALUE_CHARS) {
        return Err(bad(format!(
            "{what} needs at least {} characters; Airlock accepts at most {MAX_VALUE_CHARS}",
            min_length.unwrap_or_default()
        )));
    }
    let format = match p.get("format") {
        None | Some(Value::Null) => None,
        Some(Value::String(f)) => Some(StringFormat::parse(f).ok_or_else(|| {
            bad(format!(
                "{what} has the format {:?}; Airlock's forms know email, uri, date and date-time",
                neutralize_for_display(f, 40)
            ))
        })?),
        Some(_) => return Err(bad(format!("`format` of {what} must be a string"))),
    };
    Ok(FieldKind::String {
        min_length,
        max_length,
        format,
    })
}

/// `type: "number"` or `"integer"`: `minimum`, `maximum`.
fn number_kind(
    p: &Map<String, Value>,
    integer: bool,
    what: &str,
) -> Result<FieldKind, SchemaError> {
    let minimum = opt_number(p, "minimum", what)?;
    let maximum = opt_number(p, "maximum", what)?;
    check_range(minimum, maximum, "minimum", "maximum", what)?;
    if integer {
        if let (Some(lo), Some(hi)) = (minimum, maximum) {
            if lo.ceil() > hi.floor() {
                return Err(bad(format!(
                    "{what} allows no whole number between {lo} and {hi}"
                )));
            }
        }
    }
    Ok(FieldKind::Number {
        integer,
        minimum,
        maximum,
    })
}

/// `type: "array"` of enum strings: `items.enum`, `items.anyOf` or
/// `items.oneOf`, `minItems`, `maxItems`.
fn multi_select_kind(p: &Map<String, Value>, what: &str) -> Result<FieldKind, SchemaError> {
    let items = string_items(p, what)?;
    let options = if let Some(values) = items.get("enum") {
        enum_choices(values, None, what)?
    } else if let Some(list) = items.get("anyOf") {
        titled_choices(list, "items.anyOf", what)?
    } else if let Some(list) = items.get("oneOf") {
        titled_choices(list, "items.oneOf", what)?
    } else {
        return Err(bad(format!(
            "{what} is an array of free text; Airlock's forms take arrays of enum strings (`items.enum` or `items.anyOf`) only"
        )));
    };
    check_options(&options, what)?;
    let min_items = opt_count(p, "minItems", what)?;
    let max_items = opt_count(p, "maxItems", what)?;
    check_range(min_items, max_items, "minItems", "maxItems", what)?;
    if min_items.is_some_and(|m| m as usize > options.len()) {
        return Err(bad(format!(
            "{what} needs at least {} choices but offers {}",
            min_items.unwrap_or_default(),
            options.len()
        )));
    }
    Ok(FieldKind::MultiSelect {
        options,
        min_items,
        max_items,
    })
}

/// The `items` of an array property, which must describe strings.
fn string_items<'a>(
    p: &'a Map<String, Value>,
    what: &str,
) -> Result<&'a Map<String, Value>, SchemaError> {
    let items = p
        .get("items")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            bad(format!(
                "{what} is an array without `items`; Airlock's forms take arrays of enum strings (multi-select)"
            ))
        })?;
    match items.get("type").and_then(Value::as_str) {
        None | Some("string") => Ok(items),
        Some("object") => Err(bad(format!(
            "{what} is an array of objects; Airlock's forms take flat properties and arrays of enum strings only"
        ))),
        Some(other) => Err(bad(format!(
            "{what} is an array of {:?}; Airlock's forms take arrays of enum strings only",
            neutralize_for_display(other, 40)
        ))),
    }
}

/// The server's `default`, which must fit the field.
fn checked_default(
    field: &FormField,
    p: &Map<String, Value>,
    what: &str,
) -> Result<Option<Value>, SchemaError> {
    match p.get("default") {
        None | Some(Value::Null) => Ok(None),
        Some(d) => match field.check(d) {
            Ok(()) => Ok(Some(d.clone())),
            Err(msg) => Err(bad(format!(
                "the default of {what} does not fit the field: it {msg}"
            ))),
        },
    }
}

/// Parse the raw JSON of a `requestedSchema`. Rejects anything outside the
/// form subset of spec-notes §2 with a message naming what is wrong.
pub fn parse_schema(schema: &Value) -> Result<FormSchema, SchemaError> {
    let obj = schema
        .as_object()
        .ok_or_else(|| bad("`requestedSchema` must be a JSON object"))?;
    match obj.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        Some(_) => {
            return Err(bad(
                "`requestedSchema` must have `type: \"object\"` with flat `properties`",
            ))
        }
    }
    let what = "the form";
    let title = opt_text(obj, "title", MAX_TITLE_CHARS, what)?;
    let description = opt_text(obj, "description", MAX_DESCRIPTION_CHARS, what)?;
    let empty = Map::new();
    let properties = match obj.get("properties") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return Err(bad("`properties` of the form must be a JSON object")),
    };
    if properties.len() > MAX_PROPERTIES {
        return Err(bad(format!(
            "the form has {} fields; Airlock shows at most {MAX_PROPERTIES}",
            properties.len()
        )));
    }
    let required: Vec<&str> = match obj.get("required") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(r)) => r
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| bad("`required` must be a list of property names"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(bad("`required` must be a list of property names")),
    };
    if let Some(missing) = required.iter().find(|r| !properties.contains_key(**r)) {
        return Err(bad(format!(
            "`required` names {:?}, which is not a property of the form",
            neutralize_for_display(missing, MAX_NAME_CHARS)
        )));
    }
    let fields = properties
        .iter()
        .map(|(name, prop)| parse_field(name, prop, required.contains(&name.as_str())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(FormSchema {
        title,
        description,
        fields,
    })
}
