//! The history queries as they were before migration 0009 (main at
//! 37d3afb), kept here to compare against, and the copy of the generated
//! rows into a database at schema 7 that they run on.

use std::path::Path;

use airlock_core::store::{AuditQuery, ElicitationQuery, HistoryQuery};
use rusqlite::{types::Value, Connection};

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

/// `Store::history` of main, verbatim but for the row decoding.
pub fn history_sql(q: &HistoryQuery) -> (String, Vec<Value>) {
    let mut sql = String::from(
        "SELECT id, server_name, tool, arguments_json, result_json, outcome, error, started_at, duration_ms, client
         FROM tool_calls WHERE 1=1",
    );
    let mut args: Vec<Value> = Vec::new();
    let mut push = |clause: &str, v: Value| {
        sql.push_str(clause);
        args.push(v);
    };
    if let Some(server) = &q.server {
        push(" AND server_name = ?", Value::Text(server.clone()));
    }
    if let Some(client) = &q.client {
        push(" AND client = ?", Value::Text(client.clone()));
    }
    if let Some(outcome) = q.outcome {
        push(" AND outcome = ?", Value::Text(outcome.as_str().to_owned()));
    }
    if let Some(since) = q.since_ms {
        push(" AND started_at >= ?", Value::Integer(since));
    }
    if let Some(until) = q.until_ms {
        push(" AND started_at < ?", Value::Integer(until));
    }
    if let Some(before) = q.before_id {
        push(" AND id < ?", Value::Integer(before));
    }
    if let Some(search) = q.search.as_deref().filter(|s| !s.is_empty()) {
        sql.push_str(
            " AND (tool LIKE ? ESCAPE '\\' OR arguments_json LIKE ? ESCAPE '\\'
               OR IFNULL(result_json, '') LIKE ? ESCAPE '\\' OR IFNULL(error, '') LIKE ? ESCAPE '\\')",
        );
        for _ in 0..4 {
            args.push(Value::Text(like_pattern(search)));
        }
    }
    sql.push_str(" ORDER BY id DESC LIMIT ?");
    args.push(Value::Integer(i64::from(q.limit) + 1));
    (sql, args)
}

/// Main had no elicitation search in SQL (the window filtered the newest
/// 500 in memory); this is its list query with the same filters as a LIKE
/// scan, what a search over every record costs without an index.
pub fn elicitations_sql(q: &ElicitationQuery) -> (String, Vec<Value>) {
    let mut sql = String::from(
        "SELECT id, server_name, elicitation_id, mode, origin, message, url, registrable_domain, verdict,
                warnings_json, state, created_at, updated_at
         FROM elicitations WHERE (?1 IS NULL OR server_name = ?1)",
    );
    let mut args = vec![q.server.clone().map_or(Value::Null, Value::Text)];
    if let Some(state) = q.state {
        sql.push_str(" AND state = ?");
        args.push(Value::Text(state.as_str().to_owned()));
    }
    if let Some(since) = q.since_ms {
        sql.push_str(" AND created_at >= ?");
        args.push(Value::Integer(since));
    }
    if let Some(until) = q.until_ms {
        sql.push_str(" AND created_at < ?");
        args.push(Value::Integer(until));
    }
    if let Some(search) = q.search.as_deref().filter(|s| !s.is_empty()) {
        sql.push_str(
            " AND (message LIKE ? ESCAPE '\\' OR IFNULL(url, '') LIKE ? ESCAPE '\\'
               OR IFNULL(registrable_domain, '') LIKE ? ESCAPE '\\')",
        );
        for _ in 0..3 {
            args.push(Value::Text(like_pattern(search)));
        }
    }
    sql.push_str(" ORDER BY id DESC LIMIT ?");
    args.push(Value::Integer(i64::from(q.limit) + 1));
    (sql, args)
}

/// Main read the audit trail as the newest 500 events (of one server at
/// most) and the window filtered them in memory: that read, whatever the
/// other filters.
pub fn audit_sql(q: &AuditQuery) -> (String, Vec<Value>) {
    (
        "SELECT id, at, server_name, kind, detail_json FROM audit_events
         WHERE (?1 IS NULL OR server_name = ?1) ORDER BY at DESC, id DESC LIMIT 500"
            .into(),
        vec![q.server.clone().map_or(Value::Null, Value::Text)],
    )
}

/// Copy every generated row into `old` (a database at schema 7).
pub fn copy_rows(old: &Connection, new_path: &Path) -> Result<(), String> {
    old.execute("ATTACH DATABASE ?1 AS n", [new_path.display().to_string()])
        .map_err(|e| e.to_string())?;
    old.execute_batch(
        "BEGIN;
         INSERT INTO main.tool_calls SELECT id, server_name, tool, arguments_json, result_json, outcome,
           error, started_at, duration_ms, client FROM n.tool_calls;
         INSERT INTO main.elicitations SELECT id, server_name, connection_id, elicitation_id, mode, origin,
           message, url, registrable_domain, verdict, warnings_json, state, created_at, updated_at, run_id
           FROM n.elicitations;
         INSERT INTO main.audit_events SELECT id, at, server_name, kind, detail_json FROM n.audit_events;
         COMMIT;
         DETACH DATABASE n;
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .map_err(|e| e.to_string())
}
