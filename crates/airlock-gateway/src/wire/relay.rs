//! The shim's copy loop, across host changes (issue 13).
//!
//! It copies newline-delimited JSON-RPC between the app (stdin/stdout) and
//! the host, reading only each message's `id` and `method`, so that when the
//! host hands over (`notifications/airlock/reconnect`, never passed on) or its
//! socket closes unexpectedly:
//! - the app's new requests are held (at most [`MAX_HELD_MESSAGES`] /
//!   [`MAX_HELD_BYTES`]; beyond, they get an error at once) and sent to the
//!   next host after the replay;
//! - after a reconnect notice the shim closes its side once every request in
//!   flight is answered (a `subscriptions/listen` stream does not count);
//! - every request still unanswered when the socket closes gets the error
//!   [`RESTARTED`], so the app never hangs;
//! - the shim attaches again (the new host, or a daemon it starts when none
//!   comes within a grace period; at most [`RECONNECT_WITHIN`]), says its
//!   hello and replays the app's `initialize` or `server/discover` (under an
//!   id of its own: the
//!   app never sees a second answer; the new host answers once its first
//!   connects are done), `notifications/initialized`, its last
//!   `logging/setLevel` and its `resources/subscribe`s (answers swallowed).

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::wire::attach::{self, ShimError, ShimOptions};
use crate::wire::endpoint::Stream as UnixStream;
use crate::wire::handover::RECONNECT_METHOD;
use crate::{limits, wire::place};

/// How long the shim stays after the app closed its stdin.
pub const STDIN_EOF_GRACE: Duration = Duration::from_millis(500);

/// What a request unanswered by a host that went away gets.
pub const RESTARTED: &str = "Airlock restarted; retry";
const RESTARTED_CODE: i64 = -32000;
pub const MAX_HELD_MESSAGES: usize = 256;
pub const MAX_HELD_BYTES: usize = 16 * 1024 * 1024;
/// Requests in flight the shim tracks; beyond, they go untracked.
const MAX_PENDING: usize = 4096;
/// How long the shim tries to attach again after its host went away.
pub const RECONNECT_WITHIN: Duration = Duration::from_secs(90);
/// After a reconnect notice, how long the shim waits for the successor
/// before starting a daemon itself; after an unexpected close, how long.
const PLANNED_GRACE: Duration = Duration::from_secs(10);
const UNPLANNED_GRACE: Duration = Duration::from_secs(1);
/// Longest host line the shim frames and reads; a longer one is passed on
/// unread.
const MAX_HOST_LINE: usize = 64 * 1024 * 1024;
const LISTEN_METHOD: &str = "subscriptions/listen";
const DISCOVER_METHOD: &str = "server/discover";

#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
}

enum Kind<'a> {
    Request(String, Cow<'a, str>),
    Notification(Cow<'a, str>),
    Response(String),
    Other,
}

fn kind(line: &[u8]) -> Kind<'_> {
    match serde_json::from_slice::<Head<'_>>(line) {
        Ok(Head {
            id: Some(id),
            method: Some(m),
        }) => Kind::Request(id.to_string(), m),
        Ok(Head {
            id: None,
            method: Some(m),
        }) => Kind::Notification(m),
        Ok(Head {
            id: Some(id),
            method: None,
        }) => Kind::Response(id.to_string()),
        _ => Kind::Other,
    }
}

#[derive(Default)]
struct State {
    /// Where the app's messages go now; `None` while switching hosts.
    host: Option<Arc<UnixStream>>,
    /// New requests wait (the host is moving, or none is attached).
    holding: bool,
    /// The host said it is moving: close once nothing is in flight.
    moving: bool,
    closed: bool,
    held: VecDeque<Vec<u8>>,
    held_bytes: usize,
    /// Requests sent and not answered: id -> is a `subscriptions/listen`.
    pending: HashMap<String, bool>,
    /// The shim's own replayed requests: their answers are not the app's.
    swallow: HashSet<String>,
    initialize: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
    level: Option<Vec<u8>>,
    subscribed: BTreeSet<String>,
    app_gone: bool,
    replays: u64,
    /// Counts host connections lost: a flush for an older one stops.
    lost: u64,
}

impl State {
    /// Remember what must be said again to a new host.
    fn record(&mut self, kind: &Kind<'_>, line: &[u8]) {
        match kind {
            // On 2026-07-28 `server/discover` opens the session instead: the
            // new host waits for its first connects before answering either.
            Kind::Request(_, m) if m == "initialize" || m == DISCOVER_METHOD => {
                self.initialize = Some(line.to_vec())
            }
            Kind::Notification(m) if m == "notifications/initialized" => {
                self.initialized = Some(line.to_vec())
            }
            Kind::Request(_, m) if m == "logging/setLevel" => self.level = Some(line.to_vec()),
            Kind::Request(_, m) if m == "resources/subscribe" || m == "resources/unsubscribe" => {
                let uri = serde_json::from_slice::<Value>(line).ok().and_then(|v| {
                    v["params"]["uri"]
                        .as_str()
                        .filter(|u| u.len() <= limits::MAX_RESOURCE_URI_BYTES)
                        .map(str::to_owned)
                });
                if let Some(uri) = uri {
                    if m == "resources/unsubscribe" {
                        self.subscribed.remove(&uri);
                    } else if self.subscribed.len() < limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP {
                        self.subscribed.insert(uri);
                    }
                }
            }
            _ => {}
        }
    }

    /// Keep a message for the next host; `false`: no room.
    fn hold(&mut self, line: Vec<u8>) -> bool {
        if self.held.len() >= MAX_HELD_MESSAGES || self.held_bytes + line.len() > MAX_HELD_BYTES {
            return false;
        }
        self.held_bytes += line.len();
        self.held.push_back(line);
        true
    }

    /// After a reconnect notice: close our side once nothing waits for an
    /// answer, so the old host's session ends.
    fn close_when_idle(&mut self) {
        if self.moving && !self.closed && self.pending.values().all(|listen| *listen) {
            if let Some(h) = &self.host {
                let _ = h.shutdown(std::net::Shutdown::Write);
            }
            self.closed = true;
        }
    }

    fn replay_id(&mut self) -> String {
        self.replays += 1;
        let id = format!("airlock-shim-replay-{}", self.replays);
        self.swallow.insert(Value::String(id.clone()).to_string());
        id
    }
}

struct Shared {
    state: Mutex<State>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Write one line to the app.
fn to_app(line: &[u8]) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(line).and_then(|()| out.flush()).is_ok()
}

fn error_line(id: &str, message: &str) -> Vec<u8> {
    let id: Value = serde_json::from_str(id).unwrap_or(Value::Null);
    let mut v = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": RESTARTED_CODE, "message": message},
    }))
    .unwrap_or_default();
    v.push(b'\n');
    v
}

enum Line {
    Full(Vec<u8>),
    /// Longer than allowed: what was read so far (the rest follows).
    TooLong(Vec<u8>),
    End,
}

fn read_line(reader: &mut impl BufRead, max: usize) -> Line {
    let mut line = Vec::new();
    match reader.take(max as u64).read_until(b'\n', &mut line) {
        Ok(0) | Err(_) => Line::End,
        Ok(_) if line.ends_with(b"\n") => Line::Full(line),
        Ok(n) if n >= max => Line::TooLong(line),
        Ok(_) => Line::End,
    }
}

/// Skip (or pass to `out`) the rest of an over-long line.
fn rest_of_line(reader: &mut impl BufRead, mut out: impl FnMut(&[u8])) -> bool {
    loop {
        let buf = match reader.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(b) => b,
        };
        match buf.iter().position(|b| *b == b'\n') {
            Some(i) => {
                out(&buf[..=i]);
                reader.consume(i + 1);
                return true;
            }
            None => {
                let n = buf.len();
                out(buf);
                reader.consume(n);
            }
        }
    }
}

/// Copy between the app and the host until the app leaves; attach again
/// whenever the host goes away.
pub(crate) fn run(options: ShimOptions, host: BufReader<UnixStream>) -> Result<(), ShimError> {
    let writer = host.get_ref().try_clone().map_err(|e| ShimError::Connect {
        path: place::socket_path(&options.data_dir).display().to_string(),
        source: e,
    })?;
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            host: Some(Arc::new(writer)),
            ..State::default()
        }),
    });
    {
        let shared = shared.clone();
        std::thread::spawn(move || from_app(&shared));
    }
    let mut reader = host;
    loop {
        from_host(&shared, &mut reader);
        let (planned, unanswered) = {
            let mut st = shared.lock();
            if st.app_gone {
                return Ok(());
            }
            st.host = None;
            st.holding = true;
            st.lost += 1;
            let planned = std::mem::take(&mut st.moving);
            st.closed = false;
            st.swallow.clear();
            let unanswered: Vec<String> = st.pending.drain().map(|(id, _)| id).collect();
            (planned, unanswered)
        };
        for id in unanswered {
            if !to_app(&error_line(&id, RESTARTED)) {
                return Ok(());
            }
        }
        match reconnect(&options, &shared, planned) {
            Some((r, w)) => {
                reader = r;
                let shared = shared.clone();
                let lost = shared.lock().lost;
                std::thread::spawn(move || flush_held(&shared, w, lost));
            }
            None => {
                let held: Vec<Vec<u8>> = shared.lock().held.drain(..).collect();
                for line in held {
                    if let Kind::Request(id, _) = kind(&line) {
                        to_app(&error_line(&id, RESTARTED));
                    }
                }
                eprintln!(
                    "airlock gateway: the Airlock host went away and none came back within {} s",
                    RECONNECT_WITHIN.as_secs()
                );
                std::process::exit(1);
            }
        }
    }
}

/// The app's messages to the host (a thread of its own).
fn from_app(shared: &Shared) {
    let mut stdin = std::io::stdin().lock();
    loop {
        let line = match read_line(&mut stdin, limits::MAX_APP_MESSAGE_BYTES) {
            Line::Full(l) => l,
            // The host would drop it too: never buffered whole.
            Line::TooLong(_) => {
                if rest_of_line(&mut stdin, |_| {}) {
                    continue;
                }
                break;
            }
            Line::End => break,
        };
        let k = kind(&line);
        let target = {
            let mut st = shared.lock();
            st.record(&k, &line);
            match &k {
                Kind::Request(id, m) => {
                    if st.holding || st.host.is_none() {
                        let id = id.clone();
                        if !st.hold(line) {
                            drop(st);
                            to_app(&error_line(
                                &id,
                                "Airlock is restarting and too many requests wait; retry",
                            ));
                        }
                        continue;
                    }
                    if st.pending.len() < MAX_PENDING {
                        st.pending.insert(id.clone(), m == LISTEN_METHOD);
                    }
                    st.host.clone()
                }
                Kind::Notification(_) if st.host.is_none() => {
                    st.hold(line);
                    continue;
                }
                _ => st.host.clone(),
            }
        };
        let Some(host) = target else { continue };
        if (&*host).write_all(&line).is_err() {
            // The host is going: the request waits for the next one.
            if let Kind::Request(id, _) = &k {
                let mut st = shared.lock();
                st.pending.remove(id);
                if !st.hold(line) {
                    drop(st);
                    to_app(&error_line(id, RESTARTED));
                }
            }
        }
    }
    // The app closed its end (MCP's stdio shutdown): tell the host, give it
    // a moment to close, then leave even if calls are still running there
    // (the host cancels them when the socket closes).
    let host = {
        let mut st = shared.lock();
        st.app_gone = true;
        st.host.clone()
    };
    if let Some(h) = host {
        let _ = h.shutdown(std::net::Shutdown::Write);
    }
    std::thread::sleep(STDIN_EOF_GRACE);
    std::process::exit(0);
}

/// The host's messages to the app, until the host closes.
fn from_host(shared: &Shared, reader: &mut BufReader<UnixStream>) {
    loop {
        let line = match read_line(reader, MAX_HOST_LINE) {
            Line::Full(l) => l,
            Line::TooLong(part) => {
                to_app(&part);
                if rest_of_line(reader, |b| {
                    to_app(b);
                }) {
                    continue;
                }
                return;
            }
            Line::End => return,
        };
        match kind(&line) {
            Kind::Response(id) => {
                let mut st = shared.lock();
                if st.swallow.remove(&id) {
                    continue;
                }
                st.pending.remove(&id);
                st.close_when_idle();
            }
            Kind::Notification(m) if m == RECONNECT_METHOD => {
                let mut st = shared.lock();
                st.moving = true;
                st.holding = true;
                st.close_when_idle();
                continue;
            }
            _ => {}
        }
        if !to_app(&line) {
            // The app is gone.
            std::process::exit(0);
        }
    }
}

/// Attach again, say the hello and replay the app's handshake.
fn reconnect(
    options: &ShimOptions,
    shared: &Shared,
    planned: bool,
) -> Option<(BufReader<UnixStream>, Arc<UnixStream>)> {
    let start = Instant::now();
    let grace = if planned {
        PLANNED_GRACE
    } else {
        UNPLANNED_GRACE
    };
    while start.elapsed() < RECONNECT_WITHIN {
        let stream = match place::connect(&options.data_dir) {
            Ok(s) => Ok(s),
            Err(_)
                if place::running_host(&options.data_dir).is_some() || start.elapsed() < grace =>
            {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(_) => attach::attach(options),
        };
        let attached = stream.and_then(|s| attach::greet(s, options));
        let mut reader = match attached {
            Ok((reader, _)) => reader,
            Err(e) => {
                if !matches!(e, ShimError::Moving) {
                    eprintln!("airlock gateway: attaching again: {e}");
                }
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        let Ok(writer) = reader.get_ref().try_clone() else {
            continue;
        };
        match replay(shared, &writer, &mut reader) {
            Ok(()) => return Some((reader, Arc::new(writer))),
            Err(why) => {
                eprintln!("airlock gateway: the new host refused the app's handshake: {why}");
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
    None
}

/// Say again what the app said at its start.
fn replay(
    shared: &Shared,
    mut host: &UnixStream,
    reader: &mut BufReader<UnixStream>,
) -> Result<(), String> {
    let (init, initialized, level, subscribed) = {
        let st = shared.lock();
        (
            st.initialize.clone(),
            st.initialized.clone(),
            st.level.clone(),
            st.subscribed.clone(),
        )
    };
    let io = |e: std::io::Error| e.to_string();
    if let Some(init) = init {
        let id = shared.lock().replay_id();
        host.write_all(&with_id(&init, &id)?).map_err(io)?;
        reader
            .get_ref()
            .set_read_timeout(Some(limits::HANDSHAKE_TIMEOUT))
            .map_err(io)?;
        let key = Value::String(id).to_string();
        loop {
            let Line::Full(line) = read_line(reader, MAX_HOST_LINE) else {
                return Err("no answer to initialize".into());
            };
            if matches!(kind(&line), Kind::Response(ref r) if *r == key) {
                shared.lock().swallow.remove(&key);
                let answer: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
                if let Some(e) = answer.get("error") {
                    return Err(e.to_string());
                }
                break;
            }
            to_app(&line);
        }
        reader.get_ref().set_read_timeout(None).map_err(io)?;
        if let Some(n) = initialized {
            host.write_all(&n).map_err(io)?;
        }
    }
    if let Some(level) = level {
        let id = shared.lock().replay_id();
        host.write_all(&with_id(&level, &id)?).map_err(io)?;
    }
    for uri in subscribed {
        let id = shared.lock().replay_id();
        let mut line = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri},
        }))
        .map_err(|e| e.to_string())?;
        line.push(b'\n');
        host.write_all(&line).map_err(io)?;
    }
    Ok(())
}

/// The same request under another id.
fn with_id(line: &[u8], id: &str) -> Result<Vec<u8>, String> {
    let mut v: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    let Some(obj) = v.as_object_mut() else {
        return Err("not a JSON-RPC message".into());
    };
    obj.insert("id".into(), Value::String(id.to_owned()));
    let mut out = serde_json::to_vec(&v).map_err(|e| e.to_string())?;
    out.push(b'\n');
    Ok(out)
}

/// Send what the app said during the switch, in order, then go live (a
/// thread of its own: the host's answers are read meanwhile).
fn flush_held(shared: &Shared, host: Arc<UnixStream>, lost: u64) {
    loop {
        let next = {
            let mut st = shared.lock();
            if st.lost != lost {
                // This host went away meanwhile: the next flush sends the rest.
                return;
            }
            match st.held.pop_front() {
                Some(line) => {
                    st.held_bytes = st.held_bytes.saturating_sub(line.len());
                    if let Kind::Request(id, m) = kind(&line) {
                        if st.pending.len() < MAX_PENDING {
                            st.pending.insert(id, m == LISTEN_METHOD);
                        }
                    }
                    line
                }
                None => {
                    st.host = Some(host);
                    st.holding = false;
                    return;
                }
            }
        };
        if (&*host).write_all(&next).is_err() {
            // This host went away too: the reader attaches again.
            let mut st = shared.lock();
            if let Kind::Request(id, _) = kind(&next) {
                st.pending.remove(&id);
            }
            st.held.push_front(next);
            return;
        }
    }
}

#[cfg(test)]
#[path = "relay_tests.rs"]
mod tests;
