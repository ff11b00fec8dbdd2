//! The [`Airlock`] type, where every shell starts: its state (here) and one
//! file per thing it does (connections, lists, tool calls and their input
//! rounds, sign-ins, history, activity, apps' profiles, owners of URIs,
//! pinned definitions, server entries, requests from servers). Every `impl
//! Airlock` lives in this folder: its fields are private to it.

mod activity;
mod apps;
pub mod audit_export;
pub mod catalog;
mod connections;
mod history;
mod input_rounds;
pub mod install;
mod lists;
mod owners;
mod pin_notices;
mod pin_reconcile;
mod pin_review;
pub mod policy;
mod rooms;
mod servers;
mod session_errors;
mod sign_ins;
mod tool_calls;
pub mod tool_switches;
pub mod update;

pub use sign_ins::OAuthSummary;
pub use tool_calls::{CallOutcome, ToolCallError};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::broadcast;

use connections::Managed;
use elicitation::{Broker, BrokerSettings, Consent, Opener};
use events::CoreEvent;
use mcp::SessionInfo;
use secrets::Keychain;
use status::ConnStatus;
use store::Store;

use crate::error::{CoreError, CoreResult};
use crate::{
    auth, elicitation, events, forward, lifecycle, limits, mcp, process_runs, secrets, status,
    store,
};

pub struct AirlockOptions {
    pub data_dir: PathBuf,
    pub keychain: Keychain,
    pub consent: Arc<dyn Consent>,
    pub opener: Arc<dyn Opener>,
    pub broker: BrokerSettings,
    pub connect_timeout: Duration,
    /// Back-off and attempts after a connection drops.
    pub reconnect: limits::ReconnectPolicy,
    /// How Airlock identifies itself to OAuth authorization servers.
    pub oauth_identity: auth::ClientIdentity,
    /// The browser port for OAuth logins started by a connect (a 401);
    /// `None`: such a connect fails with a hint to `airlock login`.
    pub oauth_browser: Option<Arc<dyn auth::Browser>>,
    /// The apps behind the gateway, for servers' sampling and roots
    /// requests; `None`: Airlock declares neither to its servers.
    pub app_requests: Option<Arc<dyn forward::AppRequests>>,
    /// The binary a server's room runs as its helper (the shell's own,
    /// which calls `airlock_sandbox::helper::run_if_asked` first in
    /// `main`); `None`: this process cannot confine, and a confined server
    /// is not started.
    pub sandbox_helper: Option<PathBuf>,
}

impl AirlockOptions {
    pub fn new(data_dir: PathBuf, consent: Arc<dyn Consent>, opener: Arc<dyn Opener>) -> Self {
        Self {
            data_dir,
            keychain: Keychain::default(),
            consent,
            opener,
            broker: BrokerSettings::default(),
            connect_timeout: mcp::DEFAULT_CONNECT_TIMEOUT,
            reconnect: limits::ReconnectPolicy::default(),
            oauth_identity: auth::ClientIdentity::default(),
            oauth_browser: None,
            app_requests: None,
            sandbox_helper: None,
        }
    }
}

/// Status and session info of a server, for `connect` and the UI.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConnectionReport {
    pub server: String,
    pub status: ConnStatus,
    pub info: Option<SessionInfo>,
}

/// Records left open by processes that were killed or crashed end
/// `interrupted`, with an audit event each. (A process that ended cleanly
/// left its records as they were: a CLI call does not wait for a
/// request-path completion that may come later.)
fn interrupt_orphans(store: &Store, data_dir: &Path) {
    let Ok(runs) = store.runs_with_open_records() else {
        return;
    };
    for run in runs {
        let crashed = match run.as_deref() {
            Some(id) => process_runs::run_state(data_dir, id) == process_runs::RunState::Crashed,
            None => false,
        };
        if !crashed {
            continue;
        }
        for (id, server) in store
            .interrupt_open_records(run.as_deref())
            .unwrap_or_default()
        {
            let _ = store.audit(
                Some(&server),
                "elicitation",
                &serde_json::json!({
                    "record_id": id,
                    "state": lifecycle::ElicitationState::Interrupted,
                    "reason": "Airlock stopped (killed or crashed) while this was open",
                }),
            );
        }
    }
}

pub struct Airlock {
    store: Arc<Store>,
    /// Tool calls on their way to history, off the call's path.
    history: store::HistoryWriter,
    keychain: Keychain,
    events: broadcast::Sender<CoreEvent>,
    broker: Arc<Broker>,
    connect_timeout: Duration,
    reconnect: limits::ReconnectPolicy,
    oauth_identity: auth::ClientIdentity,
    oauth_browser: Option<Arc<dyn auth::Browser>>,
    app_requests: Option<Arc<dyn forward::AppRequests>>,
    data_dir: PathBuf,
    managed: Mutex<HashMap<String, Managed>>,
    /// One connect at a time per server: a second caller waits for the
    /// first and uses its session instead of starting another process.
    connect_gates: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Sign-ins in progress, by server: cancel them with `cancel_sign_in`.
    sign_ins: Mutex<HashMap<String, (u64, tokio_util::sync::CancellationToken)>>,
    /// What the keychain says about each server's OAuth state, read once
    /// and dropped whenever Airlock changes it (keychain reads are slow and
    /// the window asks on every refresh).
    oauth_summaries: Mutex<HashMap<String, OAuthSummary>>,
    next_sign_in: std::sync::atomic::AtomicU64,
    /// Each server's secret masker, from its last connect.
    redactors: Mutex<HashMap<String, Arc<secrets::Redactor>>>,
    /// This process's run lock, held while Airlock is open.
    run: process_runs::Run,
    /// See [`AirlockOptions::sandbox_helper`].
    sandbox_helper: Option<PathBuf>,
    /// Each confined server's proxy, from its last start.
    proxies: Mutex<HashMap<String, airlock_sandbox::proxy::Proxy>>,
    /// The team's policy in force ([`policy`]).
    policy: Mutex<policy::PolicyState>,
    /// A trial start's package folder, by trial name (an update's new
    /// version, read by its room: [`update`]).
    trial_packages: Mutex<HashMap<String, PathBuf>>,
}

impl Airlock {
    pub fn open(opts: AirlockOptions) -> CoreResult<Arc<Airlock>> {
        let store = Arc::new(Store::open_in(&opts.data_dir)?);
        let run = process_runs::Run::start(&opts.data_dir).map_err(|e| {
            CoreError::Store(store::StoreError::Corrupt(format!(
                "cannot register this process in {}: {e}",
                opts.data_dir.join(process_runs::RUNS_DIR).display()
            )))
        })?;
        store.set_run_id(run.id());
        interrupt_orphans(&store, &opts.data_dir);
        let (events, _) = broadcast::channel(events::EVENT_CHANNEL_CAPACITY);
        let broker = Arc::new(Broker::new(
            store.clone(),
            opts.consent,
            opts.opener,
            events.clone(),
            opts.broker,
        ));
        let airlock = Arc::new(Airlock {
            history: store::HistoryWriter::start(store.clone()),
            store,
            keychain: opts.keychain,
            events,
            broker,
            connect_timeout: opts.connect_timeout,
            reconnect: opts.reconnect,
            oauth_identity: opts.oauth_identity,
            oauth_browser: opts.oauth_browser,
            app_requests: opts.app_requests,
            data_dir: opts.data_dir,
            managed: Mutex::new(HashMap::new()),
            connect_gates: Mutex::new(HashMap::new()),
            sign_ins: Mutex::new(HashMap::new()),
            oauth_summaries: Mutex::new(HashMap::new()),
            next_sign_in: std::sync::atomic::AtomicU64::new(1),
            redactors: Mutex::new(HashMap::new()),
            run,
            sandbox_helper: opts.sandbox_helper,
            proxies: Mutex::new(HashMap::new()),
            policy: policy::initial(),
            trial_packages: Mutex::new(HashMap::new()),
        });
        // The team's policy on the domains a page may be on.
        let weak = Arc::downgrade(&airlock);
        airlock
            .broker
            .set_domain_gate(Arc::new(move |domain: &str| {
                let a = weak.upgrade()?;
                match a.policy().policy.check_elicitation_domain(domain) {
                    airlock_policy::Verdict::Allowed => None,
                    airlock_policy::Verdict::Refused(r) => Some(r.to_string()),
                }
            }));
        Ok(airlock)
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }
    pub fn subscribe(&self) -> broadcast::Receiver<CoreEvent> {
        self.events.subscribe()
    }

    /// This process is about to exit cleanly: history still on its way is
    /// written, and what it leaves open is not a crash (call before exit;
    /// dropping the last handle does the same).
    pub fn close(&self) {
        self.history.close();
        self.run.end();
    }

    /// The broker's deadlines, limits and URL policy now in force.
    pub fn broker_settings(&self) -> BrokerSettings {
        self.broker.settings()
    }

    /// Change the broker's deadlines, limits and URL policy at once
    /// (validated against [`limits`]).
    pub fn set_broker_settings(&self, settings: BrokerSettings) -> CoreResult<()> {
        self.broker
            .set_settings(settings)
            .map_err(CoreError::BadInput)
    }
}
