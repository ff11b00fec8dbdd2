//! The history lists at a million rows: every filter walks an index in list
//! order (newest first), pages are keyset, and text search goes through the
//! FTS5 trigram tables of migration 0009. `EXPLAIN QUERY PLAN` of each query
//! is printed by `airlock-bench history`.

use rusqlite::{params_from_iter, types::Value, Connection};
use serde::{Deserialize, Serialize};

use super::history::{
    audit_row, elicitation_row, tool_call_row, AuditEvent, ElicitationRecord, HistoryPage,
    HistoryQuery, ToolCallRecord, TOOL_CALL_COLUMNS,
};
use super::search::{facet, outcome_facet, Ask, Index, Search as IndexSearch};
use super::where_clause::{like_pattern, Filter};
use super::{Store, StoreResult, MAX_PAGE};
use crate::lifecycle::ElicitationState;

/// Shortest search the trigram index answers; shorter ones scan with LIKE
/// in list order (a 1- or 2-character term nearly always matches early).
pub const MIN_INDEXED_SEARCH_CHARS: usize = 3;

/// A page of elicitations (and sign-ins) to fetch, newest first (the
/// window sends it as is).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ElicitationFilter"))]
pub struct ElicitationQuery {
    pub server: Option<String>,
    pub state: Option<ElicitationState>,
    /// Case-insensitive substring of the server, message, URL or domain.
    pub search: Option<String>,
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    pub limit: u32,
    /// Return records after this one in list order (keyset pagination).
    pub before_id: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ElicitationPage {
    pub records: Vec<ElicitationRecord>,
    /// Pass as `before_id` to get the next page; `None` on the last page.
    pub next_before_id: Option<i64>,
}

/// A page of audit events to fetch, newest first (the window sends it as is).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "AuditFilter"))]
pub struct AuditQuery {
    pub server: Option<String>,
    /// One kind of event (`elicitation`, `server_added`, ...).
    pub kind: Option<String>,
    /// Events about this app (their stored detail names it as `client`).
    pub app: Option<String>,
    /// Case-insensitive substring of the server, the kind or the detail.
    pub search: Option<String>,
    pub limit: u32,
    /// Return events after this one in list order (keyset pagination).
    pub before_id: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AuditPage {
    pub events: Vec<AuditEvent>,
    /// Pass as `before_id` to get the next page; `None` on the last page.
    pub next_before_id: Option<i64>,
}

/// Most kinds of audit event listed for the filter menu.
pub const MAX_AUDIT_KINDS: usize = 100;

/// Most trigrams of a term asked of the index (evenly spread): the
/// substring check on the candidate rows keeps the answer exact.
const MAX_QUERY_TRIGRAMS: usize = 8;

/// How a search term is looked for.
struct Search {
    /// Rows of the FTS index holding every (or [`MAX_QUERY_TRIGRAMS`])
    /// trigram of the term; `None`: a term too short for the index.
    trigrams: Option<String>,
    /// The LIKE pattern (wildcards escaped) that decides.
    pattern: String,
}

fn search_of(term: Option<&str>) -> Option<Search> {
    let term = term.filter(|s| !s.is_empty())?;
    let chars: Vec<char> = term.chars().collect();
    let trigrams = (chars.len() >= MIN_INDEXED_SEARCH_CHARS).then(|| {
        let all: Vec<String> = chars.windows(3).map(|w| w.iter().collect()).collect();
        let step = all.len().div_ceil(MAX_QUERY_TRIGRAMS);
        let mut picked: Vec<&String> = all.iter().step_by(step).collect();
        if let Some(last) = all.last() {
            picked.push(last);
        }
        picked.dedup();
        picked
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" AND ")
    });
    Some(Search {
        trigrams,
        pattern: like_pattern(term),
    })
}

/// One list query: a table (aliased `t`), its time column, its FTS table
/// and searched columns, and the filters.
struct ListQuery<'a> {
    table: &'a str,
    columns: &'a str,
    time: &'a str,
    fts: &'a str,
    like_columns: &'a [&'a str],
    filter: Filter,
    search: Option<Search>,
    before_id: Option<i64>,
    limit: u32,
}

impl ListQuery<'_> {
    /// The SQL and its arguments. Indexed searches walk the FTS index
    /// newest id first and stop at the page; the rest walk the filter's
    /// index in (time, id) order, keyset on both.
    fn build(mut self, conn: &Connection) -> StoreResult<(String, Vec<Value>)> {
        let Self { table, time, .. } = self;
        let mut f = std::mem::take(&mut self.filter);
        let fetch = Value::Integer(i64::from(self.limit.clamp(1, MAX_PAGE)) + 1);
        if let Some(search) = &self.search {
            let any = self
                .like_columns
                .iter()
                .map(|c| format!("IFNULL(t.{c}, '') LIKE ? ESCAPE '\\'"))
                .collect::<Vec<_>>()
                .join(" OR ");
            let n = self.like_columns.len();
            f.push(
                &format!("({any})"),
                std::iter::repeat_n(Value::Text(search.pattern.clone()), n),
            );
        }
        if let Some(Search {
            trigrams: Some(trigrams),
            ..
        }) = &self.search
        {
            let fts = self.fts;
            f.int(&format!("{fts}.rowid < ?"), self.before_id);
            let mut args = vec![Value::Text(trigrams.clone())];
            args.extend(f.args);
            args.push(fetch);
            let sql = format!(
                "SELECT {} FROM {fts} CROSS JOIN {table} t ON t.id = {fts}.rowid
                 WHERE {fts} MATCH ?{} ORDER BY {fts}.rowid DESC LIMIT ?",
                self.columns, f.sql
            );
            return Ok((sql, args));
        }
        if let Some(before) = self.before_id {
            let at: Option<i64> = conn
                .query_row(
                    &format!("SELECT {time} FROM {table} WHERE id = ?1"),
                    [before],
                    |r| r.get(0),
                )
                .ok();
            match at {
                Some(at) => f.push(
                    &format!("t.{time} <= ? AND (t.{time} < ? OR t.id < ?)"),
                    [
                        Value::Integer(at),
                        Value::Integer(at),
                        Value::Integer(before),
                    ],
                ),
                // The row is gone (pruned): older ids are the best guess.
                None => f.int("t.id < ?", Some(before)),
            }
        }
        f.args.push(fetch);
        let sql = format!(
            "SELECT {} FROM {table} t WHERE 1=1{} ORDER BY t.{time} DESC, t.id DESC LIMIT ?",
            self.columns, f.sql
        );
        Ok((sql, f.args))
    }
}

/// The filters of a tool-call list, on the table aliased `t`.
fn call_filter(q: &HistoryQuery) -> Filter {
    let mut f = Filter::default();
    f.text("t.server_name = ?", q.server.as_deref());
    f.text("t.client = ?", q.app.as_deref());
    f.text("t.outcome = ?", q.outcome.map(|o| o.as_str()));
    f.int("t.started_at >= ?", q.since_ms);
    f.int("t.started_at < ?", q.until_ms);
    f
}

/// The tool-call list without a search (searches: [`call_search`]).
fn history_list(q: &HistoryQuery) -> ListQuery<'static> {
    ListQuery {
        table: "tool_calls",
        columns: TOOL_CALL_COLUMNS,
        time: "started_at",
        fts: "",
        like_columns: &[],
        filter: call_filter(q),
        search: None,
        before_id: q.before_id,
        limit: q.limit,
    }
}

const CALLS: Index = Index {
    table: "tool_calls",
    time: "started_at",
    columns: TOOL_CALL_COLUMNS,
    searched: &["tool", "arguments_json", "result_json", "error"],
};

/// A tool-call search, if `q` has a term.
fn call_search(conn: &Connection, q: &HistoryQuery) -> StoreResult<Option<IndexSearch<'static>>> {
    let Some(term) = q.search.as_deref().filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let mut facets = Vec::new();
    facets.extend(q.outcome.map(|o| outcome_facet(o.as_str())));
    facets.extend(q.server.as_deref().map(|s| facet('s', Some(s))));
    facets.extend(q.app.as_deref().map(|c| facet('c', Some(c))));
    let ask = Ask {
        filter: call_filter(q),
        facets,
        since: q.since_ms,
        until: q.until_ms,
        before_id: q.before_id,
        limit: q.limit,
        term,
    };
    IndexSearch::new(conn, &CALLS, ask).map(Some)
}

fn elicitation_list(q: &ElicitationQuery) -> ListQuery<'static> {
    let mut f = Filter::default();
    f.text("t.server_name = ?", q.server.as_deref());
    f.text("t.state = ?", q.state.map(|s| s.as_str()));
    f.int("t.created_at >= ?", q.since_ms);
    f.int("t.created_at < ?", q.until_ms);
    ListQuery {
        table: "elicitations",
        columns: ELICITATION_COLUMNS_T,
        time: "created_at",
        fts: "elicitations_fts",
        like_columns: &["server_name", "message", "url", "registrable_domain"],
        filter: f,
        search: search_of(q.search.as_deref()),
        before_id: q.before_id,
        limit: q.limit,
    }
}

/// The filters of the audit trail, on the table aliased `t`.
fn audit_filter(q: &AuditQuery) -> Filter {
    let mut f = Filter::default();
    f.text("t.server_name = ?", q.server.as_deref());
    f.text("t.kind = ?", q.kind.as_deref());
    f.text("t.client = ?", q.app.as_deref());
    f
}

const AUDIT_COLUMNS: &str = "t.id, t.at, t.server_name, t.kind, t.detail_json";

/// The audit trail without a search (searches: [`audit_search`]).
fn audit_list(q: &AuditQuery) -> ListQuery<'static> {
    ListQuery {
        table: "audit_events",
        columns: AUDIT_COLUMNS,
        time: "at",
        fts: "",
        like_columns: &[],
        filter: audit_filter(q),
        search: None,
        before_id: q.before_id,
        limit: q.limit,
    }
}

const AUDIT: Index = Index {
    table: "audit_events",
    time: "at",
    columns: AUDIT_COLUMNS,
    searched: &["server_name", "kind", "detail_json"],
};

/// An audit search, if `q` has a term.
fn audit_search(conn: &Connection, q: &AuditQuery) -> StoreResult<Option<IndexSearch<'static>>> {
    let Some(term) = q.search.as_deref().filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let mut facets = Vec::new();
    facets.extend(q.server.as_deref().map(|s| facet('s', Some(s))));
    facets.extend(q.kind.as_deref().map(|k| facet('k', Some(k))));
    facets.extend(q.app.as_deref().map(|c| facet('c', Some(c))));
    let ask = Ask {
        filter: audit_filter(q),
        facets,
        since: None,
        until: None,
        before_id: q.before_id,
        limit: q.limit,
        term,
    };
    IndexSearch::new(conn, &AUDIT, ask).map(Some)
}

/// A page of `limit` from a search's rows (one more: there is a next page).
fn paged<T>(mut items: Vec<T>, limit: u32, id: fn(&T) -> i64) -> (Vec<T>, Option<i64>) {
    let limit = limit.clamp(1, MAX_PAGE) as usize;
    if items.len() > limit {
        items.truncate(limit);
        let next = items.last().map(id);
        (items, next)
    } else {
        (items, None)
    }
}

/// The columns `elicitation_row` reads, of the table aliased `t`.
const ELICITATION_COLUMNS_T: &str =
    "t.id, t.server_name, t.elicitation_id, t.mode, t.origin, t.message, t.url, t.registrable_domain,
     t.verdict, t.warnings_json, t.state, t.created_at, t.updated_at, t.client";

/// Run a list query; the extra row fetched says whether a next page exists.
fn run_list<T>(
    conn: &Connection,
    list: ListQuery<'_>,
    row: fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    id: fn(&T) -> i64,
) -> StoreResult<(Vec<T>, Option<i64>)> {
    let limit = list.limit.clamp(1, MAX_PAGE) as usize;
    let (sql, args) = list.build(conn)?;
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut items = stmt
        .query_map(params_from_iter(args), row)?
        .collect::<Result<Vec<T>, _>>()?;
    let next = if items.len() > limit {
        items.truncate(limit);
        items.last().map(id)
    } else {
        None
    };
    Ok((items, next))
}

fn explain(conn: &Connection, list: ListQuery<'_>) -> StoreResult<Vec<String>> {
    let (sql, args) = list.build(conn)?;
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
    let rows = stmt.query_map(params_from_iter(args), |r| r.get::<_, String>(3))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

impl Store {
    /// One page of tool calls, newest first.
    pub fn history(&self, q: &HistoryQuery) -> StoreResult<HistoryPage> {
        let conn = self.lock();
        if let Some(search) = call_search(&conn, q)? {
            let rows = search.run(&conn, tool_call_row, |c| (c.started_at, c.id))?;
            let (calls, next_before_id) = paged(rows, q.limit, |c| c.id);
            return Ok(HistoryPage {
                calls,
                next_before_id,
            });
        }
        let (calls, next_before_id) = run_list(
            &conn,
            history_list(q),
            tool_call_row,
            |c: &ToolCallRecord| c.id,
        )?;
        Ok(HistoryPage {
            calls,
            next_before_id,
        })
    }

    /// One page of elicitations, newest first.
    pub fn elicitation_page(&self, q: &ElicitationQuery) -> StoreResult<ElicitationPage> {
        let conn = self.lock();
        let (records, next_before_id) = run_list(
            &conn,
            elicitation_list(q),
            elicitation_row,
            |r: &ElicitationRecord| r.id,
        )?;
        Ok(ElicitationPage {
            records,
            next_before_id,
        })
    }

    /// The newest elicitations, optionally of one server.
    pub fn elicitations(
        &self,
        server: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<ElicitationRecord>> {
        Ok(self
            .elicitation_page(&ElicitationQuery {
                server: server.map(str::to_owned),
                limit,
                ..ElicitationQuery::default()
            })?
            .records)
    }

    /// The newest audit events, optionally of one server.
    pub fn audit_events(&self, server: Option<&str>, limit: u32) -> StoreResult<Vec<AuditEvent>> {
        Ok(self
            .audit_page(&AuditQuery {
                server: server.map(str::to_owned),
                limit,
                ..AuditQuery::default()
            })?
            .events)
    }

    /// One page of audit events, newest first.
    pub fn audit_page(&self, q: &AuditQuery) -> StoreResult<AuditPage> {
        let conn = self.lock();
        let (events, next_before_id) = match audit_search(&conn, q)? {
            Some(search) => {
                let rows = search.run(&conn, audit_row, |e| (e.at, e.id))?;
                paged(rows, q.limit, |e| e.id)
            }
            None => run_list(&conn, audit_list(q), audit_row, |e: &AuditEvent| e.id)?,
        };
        Ok(AuditPage {
            events,
            next_before_id,
        })
    }

    /// The kinds of audit event on record (sorted, at most
    /// [`MAX_AUDIT_KINDS`]): one index lookup per kind.
    pub fn audit_kinds(&self) -> StoreResult<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "WITH RECURSIVE k(kind, n) AS (
               SELECT (SELECT min(kind) FROM audit_events), 1
               UNION ALL
               SELECT (SELECT min(kind) FROM audit_events WHERE kind > k.kind), n + 1
               FROM k WHERE k.kind IS NOT NULL AND n < ?1)
             SELECT kind FROM k WHERE kind IS NOT NULL",
        )?;
        let limit = i64::try_from(MAX_AUDIT_KINDS).unwrap_or(i64::MAX);
        let rows = stmt.query_map([limit], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// `EXPLAIN QUERY PLAN` of [`Store::audit_page`] for `q`.
    pub fn explain_audit(&self, q: &AuditQuery) -> StoreResult<Vec<String>> {
        let conn = self.lock();
        if let Some(search) = audit_search(&conn, q)? {
            return search.explain(&conn);
        }
        explain(&conn, audit_list(q))
    }

    /// `EXPLAIN QUERY PLAN` of [`Store::history`] for `q` (one line per step).
    pub fn explain_history(&self, q: &HistoryQuery) -> StoreResult<Vec<String>> {
        let conn = self.lock();
        if let Some(search) = call_search(&conn, q)? {
            return search.explain(&conn);
        }
        explain(&conn, history_list(q))
    }

    /// `EXPLAIN QUERY PLAN` of [`Store::elicitation_page`] for `q`.
    pub fn explain_elicitations(&self, q: &ElicitationQuery) -> StoreResult<Vec<String>> {
        explain(&self.lock(), elicitation_list(q))
    }
}

#[cfg(test)]
mod tests {
    use super::like_pattern;

    #[test]
    fn like_pattern_escapes_wildcards() {
        assert_eq!(like_pattern("50%_a\\"), "%50\\%\\_a\\\\%");
    }
}
