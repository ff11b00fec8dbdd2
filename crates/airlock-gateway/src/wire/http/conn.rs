//! One HTTP connection's bounds in time, and the bodies that carry the
//! front's bookkeeping.
//!
//! - hyper's header read timeout ([`super::HTTP_IDLE_TIMEOUT`]): a request's
//!   headers must arrive within it, counted from when the connection opened
//!   or its last response ended, so a connection that sends nothing, or
//!   sits idle between requests, is closed after it (hyper 1.x starts the
//!   same timer for both);
//! - [`StallBound`]: a request body with no byte for
//!   [`super::HTTP_BODY_STALL_TIMEOUT`] fails (408) and its connection closes;
//! - [`Held`]: a response body that holds the request's slot and its
//!   session's activity until the body ends or the app goes away (an
//!   open GET stream keeps its session from going idle).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::TokioTimer;
use tokio::time::{Instant, Sleep};

/// A connection builder with the idle bound set.
pub(crate) fn builder(idle: Duration) -> http1::Builder {
    let mut b = http1::Builder::new();
    b.timer(TokioTimer::new()).header_read_timeout(idle);
    b
}

/// A request body that fails when no byte came for `stall`.
pub(crate) struct StallBound<B> {
    inner: B,
    stall: Duration,
    deadline: Pin<Box<Sleep>>,
    stalled: Arc<AtomicBool>,
}

impl<B> StallBound<B> {
    /// The flag says afterwards whether the body stalled.
    pub fn new(inner: B, stall: Duration) -> (Self, Arc<AtomicBool>) {
        let stalled = Arc::new(AtomicBool::new(false));
        let body = Self {
            inner,
            stall,
            deadline: Box::pin(tokio::time::sleep(stall)),
            stalled: stalled.clone(),
        };
        (body, stalled)
    }
}

/// Why a request body could not be read.
#[derive(Debug)]
pub(crate) enum BodyError {
    Stalled(Duration),
    Read(String),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stalled(d) => write!(f, "no byte of the request body for {} s", d.as_secs()),
            Self::Read(e) => write!(f, "{e}"),
        }
    }
}

impl<B> Body for StallBound<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: fmt::Display,
{
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                let next = Instant::now() + this.stall;
                this.deadline.as_mut().reset(next);
                Poll::Ready(frame.map(|f| f.map_err(|e| BodyError::Read(e.to_string()))))
            }
            Poll::Pending => {
                if this.deadline.as_mut().poll(cx).is_ready() {
                    this.stalled.store(true, Ordering::SeqCst);
                    Poll::Ready(Some(Err(BodyError::Stalled(this.stall))))
                } else {
                    Poll::Pending
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that holds `held` until it ends or is dropped.
pub(crate) struct Held<B, H> {
    inner: B,
    held: Option<H>,
}

impl<B, H> Held<B, H> {
    pub fn new(inner: B, held: H) -> Self {
        Self {
            inner,
            held: Some(held),
        }
    }
}

impl<B, H> Body for Held<B, H>
where
    B: Body + Unpin,
    H: Unpin,
{
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) {
            self.held = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
