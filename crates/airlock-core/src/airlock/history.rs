//! What the shells read back: tool-call history, elicitations, the audit
//! trail and server logs, and retention. Shells go through these, not the
//! store.

use crate::store::{
    AuditEvent, AuditPage, AuditQuery, ElicitationPage, ElicitationQuery, ElicitationRecord,
    HistoryPage, HistoryQuery, LogLine, ToolUse,
};
use crate::{Airlock, CoreResult};

impl Airlock {
    /// Write the tool calls still queued for history now, so that another
    /// process reading the database next sees every call that returned
    /// before this (the gateway host answers a reader's flush request so).
    pub fn flush_history(&self) -> CoreResult<()> {
        Ok(self.history.flush()?)
    }

    /// One page of tool calls, newest first (keyset pagination, filters).
    /// Calls that returned before this are in it (their records are written first).
    pub fn history(&self, query: &HistoryQuery) -> CoreResult<HistoryPage> {
        self.history.flush()?;
        Ok(self.store.history(query)?)
    }

    /// The tools the app `app` called most lately (at most `limit`),
    /// most first ([`crate::store::MOST_USED_WINDOW`] newest calls counted;
    /// calls still queued for history are not waited for).
    pub fn most_used_tools(&self, app: &str, limit: u32) -> CoreResult<Vec<ToolUse>> {
        Ok(self.store.most_used_tools(app, limit)?)
    }

    /// One page of elicitations (and sign-ins), newest first (keyset
    /// pagination, filters, search).
    pub fn elicitation_page(&self, query: &ElicitationQuery) -> CoreResult<ElicitationPage> {
        Ok(self.store.elicitation_page(query)?)
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

    /// One page of the audit trail, filtered, newest first (keyset).
    pub fn audit_page(&self, query: &AuditQuery) -> CoreResult<AuditPage> {
        Ok(self.store.audit_page(query)?)
    }

    /// The kinds of audit event on record, sorted (for a filter menu).
    pub fn audit_kinds(&self) -> CoreResult<Vec<String>> {
        Ok(self.store.audit_kinds()?)
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

/// A tool call in progress: dropped while it still holds its row (its caller cancelled
/// it, or went away, so the call was dropped at the server too), it records
/// the call as failed, "cancelled by the caller".
pub(crate) struct Unfinished<'a> {
    pub(crate) history: &'a crate::store::HistoryWriter,
    /// The row to write if dropped armed; `None` once the call ended.
    pub(crate) call: Option<crate::store::NewToolCall>,
    pub(crate) t0: std::time::Instant,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if let Some(mut call) = self.call.take() {
            call.duration_ms = i64::try_from(self.t0.elapsed().as_millis()).unwrap_or(i64::MAX);
            let _ = self.history.record(call);
        }
    }
}
