//! The window takes over from the daemon (issue 13): a host that wants the
//! socket (the desktop window; `airlock daemon --take-over` in tests) asks
//! the owner to hand it over instead of waiting for it to stop.
//!
//! ```text
//! successor: takes gateway.next.lock (exclusive lock, its pid inside)
//! successor -> owner: {"airlock_gateway":1,"handover":true}
//! owner -> successor: {"airlock_gateway":1,"ok":true,"pid":N}     (or an error: refused)
//!   owner: new attachments get {"error":..,"moving":true} (the shim tries again);
//!          each attached shim gets `notifications/airlock/reconnect`, holds the
//!          app's new requests and closes once its requests in flight are answered;
//!          after DRAIN_WITHIN the sessions still open are cancelled
//!   owner: releases gateway.lock and removes the socket
//! owner -> successor: {"airlock_gateway":1,"ok":true,"pid":N,"released":true}; owner exits
//! successor: claims the socket as any host does
//! ```
//!
//! Who may ask: the endpoint admits the host's user only and the owner checks
//! the peer's user as for every attachment (crate::wire::endpoint); on top,
//! the asker's pid (SO_PEERCRED; the pipe's client pid on Windows) must be the pid in
//! `gateway.next.lock` while that lock is held. So an app speaking MCP through
//! the shim cannot trigger it (the hello is the shim's, before MCP), and a
//! hello line alone is refused; only a process that goes through the claim
//! path of this data dir is answered. (A process of the same user can signal
//! the daemon anyway: the lock check guards against mistakes and confused
//! programs, not against the user's own processes.) The owner never leaves
//! the socket unowned on a refusal, and if the successor dies before claiming,
//! the next shim that finds no host starts a daemon as it always does.
//!
//! Calls in flight finish on the old host, for up to [`DRAIN_WITHIN`]; a call
//! still running then (a consent nobody answered, say) is cancelled and its
//! app gets "Airlock restarted; retry" from its shim.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{watch, Notify};

use crate::catalog::log;
use crate::wire::endpoint::{self, ReadHalf as OwnedReadHalf, WriteHalf as OwnedWriteHalf};
use crate::wire::hello::{self, Hello, Welcome, HELLO_VERSION};
use crate::wire::place::{self, ClaimError, Owned};

/// How long the old host lets calls in flight finish.
pub const DRAIN_WITHIN: Duration = Duration::from_secs(30);
/// After the shims left, how long the host still watches for the
/// successor going away before it releases the socket.
const SUCCESSOR_CHECK: Duration = Duration::from_millis(200);
/// How long a successor waits for the owner to release the socket.
pub const TAKE_OVER_WITHIN: Duration = Duration::from_secs(45);
/// The successor's lock, in the data dir (its pid inside).
pub const SUCCESSOR_LOCK_FILE: &str = "gateway.next.lock";
/// The notification a host sends each attached shim when it hands over
/// (never passed on to the app).
pub const RECONNECT_METHOD: &str = "notifications/airlock/reconnect";

pub fn successor_lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SUCCESSOR_LOCK_FILE)
}

/// The host that asked for the socket, and its connection.
struct Successor {
    pid: u32,
    read: Option<tokio::io::BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

/// The owner's side: whether it hands over, and to whom.
pub(crate) struct Handover {
    allowed: bool,
    successor: Mutex<Option<Successor>>,
    asked: Notify,
    moving: watch::Sender<bool>,
}

impl Handover {
    pub(crate) fn new(allowed: bool) -> Self {
        Self {
            allowed,
            successor: Mutex::new(None),
            asked: Notify::new(),
            moving: watch::channel(false).0,
        }
    }

    /// `true` once this host is handing over.
    pub(crate) fn moving(&self) -> watch::Receiver<bool> {
        self.moving.subscribe()
    }

    /// Resolves when a successor was accepted.
    pub(crate) async fn asked(&self) {
        self.asked.notified().await
    }

    /// A hello asking for the socket, from process `peer_pid`.
    pub(crate) async fn request(
        &self,
        data_dir: &Path,
        peer_pid: Option<u32>,
        read: tokio::io::BufReader<OwnedReadHalf>,
        mut write: OwnedWriteHalf,
    ) {
        let checked = self.check(data_dir, peer_pid);
        let pid = match checked {
            Ok(pid) => pid,
            Err(why) => {
                log(&format!("refused a handover: {why}"));
                let _ = write.write_all(&hello::line(&Welcome::refuse(why))).await;
                return;
            }
        };
        if write.write_all(&hello::line(&Welcome::ok())).await.is_err() {
            return;
        }
        let mut slot = self.successor.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_some() || *self.moving.borrow() {
            return;
        }
        *slot = Some(Successor {
            pid,
            read: Some(read),
            write,
        });
        self.asked.notify_one();
    }

    fn check(&self, data_dir: &Path, peer_pid: Option<u32>) -> Result<u32, String> {
        if !self.allowed {
            return Err(
                "this Airlock host does not hand its socket over (the window owns it)".into(),
            );
        }
        if *self.moving.borrow() {
            return Err("already handing over".into());
        }
        let peer = peer_pid.ok_or("the asker's pid is unknown")?;
        match place::lock_holder(&successor_lock_path(data_dir)) {
            Some(pid) if pid == peer => Ok(pid),
            Some(_) => Err("the asker does not hold the successor lock".into()),
            None => Err("no successor holds the successor lock".into()),
        }
    }

    /// Stop taking attachments, tell the attached shims, and wait (at most
    /// [`DRAIN_WITHIN`]) until none is attached; `attached` counts them.
    /// `false`: the successor went away meanwhile, so this host serves on
    /// (the shims attach to it again).
    pub(crate) async fn drain(
        &self,
        listener: &endpoint::AsyncListener,
        mut attached: watch::Receiver<usize>,
    ) -> bool {
        let (pid, read) = {
            let mut slot = self.successor.lock().unwrap_or_else(|p| p.into_inner());
            match slot.as_mut() {
                Some(s) => (s.pid, s.read.take()),
                None => return false,
            }
        };
        log(&format!(
            "handing over to pid {pid}: letting calls in flight finish (at most {} s)",
            DRAIN_WITHIN.as_secs()
        ));
        self.moving.send_replace(true);
        let all_gone = async {
            while *attached.borrow_and_update() > 0 {
                if attached.changed().await.is_err() {
                    return;
                }
            }
        };
        let successor_closed = closed(read);
        tokio::pin!(successor_closed);
        let mut gone = tokio::select! {
            biased;
            () = &mut successor_closed => true,
            () = all_gone => false,
            () = tokio::time::sleep(DRAIN_WITHIN) => { log("calls still in flight: cancelled"); false }
            () = refuse_all(listener) => false,
        };
        // The shims may leave in the same moment the successor does (it
        // was told to take over, then died): its closing may lag theirs by
        // a little. Releasing the socket to nobody would leave the apps
        // without a host until one of them starts a daemon.
        if !gone {
            gone = tokio::time::timeout(SUCCESSOR_CHECK, &mut successor_closed)
                .await
                .is_ok();
        }
        if gone {
            log(&format!(
                "pid {pid} went away before taking over: serving on"
            ));
            *self.successor.lock().unwrap_or_else(|p| p.into_inner()) = None;
            self.moving.send_replace(false);
            return false;
        }
        true
    }

    /// Tell the successor the socket is free (after it was released).
    pub(crate) async fn released(&self) {
        let taken = self
            .successor
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(mut s) = taken {
            let mut w = Welcome::ok();
            w.released = true;
            let _ = s.write.write_all(&hello::line(&w)).await;
            let _ = s.write.shutdown().await;
            log(&format!("socket released to pid {}: stopping", s.pid));
        }
    }
}

/// Resolves when the successor's connection closes (it says nothing more
/// after its hello).
async fn closed(read: Option<tokio::io::BufReader<OwnedReadHalf>>) {
    let Some(mut read) = read else {
        return std::future::pending().await;
    };
    let mut buf = [0u8; 256];
    loop {
        match read.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// While handing over: every new attachment is told to try again.
async fn refuse_all(listener: &endpoint::AsyncListener) {
    loop {
        match listener.accept().await {
            Ok(mut conn) => {
                tokio::spawn(async move {
                    // Read its hello first, so that closing does not reset
                    // the connection before it reads the answer.
                    let mut buf = [0u8; 512];
                    let _ = tokio::time::timeout(Duration::from_secs(1), conn.read.read(&mut buf))
                        .await;
                    let mut w = Welcome::refuse("Airlock is moving to another host: attach again");
                    w.moving = true;
                    let _ = conn.write.write_all(&hello::line(&w)).await;
                });
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Tell this app's shim to reconnect once its host hands over.
pub(crate) async fn tell_when_moving(
    mut moving: watch::Receiver<bool>,
    peer: rmcp::Peer<rmcp::RoleServer>,
) {
    if moving.wait_for(|m| *m).await.is_ok() {
        let notice = rmcp::model::CustomNotification::new(RECONNECT_METHOD, None);
        let _ = peer
            .send_notification(rmcp::model::ServerNotification::CustomNotification(notice))
            .await;
    }
}

/// Claim the socket of `data_dir`; when another host owns it, ask it to
/// hand over, wait until it released the socket (at most
/// [`TAKE_OVER_WITHIN`]) and claim it then. Blocking.
pub fn claim_taking_over(data_dir: &Path) -> Result<Owned, ClaimError> {
    match place::claim(data_dir) {
        Err(ClaimError::AlreadyRunning { .. }) => {}
        other => return other,
    }
    let _successor = successor_lock(data_dir)?;
    let refused = |why: String| ClaimError::Handover(why);
    let mut stream =
        place::connect(data_dir).map_err(|e| refused(format!("cannot reach the host: {e}")))?;
    let ask = Hello {
        airlock_gateway: HELLO_VERSION,
        app: None,
        handover: true,
        flush_history: false,
    };
    stream
        .write_all(&hello::line(&ask))
        .and_then(|()| stream.set_read_timeout(Some(hello::HELLO_TIMEOUT)))
        .map_err(|e| refused(e.to_string()))?;
    let mut reader = BufReader::new(stream);
    let agreed = read_welcome(&mut reader).map_err(refused)?;
    if !agreed.ok {
        return Err(refused(
            agreed.error.unwrap_or_else(|| "no reason given".into()),
        ));
    }
    let _ = reader.get_ref().set_read_timeout(Some(TAKE_OVER_WITHIN));
    // `released`, or the owner is gone: either way, claim now.
    let _ = read_welcome(&mut reader);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match place::claim(data_dir) {
            Err(ClaimError::AlreadyRunning { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => return other,
        }
    }
}

/// Hold the successor lock with this pid in it (one successor at a time).
fn successor_lock(data_dir: &Path) -> Result<airlock_platform::process_lock::PidLock, ClaimError> {
    let at = successor_lock_path(data_dir);
    place::lock_with_pid(&at)
        .map_err(|e| ClaimError::Handover(format!("{}: {e}", at.display())))?
        .ok_or_else(|| ClaimError::Handover("another Airlock host is taking over already".into()))
}

fn read_welcome(reader: &mut BufReader<endpoint::Stream>) -> Result<Welcome, String> {
    let mut line = Vec::new();
    let n = reader
        .take(hello::MAX_HELLO_BYTES as u64)
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    if n == 0 || !line.ends_with(b"\n") {
        return Err("the host closed the connection".into());
    }
    serde_json::from_slice(&line).map_err(|_| "an answer that is not Airlock's".into())
}
