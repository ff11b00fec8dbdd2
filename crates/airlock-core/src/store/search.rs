//! Search at a million rows (issue 15), for terms of any length and with
//! any filter: the tool-call history through `tool_calls_search`
//! (migration 0014), the audit trail through `audit_events_search` (0015).
//!
//! The index proposes rows (newest id first); each is then checked with
//! LIKE and the filters, so the matches are exactly a scan's: the search
//! term a case-insensitive substring of a searched column, `%` and `_`
//! plain text. The page is the newest matches in the list's order, time
//! then id, like the list without a search: ids and times differ a little
//! (a call is recorded when it ends), and `<table>_order` /
//! `<table>_marks` bound how much, so the walk in id order knows when no
//! older id can still make the page.
//!
//! Which index tokens to ask for: every token of the term and filters
//! narrows the rows proposed, but a common one costs a walk through a
//! long list. A count of each over the newest ids of the range keeps the
//! rare ones (or all, when none is rare).

use rusqlite::{
    functions::FunctionFlags, params_from_iter, types::Value, Connection, OptionalExtension, Row,
};

use super::where_clause::{like_pattern, Filter};
use super::{StoreResult, MAX_PAGE};

/// After each character in the text of 1- and 2-character tokens.
const GRAM: char = '\u{1}';
/// Starts a filter token.
const FACET: char = '\u{2}';
/// Ids sampled to tell rare tokens from common ones.
const SAMPLE_IDS: i64 = 2048;
/// A token on more than this share of the sampled ids is common.
const COMMON_SHARE: i64 = 4;

/// Register the SQL functions that make the indexed text of a row (every
/// connection that writes history needs them: the triggers of migrations
/// 0014 and 0015 call them): `airlock_search_text(tool, arguments, result,
/// error, outcome, server, client)` ([`search_text`]) and
/// `airlock_audit_text(server, kind, detail, client)` ([`audit_text`]).
pub(super) fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("airlock_search_text", 7, flags, |ctx| {
        let text = |i| ctx.get::<Option<String>>(i);
        Ok(search_text(
            &[text(0)?, text(1)?, text(2)?, text(3)?],
            text(4)?.as_deref().unwrap_or(""),
            text(5)?.as_deref().unwrap_or(""),
            text(6)?.as_deref(),
        ))
    })?;
    conn.create_scalar_function("airlock_audit_text", 4, flags, |ctx| {
        let text = |i| ctx.get::<Option<String>>(i);
        Ok(audit_text(
            text(0)?.as_deref(),
            text(1)?.as_deref().unwrap_or(""),
            text(2)?.as_deref().unwrap_or(""),
            text(3)?.as_deref(),
        ))
    })
}

/// What `tool_calls_search` indexes for a call (its searched columns, then
/// outcome, server and app). See [`indexed_text`].
pub fn search_text(
    columns: &[Option<String>],
    outcome: &str,
    server: &str,
    app: Option<&str>,
) -> String {
    let columns: Vec<&str> = columns.iter().flatten().map(String::as_str).collect();
    let facets = [
        outcome_facet(outcome),
        facet('s', Some(server)),
        facet('c', app),
    ];
    indexed_text(&columns, &facets)
}

/// What `audit_events_search` indexes for an event: its server, kind and
/// detail, then one token each for the server, kind and app (the stored detail's
/// `client`). See [`indexed_text`].
pub fn audit_text(server: Option<&str>, kind: &str, detail: &str, app: Option<&str>) -> String {
    let columns: Vec<&str> = server.into_iter().chain([kind, detail]).collect();
    let facets = [facet('s', server), facet('k', Some(kind)), facet('c', app)];
    indexed_text(&columns, &facets)
}

/// The searched columns as they are (trigrams: terms of 3+ characters),
/// again with [`GRAM`] after each character (trigrams `\1a\1` and `a\1b`:
/// terms of 1 or 2), then the filter tokens. Changing it needs a migration
/// that indexes every row again.
fn indexed_text(columns: &[&str], facets: &[String]) -> String {
    let size: usize = columns.iter().map(|c| c.len() * 3 + 8).sum();
    let mut out = String::with_capacity(size + 16);
    for c in columns {
        out.push_str(c);
        out.push_str("\u{1}\u{1}");
    }
    for c in columns {
        out.push(GRAM);
        for ch in c.chars() {
            out.push(ch);
            out.push(GRAM);
        }
        out.push(GRAM);
    }
    for f in facets {
        out.push_str(f);
    }
    out.push(FACET);
    out
}

/// The filter token of an outcome.
pub(super) fn outcome_facet(outcome: &str) -> String {
    let code = match outcome {
        "ok" => '0',
        "tool_error" => '1',
        _ => '2',
    };
    format!("{FACET}o{code}")
}

/// The filter token of a name (`kind`: `s` server, `k` kind of event, `c`
/// app; `None`: no server, Airlock itself).
pub(super) fn facet(kind: char, name: Option<&str>) -> String {
    format!("{FACET}{kind}{}", name.map_or('-', code_char))
}

/// One of 4,096 characters for a name (FNV-1a): names that share one share
/// a token, and the row check tells them apart.
fn code_char(name: &str) -> char {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    char::from_u32(0x4E00 + h % 4096).unwrap_or('\u{4E00}')
}

/// Most trigrams of a long term asked of the index (evenly spread, the
/// last included): the row check keeps the answer exact.
const MAX_TERM_TRIGRAMS: usize = 8;

/// Index tokens that every row holding `term` has.
fn term_tokens(term: &str) -> Vec<String> {
    let chars: Vec<char> = term.chars().collect();
    let mut out: Vec<String> = match chars.as_slice() {
        [a] => vec![format!("{GRAM}{a}{GRAM}")],
        [a, b] => vec![format!("{a}{GRAM}{b}")],
        _ => {
            let all: Vec<String> = chars.windows(3).map(|w| w.iter().collect()).collect();
            let step = all.len().div_ceil(MAX_TERM_TRIGRAMS);
            let mut picked: Vec<String> = all.iter().step_by(step).cloned().collect();
            picked.extend(all.last().cloned());
            picked
        }
    };
    out.sort();
    out.dedup();
    out
}

fn quoted(token: &str) -> String {
    format!("\"{}\"", token.replace('"', "\"\""))
}

/// A list searched through its index: `<table>_search`, `<table>_order`,
/// `<table>_marks` (migrations 0014, 0015).
pub(super) struct Index {
    pub(super) table: &'static str,
    /// The list's time column (then id: the list's order).
    pub(super) time: &'static str,
    /// The columns a row reads, of the table aliased `t`.
    pub(super) columns: &'static str,
    /// The searched columns.
    pub(super) searched: &'static [&'static str],
}

/// The ids to walk: `[lo, hi]`.
#[derive(Debug, Clone, Copy)]
struct Ids {
    lo: i64,
    hi: i64,
}

impl Index {
    /// Highest id a row with a time before `t` (exclusive) can have.
    fn ids_before(&self, conn: &Connection, t: i64) -> StoreResult<i64> {
        let table = self.table;
        let lateness: Value = conn
            .prepare_cached(&format!("SELECT lateness FROM {table}_order"))?
            .query_row([], |r| r.get(0))?;
        let lateness = match lateness {
            Value::Integer(n) => n,
            _ => i64::MAX,
        };
        // Rows after the first mark at or past t + lateness have a time at or after t.
        let mark: Option<i64> = conn
            .prepare_cached(&format!(
                "SELECT id FROM {table}_marks WHERE hw >= ?1 ORDER BY hw, id LIMIT 1"
            ))?
            .query_row([t.saturating_add(lateness)], |r| r.get(0))
            .optional()?;
        Ok(mark.unwrap_or(i64::MAX))
    }

    /// Highest id whose row (and every row with a lower id) has a time
    /// before `t`; `None`: no such mark.
    fn ids_all_before(&self, conn: &Connection, t: i64) -> StoreResult<Option<i64>> {
        Ok(conn
            .prepare_cached(&format!(
                "SELECT id FROM {}_marks WHERE hw < ?1 ORDER BY hw DESC, id DESC LIMIT 1",
                self.table
            ))?
            .query_row([t], |r| r.get(0))
            .optional()?)
    }
}

/// What a search asks besides its term.
pub(super) struct Ask<'a> {
    /// Exact conditions on `t` and their arguments (the filters).
    pub(super) filter: Filter,
    /// The index tokens of the filters.
    pub(super) facets: Vec<String>,
    pub(super) since: Option<i64>,
    pub(super) until: Option<i64>,
    pub(super) before_id: Option<i64>,
    pub(super) limit: u32,
    pub(super) term: &'a str,
}

/// One search of a list, planned.
pub(super) struct Search<'i> {
    index: &'i Index,
    /// Exact conditions on `t` (filters, page keyset, LIKE) and their args.
    check: Filter,
    ids: Ids,
    /// Every index token of the term and the filters.
    tokens: Vec<String>,
    fetch: usize,
}

impl<'i> Search<'i> {
    pub(super) fn new(conn: &Connection, index: &'i Index, ask: Ask<'_>) -> StoreResult<Self> {
        let Ask {
            mut filter,
            since,
            until,
            before_id,
            term,
            ..
        } = ask;
        let time = index.time;
        let mut ids = Ids {
            lo: i64::MIN,
            hi: i64::MAX,
        };
        if let Some(since) = since {
            if let Some(mark) = index.ids_all_before(conn, since)? {
                ids.lo = mark + 1;
            }
        }
        if let Some(until) = until {
            ids.hi = ids.hi.min(index.ids_before(conn, until)?);
        }
        if let Some(before) = before_id {
            let at: Option<i64> = conn
                .prepare_cached(&format!("SELECT {time} FROM {} WHERE id = ?1", index.table))?
                .query_row([before], |r| r.get(0))
                .optional()?;
            match at {
                Some(at) => {
                    filter.push(
                        &format!("(t.{time} < ? OR (t.{time} = ? AND t.id < ?))"),
                        [
                            Value::Integer(at),
                            Value::Integer(at),
                            Value::Integer(before),
                        ],
                    );
                    ids.hi = ids.hi.min(index.ids_before(conn, at.saturating_add(1))?);
                }
                // The row is gone (pruned): older ids are the best guess.
                None => ids.hi = ids.hi.min(before.saturating_sub(1)),
            }
        }
        let any = index
            .searched
            .iter()
            .map(|c| format!("IFNULL(t.{c}, '') LIKE ? ESCAPE '\\'"))
            .collect::<Vec<_>>()
            .join(" OR ");
        filter.push(
            &format!("({any})"),
            std::iter::repeat_n(Value::Text(like_pattern(term)), index.searched.len()),
        );
        let mut tokens = term_tokens(term);
        tokens.extend(ask.facets);
        Ok(Self {
            index,
            check: filter,
            ids,
            tokens,
            fetch: ask.limit.clamp(1, MAX_PAGE) as usize + 1,
        })
    }

    /// The tokens to ask the index for: the rare ones, or all when none is.
    fn pick_tokens(&self, conn: &Connection) -> StoreResult<Vec<String>> {
        if self.tokens.len() < 2 {
            return Ok(self.tokens.clone());
        }
        let table = self.index.table;
        let top: Option<i64> =
            conn.query_row(&format!("SELECT max(id) FROM {table}"), [], |r| r.get(0))?;
        let top = top.unwrap_or(0).min(self.ids.hi);
        let from = top.saturating_sub(SAMPLE_IDS - 1).max(self.ids.lo);
        if top < from {
            return Ok(self.tokens.clone());
        }
        let counts = (0..self.tokens.len())
            .map(|i| {
                format!(
                    "(SELECT count(*) FROM {table}_search WHERE {table}_search MATCH ?{} AND rowid BETWEEN ?1 AND ?2)",
                    i + 3
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut args = vec![Value::Integer(from), Value::Integer(top)];
        args.extend(self.tokens.iter().map(|t| Value::Text(quoted(t))));
        let mut stmt = conn.prepare_cached(&format!("SELECT {counts}"))?;
        let counts: Vec<i64> = stmt.query_row(params_from_iter(args), |r| {
            (0..self.tokens.len()).map(|i| r.get(i)).collect()
        })?;
        let common = (top - from + 1) / COMMON_SHARE;
        let rare: Vec<String> = self
            .tokens
            .iter()
            .zip(&counts)
            .filter(|(_, n)| **n <= common)
            .map(|(t, _)| t.clone())
            .collect();
        Ok(if rare.is_empty() {
            self.tokens.clone()
        } else {
            rare
        })
    }

    /// The statement that walks `ids` newest first, and its arguments.
    fn walk(&self, tokens: &[String], ids: Ids, limit: Option<usize>) -> (String, Vec<Value>) {
        let Index { table, columns, .. } = self.index;
        let matched = tokens
            .iter()
            .map(|t| quoted(t))
            .collect::<Vec<_>>()
            .join(" AND ");
        let mut args = vec![
            Value::Text(matched),
            Value::Integer(ids.lo),
            Value::Integer(ids.hi),
        ];
        args.extend(self.check.args.iter().cloned());
        let limit = match limit {
            Some(n) => {
                args.push(Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)));
                " LIMIT ?"
            }
            None => "",
        };
        let sql = format!(
            "SELECT {columns} FROM {table}_search CROSS JOIN {table} t ON t.id = {table}_search.rowid
             WHERE {table}_search MATCH ? AND {table}_search.rowid BETWEEN ? AND ?{}
             ORDER BY {table}_search.rowid DESC{limit}",
            self.check.sql
        );
        (sql, args)
    }

    /// The page: up to `fetch` matches (the page and one more), newest
    /// first; `key` is a row's (time, id).
    pub(super) fn run<T>(
        &self,
        conn: &Connection,
        row: fn(&Row<'_>) -> rusqlite::Result<T>,
        key: fn(&T) -> (i64, i64),
    ) -> StoreResult<Vec<T>> {
        if self.ids.lo > self.ids.hi {
            return Ok(Vec::new());
        }
        let tokens = self.pick_tokens(conn)?;
        let query = |ids: Ids, limit: Option<usize>| -> StoreResult<Vec<T>> {
            let (sql, args) = self.walk(&tokens, ids, limit);
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(args), row)?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        };
        let newest_first = |a: &T, b: &T| key(b).cmp(&key(a));
        // The first `fetch` matches by id ...
        let mut page = query(self.ids, Some(self.fetch))?;
        page.sort_by(newest_first);
        if page.len() == self.fetch {
            // ... and those with lower ids that may still have a later
            // time than the last of them: down to the mark before which
            // every row has an earlier time.
            let (last_time, _) = key(&page[self.fetch - 1]);
            let lowest = page.iter().map(|r| key(r).1).min().unwrap_or(self.ids.lo);
            let floor = self
                .index
                .ids_all_before(conn, last_time)?
                .map_or(self.ids.lo, |m| m + 1);
            let rest = Ids {
                lo: floor.max(self.ids.lo),
                hi: lowest - 1,
            };
            if rest.lo <= rest.hi {
                page.extend(query(rest, None)?);
                page.sort_by(newest_first);
                page.truncate(self.fetch);
            }
        }
        Ok(page)
    }

    /// `EXPLAIN QUERY PLAN` of the walk, then what it asks the index for.
    pub(super) fn explain(&self, conn: &Connection) -> StoreResult<Vec<String>> {
        let tokens = self.pick_tokens(conn)?;
        let (sql, args) = self.walk(&tokens, self.ids, Some(self.fetch));
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let rows = stmt.query_map(params_from_iter(args), |r| r.get::<_, String>(3))?;
        let mut plan: Vec<String> = rows.collect::<Result<_, _>>()?;
        let shown = |v: i64| match v {
            i64::MIN | i64::MAX => "-".to_owned(),
            v => v.to_string(),
        };
        plan.push(format!(
            "index tokens: {} of {}; ids {}..{}",
            tokens.len(),
            self.tokens.len(),
            shown(self.ids.lo),
            shown(self.ids.hi)
        ));
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_terms_have_one_token_and_longer_ones_their_trigrams() {
        assert_eq!(term_tokens("é"), ["\u{1}é\u{1}"]);
        assert_eq!(term_tokens("中文"), ["中\u{1}文"]);
        assert_eq!(term_tokens("abab"), ["aba", "bab"]);
    }

    /// The text of each row holds the tokens of each of its substrings.
    #[test]
    fn every_substring_of_a_column_has_its_tokens_in_the_text() {
        let cols = [
            Some("Tool".to_owned()),
            Some("{\"a\":\"é中\"}".to_owned()),
            None,
            Some("x".to_owned()),
        ];
        let text = search_text(&cols, "failed", "git", None);
        let windows: std::collections::HashSet<String> = {
            let chars: Vec<char> = text.chars().collect();
            chars.windows(3).map(|w| w.iter().collect()).collect()
        };
        for col in cols.iter().flatten() {
            let chars: Vec<char> = col.chars().collect();
            for len in 1..=chars.len() {
                for sub in chars.windows(len) {
                    let term: String = sub.iter().collect();
                    for t in term_tokens(&term) {
                        assert!(windows.contains(&t), "{term:?}: {t:?}");
                    }
                }
            }
        }
        for t in [
            outcome_facet("failed"),
            facet('s', Some("git")),
            facet('c', None),
        ] {
            assert!(windows.contains(&t), "{t:?}");
        }
    }

    /// The indexed text must not change without a migration that indexes
    /// every row again (tool_calls_search would hold stale tokens).
    #[test]
    fn the_indexed_text_is_stable() {
        let text = search_text(&[Some("ab".into()), None, None, None], "ok", "s", Some("c"));
        assert_eq!(
            text,
            "ab\u{1}\u{1}\u{1}a\u{1}b\u{1}\u{1}\u{2}o0\u{2}s\u{5382}\u{2}c\u{5a52}\u{2}"
        );
    }
}
