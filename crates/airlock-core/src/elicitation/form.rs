//! Form-mode elicitation: the schema model of the MCP form subset
//! (spec-notes §2), parsed from the raw JSON of `requestedSchema`, and the
//! validation of an answer against it.
//!
//! The subset: a flat object whose properties are
//! - string (`minLength`, `maxLength`, `format` in email / uri / date / date-time),
//! - number and integer (`minimum`, `maximum`),
//! - boolean,
//! - single-select: `enum` (untitled), `oneOf: [{const, title}]` (titled),
//!   legacy `enumNames`,
//! - multi-select: `type: "array"` with `items.enum` or
//!   `items.anyOf: [{const, title}]`, `minItems`, `maxItems`,
//!
//! each with an optional `title`, `description` and `default`, plus `required`.
//! Anything else (nested objects, arrays of objects, unknown types or
//! formats) is rejected with a message that says what is outside the subset.
//!
//! Server text shown to a person (titles, descriptions, option titles) is
//! bounded and neutralised here. Property names and option values are kept
//! byte for byte, because they travel back to the server; shells must pass
//! them through their own plain-text rendering before showing them.

use airlock_url_safety::neutralize_for_display;
use serde::Serialize;
use serde_json::{Map, Value};

/// Most properties a form may have.
pub const MAX_PROPERTIES: usize = 64;
/// Most options of one single- or multi-select field.
pub const MAX_OPTIONS: usize = 256;
/// Longest property name, in characters.
pub const MAX_NAME_CHARS: usize = 128;
/// Longest option value (`enum` entry or `const`), in characters.
pub const MAX_OPTION_VALUE_CHARS: usize = 512;
/// Longest title (form, field or option) kept from the server, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// Longest description (form or field) kept from the server, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 2000;
/// Longest text a person may enter in one string field, in characters.
pub const MAX_VALUE_CHARS: usize = 8192;

/// A `requestedSchema` outside the subset Airlock shows as a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

fn bad(msg: impl Into<String>) -> SchemaError {
    SchemaError(msg.into())
}

/// One answer that does not fit the form, with a message a person can act on.
/// `field` is the property name; the message does not repeat it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            neutralize_for_display(&self.field, MAX_NAME_CHARS),
            self.message
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    Email,
    Uri,
    Date,
    DateTime,
}

impl StringFormat {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "email" => Some(Self::Email),
            "uri" => Some(Self::Uri),
            "date" => Some(Self::Date),
            "date-time" => Some(Self::DateTime),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Date => "date",
            Self::DateTime => "date-time",
        }
    }

    /// What a person should type, e.g. "a date as YYYY-MM-DD, like 2025-03-01".
    pub fn hint(self) -> &'static str {
        match self {
            Self::Email => "an email address, like name@example.com",
            Self::Uri => "a full URI with a scheme, like https://example.com/page",
            Self::Date => "a date as YYYY-MM-DD, like 2025-03-01",
            Self::DateTime => {
                "a date and time as YYYY-MM-DDTHH:MM:SS with Z or an offset, like 2025-03-01T14:30:00Z"
            }
        }
    }

    fn accepts(self, s: &str) -> bool {
        match self {
            Self::Email => is_email(s),
            Self::Uri => is_uri(s),
            Self::Date => is_date(s),
            Self::DateTime => is_date_time(s),
        }
    }
}

/// One option of a select field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Choice {
    /// Sent back to the server as is.
    pub value: String,
    /// Shown to the person, if the server gave one (neutralised, bounded).
    pub title: Option<String>,
}

impl Choice {
    /// The title, or the value shown as plain text.
    pub fn label(&self) -> String {
        match &self.title {
            Some(t) => t.clone(),
            None => neutralize_for_display(&self.value, MAX_OPTION_VALUE_CHARS),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FieldKind {
    String {
        min_length: Option<u32>,
        max_length: Option<u32>,
        format: Option<StringFormat>,
    },
    Number {
        /// `type: "integer"`: only whole numbers.
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Boolean,
    /// `enum`, `oneOf: [{const, title}]` or legacy `enum` + `enumNames`.
    SingleSelect {
        options: Vec<Choice>,
    },
    /// `type: "array"` of enum strings.
    MultiSelect {
        options: Vec<Choice>,
        min_items: Option<u32>,
        max_items: Option<u32>,
    },
}

/// One property of the form.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FormField {
    /// The property name, byte for byte (it is the key sent back).
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    pub kind: FieldKind,
    /// Already checked against the field: `defaults()` of a parsed schema
    /// always fits its fields.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub default: Option<Value>,
}

/// A parsed `requestedSchema`: fields in the server's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FormSchema {
    pub title: Option<String>,
    pub description: Option<String>,
    pub fields: Vec<FormField>,
}

// ----- parsing -----

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
    let ty = match p.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(_)) => {
            return Err(bad(format!(
                "{what} has a list of types; Airlock's forms take exactly one of string, number, integer, boolean or array"
            )))
        }
        Some(_) => return Err(bad(format!("`type` of {what} must be a string"))),
        None => {
            return Err(bad(format!(
                "{what} has no `type` (string, number, integer, boolean or array)"
            )))
        }
    };
    let kind = match ty {
        "string" => {
            if let Some(values) = p.get("enum") {
                let options = enum_choices(values, p.get("enumNames"), &what)?;
                check_options(&options, &what)?;
                FieldKind::SingleSelect { options }
            } else if let Some(list) = p.get("oneOf") {
                let options = titled_choices(list, "oneOf", &what)?;
                check_options(&options, &what)?;
                FieldKind::SingleSelect { options }
            } else {
                let min_length = opt_count(p, "minLength", &what)?;
                let max_length = opt_count(p, "maxLength", &what)?;
                check_range(min_length, max_length, "minLength", "maxLength", &what)?;
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
                FieldKind::String {
                    min_length,
                    max_length,
                    format,
                }
            }
        }
        "number" | "integer" => {
            let minimum = opt_number(p, "minimum", &what)?;
            let maximum = opt_number(p, "maximum", &what)?;
            check_range(minimum, maximum, "minimum", "maximum", &what)?;
            let integer = ty == "integer";
            if integer {
                if let (Some(lo), Some(hi)) = (minimum, maximum) {
                    if lo.ceil() > hi.floor() {
                        return Err(bad(format!(
                            "{what} allows no whole number between {lo} and {hi}"
                        )));
                    }
                }
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            }
        }
        "boolean" => FieldKind::Boolean,
        "array" => {
            let items = p
                .get("items")
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    bad(format!(
                        "{what} is an array without `items`; Airlock's forms take arrays of enum strings (multi-select)"
                    ))
                })?;
            match items.get("type").and_then(Value::as_str) {
                None | Some("string") => {}
                Some("object") => {
                    return Err(bad(format!(
                        "{what} is an array of objects; Airlock's forms take flat properties and arrays of enum strings only"
                    )))
                }
                Some(other) => {
                    return Err(bad(format!(
                        "{what} is an array of {:?}; Airlock's forms take arrays of enum strings only",
                        neutralize_for_display(other, 40)
                    )))
                }
            }
            let options = if let Some(values) = items.get("enum") {
                enum_choices(values, None, &what)?
            } else if let Some(list) = items.get("anyOf") {
                titled_choices(list, "items.anyOf", &what)?
            } else if let Some(list) = items.get("oneOf") {
                titled_choices(list, "items.oneOf", &what)?
            } else {
                return Err(bad(format!(
                    "{what} is an array of free text; Airlock's forms take arrays of enum strings (`items.enum` or `items.anyOf`) only"
                )));
            };
            check_options(&options, &what)?;
            let min_items = opt_count(p, "minItems", &what)?;
            let max_items = opt_count(p, "maxItems", &what)?;
            check_range(min_items, max_items, "minItems", "maxItems", &what)?;
            if min_items.is_some_and(|m| m as usize > options.len()) {
                return Err(bad(format!(
                    "{what} needs at least {} choices but offers {}",
                    min_items.unwrap_or_default(),
                    options.len()
                )));
            }
            FieldKind::MultiSelect {
                options,
                min_items,
                max_items,
            }
        }
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
    match p.get("default") {
        None | Some(Value::Null) => {}
        Some(d) => {
            if let Err(msg) = field.check(d) {
                return Err(bad(format!(
                    "the default of {what} does not fit the field: it {msg}"
                )));
            }
            field.default = Some(d.clone());
        }
    }
    Ok(field)
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

// ----- the model -----

impl FormSchema {
    /// Put the fields in `order` (the server's wire order, when a JSON map
    /// lost it); fields not named keep their relative order at the end.
    pub fn in_order(mut self, order: &[String]) -> Self {
        let pos = |name: &str| order.iter().position(|o| o == name).unwrap_or(usize::MAX);
        self.fields.sort_by_key(|f| pos(&f.name));
        self
    }

    pub fn field(&self, name: &str) -> Option<&FormField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The server's defaults, one entry per field that has one.
    pub fn defaults(&self) -> Map<String, Value> {
        self.fields
            .iter()
            .filter_map(|f| f.default.clone().map(|d| (f.name.clone(), d)))
            .collect()
    }

    /// Check an answer: every key a field, every required field present, every
    /// value of the right type within its constraints. Nothing is coerced:
    /// `"3"` is not a number. Returns the answer in field order.
    pub fn validate(
        &self,
        answer: &Map<String, Value>,
    ) -> Result<Map<String, Value>, Vec<FieldError>> {
        let mut errors = Vec::new();
        for key in answer.keys() {
            if self.field(key).is_none() {
                errors.push(FieldError {
                    field: key.clone(),
                    message: "is not a field of this form".into(),
                });
            }
        }
        let mut out = Map::new();
        for f in &self.fields {
            match answer.get(&f.name) {
                None if f.required => errors.push(FieldError {
                    field: f.name.clone(),
                    message: "is required: give a value".into(),
                }),
                None => {}
                Some(v) => match f.check(v) {
                    Ok(()) => {
                        out.insert(f.name.clone(), v.clone());
                    }
                    Err(message) => errors.push(FieldError {
                        field: f.name.clone(),
                        message,
                    }),
                },
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors)
        }
    }

    /// Fields whose name, title or description suggests a secret.
    pub fn secret_looking(&self) -> impl Iterator<Item = &FormField> {
        self.fields.iter().filter(|f| f.looks_secret())
    }
}

/// Words that suggest a secret, compared without case, spaces, `_`, `-` or `.`.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passcode",
    "apikey",
    "token",
    "secret",
    "credential",
    "privatekey",
];

/// Does `text` mention a secret (password, API key, token, ...)?
pub fn mentions_secret(text: &str) -> bool {
    let squashed: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-' | '.' | '\t'))
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_WORDS.iter().any(|w| squashed.contains(w))
}

fn fmt_num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn quote_options(options: &[Choice]) -> String {
    const SHOWN: usize = 10;
    let mut list: Vec<String> = options
        .iter()
        .take(SHOWN)
        .map(|o| format!("{:?}", neutralize_for_display(&o.value, 60)))
        .collect();
    if options.len() > SHOWN {
        list.push(format!("… ({} in all)", options.len()));
    }
    list.join(", ")
}

impl FormField {
    /// The title, or else the name (as plain text).
    pub fn label(&self) -> String {
        match &self.title {
            Some(t) => t.clone(),
            None => neutralize_for_display(&self.name, MAX_NAME_CHARS),
        }
    }

    /// Does the name, title or description mention a password, passcode, API
    /// key, token, secret, credential or private key? Servers must use URL mode
    /// for secrets; shells warn on such fields.
    pub fn looks_secret(&self) -> bool {
        mentions_secret(&self.name)
            || self.title.as_deref().is_some_and(mentions_secret)
            || self.description.as_deref().is_some_and(mentions_secret)
    }

    /// The options of a select field (empty for other kinds).
    pub fn options(&self) -> &[Choice] {
        match &self.kind {
            FieldKind::SingleSelect { options } | FieldKind::MultiSelect { options, .. } => options,
            _ => &[],
        }
    }

    /// The constraints in words, e.g. `["text", "3 to 50 characters", "an email address, like ..."]`.
    pub fn constraints(&self) -> Vec<String> {
        let mut out = Vec::new();
        match &self.kind {
            FieldKind::String {
                min_length,
                max_length,
                format,
            } => {
                out.push("text".to_owned());
                match (min_length, max_length) {
                    (Some(lo), Some(hi)) => out.push(format!("{lo} to {hi} characters")),
                    (Some(lo), None) => out.push(format!("at least {lo} characters")),
                    (None, Some(hi)) => out.push(format!("at most {hi} characters")),
                    (None, None) => {}
                }
                if let Some(f) = format {
                    out.push(f.hint().to_owned());
                }
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => {
                out.push(if *integer { "whole number" } else { "number" }.to_owned());
                match (minimum, maximum) {
                    (Some(lo), Some(hi)) => {
                        out.push(format!("from {} to {}", fmt_num(*lo), fmt_num(*hi)))
                    }
                    (Some(lo), None) => out.push(format!("at least {}", fmt_num(*lo))),
                    (None, Some(hi)) => out.push(format!("at most {}", fmt_num(*hi))),
                    (None, None) => {}
                }
            }
            FieldKind::Boolean => out.push("yes or no".to_owned()),
            FieldKind::SingleSelect { options } => {
                out.push(format!("choose one of {}", options.len()))
            }
            FieldKind::MultiSelect {
                options,
                min_items,
                max_items,
            } => {
                let n = options.len();
                out.push(match (min_items, max_items) {
                    (Some(lo), Some(hi)) => format!("choose {lo} to {hi} of {n}"),
                    (Some(lo), None) => format!("choose at least {lo} of {n}"),
                    (None, Some(hi)) => format!("choose at most {hi} of {n}"),
                    (None, None) => format!("choose any of {n}"),
                });
            }
        }
        out
    }

    /// Check one value against this field. `Err` is a message without the
    /// field's name, e.g. "must be at least 3 characters long (got 1)".
    pub fn check(&self, v: &Value) -> Result<(), String> {
        match &self.kind {
            FieldKind::String {
                min_length,
                max_length,
                format,
            } => {
                let s = v.as_str().ok_or("must be text")?;
                let n = s.chars().count();
                if n > MAX_VALUE_CHARS {
                    return Err(format!(
                        "is too long: Airlock sends at most {MAX_VALUE_CHARS} characters (got {n})"
                    ));
                }
                if let Some(lo) = min_length {
                    if n < *lo as usize {
                        return Err(format!(
                            "must be at least {lo} character{} long (got {n})",
                            if *lo == 1 { "" } else { "s" }
                        ));
                    }
                }
                if let Some(hi) = max_length {
                    if n > *hi as usize {
                        return Err(format!("must be at most {hi} characters long (got {n})"));
                    }
                }
                if let Some(f) = format {
                    if !f.accepts(s) {
                        return Err(format!("must be {}", f.hint()));
                    }
                }
                Ok(())
            }
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => {
                if !v.is_number() {
                    return Err(if *integer {
                        "must be a whole number".into()
                    } else {
                        "must be a number".into()
                    });
                }
                if *integer && !(v.is_i64() || v.is_u64()) {
                    return Err("must be a whole number (no decimals)".into());
                }
                let x = v.as_f64().unwrap_or(f64::NAN);
                let out_of_range =
                    minimum.is_some_and(|lo| x < lo) || maximum.is_some_and(|hi| x > hi);
                if out_of_range {
                    return Err(match (minimum, maximum) {
                        (Some(lo), Some(hi)) => {
                            format!("must be from {} to {}", fmt_num(*lo), fmt_num(*hi))
                        }
                        (Some(lo), None) => format!("must be at least {}", fmt_num(*lo)),
                        (None, Some(hi)) => format!("must be at most {}", fmt_num(*hi)),
                        (None, None) => unreachable!("out of range needs a bound"),
                    });
                }
                Ok(())
            }
            FieldKind::Boolean => v
                .is_boolean()
                .then_some(())
                .ok_or_else(|| "must be true or false".into()),
            FieldKind::SingleSelect { options } => {
                let s = v.as_str().ok_or("must be one of the listed options")?;
                if options.iter().any(|o| o.value == s) {
                    Ok(())
                } else {
                    Err(format!("must be one of {}", quote_options(options)))
                }
            }
            FieldKind::MultiSelect {
                options,
                min_items,
                max_items,
            } => {
                let items = v.as_array().ok_or("must be a list of the listed options")?;
                let mut seen = std::collections::HashSet::new();
                for item in items {
                    let s = item
                        .as_str()
                        .ok_or("must be a list of the listed options")?;
                    if !options.iter().any(|o| o.value == s) {
                        return Err(format!(
                            "contains {:?}, which is not an option; choose from {}",
                            neutralize_for_display(s, 60),
                            quote_options(options)
                        ));
                    }
                    if !seen.insert(s) {
                        return Err(format!("lists {:?} twice", neutralize_for_display(s, 60)));
                    }
                }
                let n = items.len();
                if let Some(lo) = min_items {
                    if n < *lo as usize {
                        return Err(format!(
                            "needs at least {lo} choice{} (got {n})",
                            if *lo == 1 { "" } else { "s" }
                        ));
                    }
                }
                if let Some(hi) = max_items {
                    if n > *hi as usize {
                        return Err(format!("allows at most {hi} choices (got {n})"));
                    }
                }
                Ok(())
            }
        }
    }
}

// ----- formats -----

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let ok_chars =
        |p: &str| !p.is_empty() && !p.chars().any(|c| c.is_whitespace() || c.is_control());
    ok_chars(local)
        && ok_chars(domain)
        && !local.contains('@')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && (domain.contains('.') || domain.starts_with('['))
}

fn is_uri(s: &str) -> bool {
    !s.chars().any(|c| c.is_whitespace() || c.is_control()) && url::Url::parse(s).is_ok()
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (
        digits(&s[0..4], 4),
        digits(&s[5..7], 2),
        digits(&s[8..10], 2),
    ) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
fn is_date_time(s: &str) -> bool {
    if !s.is_ascii() || s.len() < 20 {
        return false;
    }
    let (date, rest) = s.split_at(10);
    if !is_date(date) || !matches!(rest.as_bytes()[0], b'T' | b't') {
        return false;
    }
    let rest = &rest[1..];
    if rest.len() < 9 {
        return false;
    }
    let (time, mut zone) = rest.split_at(8);
    let tb = time.as_bytes();
    if tb[2] != b':' || tb[5] != b':' {
        return false;
    }
    let (Some(h), Some(mi), Some(sec)) = (
        digits(&time[0..2], 2),
        digits(&time[3..5], 2),
        digits(&time[6..8], 2),
    ) else {
        return false;
    };
    if h > 23 || mi > 59 || sec > 60 {
        return false;
    }
    if let Some(frac) = zone.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        zone = &frac[n..];
    }
    match zone {
        "Z" | "z" => true,
        z if z.len() == 6 && matches!(z.as_bytes()[0], b'+' | b'-') && z.as_bytes()[3] == b':' => {
            matches!((digits(&z[1..3], 2), digits(&z[4..6], 2)), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert!(err_of(
            json!({"properties": {"a": {"type": "number", "minimum": 5, "maximum": 2}}})
        )
        .contains("no answer could fit"));
        assert!(err_of(
            json!({"properties": {"a": {"type": "integer", "minimum": 1.2, "maximum": 1.8}}})
        )
        .contains("no whole number"));
        assert!(
            err_of(json!({"properties": {"a": {"type": "string", "minLength": -1}}}))
                .contains("whole number")
        );
        assert!(
            err_of(json!({"properties": {"a": {"type": "string", "enum": []}}}))
                .contains("no options")
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
        assert!(err_of(
            json!({"properties": {"a": {"type": "string", "oneOf": [{"title": "x"}]}}})
        )
        .contains("no `const`"));
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
        let d =
            err_of(json!({"properties": {"s": {"type": "string", "enum": ["a"], "default": "b"}}}));
        assert!(d.contains("default"), "{d}");
        let d =
            err_of(json!({"properties": {"n": {"type": "number", "maximum": 3, "default": 4}}}));
        assert!(d.contains("at most 3"), "{d}");
        assert!(
            err_of(json!({"properties": {"a": {"type": "string", "title": 5}}}))
                .contains("`title`")
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
        assert!(
            err_of(json!({"properties": {long_name: {"type": "string"}}})).contains("longer than")
        );
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
    fn formats() {
        for ok in ["a@b.co", "first.last+tag@sub.example.org", "x@[127.0.0.1]"] {
            assert!(is_email(ok), "{ok}");
        }
        for no in [
            "", "a", "a@", "@b.co", "a@b", "a b@c.de", "a@b..c", "a@.b.c", "a@b.c.",
        ] {
            assert!(!is_email(no), "{no}");
        }
        for ok in ["https://example.com", "mailto:x@y.z", "urn:isbn:123"] {
            assert!(is_uri(ok), "{ok}");
        }
        for no in ["example.com", "/relative", "https://exa mple.com", ""] {
            assert!(!is_uri(no), "{no}");
        }
        for ok in ["2024-02-29", "2000-02-29", "1999-12-31"] {
            assert!(is_date(ok), "{ok}");
        }
        for no in [
            "1900-02-29",
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "2024-04-31",
        ] {
            assert!(!is_date(no), "{no}");
        }
        for ok in [
            "2024-01-01T00:00:00Z",
            "2024-01-01t10:20:30z",
            "2024-01-01T10:20:30.5-08:00",
            "2024-01-01T23:59:60+00:00",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for no in [
            "2024-01-01",
            "2024-01-01T10:20:30",
            "2024-01-01 10:20:30Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T10:20:30.Z",
            "2024-01-01T10:20:30+0800",
            "2024-01-01T10:20:30+24:00",
            "2024-01-01T10:20Z",
        ] {
            assert!(!is_date_time(no), "{no}");
        }
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
        let s = parse_schema(&json!({"properties": {"a": {"type": "string", "minLength": 1.0}}}))
            .unwrap();
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
}
