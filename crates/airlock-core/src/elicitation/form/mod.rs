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

mod formats;
mod parse;
#[cfg(test)]
mod tests;
mod validate;

pub use parse::parse_schema;

use airlock_url_safety::neutralize_for_display;
use serde::Serialize;
use serde_json::Value;

/// Most properties a form may have.
const MAX_PROPERTIES: usize = 64;
/// Most options of one single- or multi-select field.
const MAX_OPTIONS: usize = 256;
/// Longest property name, in characters.
const MAX_NAME_CHARS: usize = 128;
/// Longest option value (`enum` entry or `const`), in characters.
const MAX_OPTION_VALUE_CHARS: usize = 512;
/// Longest title (form, field or option) kept from the server, in characters.
const MAX_TITLE_CHARS: usize = 200;
/// Longest description (form or field) kept from the server, in characters.
const MAX_DESCRIPTION_CHARS: usize = 2000;
/// Longest text a person may enter in one string field, in characters.
const MAX_VALUE_CHARS: usize = 8192;

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
