//! What the shells read back: tool-call history, elicitations, the audit
//! trail and server logs, and retention. Shells go through these, not the
//! store.

use crate::store::{AuditEvent, ElicitationRecord, HistoryPage, HistoryQuery, LogLine};
use crate::{Airlock, CoreResult};

impl Airlock {
    /// One page of tool calls, newest first (keyset pagination, filters).
    pub fn history(&self, query: &HistoryQuery) -> CoreResult<HistoryPage> {
        Ok(self.store.history(query)?)
    }

    /// The newest elicitations (and sign-ins), optionally of one server.
    pub fn elicitations(
        &self,
        server: Option<&str>,
        limit: u32,
    ) -> CoreResult<Vec<ElicitationRecord>> {
        Ok(self.store.elicitations(server, limit)?)
    }

    /// One elicitation record.
    pub fn elicitation(&self, id: i64) -> CoreResult<Option<ElicitationRecord>> {
        Ok(self.store.elicitation(id)?)
    }

    /// The newest audit events, optionally of one server.
    pub fn audit_events(&self, server: Option<&str>, limit: u32) -> CoreResult<Vec<AuditEvent>> {
        Ok(self.store.audit_events(server, limit)?)
    }

    /// The newest log lines of a server.
    pub fn logs(&self, server: &str, limit: u32) -> CoreResult<Vec<LogLine>> {
        Ok(self.store.logs(server, limit)?)
    }

    /// Forget history older than `days` days (0 keeps everything). Returns
    /// the rows removed.
    pub fn prune_history(&self, days: u32) -> CoreResult<usize> {
        if days == 0 {
            return Ok(0);
        }
        let cutoff = crate::store::now_ms() - i64::from(days) * 86_400_000;
        Ok(self.store.prune_history(cutoff)?)
    }
}

/// A tool call in progress: dropped while `armed` (its caller cancelled
/// it, or went away, so the call was dropped at the server too), it records
/// the call as failed, "cancelled by the caller".
pub(crate) struct Unfinished {
    pub(crate) store: std::sync::Arc<crate::store::Store>,
    pub(crate) client: Option<String>,
    pub(crate) server: String,
    pub(crate) tool: String,
    pub(crate) arguments: serde_json::Value,
    pub(crate) started_at: i64,
    pub(crate) t0: std::time::Instant,
    pub(crate) armed: bool,
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let duration_ms = i64::try_from(self.t0.elapsed().as_millis()).unwrap_or(i64::MAX);
        let _ = self.store.record_tool_call_for(
            self.client.as_deref(),
            &self.server,
            &self.tool,
            &self.arguments,
            None,
            crate::store::ToolCallOutcome::Failed,
            Some("cancelled by the caller before it finished"),
            self.started_at,
            duration_ms,
        );
    }
}
