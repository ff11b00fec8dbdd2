//! Reads a stdio server's stderr into its bounded log, line by line, without
//! ever holding more than one bounded line in memory, at most as fast as
//! [`super::log_rate`] keeps lines.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::sync::broadcast;

use crate::events::CoreEvent;
use crate::secrets::Redactor;
use crate::secrets::MAX_SECRET_BYTES;
use crate::store::{Store, MAX_LOG_LINE_BYTES};

/// Bytes of one line held before masking: enough that any secret starting
/// inside the stored part is seen whole by the redactor, which runs before
/// the line is cut to `MAX_LOG_LINE_BYTES`.
const LINE_BUFFER_BYTES: usize = MAX_LOG_LINE_BYTES + MAX_SECRET_BYTES;

/// Last stderr lines kept in memory for error messages.
pub const STDERR_TAIL_LINES: usize = 5;

pub(super) fn spawn_reader(
    mut pipe: ChildStderr,
    server: String,
    store: Arc<Store>,
    events: broadcast::Sender<CoreEvent>,
    redactor: Arc<Redactor>,
    tail: Arc<Mutex<VecDeque<String>>>,
) {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        let mut line: Vec<u8> = Vec::new();
        let mut cut = false;
        let mut rate = super::log_rate::LogRate::default();
        let mut emit = |line: &mut Vec<u8>, cut: &mut bool| {
            let mut text = String::from_utf8_lossy(line)
                .trim_end_matches('\r')
                .to_owned();
            if *cut {
                text.push_str(" … [line cut]");
            }
            line.clear();
            *cut = false;
            let text = redactor.redact(&text);
            {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() >= STDERR_TAIL_LINES {
                    t.pop_front();
                }
                t.push_back(crate::store::truncate_text(&text, 300));
            }
            if let Some(dropped) = rate.admit() {
                let text = super::log_rate::with_dropped(&text, dropped);
                super::log_line(&store, &events, &redactor, &server, "stderr", "info", &text);
            }
        };
        loop {
            let n = match pipe.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for &b in &buf[..n] {
                if b == b'\n' {
                    emit(&mut line, &mut cut);
                } else if line.len() < LINE_BUFFER_BYTES {
                    line.push(b);
                } else {
                    cut = true;
                }
            }
        }
        if !line.is_empty() || cut {
            emit(&mut line, &mut cut);
        }
    });
}
