//! The tool-call and audit queries of schema 13 (before migrations 0014
//! and 0015, main at ee07c81), kept to compare against on a copy of the
//! database at schema 13: tool-call searches of 3+ characters through
//! tool_calls_fts (trigrams, newest id first), shorter ones and audit
//! searches a LIKE scan in list order.

use airlock_core::store::{AuditQuery, HistoryQuery};
use rusqlite::{types::Value, Connection};

const COLUMNS: &str = "t.id, t.server_name, t.tool, t.arguments_json, t.result_json, t.outcome, t.error, t.started_at, t.duration_ms, t.client";

fn like_pattern(text: &str) -> String {
    let mut out = String::from("%");
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// Up to 8 trigrams of the term, evenly spread, as an FTS5 query.
fn trigrams(term: &str) -> Option<String> {
    let chars: Vec<char> = term.chars().collect();
    if chars.len() < 3 {
        return None;
    }
    let all: Vec<String> = chars.windows(3).map(|w| w.iter().collect()).collect();
    let step = all.len().div_ceil(8);
    let mut picked: Vec<&String> = all.iter().step_by(step).collect();
    if let Some(last) = all.last() {
        picked.push(last);
    }
    picked.dedup();
    Some(
        picked
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" AND "),
    )
}

/// `Store::history` at schema 13 (first pages: no keyset).
pub fn history_sql(q: &HistoryQuery) -> (String, Vec<Value>) {
    let mut sql = String::new();
    let mut args = Vec::new();
    let mut push = |clause: &str, v: Value| {
        sql.push_str(clause);
        args.push(v);
    };
    if let Some(s) = &q.server {
        push(" AND t.server_name = ?", Value::Text(s.clone()));
    }
    if let Some(c) = &q.client {
        push(" AND t.client = ?", Value::Text(c.clone()));
    }
    if let Some(o) = q.outcome {
        push(" AND t.outcome = ?", Value::Text(o.as_str().to_owned()));
    }
    if let Some(t) = q.since_ms {
        push(" AND t.started_at >= ?", Value::Integer(t));
    }
    if let Some(t) = q.until_ms {
        push(" AND t.started_at < ?", Value::Integer(t));
    }
    let term = q.search.as_deref().filter(|s| !s.is_empty());
    if let Some(term) = term {
        sql.push_str(
            " AND (IFNULL(t.tool, '') LIKE ? ESCAPE '\\' OR IFNULL(t.arguments_json, '') LIKE ? ESCAPE '\\'
               OR IFNULL(t.result_json, '') LIKE ? ESCAPE '\\' OR IFNULL(t.error, '') LIKE ? ESCAPE '\\')",
        );
        args.extend(std::iter::repeat_n(Value::Text(like_pattern(term)), 4));
    }
    args.push(Value::Integer(i64::from(q.limit) + 1));
    match term.and_then(trigrams) {
        Some(matched) => {
            args.insert(0, Value::Text(matched));
            (
                format!(
                    "SELECT {COLUMNS} FROM tool_calls_fts CROSS JOIN tool_calls t ON t.id = tool_calls_fts.rowid
                     WHERE tool_calls_fts MATCH ?{sql} ORDER BY tool_calls_fts.rowid DESC LIMIT ?"
                ),
                args,
            )
        }
        None => (
            format!(
                "SELECT {COLUMNS} FROM tool_calls t WHERE 1=1{sql} ORDER BY t.started_at DESC, t.id DESC LIMIT ?"
            ),
            args,
        ),
    }
}

/// Bring a copy of the schema-7 file to schema 13 (its FTS backfill).
pub fn upgrade(path: &std::path::Path) -> Result<Connection, String> {
    airlock_core::store::create_at_version(path, 13).map_err(|e| e.to_string())
}

/// `Store::audit_page` at schema 13: every filter in SQL, the app read
/// from the detail's JSON, text a LIKE scan in list order.
pub fn audit_sql(q: &AuditQuery) -> (String, Vec<Value>) {
    let mut sql = String::from(
        "SELECT t.id, t.at, t.server_name, t.kind, t.detail_json FROM audit_events t WHERE 1=1",
    );
    let mut args = Vec::new();
    let mut push = |clause: &str, v: Value| {
        sql.push_str(clause);
        args.push(v);
    };
    if let Some(s) = &q.server {
        push(" AND t.server_name = ?", Value::Text(s.clone()));
    }
    if let Some(k) = &q.kind {
        push(" AND t.kind = ?", Value::Text(k.clone()));
    }
    if let Some(c) = &q.client {
        push(
            " AND json_extract(t.detail_json, '$.client') = ?",
            Value::Text(c.clone()),
        );
    }
    if let Some(term) = q.search.as_deref().filter(|s| !s.is_empty()) {
        sql.push_str(
            " AND (IFNULL(t.server_name, '') LIKE ? ESCAPE '\\' OR IFNULL(t.kind, '') LIKE ? ESCAPE '\\'
               OR IFNULL(t.detail_json, '') LIKE ? ESCAPE '\\')",
        );
        args.extend(std::iter::repeat_n(Value::Text(like_pattern(term)), 3));
    }
    sql.push_str(" ORDER BY t.at DESC, t.id DESC LIMIT ?");
    args.push(Value::Integer(i64::from(q.limit) + 1));
    (sql, args)
}
