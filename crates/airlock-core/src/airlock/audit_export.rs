//! The audit trail exported for a collector or a spreadsheet: JSON lines
//! (one event per line, as `airlock audit --json` gives them) or CSV (id,
//! time in UTC, server, kind, detail as JSON). Written page by page to any
//! writer, so an export of the whole trail holds one page in memory.
//!
//! A server chooses its name and much of the detail: in CSV a field that a
//! spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a
//! tab or a carriage return) is written with a leading `'`, and every field
//! is quoted.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::Airlock;
use crate::error::{CoreError, CoreResult};
use crate::store::{AuditEvent, AuditQuery, MAX_PAGE};

/// The formats of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Jsonl,
    Csv,
}

impl ExportFormat {
    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Csv => "csv",
        }
    }
}

/// Most events one export writes.
pub const MAX_EXPORT_EVENTS: u64 = 10_000_000;

impl Airlock {
    /// Write the events `filter` selects (its `limit` and `before_id` are
    /// ignored: all of them, newest first, at most [`MAX_EXPORT_EVENTS`]) to
    /// `out`; how many were written.
    pub fn export_audit(
        &self,
        filter: &AuditQuery,
        format: ExportFormat,
        out: &mut dyn Write,
    ) -> CoreResult<u64> {
        let io = |e: std::io::Error| CoreError::BadInput(format!("cannot write the export: {e}"));
        if format == ExportFormat::Csv {
            out.write_all(b"id,time_utc,server,kind,detail\r\n")
                .map_err(io)?;
        }
        let mut query = AuditQuery {
            limit: MAX_PAGE,
            before_id: None,
            ..filter.clone()
        };
        let mut written = 0u64;
        loop {
            let page = self.store.audit_page(&query)?;
            for e in &page.events {
                if written >= MAX_EXPORT_EVENTS {
                    return Ok(written);
                }
                match format {
                    ExportFormat::Jsonl => {
                        serde_json::to_writer(&mut *out, e).map_err(|e| io(e.into()))?;
                        out.write_all(b"\n").map_err(io)?;
                    }
                    ExportFormat::Csv => out.write_all(csv_row(e).as_bytes()).map_err(io)?,
                }
                written += 1;
            }
            match page.next_before_id {
                Some(id) => query.before_id = Some(id),
                None => break,
            }
        }
        out.flush().map_err(io)?;
        Ok(written)
    }
}

/// One CSV line (RFC 4180, CRLF).
fn csv_row(e: &AuditEvent) -> String {
    let fields = [
        e.id.to_string(),
        utc_time(e.at),
        e.server.clone().unwrap_or_default(),
        e.kind.clone(),
        e.detail.to_string(),
    ];
    let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
    let mut s = line.join(",");
    s.push_str("\r\n");
    s
}

/// A field quoted, its quotes doubled, a would-be formula defused.
pub(crate) fn csv_field(f: &str) -> String {
    let defused = if f.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{f}")
    } else {
        f.to_owned()
    };
    format!("\"{}\"", defused.replace('"', "\"\""))
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn utc_time(ms: i64) -> String {
    let date = crate::elicitation::view::utc_date(ms);
    let in_day = ms.rem_euclid(86_400_000);
    let (h, m, s, milli) = (
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    format!("{date}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_and_formulas_defused() {
        assert_eq!(csv_field("plain"), "\"plain\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(
            csv_field("=HYPERLINK(\"http://evil\")"),
            "\"'=HYPERLINK(\"\"http://evil\"\")\""
        );
        for f in ["+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert!(csv_field(f).starts_with("\"'"), "{f:?}");
        }
        assert_eq!(csv_field("a,b\nc"), "\"a,b\nc\"");
    }

    #[test]
    fn times_are_iso_utc() {
        assert_eq!(utc_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_time(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
    }
}
