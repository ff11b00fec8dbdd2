//! The model at work: checking an answer against a parsed form, and the
//! words a shell shows about a field.

use airlock_url_safety::neutralize_for_display;
use serde_json::{Map, Value};

use super::{
    Choice, FieldError, FieldKind, FormField, FormSchema, StringFormat, MAX_NAME_CHARS,
    MAX_VALUE_CHARS,
};

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
pub(super) fn mentions_secret(text: &str) -> bool {
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
            } => check_text(v, *min_length, *max_length, *format),
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => check_number(v, *integer, *minimum, *maximum),
            FieldKind::Boolean => v
                .is_boolean()
                .then_some(())
                .ok_or_else(|| "must be true or false".into()),
            FieldKind::SingleSelect { options } => check_single_select(v, options),
            FieldKind::MultiSelect {
                options,
                min_items,
                max_items,
            } => check_multi_select(v, options, *min_items, *max_items),
        }
    }
}

fn check_text(
    v: &Value,
    min_length: Option<u32>,
    max_length: Option<u32>,
    format: Option<StringFormat>,
) -> Result<(), String> {
    let s = v.as_str().ok_or("must be text")?;
    let n = s.chars().count();
    if n > MAX_VALUE_CHARS {
        return Err(format!(
            "is too long: Airlock sends at most {MAX_VALUE_CHARS} characters (got {n})"
        ));
    }
    if let Some(lo) = min_length {
        if n < lo as usize {
            return Err(format!(
                "must be at least {lo} character{} long (got {n})",
                if lo == 1 { "" } else { "s" }
            ));
        }
    }
    if let Some(hi) = max_length {
        if n > hi as usize {
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

fn check_number(
    v: &Value,
    integer: bool,
    minimum: Option<f64>,
    maximum: Option<f64>,
) -> Result<(), String> {
    if !v.is_number() {
        return Err(if integer {
            "must be a whole number".into()
        } else {
            "must be a number".into()
        });
    }
    if integer && !(v.is_i64() || v.is_u64()) {
        return Err("must be a whole number (no decimals)".into());
    }
    let x = v.as_f64().unwrap_or(f64::NAN);
    let out_of_range = minimum.is_some_and(|lo| x < lo) || maximum.is_some_and(|hi| x > hi);
    if out_of_range {
        return Err(match (minimum, maximum) {
            (Some(lo), Some(hi)) => {
                format!("must be from {} to {}", fmt_num(lo), fmt_num(hi))
            }
            (Some(lo), None) => format!("must be at least {}", fmt_num(lo)),
            (None, Some(hi)) => format!("must be at most {}", fmt_num(hi)),
            (None, None) => unreachable!("out of range needs a bound"),
        });
    }
    Ok(())
}

fn check_single_select(v: &Value, options: &[Choice]) -> Result<(), String> {
    let s = v.as_str().ok_or("must be one of the listed options")?;
    if options.iter().any(|o| o.value == s) {
        Ok(())
    } else {
        Err(format!("must be one of {}", quote_options(options)))
    }
}

fn check_multi_select(
    v: &Value,
    options: &[Choice],
    min_items: Option<u32>,
    max_items: Option<u32>,
) -> Result<(), String> {
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
        if n < lo as usize {
            return Err(format!(
                "needs at least {lo} choice{} (got {n})",
                if lo == 1 { "" } else { "s" }
            ));
        }
    }
    if let Some(hi) = max_items {
        if n > hi as usize {
            return Err(format!("allows at most {hi} choices (got {n})"));
        }
    }
    Ok(())
}
