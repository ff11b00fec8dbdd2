//! The broker's own state: its settings, the open records and the only
//! function that moves one ([`Broker::advance`]), rate limits, and the
//! in-flight tool calls a late Cancel may stop.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use airlock_url_safety::{neutralize_for_display, Inspection, Policy};
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use super::outcome::{RateLimit, Refusal};
use super::ports::{Consent, Opener};
use crate::events::{CoreEvent, ElicitationEvent};
use crate::lifecycle::ElicitationState;
use crate::limits;
use crate::store::{now_ms, ElicitationRecord, NewElicitation, Store};

/// Longest server message kept, in characters (the rest is cut, marked).
pub const MAX_MESSAGE_CHARS: usize = 4096;
/// Longest elicitation id accepted from a server, in bytes.
pub const MAX_ELICITATION_ID_BYTES: usize = 256;
/// Accepted elicitations still tracked for completion, per broker; the
/// oldest expires when one more arrives.
pub const MAX_TRACKED: usize = 256;
/// Records open at once (asking, waiting), all servers together.
pub const MAX_OPEN_RECORDS: usize = 1024;
/// URL elicitations of one server waiting for consent at once (default).
pub const DEFAULT_MAX_PENDING_PER_SERVER: usize = limits::MAX_PENDING_PER_SERVER.default as usize;
/// URL elicitations one server may start per minute (default).
pub const DEFAULT_MAX_PER_MINUTE: usize = limits::MAX_PER_MINUTE.default as usize;

/// What the broker may be told to change while it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerSettings {
    pub policy: Policy,
    pub max_pending_per_server: usize,
    pub max_per_minute: usize,
    pub late_after: Duration,
    pub give_up_after: Duration,
}

impl Default for BrokerSettings {
    fn default() -> Self {
        Self {
            policy: Policy::default(),
            max_pending_per_server: DEFAULT_MAX_PENDING_PER_SERVER,
            max_per_minute: DEFAULT_MAX_PER_MINUTE,
            late_after: limits::LATE_AFTER_SECS.default_duration(),
            give_up_after: limits::GIVE_UP_AFTER_SECS.default_duration(),
        }
    }
}

impl BrokerSettings {
    /// Every value inside the bounds of [`crate::limits`].
    pub fn validate(&self) -> Result<(), String> {
        limits::check_deadlines(self.late_after.as_secs(), self.give_up_after.as_secs())?;
        limits::MAX_PENDING_PER_SERVER.check(self.max_pending_per_server as u64)?;
        limits::MAX_PER_MINUTE.check(self.max_per_minute as u64)?;
        Ok(())
    }
}

#[derive(Default)]
struct ServerCounters {
    pending: usize,
    recent: VecDeque<Instant>,
}

/// An open record: its row as stored and what the user was shown.
struct Open {
    record: ElicitationRecord,
    inspection: Option<Inspection>,
}

/// How the wait for a completion notification ended, other than by the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    Completed,
    ConnectionLost,
    /// Pushed out by newer waits (`MAX_TRACKED`).
    Evicted,
}

/// An accepted 2025-11-25 elicitation waiting for its completion notification.
pub(super) struct Tracked {
    pub record_id: i64,
    pub connection: u64,
    pub elicitation_id: String,
    pub done: oneshot::Sender<Ending>,
}

pub struct Broker {
    pub(super) store: Arc<Store>,
    pub(crate) consent: Arc<dyn Consent>,
    pub(super) opener: Arc<dyn Opener>,
    events: broadcast::Sender<CoreEvent>,
    settings: RwLock<BrokerSettings>,
    counters: Mutex<HashMap<String, ServerCounters>>,
    open: Mutex<HashMap<i64, Open>>,
    pub(super) tracked: Mutex<VecDeque<Tracked>>,
    /// Tool calls in flight, per connection: a Cancel on a late request-path
    /// elicitation stops the calls of the connection that asked.
    /// Each carries the app that made it (`None`: Airlock itself), so an
    /// elicitation a server sends on the connection can name who asked.
    calls: Mutex<HashMap<u64, Vec<InFlight>>>,
    next_call: AtomicU64,
    /// The app whose call on a connection ended last, and when: a server's
    /// log line handled just after its call's answer still reaches it.
    recent_apps: Mutex<HashMap<u64, (u64, std::time::Instant)>>,
    /// The team's policy on the domains a page may be on (`Some(why)`:
    /// refused without asking), set once by the core.
    domain_gate: std::sync::OnceLock<DomainGate>,
}

/// Asks the team's policy about a registrable domain: `Some(why)` refuses.
pub type DomainGate = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// One tool call in flight on a connection.
struct InFlight {
    id: u64,
    token: CancellationToken,
    app: Option<String>,
    /// The gateway's app and call (`None`: Airlock itself).
    call: Option<crate::caller::AppCall>,
}

/// How [`Broker::apps_in_flight`] starts a list of several apps.
pub const ONE_OF: &str = "one of: ";

/// Longest "one of: ..." list of apps kept, in characters.
const MAX_CLIENTS_TEXT: usize = 200;

/// One of a server's slots under its per-server limits, released on drop.
pub struct AdmitPermit {
    broker: Arc<Broker>,
    server: String,
}

impl Drop for AdmitPermit {
    fn drop(&mut self) {
        self.broker.release(&self.server);
    }
}

/// A tool call in flight; cancelled when the user cancels a late
/// elicitation its server asked for. Unregisters itself when dropped.
pub struct CallGuard {
    broker: Arc<Broker>,
    connection: u64,
    id: u64,
    token: CancellationToken,
}

impl CallGuard {
    /// Resolves when the user cancelled the call.
    pub async fn cancelled(&self) {
        self.token.cancelled().await
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let mut calls = self.broker.calls.lock().unwrap_or_else(|e| e.into_inner());
        let mut ended_app = None;
        if let Some(list) = calls.get_mut(&self.connection) {
            ended_app = list
                .iter()
                .find(|c| c.id == self.id)
                .and_then(|c| c.call)
                .map(|c| c.app);
            list.retain(|c| c.id != self.id);
            if list.is_empty() {
                calls.remove(&self.connection);
            }
        }
        drop(calls);
        if let Some(app) = ended_app {
            let mut recent = self
                .broker
                .recent_apps
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            // Bounded: entries past the grace go whenever one is added.
            recent.retain(|_, (_, at)| at.elapsed() < LATE_LOG_GRACE);
            recent.insert(self.connection, (app, std::time::Instant::now()));
        }
    }
}

/// How long after an app's call ended a server's log line on that
/// connection still goes to that app (a notification the server sent
/// before its answer can be handled just after it).
pub const LATE_LOG_GRACE: Duration = Duration::from_secs(2);

/// Whether the server withdrew a request (`notifications/cancelled`) before
/// it was answered, as opposed to its connection going away: told by the
/// one who drops the question, read by its record when it is dropped
/// unanswered (`Withdrawal::dropped_state`).
#[derive(Debug, Clone, Default)]
pub struct Withdrawal(Arc<(std::sync::atomic::AtomicBool, tokio::sync::Notify)>);

impl Withdrawal {
    /// The server withdrew the request.
    pub fn happened(&self) {
        self.0 .0.store(true, Ordering::SeqCst);
        self.0 .1.notify_one();
    }

    /// Did the server withdraw it?
    pub fn is_withdrawn(&self) -> bool {
        self.0 .0.load(Ordering::SeqCst)
    }

    /// Wait at most `within` to hear that the server withdrew the request
    /// (its notice may come just after the request was stopped): whether it did.
    pub async fn heard_within(&self, within: Duration) -> bool {
        if self.is_withdrawn() {
            return true;
        }
        let _ = tokio::time::timeout(within, self.0 .1.notified()).await;
        self.is_withdrawn()
    }

    /// The same withdrawal (not merely an equal one).
    pub fn same_as(&self, other: &Withdrawal) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The state of a record whose question was dropped unanswered.
    pub(super) fn dropped_state(&self) -> ElicitationState {
        if self.is_withdrawn() {
            ElicitationState::Withdrawn
        } else {
            ElicitationState::ConnectionLost
        }
    }
}

pub(super) fn bounded_id(id: &str) -> String {
    neutralize_for_display(id, MAX_ELICITATION_ID_BYTES)
}

pub(super) fn bounded_message(message: &str) -> String {
    neutralize_for_display(message, MAX_MESSAGE_CHARS)
}

impl Broker {
    pub fn new(
        store: Arc<Store>,
        consent: Arc<dyn Consent>,
        opener: Arc<dyn Opener>,
        events: broadcast::Sender<CoreEvent>,
        settings: BrokerSettings,
    ) -> Self {
        Self {
            store,
            consent,
            opener,
            events,
            settings: RwLock::new(settings),
            counters: Mutex::new(HashMap::new()),
            open: Mutex::new(HashMap::new()),
            tracked: Mutex::new(VecDeque::new()),
            calls: Mutex::new(HashMap::new()),
            next_call: AtomicU64::new(1),
            domain_gate: std::sync::OnceLock::new(),
            recent_apps: Mutex::new(HashMap::new()),
        }
    }

    /// Let the team's policy refuse pages by their registrable domain (set
    /// once; later calls change nothing).
    pub fn set_domain_gate(&self, gate: DomainGate) {
        let _ = self.domain_gate.set(gate);
    }

    /// Why the team's policy refuses a page on `domain`, if it does.
    pub(super) fn domain_refused(&self, domain: &str) -> Option<String> {
        self.domain_gate.get().and_then(|g| g(domain))
    }

    /// The settings now in force.
    pub fn settings(&self) -> BrokerSettings {
        self.settings
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Change deadlines, limits and the URL policy; takes effect for the
    /// next decision (waits already running keep their deadlines).
    pub fn set_settings(&self, settings: BrokerSettings) -> Result<(), String> {
        settings.validate()?;
        *self.settings.write().unwrap_or_else(|e| e.into_inner()) = settings;
        Ok(())
    }

    // ----- records and their moves -----

    /// Record a new request (state `requested`) and announce it.
    pub(super) fn create(
        &self,
        new: &NewElicitation<'_>,
        inspection: Option<Inspection>,
        extra: serde_json::Value,
    ) -> Result<i64, String> {
        if self.open.lock().unwrap_or_else(|e| e.into_inner()).len() >= MAX_OPEN_RECORDS {
            return Err(RateLimit::Open.describe().to_owned());
        }
        let record = self
            .store
            .insert_elicitation(new)
            .map_err(|e| e.to_string())?;
        let id = record.id;
        let mut detail = serde_json::json!({
            "record_id": id,
            "state": ElicitationState::Requested,
            "mode": record.mode,
            "origin": record.origin,
        });
        if let (serde_json::Value::Object(d), serde_json::Value::Object(x)) = (&mut detail, extra) {
            d.extend(x);
        }
        let _ = self.store.audit(Some(new.server), "elicitation", &detail);
        let event = ElicitationEvent {
            record: record.clone(),
            inspection: inspection.clone(),
            reason: None,
        };
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, Open { record, inspection });
        let _ = self.events.send(CoreEvent::Elicitation(Box::new(event)));
        Ok(id)
    }

    /// Move a record to `next`: the one place a state is written. `reason`
    /// goes to the event (words for shells); `detail` to the audit trail. A
    /// move the table does not allow (a race lost, say a completion after Continue)
    /// changes nothing and is audited. Returns whether the record moved.
    pub(super) fn advance(
        &self,
        record_id: i64,
        next: ElicitationState,
        reason: Option<String>,
        detail: serde_json::Value,
    ) -> bool {
        let now = now_ms();
        let moved = {
            let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
            match open.get_mut(&record_id) {
                Some(o) if o.record.state.can_move_to(next) => {
                    o.record.state = next;
                    o.record.updated_at = now;
                    let snapshot = ElicitationEvent {
                        record: o.record.clone(),
                        inspection: o.inspection.clone(),
                        reason: reason.clone(),
                    };
                    if next.is_final(o.record.mode) {
                        open.remove(&record_id);
                    }
                    Ok(snapshot)
                }
                Some(o) => Err((Some(o.record.server.clone()), Some(o.record.state))),
                None => Err((None, None)),
            }
        };
        match moved {
            Ok(event) => {
                // History and audit are best effort: a full disk must not wedge the protocol.
                let _ = self.store.set_elicitation_state(record_id, next, now);
                let mut d = detail;
                if let serde_json::Value::Object(m) = &mut d {
                    m.insert("record_id".into(), record_id.into());
                    m.insert("state".into(), next.as_str().into());
                }
                let _ = self
                    .store
                    .audit(Some(&event.record.server), "elicitation", &d);
                let _ = self.events.send(CoreEvent::Elicitation(Box::new(event)));
                true
            }
            Err((server, from)) => {
                let _ = self.store.audit(
                    server.as_deref(),
                    "elicitation_move_refused",
                    &serde_json::json!({"record_id": record_id, "from": from, "to": next}),
                );
                false
            }
        }
    }

    /// The state of an open record (`None` once it ended).
    pub fn open_state(&self, record_id: i64) -> Option<ElicitationState> {
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&record_id)
            .map(|o| o.record.state)
    }

    // ----- rate limits -----

    /// `Ok(())` reserves a pending slot; release it with `release`.
    pub(super) fn admit(&self, server: &str) -> Result<(), RateLimit> {
        let settings = self.settings();
        let mut counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        let c = counters.entry(server.to_owned()).or_default();
        let now = Instant::now();
        while c
            .recent
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(60))
        {
            c.recent.pop_front();
        }
        if c.pending >= settings.max_pending_per_server {
            return Err(RateLimit::Pending);
        }
        if c.recent.len() >= settings.max_per_minute {
            return Err(RateLimit::PerMinute);
        }
        c.pending += 1;
        c.recent.push_back(now);
        Ok(())
    }

    /// Reserve a slot for `record_id`, or record it `rate_limited` and say why.
    pub(super) fn admit_or_refuse(&self, server: &str, record_id: i64) -> Result<(), Refusal> {
        self.admit(server).map_err(|limit| {
            let refusal = Refusal::RateLimited { limit };
            self.advance(
                record_id,
                ElicitationState::RateLimited,
                Some(refusal.to_string()),
                serde_json::json!({"reason": limit.describe(), "limit": limit}),
            );
            refusal
        })
    }

    /// A server's sampling request (to an app's model) takes a slot of the
    /// same per-server limits as its elicitations: held while the app
    /// answers, released when the returned permit is dropped.
    pub fn admit_sampling(self: &Arc<Self>, server: &str) -> Result<AdmitPermit, RateLimit> {
        self.admit(server)?;
        Ok(AdmitPermit {
            broker: self.clone(),
            server: server.to_owned(),
        })
    }

    pub(super) fn release(&self, server: &str) {
        let mut counters = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = counters.get_mut(server) {
            c.pending = c.pending.saturating_sub(1);
        }
    }

    // ----- tool calls in flight -----

    /// Register a request on `connection` made for `caller`; keep the
    /// guard while it runs.
    pub fn call_started(
        self: &Arc<Self>,
        connection: u64,
        caller: &crate::caller::Caller,
    ) -> CallGuard {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        self.calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(connection)
            .or_default()
            .push(InFlight {
                id,
                token: token.clone(),
                app: caller.app.clone(),
                call: caller.call,
            });
        CallGuard {
            broker: self.clone(),
            connection,
            id,
            token,
        }
    }

    /// Cancel every tool call in flight on `connection`.
    pub(super) fn cancel_calls(&self, connection: u64) {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        for call in calls.get(&connection).into_iter().flatten() {
            call.token.cancel();
        }
    }

    /// The app a server's request on `connection` (not tied to one call:
    /// 2025-11-25) goes to: the one app whose requests are in flight there,
    /// with the call when it has only one. `None` when none are, when
    /// several apps' are, or when Airlock's own are too (the window's or
    /// the CLI's): then nobody is guessed and Airlock's own consent answers.
    pub fn sole_app(&self, connection: u64) -> Option<crate::caller::AppTarget> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let list = calls.get(&connection)?;
        let first = list.first()?.call?;
        if list
            .iter()
            .any(|c| c.call.is_none_or(|a| a.app != first.app))
        {
            return None;
        }
        Some(crate::caller::AppTarget {
            app: first.app,
            call: (list.len() == 1).then_some(first.call),
        })
    }

    /// The app a server's log line on `connection` goes to: the one app
    /// with calls in flight there ([`Self::sole_app`]) or, when none is, the
    /// app whose call ended there within [`LATE_LOG_GRACE`]. Only for log
    /// lines: a request is never routed to an app that no longer waits.
    pub fn log_app(&self, connection: u64) -> Option<crate::caller::AppTarget> {
        if let Some(t) = self.sole_app(connection) {
            return Some(t);
        }
        if self
            .calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(&connection)
        {
            return None;
        }
        let recent = self.recent_apps.lock().unwrap_or_else(|e| e.into_inner());
        let (app, at) = recent.get(&connection)?;
        (at.elapsed() < LATE_LOG_GRACE).then_some(crate::caller::AppTarget {
            app: *app,
            call: None,
        })
    }

    /// Who an elicitation sent on `connection` (not tied to one call) is
    /// for: the app whose calls are in flight there; when several apps'
    /// calls are, "one of: a, b" (Airlock itself named "airlock"); `None`
    /// when only Airlock's own calls, or none, are.
    pub fn apps_in_flight(&self, connection: u64) -> Option<String> {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let mut seen: Vec<Option<&str>> = Vec::new();
        for call in calls.get(&connection).into_iter().flatten() {
            let c = call.app.as_deref();
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
        match seen.as_slice() {
            [] | [None] => None,
            [Some(one)] => Some((*one).to_owned()),
            many => {
                let names: Vec<&str> = many.iter().map(|c| c.unwrap_or("airlock")).collect();
                Some(neutralize_for_display(
                    &format!("{ONE_OF}{}", names.join(", ")),
                    MAX_CLIENTS_TEXT,
                ))
            }
        }
    }
}
