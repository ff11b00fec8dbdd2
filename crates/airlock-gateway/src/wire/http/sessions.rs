//! Who owns each HTTP session, checked before rmcp sees a request.
//!
//! rmcp's [`LocalSessionManager`] runs the sessions; [`OwnedSessions`]
//! wraps it and records, in a [`SessionBook`], the app whose request
//! created each session (rmcp creates it inside that request's task, where
//! [`CALLER`] names the app) and forgets it when rmcp closes it. The
//! front ([`super`]) asks the book about every request that names a
//! session (`mcp-session-id`), whatever its method: a POSTed request,
//! notification or response, the GET stream, the DELETE. Another app's
//! session gets 403, an unknown one 404, and nothing reaches rmcp.
//!
//! The book also counts, per session, the requests in flight and the
//! streams open on it ([`Activity`], held by the response body until it
//! ends): [`reap`] closes a session with neither for
//! [`super::SESSION_IDLE_TIMEOUT`]. Per app it counts sessions
//! ([`super::MAX_HTTP_SESSIONS_PER_CLIENT`]) and requests in flight
//! ([`super::MAX_HTTP_REQUESTS_PER_CLIENT`]).
//!
//! On 2026-07-28 there are no sessions: rmcp serves each request that
//! negotiates that revision on its own (SEP-2567), issues no session id,
//! answers GET and DELETE with 405 and ignores an `mcp-session-id`; each
//! request carries its own token, which the front checks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{MAX_HTTP_REQUESTS_PER_CLIENT, MAX_HTTP_SESSIONS, MAX_HTTP_SESSIONS_PER_CLIENT};
use crate::catalog::log;

tokio::task_local! {
    /// The app whose request rmcp is serving in this task: a session
    /// rmcp creates here is that app's.
    pub(crate) static CALLER: Arc<Caller>;
}

/// Each app's first this many requests refused on another app's
/// session are logged, then only the 32nd, 64th, 128th, ...: a thief cannot
/// fill the log.
pub(crate) const LOGGED_FOREIGN_REFUSALS: u64 = 16;

/// Whether the `n`th refusal (from 1) of one app goes to the log.
pub(crate) fn log_foreign(n: u64) -> bool {
    n <= LOGGED_FOREIGN_REFUSALS || n.is_power_of_two()
}

/// The app of one request, and why the book refused it a session.
#[derive(Debug)]
pub(crate) struct Caller {
    pub app: String,
    refused: Mutex<Option<Refusal>>,
}

impl Caller {
    pub fn new(app: String) -> Arc<Self> {
        Arc::new(Self {
            app,
            refused: Mutex::new(None),
        })
    }

    /// The refusal of a session this request asked for, if any.
    pub fn refused(&self) -> Option<Refusal> {
        self.refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// Why a request was refused before rmcp saw it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    #[error(
        "this session belongs to another app; use your own (initialize without mcp-session-id)"
    )]
    Foreign,
    #[error("no such session (it ended or never existed); initialize again")]
    Unknown,
    #[error("app {app:?} has {MAX_HTTP_SESSIONS_PER_CLIENT} HTTP sessions open, the most one app may have; close one (DELETE); Airlock closes one left idle for {idle_min} minutes", idle_min = super::SESSION_IDLE_TIMEOUT.as_secs() / 60)]
    AppSessions { app: String },
    #[error("too many HTTP sessions (at most {MAX_HTTP_SESSIONS}); close one")]
    Sessions,
    #[error("app {app:?} has {MAX_HTTP_REQUESTS_PER_CLIENT} requests in flight or streams open, the most one app may have; wait for one to end")]
    AppRequests { app: String },
}

impl Refusal {
    pub fn status(&self) -> http::StatusCode {
        match self {
            // 403, not 404: the id is 122 random bits that only its app
            // was given, so saying it exists tells a thief nothing new,
            // while a 404 would send an honest but confused app to
            // initialize again without saying why.
            Self::Foreign => http::StatusCode::FORBIDDEN,
            Self::Unknown => http::StatusCode::NOT_FOUND,
            Self::AppSessions { .. } | Self::AppRequests { .. } => {
                http::StatusCode::TOO_MANY_REQUESTS
            }
            Self::Sessions => http::StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

#[derive(Debug)]
struct Session {
    app: String,
    /// Requests in flight and streams open on it.
    active: usize,
    /// When `active` last fell to 0 (or the session was made).
    idle_since: Instant,
}

#[derive(Debug, Default)]
struct Book {
    sessions: HashMap<SessionId, Session>,
    /// Sessions being made, per app (counted against the caps).
    reserved: HashMap<String, usize>,
    /// Requests in flight (and streams open), per app.
    requests: HashMap<String, usize>,
    /// Requests refused on another app's session, per app.
    foreign: HashMap<String, u64>,
}

impl Book {
    fn sessions_of(&self, app: &str) -> usize {
        self.sessions.values().filter(|s| s.app == app).count()
            + self.reserved.get(app).copied().unwrap_or(0)
    }
}

/// Every HTTP session's app and activity (a lock never held across an
/// await).
#[derive(Debug, Default, Clone)]
pub(crate) struct SessionBook {
    book: Arc<Mutex<Book>>,
}

impl SessionBook {
    fn lock(&self) -> MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request of `app` begins; the returned guard ends it.
    pub fn begin_request(&self, app: &str) -> Result<RequestSlot, Refusal> {
        let mut book = self.lock();
        let n = book.requests.entry(app.to_owned()).or_insert(0);
        if *n >= MAX_HTTP_REQUESTS_PER_CLIENT {
            return Err(Refusal::AppRequests {
                app: app.to_owned(),
            });
        }
        *n += 1;
        Ok(RequestSlot {
            book: self.clone(),
            app: app.to_owned(),
        })
    }

    /// `app` names session `id`: its own, or refused. The guard keeps
    /// the session busy (not idle) until it is dropped.
    pub fn enter(&self, id: &str, app: &str) -> Result<Activity, Refusal> {
        let id = SessionId::from(id);
        let mut book = self.lock();
        let session = book.sessions.get_mut(&id).ok_or(Refusal::Unknown)?;
        if session.app != app {
            *book.foreign.entry(app.to_owned()).or_insert(0) += 1;
            return Err(Refusal::Foreign);
        }
        session.active += 1;
        Ok(Activity {
            book: self.clone(),
            id,
        })
    }

    /// How many of `app`'s requests were refused on another app's
    /// session so far.
    pub fn foreign_refusals(&self, app: &str) -> u64 {
        self.lock().foreign.get(app).copied().unwrap_or(0)
    }

    /// Hold a place for a new session of `app`, within the caps.
    fn reserve(&self, app: &str) -> Result<Reservation, Refusal> {
        let mut book = self.lock();
        let total = book.sessions.len() + book.reserved.values().sum::<usize>();
        if total >= MAX_HTTP_SESSIONS {
            return Err(Refusal::Sessions);
        }
        if book.sessions_of(app) >= MAX_HTTP_SESSIONS_PER_CLIENT {
            return Err(Refusal::AppSessions {
                app: app.to_owned(),
            });
        }
        *book.reserved.entry(app.to_owned()).or_insert(0) += 1;
        Ok(Reservation {
            book: self.clone(),
            app: app.to_owned(),
            bound: false,
        })
    }

    fn forget(&self, id: &SessionId) -> Option<String> {
        self.lock().sessions.remove(id).map(|s| s.app)
    }

    /// Take out of the book every session idle for `idle` at `now`: from
    /// here on a request naming one gets 404. Returns them with their
    /// apps, for rmcp to close.
    pub fn take_idle(&self, now: Instant, idle: Duration) -> Vec<(SessionId, String)> {
        let mut book = self.lock();
        let gone: Vec<SessionId> = book
            .sessions
            .iter()
            .filter(|(_, s)| s.active == 0 && now.duration_since(s.idle_since) >= idle)
            .map(|(id, _)| id.clone())
            .collect();
        gone.into_iter()
            .filter_map(|id| book.sessions.remove(&id).map(|s| (id, s.app)))
            .collect()
    }

    /// How many sessions `app` has (made or being made).
    #[cfg(test)]
    pub fn count(&self, app: &str) -> usize {
        self.lock().sessions_of(app)
    }

    /// How many sessions there are.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().sessions.len()
    }
}

/// One request of an app in flight (its response still being sent).
#[derive(Debug)]
pub(crate) struct RequestSlot {
    book: SessionBook,
    app: String,
}

impl Drop for RequestSlot {
    fn drop(&mut self) {
        let mut book = self.book.lock();
        if let Some(n) = book.requests.get_mut(&self.app) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                book.requests.remove(&self.app);
            }
        }
    }
}

/// A request on a session, or a stream of it, until its response ends.
#[derive(Debug)]
pub(crate) struct Activity {
    book: SessionBook,
    id: SessionId,
}

impl Drop for Activity {
    fn drop(&mut self) {
        let mut book = self.book.lock();
        if let Some(s) = book.sessions.get_mut(&self.id) {
            s.active = s.active.saturating_sub(1);
            if s.active == 0 {
                s.idle_since = Instant::now();
            }
        }
    }
}

/// A place held for a session being made; given back unless bound.
struct Reservation {
    book: SessionBook,
    app: String,
    bound: bool,
}

impl Reservation {
    fn bind(mut self, id: SessionId) {
        let mut book = self.book.lock();
        unreserve(&mut book, &self.app);
        book.sessions.insert(
            id,
            Session {
                app: self.app.clone(),
                active: 0,
                idle_since: Instant::now(),
            },
        );
        self.bound = true;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.bound {
            unreserve(&mut self.book.lock(), &self.app);
        }
    }
}

fn unreserve(book: &mut Book, app: &str) {
    if let Some(n) = book.reserved.get_mut(app) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            book.reserved.remove(app);
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    #[error("{0}")]
    Refused(Refusal),
    #[error("a session can only be made in an app's request")]
    NoCaller,
}

/// rmcp's [`LocalSessionManager`], with each session's app in a
/// [`SessionBook`].
pub(crate) struct OwnedSessions {
    inner: LocalSessionManager,
    pub book: SessionBook,
}

impl OwnedSessions {
    pub fn new() -> Self {
        let mut inner = LocalSessionManager::default();
        // rmcp's keep-alive closes a session after 5 minutes without a
        // message even while its GET stream is open; [`reap`] closes one
        // that has neither a request nor a stream instead.
        inner.session_config.keep_alive = None;
        Self {
            inner,
            book: SessionBook::default(),
        }
    }
}

impl SessionManager for OwnedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let caller = CALLER
            .try_with(Arc::clone)
            .map_err(|_| SessionsError::NoCaller)?;
        let reservation = self.book.reserve(&caller.app).map_err(|r| {
            *caller.refused.lock().unwrap_or_else(|p| p.into_inner()) = Some(r.clone());
            SessionsError::Refused(r)
        })?;
        let (id, transport) = self.inner.create_session().await?;
        reservation.bind(id.clone());
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Out of the book first: no request enters a closing session.
        self.book.forget(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

/// Every `every`, close the sessions idle for `idle` (no request in flight,
/// no stream open), until `stop`.
pub(crate) async fn reap(
    sessions: Arc<OwnedSessions>,
    idle: Duration,
    every: Duration,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = stop.cancelled() => return,
        }
        for (id, app) in sessions.book.take_idle(Instant::now(), idle) {
            log(&format!(
                "http: closed an HTTP session of app {app:?}: idle for {} min",
                idle.as_secs() / 60
            ));
            let _ = sessions.inner.close_session(&id).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_on_another_clients_session_are_logged_sparingly_past_the_bound() {
        let logged: Vec<u64> = (1..=1024).filter(|n| log_foreign(*n)).collect();
        let mut want: Vec<u64> = (1..=LOGGED_FOREIGN_REFUSALS).collect();
        want.extend([32, 64, 128, 256, 512, 1024]);
        assert_eq!(logged, want);
    }
}
