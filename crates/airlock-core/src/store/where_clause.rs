//! Pieces of SQL the store's queries and its search share: a WHERE clause
//! under construction with its arguments, and LIKE patterns.

use rusqlite::types::Value;

/// Escape LIKE wildcards so a search for `5%` means the text `5%`.
pub(super) fn like_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// A WHERE clause under construction, with its arguments.
#[derive(Default)]
pub(super) struct Filter {
    pub(super) sql: String,
    pub(super) args: Vec<Value>,
}

impl Filter {
    pub(super) fn push(&mut self, clause: &str, args: impl IntoIterator<Item = Value>) {
        self.sql.push_str(" AND ");
        self.sql.push_str(clause);
        self.args.extend(args);
    }
    pub(super) fn text(&mut self, clause: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.push(clause, [Value::Text(v.to_owned())]);
        }
    }
    pub(super) fn int(&mut self, clause: &str, value: Option<i64>) {
        if let Some(v) = value {
            self.push(clause, [Value::Integer(v)]);
        }
    }
}
