//! Tool calls reach history off the call's critical path: a call hands its
//! record to a bounded queue and returns; a writer thread writes what has
//! piled up in one transaction. Nothing is lost on a clean exit
//! ([`HistoryWriter::close`], also on drop), and a reader in this process
//! sees every call that returned before it ([`HistoryWriter::flush`]); a
//! reader in another process asks the process that records to flush first
//! (the gateway host answers `airlock history` so).
//!
//! Under load (a record arriving within [`HISTORY_GATHER`] of the last
//! write) the writer gathers records for up to that long before writing
//! them in one transaction, and is not woken per record meanwhile: each
//! transaction rewrites the full-text index's pages, so one per call would
//! cost the host more than the call itself. A lone call is written at once.
//!
//! Memory is bounded: when [`HISTORY_QUEUE`] records wait, the caller
//! writes them itself (backpressure, never an unbounded queue).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{NewToolCall, Store, StoreResult};

/// Records that may wait for the writer; the call that finds the queue
/// full writes them itself.
pub const HISTORY_QUEUE: usize = 1024;
/// Most records written in one transaction.
pub const HISTORY_BATCH: usize = 256;
/// Longest a record waits for others under load before it is written.
pub const HISTORY_GATHER: Duration = Duration::from_millis(10);

#[derive(Default)]
struct Queue {
    pending: VecDeque<NewToolCall>,
    closed: bool,
    /// The writer sleeps until the first record: a record wakes it.
    idle: bool,
    /// Transactions written so far (for tests and the bench).
    batches: u64,
}

struct Shared {
    store: Arc<Store>,
    queue: Mutex<Queue>,
    wake: Condvar,
    /// Held while a batch taken from the queue is written, so batches land
    /// in the order the calls returned.
    writing: Mutex<()>,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Take up to `max` waiting records and write them (one transaction).
    fn write_some(&self, max: usize) -> StoreResult<usize> {
        let _order = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let batch: Vec<NewToolCall> = {
            let mut q = self.queue();
            let n = q.pending.len().min(max);
            q.pending.drain(..n).collect()
        };
        if !batch.is_empty() {
            let written = self.store.record_tool_calls(&batch);
            self.queue().batches += 1;
            written?;
        }
        Ok(batch.len())
    }

    fn run(&self) {
        let mut last_write: Option<Instant> = None;
        loop {
            {
                let mut q = self.queue();
                while q.pending.is_empty() && !q.closed {
                    q.idle = true;
                    q = self.wake.wait(q).unwrap_or_else(|e| e.into_inner());
                }
                q.idle = false;
                if q.pending.is_empty() && q.closed {
                    return;
                }
                // Busy: gather more records (up to a batch) before writing;
                // `record` wakes the writer only for a full batch or close.
                if last_write.is_some_and(|t| t.elapsed() < HISTORY_GATHER) {
                    let until = Instant::now() + HISTORY_GATHER;
                    while !q.closed && q.pending.len() < HISTORY_BATCH {
                        let left = until.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            break;
                        }
                        q = self
                            .wake
                            .wait_timeout(q, left)
                            .map_or_else(|e| e.into_inner().0, |r| r.0);
                    }
                }
            }
            // A write that fails (disk full, database locked for 5 s) drops
            // that batch: history is a record, not a reason to stop calls.
            let _ = self.write_some(HISTORY_BATCH);
            last_write = Some(Instant::now());
        }
    }
}

pub struct HistoryWriter {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl HistoryWriter {
    pub fn start(store: Arc<Store>) -> Self {
        let shared = Arc::new(Shared {
            store,
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            writing: Mutex::new(()),
        });
        let worker = shared.clone();
        let thread = std::thread::Builder::new()
            .name("airlock-history".into())
            .spawn(move || worker.run())
            .ok();
        if thread.is_none() {
            // No thread: every record is written by its call.
            shared.queue().closed = true;
        }
        Self {
            shared,
            thread: Mutex::new(thread),
        }
    }

    /// Queue one record. Written at once by the caller when the writer is
    /// closed or [`HISTORY_QUEUE`] records already wait.
    pub fn record(&self, call: NewToolCall) -> StoreResult<()> {
        let full = {
            let mut q = self.shared.queue();
            q.pending.push_back(call);
            if !q.closed && (q.idle || q.pending.len() == HISTORY_BATCH) {
                q.idle = false;
                self.shared.wake.notify_one();
            }
            q.closed || q.pending.len() >= HISTORY_QUEUE
        };
        if full {
            self.flush()?;
        }
        Ok(())
    }

    /// Write everything queued so far before returning.
    pub fn flush(&self) -> StoreResult<()> {
        while self.shared.write_some(usize::MAX)? > 0 {}
        Ok(())
    }

    /// Write everything queued and stop the writer thread; records that
    /// come later are written by their call. Safe to call twice.
    pub fn close(&self) {
        self.shared.queue().closed = true;
        self.shared.wake.notify_all();
        let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(t) = thread {
            let _ = t.join();
        }
        let _ = self.flush();
    }

    /// Records waiting now (for tests and the bench).
    pub fn waiting(&self) -> usize {
        self.shared.queue().pending.len()
    }

    /// Transactions written so far (for tests and the bench).
    pub fn batches(&self) -> u64 {
        self.shared.queue().batches
    }
}

impl Drop for HistoryWriter {
    fn drop(&mut self) {
        self.close();
    }
}
