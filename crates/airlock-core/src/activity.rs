//! The activity overview (issue 13): requests per day by outcome, the
//! domains servers sent the user to, and which apps and servers ask most.
//! Every figure is an aggregate computed in SQLite over a bounded window
//! (at most [`MAX_DAYS`] days, top [`MAX_TOP`] rows), each query on an index
//! that covers it (see `Store::explain_activity`), so it stays fast at a
//! million rows.
//!
//! ```ignore
//! let o = airlock.activity(&ActivityQuery { days: 14, tz_offset_min: 60, top: 5 })?;
//! for d in &o.elicitations_by_day { println!("{} {} opened", d.day_start_ms, d.allowed) }
//! ```
//!
//! Apps are ranked twice: by their tool calls through the gateway, and by
//! the requests (elicitations) those calls raised.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::CoreResult;

/// The widest window, in days.
pub const MAX_DAYS: u32 = 90;
/// At most this many domains, apps and servers.
pub const MAX_TOP: u32 = 20;
const DAY_MS: i64 = 86_400_000;

/// What to aggregate.
#[derive(Debug, Clone, Copy, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ActivityQuery {
    /// The last this many days, today included (1 to [`MAX_DAYS`]).
    pub days: u32,
    /// Local time minus UTC, in minutes (days start at local midnight).
    pub tz_offset_min: i32,
    /// The longest top lists (1 to [`MAX_TOP`]).
    pub top: u32,
}

/// One day's elicitations (URL requests, forms, sign-ins) by how they ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ElicitationDay {
    /// When the day starts (local midnight), in ms since the epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub day_start_ms: i64,
    /// Accepted, opened, completed or continued.
    pub allowed: u32,
    /// Declined or cancelled by the user.
    pub declined: u32,
    /// Blocked, rate limited or not showable: the user was not asked.
    pub blocked: u32,
    /// Still waiting, or ended without an answer (expired, lost, withdrawn
    /// by the server, failed).
    pub other: u32,
}

/// One day's tool calls by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CallDay {
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub day_start_ms: i64,
    pub ok: u32,
    pub tool_error: u32,
    pub failed: u32,
}

/// A domain servers sent the user to (all time: kept when history is pruned).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DomainCount {
    pub domain: String,
    pub times: u32,
    /// How many servers sent the user there.
    pub servers: u32,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub first_at: i64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub last_at: i64,
}

/// An app or a server and how often it asked in the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NameCount {
    pub name: String,
    pub count: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ActivityOverview {
    /// The window's first day starts here.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub since_ms: i64,
    /// One entry per day of the window, oldest first (empty days included).
    pub elicitations_by_day: Vec<ElicitationDay>,
    pub calls_by_day: Vec<CallDay>,
    /// Most opened domains first.
    pub domains: Vec<DomainCount>,
    /// Apps (gateway apps) with the most tool calls in the window.
    pub apps: Vec<NameCount>,
    /// Apps whose calls raised the most requests (elicitations) in the window.
    pub app_requests: Vec<NameCount>,
    /// Servers with the most elicitations in the window.
    pub servers: Vec<NameCount>,
}

impl ActivityQuery {
    fn bounded(self) -> Self {
        Self {
            days: self.days.clamp(1, MAX_DAYS),
            // Real offsets are within -12 h .. +14 h.
            tz_offset_min: self.tz_offset_min.clamp(-16 * 60, 16 * 60),
            top: self.top.clamp(1, MAX_TOP),
        }
    }

    /// (offset ms, first day number, start of the window in ms).
    fn window(self, now_ms: i64) -> (i64, i64, i64) {
        let off = i64::from(self.tz_offset_min) * 60_000;
        let today = (now_ms + off).div_euclid(DAY_MS);
        let first = today - i64::from(self.days) + 1;
        (off, first, first * DAY_MS - off)
    }
}

fn bucket(state: &str) -> usize {
    match state {
        "accepted" | "opened" | "completed" | "continued" => 0,
        "declined" | "cancelled" => 1,
        "blocked" | "rate_limited" | "invalid_schema" => 2,
        _ => 3,
    }
}

// Every figure is an index range COUNT (SQLite steps through the range, no
// sorting, no table reads), so older rows cost nothing and the window's
// rows are only counted: per day and state (or outcome), and per
// (app, server) or server found by seeking the next distinct key. At a
// million rows this is about ten times faster than GROUP BY over the
// window (see `airlock-bench activity`).
const STATES: [&str; 17] = [
    "requested",
    "blocked",
    "rate_limited",
    "invalid_schema",
    "declined",
    "cancelled",
    "accepted",
    "opened",
    "open_failed",
    "completed",
    "late",
    "continued",
    "expired",
    "connection_lost",
    "withdrawn",
    "failed",
    "interrupted",
];
const OUTCOMES: [&str; 3] = ["ok", "tool_error", "failed"];
const ELICITATIONS_IN: &str = "SELECT COUNT(*) FROM elicitations INDEXED BY elicitations_state
     WHERE state = ?1 AND created_at >= ?2 AND created_at < ?3";
const CALLS_IN: &str = "SELECT COUNT(*) FROM tool_calls INDEXED BY tool_calls_outcome
     WHERE outcome = ?1 AND started_at >= ?2 AND started_at < ?3";
const DOMAINS: &str =
    "SELECT domain, SUM(times), COUNT(*), MIN(first_at), MAX(last_at) FROM opened_domains
     GROUP BY domain ORDER BY SUM(times) DESC, domain LIMIT ?1";
const NEXT_CLIENT: &str = "SELECT client FROM tool_calls INDEXED BY tool_calls_client_server
     WHERE client > ?1 ORDER BY client LIMIT 1";
const NEXT_CLIENT_SERVER: &str =
    "SELECT server_name FROM tool_calls INDEXED BY tool_calls_client_server
     WHERE client = ?1 AND server_name > ?2 ORDER BY server_name LIMIT 1";
const CLIENT_SERVER_SINCE: &str =
    "SELECT COUNT(*) FROM tool_calls INDEXED BY tool_calls_client_server
     WHERE client = ?1 AND server_name = ?2 AND started_at >= ?3";
const NEXT_ASKING_CLIENT: &str = "SELECT client FROM elicitations INDEXED BY elicitations_client
     WHERE client > ?1 ORDER BY client LIMIT 1";
const ASKING_CLIENT_SINCE: &str = "SELECT COUNT(*) FROM elicitations INDEXED BY elicitations_client
     WHERE client = ?1 AND created_at >= ?2";
const NEXT_SERVER: &str = "SELECT server_name FROM elicitations INDEXED BY elicitations_server
     WHERE server_name > ?1 ORDER BY server_name LIMIT 1";
const SERVER_SINCE: &str = "SELECT COUNT(*) FROM elicitations INDEXED BY elicitations_server
     WHERE server_name = ?1 AND created_at >= ?2";
/// At most this many distinct (app, server) pairs or servers are counted.
const MAX_KEYS: usize = 2048;

fn count(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Per day (index into `starts`, which has one more entry: the end), the
/// COUNT of `sql` for each of `keys`.
fn per_day(
    conn: &Connection,
    sql: &str,
    keys: &[&str],
    starts: &[i64],
) -> rusqlite::Result<Vec<Vec<u32>>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut out = vec![vec![0; keys.len()]; starts.len().saturating_sub(1)];
    for (k, key) in keys.iter().enumerate() {
        for (d, w) in starts.windows(2).enumerate() {
            let n: i64 = stmt.query_row(params![key, w[0], w[1]], |r| r.get(0))?;
            out[d][k] = count(n);
        }
    }
    Ok(out)
}

/// Distinct values by index seeks: `next(after)` gives the next one.
fn distinct(
    mut next: impl FnMut(&str) -> rusqlite::Result<Option<String>>,
    budget: &mut usize,
) -> rusqlite::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut last = String::new();
    while *budget > 0 {
        match next(&last)? {
            Some(v) => {
                *budget -= 1;
                last.clone_from(&v);
                out.push(v);
            }
            None => break,
        }
    }
    Ok(out)
}

fn top(mut counts: Vec<NameCount>, n: u32) -> Vec<NameCount> {
    counts.retain(|c| c.count > 0);
    counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    counts.truncate(usize::try_from(n).unwrap_or(usize::MAX));
    counts
}

fn apps(conn: &Connection, since_ms: i64, n: u32) -> rusqlite::Result<Vec<NameCount>> {
    let mut budget = MAX_KEYS;
    let mut next_app = conn.prepare_cached(NEXT_CLIENT)?;
    let mut next_server = conn.prepare_cached(NEXT_CLIENT_SERVER)?;
    let mut since = conn.prepare_cached(CLIENT_SERVER_SINCE)?;
    let apps = distinct(
        |after| next_app.query_row(params![after], |r| r.get(0)).optional(),
        &mut budget,
    )?;
    let mut counts = Vec::new();
    for app in apps {
        let servers = distinct(
            |after| {
                next_server
                    .query_row(params![app, after], |r| r.get(0))
                    .optional()
            },
            &mut budget,
        )?;
        let mut total: u32 = 0;
        for server in servers {
            let c: i64 = since.query_row(params![app, server, since_ms], |r| r.get(0))?;
            total = total.saturating_add(count(c));
        }
        counts.push(NameCount {
            name: app,
            count: total,
        });
    }
    Ok(top(counts, n))
}

/// Names found by `next_sql` (index seeks), each with the COUNT of
/// `since_sql` from `since_ms` on; the top `n`.
fn ranked(
    conn: &Connection,
    next_sql: &str,
    since_sql: &str,
    since_ms: i64,
    n: u32,
) -> rusqlite::Result<Vec<NameCount>> {
    let mut budget = MAX_KEYS;
    let mut next = conn.prepare_cached(next_sql)?;
    let mut since = conn.prepare_cached(since_sql)?;
    let names = distinct(
        |after| next.query_row(params![after], |r| r.get(0)).optional(),
        &mut budget,
    )?;
    let mut counts = Vec::new();
    for name in names {
        let c: i64 = since.query_row(params![name, since_ms], |r| r.get(0))?;
        counts.push(NameCount {
            name,
            count: count(c),
        });
    }
    Ok(top(counts, n))
}

fn overview(
    conn: &Connection,
    q: ActivityQuery,
    now_ms: i64,
) -> rusqlite::Result<ActivityOverview> {
    let (off, first, since_ms) = q.window(now_ms);
    let starts: Vec<i64> = (0..=i64::from(q.days))
        .map(|i| (first + i) * DAY_MS - off)
        .collect();
    let by_state = per_day(conn, ELICITATIONS_IN, &STATES, &starts)?;
    let by_outcome = per_day(conn, CALLS_IN, &OUTCOMES, &starts)?;
    let elicitations_by_day = by_state
        .iter()
        .zip(&starts)
        .map(|(counts, start)| {
            let mut day = ElicitationDay {
                day_start_ms: *start,
                ..ElicitationDay::default()
            };
            for (state, n) in STATES.iter().zip(counts) {
                let slot = match bucket(state) {
                    0 => &mut day.allowed,
                    1 => &mut day.declined,
                    2 => &mut day.blocked,
                    _ => &mut day.other,
                };
                *slot = slot.saturating_add(*n);
            }
            day
        })
        .collect();
    let calls_by_day = by_outcome
        .iter()
        .zip(&starts)
        .map(|(c, start)| CallDay {
            day_start_ms: *start,
            ok: c[0],
            tool_error: c[1],
            failed: c[2],
        })
        .collect();
    let domains = conn
        .prepare_cached(DOMAINS)?
        .query_map(params![q.top], |r| {
            Ok(DomainCount {
                domain: r.get(0)?,
                times: count(r.get(1)?),
                servers: count(r.get(2)?),
                first_at: r.get(3)?,
                last_at: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(ActivityOverview {
        since_ms,
        elicitations_by_day,
        calls_by_day,
        domains,
        apps: apps(conn, since_ms, q.top)?,
        app_requests: ranked(
            conn,
            NEXT_ASKING_CLIENT,
            ASKING_CLIENT_SINCE,
            since_ms,
            q.top,
        )?,
        servers: ranked(conn, NEXT_SERVER, SERVER_SINCE, since_ms, q.top)?,
    })
}

impl crate::store::Store {
    /// The activity overview at `now_ms` (bounded: see [`ActivityQuery`]).
    pub fn activity(&self, q: &ActivityQuery, now_ms: i64) -> CoreResult<ActivityOverview> {
        let conn = self.lock();
        Ok(overview(&conn, q.bounded(), now_ms).map_err(crate::store::StoreError::from)?)
    }

    /// `EXPLAIN QUERY PLAN` of each of the overview's queries (for the bench).
    pub fn explain_activity(&self) -> CoreResult<Vec<String>> {
        let conn = self.lock();
        let mut out = Vec::new();
        for sql in [
            ELICITATIONS_IN,
            CALLS_IN,
            DOMAINS,
            NEXT_CLIENT,
            NEXT_CLIENT_SERVER,
            CLIENT_SERVER_SINCE,
            NEXT_ASKING_CLIENT,
            ASKING_CLIENT_SINCE,
            NEXT_SERVER,
            SERVER_SINCE,
        ] {
            let args: Vec<i64> = vec![0; sql.matches('?').count()];
            let plan = (|| -> rusqlite::Result<Vec<String>> {
                let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let rows =
                    stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))?;
                rows.collect()
            })()
            .map_err(crate::store::StoreError::from)?;
            let head: Vec<&str> = sql.split_whitespace().take(3).collect();
            out.push(format!("{}: {}", head.join(" "), plan.join(" / ")));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_and_outcome_is_counted() {
        let names: Vec<String> = crate::lifecycle::ALL_STATES
            .iter()
            .map(|s| {
                serde_json::to_value(s)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(names, STATES);
        use crate::store::ToolCallOutcome as O;
        assert_eq!([O::Ok, O::ToolError, O::Failed].map(O::as_str), OUTCOMES);
    }

    #[test]
    fn overview_counts_by_day_outcome_app_and_domain() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("a.sqlite3")).unwrap();
        let conn = store.lock();
        let now: i64 = 1_767_315_600_000;
        let old = now - 40 * DAY_MS;
        conn.execute_batch(&format!(
            "INSERT INTO tool_calls (server_name, tool, arguments_json, outcome, started_at, duration_ms, client) VALUES
               ('py', 'a', '{{}}', 'ok', {now}, 1, 'cursor'),
               ('py', 'a', '{{}}', 'failed', {now}, 1, 'cursor'),
               ('py', 'a', '{{}}', 'ok', {y}, 1, 'zed'),
               ('py', 'a', '{{}}', 'ok', {now}, 1, NULL),
               ('py', 'a', '{{}}', 'ok', {old}, 1, 'old-app');
             INSERT INTO elicitations (server_name, mode, origin, message, state, created_at, updated_at, client) VALUES
               ('gh', 'url', 'x', 'm', 'opened', {now}, {now}, 'zed'),
               ('gh', 'url', 'x', 'm', 'declined', {now}, {now}, NULL),
               ('py', 'url', 'x', 'm', 'blocked', {y}, {y}, 'zed'),
               ('py', 'url', 'x', 'm', 'requested', {old}, {old}, 'cursor');
             INSERT INTO opened_domains VALUES ('gh', 'github.com', 3, {old}, {now}),
               ('py', 'github.com', 1, {y}, {y}), ('py', 'example.com', 1, {now}, {now});",
            y = now - DAY_MS
        ))
        .unwrap();
        let q = ActivityQuery {
            days: 14,
            tz_offset_min: 0,
            top: 5,
        };
        let o = overview(&conn, q, now).unwrap();
        assert_eq!(o.elicitations_by_day.len(), 14);
        let today = o.elicitations_by_day.last().unwrap();
        assert_eq!(
            (today.allowed, today.declined, today.blocked, today.other),
            (1, 1, 0, 0)
        );
        assert_eq!(o.elicitations_by_day[12].blocked, 1);
        let calls_today = o.calls_by_day.last().unwrap();
        assert_eq!((calls_today.ok, calls_today.failed), (2, 1));
        let apps: Vec<(&str, u32)> = o.apps.iter().map(|a| (a.name.as_str(), a.count)).collect();
        assert_eq!(
            apps,
            [("cursor", 2), ("zed", 1)],
            "old-app is outside the window"
        );
        let asking: Vec<(&str, u32)> = o
            .app_requests
            .iter()
            .map(|a| (a.name.as_str(), a.count))
            .collect();
        assert_eq!(
            asking,
            [("zed", 2)],
            "Airlock's own request has no app; cursor's is outside the window"
        );
        let servers: Vec<(&str, u32)> = o
            .servers
            .iter()
            .map(|a| (a.name.as_str(), a.count))
            .collect();
        assert_eq!(servers, [("gh", 2), ("py", 1)]);
        assert_eq!(o.domains[0].domain, "github.com");
        assert_eq!(
            (
                o.domains[0].times,
                o.domains[0].servers,
                o.domains[0].first_at
            ),
            (4, 2, old)
        );
        let top1 = overview(&conn, ActivityQuery { top: 1, ..q }, now).unwrap();
        assert_eq!(top1.domains.len(), 1);
        drop(conn);
        let plans = store.explain_activity().unwrap();
        let asking = plans
            .iter()
            .filter(|p| p.contains("elicitations_client"))
            .count();
        assert_eq!(
            asking, 2,
            "both app-request queries seek the index: {plans:#?}"
        );
        // opened_domains has one row per (server, domain): scanned on purpose.
        assert!(
            plans
                .iter()
                .filter(|p| !p.contains("opened_domains"))
                .all(|p| !p.contains("SCAN")),
            "no query scans history: {plans:#?}"
        );
    }

    #[test]
    fn windows_start_at_local_midnight_and_are_bounded() {
        let q = ActivityQuery {
            days: 1000,
            tz_offset_min: 120,
            top: 0,
        }
        .bounded();
        assert_eq!((q.days, q.top), (MAX_DAYS, 1));
        // 2026-01-02 01:00 UTC is 03:00 at UTC+2: today started 2026-01-01 22:00 UTC.
        let now = 1_767_315_600_000;
        let q = ActivityQuery {
            days: 2,
            tz_offset_min: 120,
            top: 5,
        };
        let (_, _, since) = q.window(now);
        assert_eq!(since, 1_767_304_800_000 - DAY_MS);
    }
}
