//! Where the time of one core tool call goes: a minimal `tracing`
//! subscriber that keeps the wall time (creation to close) of the core's
//! `call.*` spans, printed as medians next to the whole call.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use airlock_core::Airlock;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

use crate::percentile;

#[derive(Default)]
struct Stages(Arc<Recorded>);

#[derive(Default)]
struct Recorded {
    next: AtomicU64,
    open: Mutex<HashMap<u64, (&'static str, Instant)>>,
    done: Mutex<HashMap<&'static str, Vec<f64>>>,
}

impl Subscriber for Stages {
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        m.is_span() && m.name().starts_with("call.")
    }
    fn new_span(&self, a: &Attributes<'_>) -> Id {
        let id = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        if let Ok(mut open) = self.0.open.lock() {
            open.insert(id, (a.metadata().name(), Instant::now()));
        }
        Id::from_u64(id)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
    fn try_close(&self, id: Id) -> bool {
        let closed = self
            .0
            .open
            .lock()
            .ok()
            .and_then(|mut o| o.remove(&id.into_u64()));
        if let (Some((name, t)), Ok(mut done)) = (closed, self.0.done.lock()) {
            done.entry(name)
                .or_default()
                .push(t.elapsed().as_secs_f64() * 1000.0);
        }
        true
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(v, 0.5)
}

/// Run `calls` calls with the span recorder on (after 200 without it) and
/// print the median of each stage; returns the calls' own timings.
pub async fn breakdown<F, Fut>(
    core: &Arc<Airlock>,
    calls: usize,
    mut call: F,
) -> Result<(Vec<f64>, f64), String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    for _ in 0..200 {
        call().await?;
    }
    let stages = Arc::new(Recorded::default());
    let dispatch = tracing::Dispatch::new(Stages(stages.clone()));
    let mut lat = Vec::with_capacity(calls);
    let t0 = Instant::now();
    {
        let _on = tracing::dispatcher::set_default(&dispatch);
        for _ in 0..calls {
            let t = Instant::now();
            call().await?;
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let total = t0.elapsed().as_secs_f64();
    let t = Instant::now();
    core.history(&Default::default())
        .map_err(|e| e.to_string())?;
    let flush_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut done = stages.done.lock().map_err(|e| e.to_string())?.clone();
    let whole = median(&mut lat.clone());
    println!("stages of one stdio call through Airlock's core (median of {calls}, ms):");
    println!("  {:<46}{whole:>8.4}", "whole call (airlock-bench's timer)");
    let rows = [
        ("call.server", "  inside: session lookup + rpc + retries"),
        ("call.session", "    session lookup"),
        (
            "call.rpc",
            "    rpc: request out, server, response in (rmcp)",
        ),
        ("call.result", "  result to JSON, secrets masked, bounded"),
        ("call.history", "  history record queued"),
    ];
    for (name, label) in rows {
        let v = done.get_mut(name).map(|v| median(v)).unwrap_or(0.0);
        println!("  {label:<46}{v:>8.4}");
    }
    println!("  (the writer thread wrote the records meanwhile; {flush_ms:.2} ms left to flush at the end)");
    Ok((lat, total))
}
