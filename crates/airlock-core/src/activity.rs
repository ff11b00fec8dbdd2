//! The activity overview (issue 13): requests per day by outcome, the
//! domains servers sent the user to, and which apps and servers ask most.
//! Every figure is an aggregate computed in SQLite over a bounded window
//! (at most [`MAX_DAYS`] days, top [`MAX_TOP`] rows), each query on an index
//! that covers it (see [`Airlock::explain_activity`]), so it stays fast at a
//! million rows.
//!
//! ```ignore
//! let o = airlock.activity(&ActivityQuery { days: 14, tz_offset_min: 60, top: 5 })?;
//! for d in &o.elicitations_by_day { println!("{} {} opened", d.day_start_ms, d.allowed) }
//! ```
//!
//! Elicitations are counted by server (the `elicitations` table has no
//! client column on this branch); apps are ranked by their tool calls.

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::{Airlock, CoreResult};

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
    /// Still waiting, or ended without an answer (expired, lost, failed).
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
    /// Apps (gateway clients) with the most tool calls in the window.
    pub apps: Vec<NameCount>,
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

const ELICITATIONS_BY_DAY: &str =
    "SELECT (created_at + ?1) / 86400000 AS d, state, COUNT(*) FROM elicitations INDEXED BY elicitations_state
     WHERE created_at >= ?2 GROUP BY d, state";
const CALLS_BY_DAY: &str =
    "SELECT (started_at + ?1) / 86400000 AS d, outcome, COUNT(*) FROM tool_calls INDEXED BY tool_calls_outcome
     WHERE started_at >= ?2 GROUP BY d, outcome";
const DOMAINS: &str =
    "SELECT domain, SUM(times), COUNT(*), MIN(first_at), MAX(last_at) FROM opened_domains
     GROUP BY domain ORDER BY SUM(times) DESC, domain LIMIT ?1";
const APPS: &str = "SELECT client, COUNT(*) AS n FROM tool_calls INDEXED BY tool_calls_client_server
     WHERE client IS NOT NULL AND started_at >= ?1 GROUP BY client ORDER BY n DESC, client LIMIT ?2";
const SERVERS: &str =
    "SELECT server_name, COUNT(*) AS n FROM elicitations INDEXED BY elicitations_server
     WHERE created_at >= ?1 GROUP BY server_name ORDER BY n DESC, server_name LIMIT ?2";

fn count(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn overview(
    conn: &Connection,
    q: ActivityQuery,
    now_ms: i64,
) -> rusqlite::Result<ActivityOverview> {
    let (off, first, since_ms) = q.window(now_ms);
    let days = usize::try_from(q.days).unwrap_or(1);
    let index = |d: i64| usize::try_from(d - first).ok().filter(|i| *i < days);
    let mut elicitations: Vec<ElicitationDay> = (0..days)
        .map(|i| ElicitationDay {
            day_start_ms: (first + i as i64) * DAY_MS - off,
            ..ElicitationDay::default()
        })
        .collect();
    let mut stmt = conn.prepare_cached(ELICITATIONS_BY_DAY)?;
    let mut rows = stmt.query(params![off, since_ms])?;
    while let Some(r) = rows.next()? {
        let (d, state, n): (i64, String, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
        if let Some(day) = index(d).and_then(|i| elicitations.get_mut(i)) {
            let slot = match bucket(&state) {
                0 => &mut day.allowed,
                1 => &mut day.declined,
                2 => &mut day.blocked,
                _ => &mut day.other,
            };
            *slot = slot.saturating_add(count(n));
        }
    }
    let mut calls: Vec<CallDay> = elicitations
        .iter()
        .map(|e| CallDay {
            day_start_ms: e.day_start_ms,
            ..CallDay::default()
        })
        .collect();
    let mut stmt = conn.prepare_cached(CALLS_BY_DAY)?;
    let mut rows = stmt.query(params![off, since_ms])?;
    while let Some(r) = rows.next()? {
        let (d, outcome, n): (i64, String, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
        if let Some(day) = index(d).and_then(|i| calls.get_mut(i)) {
            let slot = match outcome.as_str() {
                "ok" => &mut day.ok,
                "tool_error" => &mut day.tool_error,
                _ => &mut day.failed,
            };
            *slot = slot.saturating_add(count(n));
        }
    }
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
    let name_count = |r: &rusqlite::Row<'_>| {
        Ok(NameCount {
            name: r.get(0)?,
            count: count(r.get(1)?),
        })
    };
    let apps = conn
        .prepare_cached(APPS)?
        .query_map(params![since_ms, q.top], name_count)?
        .collect::<Result<_, _>>()?;
    let servers = conn
        .prepare_cached(SERVERS)?
        .query_map(params![since_ms, q.top], name_count)?
        .collect::<Result<_, _>>()?;
    Ok(ActivityOverview {
        since_ms,
        elicitations_by_day: elicitations,
        calls_by_day: calls,
        domains,
        apps,
        servers,
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
        for sql in [ELICITATIONS_BY_DAY, CALLS_BY_DAY, DOMAINS, APPS, SERVERS] {
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

impl Airlock {
    /// The activity overview over the last `q.days` days (bounded).
    pub fn activity(&self, q: &ActivityQuery) -> CoreResult<ActivityOverview> {
        self.history.flush()?;
        self.store.activity(q, crate::store::now_ms())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
