//! The host side: the one process that owns the server connections (the
//! daemon now; the desktop app later), its socket, and one MCP session per
//! attached app.
//!
//! At start it connects every enabled server (in the background: a server
//! that needs a sign-in waits for one in Airlock instead of asking), then
//! keeps the catalog in step with the core's status events and with the
//! server list (servers added, edited, paused, resumed or removed by another
//! `airlock` process).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use airlock_core::events::CoreEvent;
use airlock_core::status::ConnStatus;
use airlock_core::Airlock;
use rmcp::service::serve_server;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use crate::catalog::{log, Catalog};
use crate::routing::router::Router;
use crate::session::app::{announce_change, AppSession, CHANGE_COALESCE};
use crate::session::attached::Attachments;
use crate::session::shared::Attached;
pub use crate::session::shared::Gateway;
use crate::wire::handover::Handover;
use crate::wire::hello::{self, Welcome};
use crate::{limits, wire::place};

#[derive(Clone)]
pub struct HostOptions {
    /// Between a server's prefix and its item's name (default `__`).
    pub separator: String,
    /// Exit after this long with no app attached (`None`: run until stopped).
    pub idle_exit: Option<Duration>,
    /// The router of the core's [`crate::routing::forms::HostConsent`] and
    /// `AppRequests` (`None`: a router of its own, which no form, sampling
    /// or log line reaches: every form is Airlock's own).
    pub router: Option<Arc<Router>>,
    /// Also serve Streamable HTTP here (loopback only; `None`: off).
    pub http: Option<std::net::SocketAddr>,
    /// Where the attached apps are listed (`None`: a list of its own).
    pub attachments: Option<Arc<Attachments>>,
    /// When another host owns the socket, ask it to hand over
    /// ([`crate::wire::handover::claim_taking_over`]; the desktop window).
    pub take_over: bool,
    /// Hand the socket over to a host that asks (the daemon).
    pub hand_over: bool,
}

impl Default for HostOptions {
    fn default() -> Self {
        Self {
            separator: crate::catalog::names::DEFAULT_SEPARATOR.to_owned(),
            idle_exit: None,
            router: None,
            http: None,
            attachments: None,
            take_over: false,
            hand_over: false,
        }
    }
}

impl Gateway {
    /// Start serving `core`'s servers: first connects, status events, the
    /// server-list watch. The returned gateway is ready for apps at once
    /// (they wait for the first connects in their handshake).
    pub fn start(core: Arc<Airlock>, options: &HostOptions) -> Arc<Gateway> {
        let (started_tx, started) = watch::channel(false);
        let gateway = Arc::new(Gateway::new(
            Catalog::new(core.clone(), options.separator.clone()),
            core,
            started,
            options.router.clone().unwrap_or_default(),
            options.attachments.clone().unwrap_or_default(),
        ));
        // Subscribe before connecting so that no Ready is missed.
        let events = gateway.core.subscribe();
        tokio::spawn(follow_status(gateway.clone(), events));
        tokio::spawn(watch_registry(gateway.clone(), started_tx));
        gateway
    }
}

/// Servers that became ready or stopped being ready change the lists.
/// A server (re)connected: the apps' resource subscriptions there are made
/// again on its new session (none on its first connect).
fn resubscribe(gateway: &Arc<Gateway>, server: &str) {
    let (router, core, server) = (
        gateway.router.clone(),
        gateway.core.clone(),
        server.to_owned(),
    );
    tokio::spawn(async move { router.resources.resubscribe(&core, &server).await });
}

async fn follow_status(gateway: Arc<Gateway>, mut events: broadcast::Receiver<CoreEvent>) {
    let mut ready: HashMap<String, bool> = HashMap::new();
    loop {
        match events.recv().await {
            Ok(CoreEvent::Status { server, status }) => {
                let now = matches!(status, ConnStatus::Ready { .. });
                let was = ready.insert(server.clone(), now).unwrap_or(false);
                if now || was {
                    if now != was {
                        log(&format!(
                            "{server}: {}",
                            if now {
                                "ready, served"
                            } else {
                                "no longer served"
                            }
                        ));
                    }
                    if now && !was {
                        resubscribe(&gateway, &server);
                    }
                    gateway.catalog.server_changed(&server);
                }
            }
            // The server's own tools, prompts or resources changed (coalesced
            // by the core): its room lists it again, on its own.
            Ok(CoreEvent::ListsChanged { server }) => {
                if ready.get(&server).copied().unwrap_or(false) {
                    gateway.catalog.server_changed(&server);
                }
            }
            Ok(_) => {}
            // Events were lost: what is ready now is read again from the
            // core (never dropped), and every server is listed again.
            Err(broadcast::error::RecvError::Lagged(n)) => {
                log(&format!(
                    "{n} events were missed: listing every server again"
                ));
                let mut names: Vec<String> = ready.keys().cloned().collect();
                if let Ok(defs) = gateway.core.list_servers() {
                    names.extend(defs.into_iter().map(|d| d.name));
                }
                names.sort();
                names.dedup();
                for name in &names {
                    let now = matches!(gateway.core.status(name), ConnStatus::Ready { .. });
                    let was = ready.insert(name.clone(), now).unwrap_or(false);
                    if now && !was {
                        resubscribe(&gateway, name);
                    }
                }
                gateway.catalog.resync(&names);
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// How often the host looks whether the registries are due a read for
/// updates (the read itself is at most daily).
const UPDATE_LOOK_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// A server as last seen in the list: what decides a reconnect.
#[derive(PartialEq, Eq)]
struct Seen {
    definition: String,
    paused: bool,
}

/// `paused` also when the team's policy refuses the server now: a policy
/// changed while the daemon runs stops the servers it denies (their apps
/// see their tools go) and starts them again when it allows them.
fn seen(core: &airlock_core::Airlock, def: &airlock_core::servers::ServerDef) -> Seen {
    Seen {
        definition: serde_json::to_string(&(&def.transport, &def.options)).unwrap_or_default(),
        paused: def.paused || core.policy_refusal(def).is_some(),
    }
}

/// Connect every enabled server at start, then follow the server list.
async fn watch_registry(gateway: Arc<Gateway>, started: watch::Sender<bool>) {
    let core = gateway.core.clone();
    let mut known: HashMap<String, Seen> = HashMap::new();
    let mut first = tokio::task::JoinSet::new();
    match core.list_servers() {
        Ok(defs) => {
            for def in defs {
                if !def.paused && core.policy_refusal(&def).is_none() {
                    let core = core.clone();
                    let name = def.name.clone();
                    first.spawn(async move { connect(&core, &name).await });
                }
                known.insert(def.name.clone(), seen(&core, &def));
            }
        }
        Err(e) => log(&format!("cannot read the server list: {e}")),
    }
    while first.join_next().await.is_some() {}
    let names: Vec<String> = known.keys().cloned().collect();
    gateway.catalog.resync(&names);
    let _ = started.send(true);
    let mut last_retry = tokio::time::Instant::now();
    let mut last_relist = tokio::time::Instant::now();
    let mut decisions = core.pin_generation().unwrap_or(0);
    // The registries of installed servers, read at most daily for updates
    // (looked at hourly; the read is the core's, off this loop).
    let mut last_update_look: Option<tokio::time::Instant> = None;
    loop {
        tokio::time::sleep(limits::REGISTRY_POLL).await;
        if last_update_look.is_none_or(|t| t.elapsed() >= UPDATE_LOOK_EVERY) {
            last_update_look = Some(tokio::time::Instant::now());
            let core = core.clone();
            tokio::spawn(async move {
                match core
                    .check_updates_if_due(airlock_core::update::UPDATE_CHECK_EVERY)
                    .await
                {
                    Ok(Some(news)) => {
                        for u in news {
                            log(&format!(
                                "{}: its registry says {} (airlock catalog update {})",
                                u.server,
                                match &u.available {
                                    Some(v) => format!("{} → {v} is available", u.installed),
                                    None => u.status.clone(),
                                },
                                u.server
                            ));
                        }
                    }
                    Ok(None) => {}
                    Err(e) => log(&format!("reading the registries for updates: {e}")),
                }
            });
        }
        // Pins approved or rejected, owners chosen (here or in another
        // airlock process): apply them.
        if let Ok(now) = core.pin_generation() {
            if now != decisions {
                decisions = now;
                gateway.catalog.decisions_changed();
            }
        }
        let Ok(defs) = core.list_servers() else {
            continue;
        };
        if last_relist.elapsed() >= limits::RELIST_EVERY {
            last_relist = tokio::time::Instant::now();
            let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
            gateway.catalog.resync(&names);
        }
        // Servers that could not connect (or whose reconnects gave up) are
        // tried again now and then; sign-ins are not (they wait for the user).
        if last_retry.elapsed() >= limits::RETRY_FAILED_EVERY {
            last_retry = tokio::time::Instant::now();
            for def in defs.iter().filter(|d| !d.paused) {
                if matches!(core.status(&def.name), ConnStatus::Failed { .. }) {
                    log(&format!("{}: trying to connect again", def.name));
                    spawn_connect(&core, &def.name);
                }
            }
        }
        let mut now: HashMap<String, Seen> = HashMap::new();
        for def in &defs {
            let s = seen(&core, def);
            match known.get(&def.name) {
                None if !s.paused => {
                    log(&format!("{}: added, connecting", def.name));
                    spawn_connect(&core, &def.name);
                }
                Some(old) if old.paused && !s.paused => {
                    log(&format!("{}: resumed, connecting", def.name));
                    spawn_connect(&core, &def.name);
                }
                Some(old) if !old.paused && s.paused => {
                    match core.policy_refusal(def) {
                        Some(why) => log(&format!("{}: {why}; disconnecting", def.name)),
                        None => log(&format!("{}: paused, disconnecting", def.name)),
                    }
                    core.disconnect(&def.name);
                    gateway.catalog.server_changed(&def.name);
                }
                Some(old) if old.definition != s.definition && !s.paused => {
                    log(&format!("{}: edited, reconnecting", def.name));
                    core.disconnect(&def.name);
                    spawn_connect(&core, &def.name);
                }
                _ => {}
            }
            now.insert(def.name.clone(), s);
        }
        for gone in known.keys().filter(|k| !now.contains_key(*k)) {
            log(&format!("{gone}: removed, disconnecting"));
            core.disconnect(gone);
            gateway.catalog.server_changed(gone);
        }
        known = now;
    }
}

async fn connect(core: &Arc<Airlock>, name: &str) {
    if let Err(e) = core.connect_in_background(name).await {
        log(&format!("{name}: not connected: {e}"));
    }
}

fn spawn_connect(core: &Arc<Airlock>, name: &str) {
    let (core, name) = (core.clone(), name.to_owned());
    tokio::spawn(async move { connect(&core, &name).await });
}

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    Claim(#[from] place::ClaimError),
    #[error("cannot listen: {0}")]
    Listen(std::io::Error),
    #[error("{0}")]
    Http(String),
}

/// Run the host on `data_dir`'s endpoint until asked to stop
/// (crate::stop_signal: SIGTERM or SIGINT; Ctrl-C, Ctrl-Break or the console
/// closing on Windows) or (with `idle_exit`) that long with no app attached.
pub async fn run(
    core: Arc<Airlock>,
    data_dir: &std::path::Path,
    options: HostOptions,
) -> Result<(), HostError> {
    let stop = crate::stop_signal::listen().map_err(HostError::Listen)?;
    let signals = async move { log(&format!("{}: stopping", stop.await)) };
    serve_until(core, data_dir, options, signals).await
}

/// Run the host on `data_dir`'s socket until `stop` resolves (the desktop
/// app: until it quits; it keeps its own signal handling) or, with
/// `idle_exit`, that long with no app attached.
pub async fn serve_until(
    core: Arc<Airlock>,
    data_dir: &std::path::Path,
    options: HostOptions,
    stop_when: impl std::future::Future<Output = ()>,
) -> Result<(), HostError> {
    let owned = if options.take_over {
        let dir = data_dir.to_owned();
        tokio::task::spawn_blocking(move || crate::wire::handover::claim_taking_over(&dir))
            .await
            .map_err(|e| HostError::Listen(std::io::Error::other(e.to_string())))??
    } else {
        place::claim(data_dir)?
    };
    let listener = owned.listener.serve().map_err(HostError::Listen)?;
    let http = match options.http {
        Some(addr) => Some(
            crate::wire::http::bind(addr.ip(), addr.port())
                .await
                .map_err(HostError::Http)?,
        ),
        None => None,
    };
    let gateway = Gateway::start(core, &options);
    let handover = Arc::new(Handover::new(options.hand_over));
    log(&format!(
        "serving {} (pid {})",
        owned.socket.display(),
        std::process::id()
    ));
    let stop = CancellationToken::new();
    if let Some(listener) = http {
        tokio::spawn(crate::wire::http::serve(
            gateway.clone(),
            listener,
            stop.clone(),
        ));
    }
    let idle = idle_timer(gateway.attached_count(), options.idle_exit);
    tokio::pin!(idle);
    tokio::pin!(stop_when);
    let handed_over = loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => {
                    if !conn.same_user {
                        log("refused a connection from another user");
                        continue;
                    }
                    tokio::spawn(attach(gateway.clone(), handover.clone(), conn, stop.clone()));
                }
                Err(e) => {
                    log(&format!("accept failed: {e}"));
                    // Out of file descriptors, say: do not spin.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = &mut stop_when => break false,
            () = &mut idle => { log("no app attached for a while: stopping"); break false; }
            // Serves on when the successor went away meanwhile.
            () = handover.asked() => {
                if handover.drain(&listener, gateway.attached_count()).await {
                    break true;
                }
            }
        }
    };
    stop.cancel();
    if handed_over {
        // The cancelled sessions close their sockets.
        let mut attached = gateway.attached_count();
        let _ = tokio::time::timeout(Duration::from_secs(2), attached.wait_for(|n| *n == 0)).await;
    }
    drop(owned);
    if handed_over {
        handover.released().await;
    }
    Ok(())
}

/// Resolves once no app has been attached for `after` (never with `None`).
async fn idle_timer(mut attached: watch::Receiver<usize>, after: Option<Duration>) {
    let Some(after) = after else {
        return std::future::pending().await;
    };
    loop {
        if *attached.borrow_and_update() == 0 {
            tokio::select! {
                () = tokio::time::sleep(after) => return,
                changed = attached.changed() => if changed.is_err() { return std::future::pending().await },
            }
        } else if attached.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

/// Read one line of at most `max` bytes (newline included).
async fn read_line_bounded(
    reader: &mut BufReader<crate::wire::endpoint::ReadHalf>,
    max: usize,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(None);
        }
        let room = max.saturating_sub(line.len());
        match buf.iter().take(room).position(|b| *b == b'\n') {
            Some(i) => {
                line.extend_from_slice(&buf[..=i]);
                reader.consume(i + 1);
                return Ok(Some(line));
            }
            None if buf.len() >= room => return Ok(None),
            None => {
                let n = buf.len();
                line.extend_from_slice(buf);
                reader.consume(n);
            }
        }
    }
}

/// One app: the hello, then its MCP session until either side closes.
async fn attach(
    gateway: Arc<Gateway>,
    handover: Arc<Handover>,
    conn: crate::wire::endpoint::Connection,
    stop: CancellationToken,
) {
    let (peer_pid, read, mut write) = (conn.peer_pid, conn.read, conn.write);
    let mut reader = BufReader::new(read);
    let hello = match tokio::time::timeout(
        hello::HELLO_TIMEOUT,
        read_line_bounded(&mut reader, hello::MAX_HELLO_BYTES),
    )
    .await
    {
        Ok(Ok(Some(line))) => hello::parse_hello(&line),
        Ok(Ok(None)) => Err("no hello line (too long, or the stream ended)".to_owned()),
        Ok(Err(e)) => Err(format!("cannot read the hello: {e}")),
        Err(_) => Err(format!(
            "no hello within {} s",
            hello::HELLO_TIMEOUT.as_secs()
        )),
    };
    let hello = match hello {
        Ok(h) => h,
        Err(why) => {
            log(&format!("refused an attach: {why}"));
            let _ = write.write_all(&hello::line(&Welcome::refuse(why))).await;
            return;
        }
    };
    if hello.handover {
        let data_dir = gateway.core.data_dir().to_owned();
        handover.request(&data_dir, peer_pid, reader, write).await;
        return;
    }
    if hello.flush_history {
        // A reader of history, not an app (crate::wire::flush).
        crate::wire::flush::answer(&gateway, &mut write).await;
        return;
    }
    let Some(_attached) = Attached::new(gateway.clone()) else {
        let why = format!(
            "too many apps attached (at most {}); close one",
            limits::MAX_APPS
        );
        let _ = write.write_all(&hello::line(&Welcome::refuse(why))).await;
        return;
    };
    if write.write_all(&hello::line(&Welcome::ok())).await.is_err() {
        return;
    }
    serve_attached(gateway, reader, write, hello.app, stop, handover.moving()).await;
}

/// Serve one app's MCP session over `read`/`write` (newline-delimited
/// JSON-RPC) until either side closes or `stop`: in-process tests' over a
/// pipe (no host hands over from under them). The caller counts it as
/// attached.
pub async fn serve_app<R, W>(
    gateway: Arc<Gateway>,
    read: R,
    write: W,
    app_name: Option<String>,
    stop: CancellationToken,
) where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let never_moving = watch::channel(false).1;
    serve_attached(gateway, read, write, app_name, stop, never_moving).await;
}

/// [`serve_app`], the socket's after its hello: the app's shim is told to
/// reconnect once `moving` (this host hands over, crate::wire::handover).
async fn serve_attached<R, W>(
    gateway: Arc<Gateway>,
    read: R,
    write: W,
    app_name: Option<String>,
    stop: CancellationToken,
    moving: watch::Receiver<bool>,
) where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let who = app_name.clone().unwrap_or_else(|| "(unnamed)".into());
    let named = app_name.clone();
    let session = AppSession::new(gateway.clone(), app_name);
    let app_id = session.id;
    let subscriptions = session.subscriptions.clone();
    let transport = AsyncRwTransport::new_server(read, write)
        .with_max_line_length(limits::MAX_APP_MESSAGE_BYTES);
    let running =
        match tokio::time::timeout(limits::HANDSHAKE_TIMEOUT, serve_server(session, transport))
            .await
        {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                log(&format!("app {who}: handshake failed: {e}"));
                return;
            }
            Err(_) => {
                log(&format!(
                    "app {who}: no handshake within {:?}",
                    limits::HANDSHAKE_TIMEOUT
                ));
                return;
            }
        };
    log(&format!("app {who} attached"));
    let peer = running.peer().clone();
    // Listed under the name its calls are recorded under.
    let listed_as = named.unwrap_or_else(|| {
        peer.peer_info()
            .map(|i| crate::session::app::app_name_from_hello(&i.client_info.name))
            .unwrap_or_else(|| "unnamed".to_owned())
    });
    let _listed = gateway.attachments.add(app_id, listed_as);
    let session_ct = running.cancellation_token();
    let reconnect = tokio::spawn(crate::wire::handover::tell_when_moving(
        moving,
        peer.clone(),
    ));
    let mut changes = gateway.catalog.subscribe();
    let ended = CancellationToken::new();
    let notifier = {
        let ended = ended.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    r = changes.recv() => if matches!(r, Err(broadcast::error::RecvError::Closed)) { return },
                    () = ended.cancelled() => return,
                }
                tokio::time::sleep(CHANGE_COALESCE).await;
                while changes.try_recv().is_ok() {}
                announce_change(&peer, &subscriptions).await;
            }
        })
    };
    let stopper = {
        let ended = ended.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => session_ct.cancel(),
                () = ended.cancelled() => {}
            }
        })
    };
    let _ = running.waiting().await;
    ended.cancel();
    let _ = notifier.await;
    let _ = stopper.await;
    reconnect.abort();
    log(&format!("app {who} detached"));
}
