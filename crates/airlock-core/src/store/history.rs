//! History of tool calls, elicitations and audit events: insert and paginated,
//! searchable queries.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use airlock_url_safety::Verdict;

use super::{Store, StoreResult};
use crate::lifecycle::{ElicitationState, Mode, Origin};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ToolCallOutcome {
    /// The server returned a result.
    Ok,
    /// The server returned a result flagged `isError`.
    ToolError,
    /// No result: transport, protocol or server error.
    Failed,
}

impl ToolCallOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::ToolError => "tool_error",
            Self::Failed => "failed",
        }
    }
    pub(super) fn parse(s: &str) -> Self {
        match s {
            "ok" => Self::Ok,
            "tool_error" => Self::ToolError,
            _ => Self::Failed,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ToolCallRecord {
    pub id: i64,
    pub server: String,
    pub tool: String,
    pub arguments: serde_json::Value,
    pub result: Option<serde_json::Value>,
    pub outcome: ToolCallOutcome,
    pub error: Option<String>,
    pub started_at: i64,
    pub duration_ms: i64,
    /// The app that made the call through the gateway; `None`: Airlock itself.
    pub app: Option<String>,
}

/// A page of the tool-call history to fetch (the window sends it as is).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "HistoryFilter"))]
pub struct HistoryQuery {
    pub server: Option<String>,
    /// Case-insensitive substring searched in tool name, arguments, result and error.
    pub search: Option<String>,
    pub outcome: Option<ToolCallOutcome>,
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    pub limit: u32,
    /// Return rows older than this id (keyset pagination, newest first).
    pub before_id: Option<i64>,
    /// Only calls made through the gateway by this app.
    #[serde(default)]
    pub app: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HistoryPage {
    pub calls: Vec<ToolCallRecord>,
    /// Pass as `before_id` to get the next page; `None` on the last page.
    pub next_before_id: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LogLine {
    pub at: i64,
    pub source: String,
    pub level: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AuditEvent {
    pub id: i64,
    pub at: i64,
    pub server: Option<String>,
    pub kind: String,
    pub detail: serde_json::Value,
}

/// One elicitation (or sign-in) as history keeps it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ElicitationRecord {
    pub id: i64,
    pub server: String,
    pub elicitation_id: Option<String>,
    pub mode: Mode,
    pub origin: Origin,
    pub message: String,
    pub url: Option<String>,
    pub registrable_domain: Option<String>,
    pub verdict: Option<Verdict>,
    pub warnings: Vec<String>,
    pub state: ElicitationState,
    pub created_at: i64,
    pub updated_at: i64,
    /// The app whose tool call raised it, through the gateway (an app
    /// name, or "one of: a, b" when several apps' calls were in flight);
    /// `None`: Airlock itself (the window, the CLI).
    pub app: Option<String>,
}

/// A tool call to record (owned: it may wait in the history writer's queue).
#[derive(Debug, Clone)]
pub struct NewToolCall {
    /// The app that made the call through the gateway; `None`: Airlock itself.
    pub app: Option<String>,
    pub server: String,
    pub tool: String,
    pub arguments_json: String,
    pub result_json: Option<String>,
    pub outcome: ToolCallOutcome,
    pub error: Option<String>,
    pub started_at: i64,
    pub duration_ms: i64,
}

/// What a new elicitation record holds (all server text already bounded
/// and neutralised by the broker).
#[derive(Debug, Clone)]
pub struct NewElicitation<'a> {
    pub server: &'a str,
    pub elicitation_id: Option<&'a str>,
    pub mode: Mode,
    pub origin: Origin,
    pub message: &'a str,
    pub url: Option<&'a str>,
    pub registrable_domain: Option<&'a str>,
    pub verdict: Option<Verdict>,
    pub warnings: Vec<String>,
    /// See [`ElicitationRecord::app`].
    pub app: Option<&'a str>,
}

fn verdict_of(code: &str) -> Option<Verdict> {
    [Verdict::Ok, Verdict::Warn, Verdict::Block]
        .into_iter()
        .find(|v| v.code() == code)
}

/// SQL for "the record is still open": a state that is not final for its mode.
fn open_clause() -> String {
    let words = |mode: Mode| {
        crate::lifecycle::ALL_STATES
            .iter()
            .filter(|s| !s.is_final(mode))
            .map(|s| format!("'{}'", s.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "(mode = 'url' AND state IN ({})) OR (mode = 'form' AND state IN ({}))",
        words(Mode::Url),
        words(Mode::Form)
    )
}

/// A stored word that is not one of ours: the database was edited by hand
/// or by a newer Airlock.
fn bad_word(column: usize, word: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        column,
        rusqlite::types::Type::Text,
        format!("unknown value {word:?}").into(),
    )
}

impl Store {
    /// [`Store::record_tool_call_for`] a call made in Airlock itself (no app).
    #[allow(clippy::too_many_arguments)]
    pub fn record_tool_call(
        &self,
        server: &str,
        tool: &str,
        arguments: &serde_json::Value,
        result: Option<&serde_json::Value>,
        outcome: ToolCallOutcome,
        error: Option<&str>,
        started_at: i64,
        duration_ms: i64,
    ) -> StoreResult<i64> {
        self.record_tool_call_for(
            None,
            server,
            tool,
            arguments,
            result,
            outcome,
            error,
            started_at,
            duration_ms,
        )
    }

    /// Record one tool call; `app` is the app that made it through the
    /// gateway (`None`: Airlock itself).
    #[allow(clippy::too_many_arguments)]
    pub fn record_tool_call_for(
        &self,
        app: Option<&str>,
        server: &str,
        tool: &str,
        arguments: &serde_json::Value,
        result: Option<&serde_json::Value>,
        outcome: ToolCallOutcome,
        error: Option<&str>,
        started_at: i64,
        duration_ms: i64,
    ) -> StoreResult<i64> {
        let call = NewToolCall {
            app: app.map(str::to_owned),
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments_json: arguments.to_string(),
            result_json: result.map(ToString::to_string),
            outcome,
            error: error.map(str::to_owned),
            started_at,
            duration_ms,
        };
        let conn = self.lock();
        insert_tool_call(&conn, &call)?;
        Ok(conn.last_insert_rowid())
    }

    /// Record several tool calls in one transaction (the history writer's
    /// batches): all land or none does.
    pub fn record_tool_calls(&self, calls: &[NewToolCall]) -> StoreResult<()> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        for c in calls {
            insert_tool_call(&tx, c)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Record a new elicitation in state `requested`; returns the row as stored.
    pub fn insert_elicitation(&self, new: &NewElicitation<'_>) -> StoreResult<ElicitationRecord> {
        let now = super::now_ms();
        let conn = self.lock();
        conn.execute(
            "INSERT INTO elicitations (server_name, elicitation_id, mode, origin, message, url, registrable_domain,
               verdict, warnings_json, state, created_at, updated_at, run_id, client)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13)",
            params![
                new.server,
                new.elicitation_id,
                new.mode.as_str(),
                new.origin.as_str(),
                new.message,
                new.url,
                new.registrable_domain,
                new.verdict.map(|v| v.code()),
                serde_json::to_string(&new.warnings).unwrap_or_else(|_| "[]".into()),
                ElicitationState::Requested.as_str(),
                now,
                self.run_id(),
                new.app,
            ],
        )?;
        Ok(ElicitationRecord {
            id: conn.last_insert_rowid(),
            server: new.server.to_owned(),
            elicitation_id: new.elicitation_id.map(str::to_owned),
            mode: new.mode,
            origin: new.origin,
            message: new.message.to_owned(),
            url: new.url.map(str::to_owned),
            registrable_domain: new.registrable_domain.map(str::to_owned),
            verdict: new.verdict,
            warnings: new.warnings.clone(),
            state: ElicitationState::Requested,
            created_at: now,
            updated_at: now,
            app: new.app.map(str::to_owned),
        })
    }

    /// The runs (processes) that left records open, with how many each.
    pub fn runs_with_open_records(&self) -> StoreResult<Vec<Option<String>>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT DISTINCT run_id FROM elicitations WHERE {}",
            open_clause()
        ))?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Mark the records left open by `run` (`None`: records from before
    /// runs were tracked) `interrupted`. Returns `(id, server)` of each.
    pub fn interrupt_open_records(&self, run: Option<&str>) -> StoreResult<Vec<(i64, String)>> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let clause = format!("({}) AND run_id IS ?1", open_clause());
        let ids: Vec<(i64, String)> = {
            let mut stmt = tx.prepare(&format!(
                "SELECT id, server_name FROM elicitations WHERE {clause}"
            ))?;
            let rows = stmt.query_map(params![run], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        tx.execute(
            &format!("UPDATE elicitations SET state = ?2, updated_at = ?3 WHERE {clause}"),
            params![run, ElicitationState::Interrupted.as_str(), super::now_ms()],
        )?;
        tx.commit()?;
        Ok(ids)
    }

    /// Move a record to `state` (the broker checked that the move is legal).
    pub fn set_elicitation_state(
        &self,
        id: i64,
        state: ElicitationState,
        at_ms: i64,
    ) -> StoreResult<()> {
        self.lock().execute(
            "UPDATE elicitations SET state = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, state.as_str(), at_ms],
        )?;
        Ok(())
    }

    pub fn elicitation(&self, id: i64) -> StoreResult<Option<ElicitationRecord>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {ELICITATION_COLUMNS} FROM elicitations WHERE id = ?1"
        ))?;
        let mut rows = stmt.query_map(params![id], elicitation_row)?;
        Ok(rows.next().transpose()?)
    }
}

/// The columns [`elicitation_row`] reads, in order.
pub(super) const ELICITATION_COLUMNS: &str =
    "id, server_name, elicitation_id, mode, origin, message, url, registrable_domain, verdict,
     warnings_json, state, created_at, updated_at, client";

pub(super) fn elicitation_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ElicitationRecord> {
    let warnings: String = r.get(9)?;
    let mode: String = r.get(3)?;
    let origin: String = r.get(4)?;
    let verdict: Option<String> = r.get(8)?;
    let state: String = r.get(10)?;
    Ok(ElicitationRecord {
        id: r.get(0)?,
        server: r.get(1)?,
        elicitation_id: r.get(2)?,
        mode: Mode::parse(&mode).ok_or_else(|| bad_word(3, &mode))?,
        origin: Origin::parse(&origin).ok_or_else(|| bad_word(4, &origin))?,
        message: r.get(5)?,
        url: r.get(6)?,
        registrable_domain: r.get(7)?,
        verdict: verdict.as_deref().and_then(verdict_of),
        warnings: serde_json::from_str(&warnings).unwrap_or_default(),
        state: ElicitationState::parse(&state).ok_or_else(|| bad_word(10, &state))?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
        app: r.get(13)?,
    })
}

/// The columns [`tool_call_row`] reads, in order (prefixed for joins).
pub(super) const TOOL_CALL_COLUMNS: &str =
    "t.id, t.server_name, t.tool, t.arguments_json, t.result_json, t.outcome, t.error, t.started_at, t.duration_ms, t.client";

pub(super) fn tool_call_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ToolCallRecord> {
    let arguments: String = r.get(3)?;
    let result: Option<String> = r.get(4)?;
    let outcome: String = r.get(5)?;
    Ok(ToolCallRecord {
        id: r.get(0)?,
        server: r.get(1)?,
        tool: r.get(2)?,
        arguments: serde_json::from_str(&arguments).unwrap_or(serde_json::Value::Null),
        result: result.and_then(|s| serde_json::from_str(&s).ok()),
        outcome: ToolCallOutcome::parse(&outcome),
        error: r.get(6)?,
        started_at: r.get(7)?,
        duration_ms: r.get(8)?,
        app: r.get(9)?,
    })
}

pub(super) fn audit_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AuditEvent> {
    let detail: String = r.get(4)?;
    Ok(AuditEvent {
        id: r.get(0)?,
        at: r.get(1)?,
        server: r.get(2)?,
        kind: r.get(3)?,
        detail: serde_json::from_str(&detail).unwrap_or(serde_json::Value::Null),
    })
}

/// One tool-call row (the statement is prepared once per connection).
fn insert_tool_call(conn: &rusqlite::Connection, c: &NewToolCall) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO tool_calls (server_name, tool, arguments_json, result_json, outcome, error, started_at, duration_ms, client)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        c.server,
        c.tool,
        c.arguments_json,
        c.result_json,
        c.outcome.as_str(),
        c.error,
        c.started_at,
        c.duration_ms,
        c.app
    ])?;
    Ok(())
}
