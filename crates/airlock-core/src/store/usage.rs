//! The tools an app used most (issue 26: what a budgeted tools/list holds):
//! its newest [`MOST_USED_WINDOW`] calls, counted per tool, through the
//! covering index `tool_calls_client_tool` (migration 0017), so the cost
//! is the window's, whatever the history holds.

use rusqlite::params;
use serde::Serialize;

use super::{Store, StoreResult};

/// How many of an app's newest calls are counted.
pub const MOST_USED_WINDOW: u32 = 5_000;

/// One tool and how often an app called it lately.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolUse {
    pub server: String,
    /// Its own name on the server.
    pub tool: String,
    /// Calls among the app's newest [`MOST_USED_WINDOW`].
    pub calls: u32,
    /// When the newest of them started (ms).
    pub last_at: i64,
}

const MOST_USED: &str = "SELECT server_name, tool, count(*) AS calls, max(started_at) AS last_at
     FROM (SELECT server_name, tool, started_at FROM tool_calls INDEXED BY tool_calls_client_tool
           WHERE client = ?1 ORDER BY started_at DESC LIMIT ?2)
     GROUP BY server_name, tool
     ORDER BY calls DESC, last_at DESC, server_name, tool
     LIMIT ?3";

impl Store {
    /// The tools `app` called most among its newest
    /// [`MOST_USED_WINDOW`] calls (at most `limit`), most first; ties: the
    /// latest used first.
    pub fn most_used_tools(&self, app: &str, limit: u32) -> StoreResult<Vec<ToolUse>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(MOST_USED)?;
        let rows = stmt.query_map(params![app, MOST_USED_WINDOW, limit], |r| {
            Ok(ToolUse {
                server: r.get(0)?,
                tool: r.get(1)?,
                calls: r.get(2)?,
                last_at: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// `EXPLAIN QUERY PLAN` of [`Store::most_used_tools`] (for the bench).
    pub fn explain_most_used(&self, app: &str) -> StoreResult<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {MOST_USED}"))?;
        let rows = stmt.query_map(params![app, MOST_USED_WINDOW, 10], |r| {
            r.get::<_, String>(3)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{NewToolCall, ToolCallOutcome};

    fn call(app: Option<&str>, server: &str, tool: &str, at: i64) -> NewToolCall {
        NewToolCall {
            app: app.map(str::to_owned),
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments_json: "{}".to_owned(),
            result_json: None,
            outcome: ToolCallOutcome::Ok,
            error: None,
            started_at: at,
            duration_ms: 1,
        }
    }

    #[test]
    fn an_apps_tools_are_counted_over_its_newest_calls_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        // Long ago, the app used `old` more than anything: outside the window.
        let window = i64::from(MOST_USED_WINDOW);
        let mut calls: Vec<NewToolCall> = (0..window)
            .map(|i| call(Some("cursor"), "s", "old", i))
            .collect();
        calls.extend((0..window).map(|i| {
            let tool = match i % 10 {
                0..=5 => "often",
                6..=8 => "sometimes",
                _ => "rarely",
            };
            call(Some("cursor"), "s", tool, window + i)
        }));
        // Another app's and Airlock's own calls are not this app's.
        for i in 0..50 {
            calls.push(call(Some("other"), "s", "theirs", 3 * window + i));
            calls.push(call(None, "s", "airlocks", 3 * window + i));
        }
        store.record_tool_calls(&calls).unwrap();
        let used = store.most_used_tools("cursor", 10).unwrap();
        let names: Vec<&str> = used.iter().map(|u| u.tool.as_str()).collect();
        assert_eq!(names, ["often", "sometimes", "rarely"]);
        assert_eq!(
            used.iter().map(|u| u.calls).sum::<u32>(),
            MOST_USED_WINDOW,
            "exactly the window"
        );
        assert_eq!(store.most_used_tools("cursor", 1).unwrap().len(), 1);
        assert!(store.most_used_tools("nobody", 10).unwrap().is_empty());
        // Read from the index alone.
        let plan = store.explain_most_used("cursor").unwrap().join(" / ");
        assert!(
            plan.contains("COVERING INDEX tool_calls_client_tool"),
            "{plan}"
        );
    }
}
