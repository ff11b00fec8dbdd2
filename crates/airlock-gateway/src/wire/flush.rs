//! History written before another process reads it.
//!
//! The host records tool calls off the call's path (airlock-core's history
//! writer): an app has its answer before the call's row is in the database.
//! A reader in another process (`airlock history`) asks the host that owns
//! the data dir's socket to write what is queued first ([`ask_host`]; the
//! `flush_history` hello of [`crate::wire::hello`]), bounded by a short deadline,
//! then reads. With no host there is nothing queued anywhere.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt};

use crate::session::shared::Gateway;
use crate::wire::hello::{self, Hello, Welcome, HELLO_VERSION};
use crate::wire::place;

/// Longest a reader waits for the host's answer, and the host for its
/// writer, before reading (or answering) anyway.
pub const FLUSH_TIMEOUT: Duration = Duration::from_secs(3);

/// What the host said.
#[derive(Debug, PartialEq, Eq)]
pub enum Flush {
    /// No host listens on this data dir: nothing is queued.
    NoHost,
    /// The host wrote every call that returned before the request.
    Written,
    /// A host answered otherwise (an older host, an error, no answer in
    /// time): the reader goes on with what is in the database.
    NotWritten(String),
}

/// Ask the host of `data_dir`, if one runs, to write the tool calls still
/// queued for history; waits at most `within`.
pub fn ask_host(data_dir: &Path, within: Duration) -> Flush {
    let mut stream = match place::connect(data_dir) {
        Ok(s) => s,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Flush::NoHost
        }
        Err(e) => return Flush::NotWritten(format!("cannot reach the host: {e}")),
    };
    let hello = Hello {
        airlock_gateway: HELLO_VERSION,
        app: None,
        handover: false,
        flush_history: true,
    };
    let asked = stream
        .set_read_timeout(Some(within))
        .and_then(|()| stream.set_write_timeout(Some(within)))
        .and_then(|()| stream.write_all(&hello::line(&hello)));
    if let Err(e) = asked {
        return Flush::NotWritten(format!("cannot ask the host: {e}"));
    }
    let mut line = Vec::new();
    let read = BufReader::new(&stream)
        .take(hello::MAX_HELLO_BYTES as u64)
        .read_until(b'\n', &mut line);
    if let Err(e) = read {
        return Flush::NotWritten(format!("no answer from the host: {e}"));
    }
    match serde_json::from_slice::<Welcome>(&line) {
        Ok(w) if w.ok && w.flushed => Flush::Written,
        Ok(w) => Flush::NotWritten(
            w.error
                .unwrap_or_else(|| "the host does not know this request".into()),
        ),
        Err(_) => Flush::NotWritten("an answer that is not Airlock's".into()),
    }
}

/// The host's side: write what is queued (off the async threads, bounded
/// by [`FLUSH_TIMEOUT`]), say so, and close.
pub(crate) async fn answer<W: AsyncWrite + Unpin>(gateway: &Gateway, write: &mut W) {
    let core = gateway.core.clone();
    let written = tokio::time::timeout(
        FLUSH_TIMEOUT,
        tokio::task::spawn_blocking(move || core.flush_history()),
    )
    .await;
    let answer = match written {
        Ok(Ok(Ok(()))) => Welcome::flushed(),
        Ok(Ok(Err(e))) => Welcome::refuse(format!("cannot write history: {e}")),
        Ok(Err(_)) => Welcome::refuse("cannot write history: the writer stopped"),
        Err(_) => Welcome::refuse(format!(
            "history was not written within {} s",
            FLUSH_TIMEOUT.as_secs()
        )),
    };
    let _ = write.write_all(&hello::line(&answer)).await;
}
