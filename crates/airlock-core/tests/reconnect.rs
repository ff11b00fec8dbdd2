//! A connection that drops is re-established with back-off, against a real
//! Python `mcp` server over Streamable HTTP that is killed and restarted.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_core::elicitation::{ConsentDecision, FixedConsent, PrintOpener};
use airlock_core::mcp::ConnStatus;
use airlock_core::servers::{ServerInput, Transport};
use airlock_core::{Airlock, AirlockOptions};

struct Peer(Child);
impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn peers() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers")
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn start_py(port: u16) -> Peer {
    let mut child = Command::new(peers().join(".venv/bin/python"))
        .arg(peers().join("py_server.py"))
        .args(["http", "--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python peer (run scripts/setup.sh)");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        match lines.next() {
            Some(Ok(l)) if l.contains("py-peer ready") => break,
            Some(_) => continue,
            None => panic!("python peer exited before it was ready"),
        }
    }
    // Keep draining stderr so the peer never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Peer(child)
}

async fn wait_for(core: &Arc<Airlock>, name: &str, what: &str, pred: impl Fn(&ConnStatus) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = core.status(name);
        if pred(&s) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; status {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnects_after_the_server_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let core = Airlock::open(AirlockOptions::new(
        dir.path().to_owned(),
        Arc::new(FixedConsent(ConsentDecision::Decline)),
        Arc::new(PrintOpener { print: false }),
    ))
    .unwrap();
    let port = free_port();
    core.add_server(&ServerInput {
        name: "py".into(),
        options: unconfined(),
        transport: Transport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: Default::default(),
        },
    })
    .unwrap();
    let peer = start_py(port);
    let report = core.connect("py").await.unwrap();
    assert!(matches!(report.status, ConnStatus::Ready { .. }));
    let out = core
        .call_tool(
            "py",
            "echo",
            serde_json::json!({"message": "one"}).as_object().cloned(),
        )
        .await
        .unwrap();
    assert!(out.result.to_string().contains("one"));

    drop(peer);
    // HTTP has no persistent pipe to break: the next request notices.
    let _ = core
        .call_tool(
            "py",
            "echo",
            serde_json::json!({"message": "lost"}).as_object().cloned(),
        )
        .await;
    wait_for(&core, "py", "reconnecting", |s| {
        matches!(s, ConnStatus::Reconnecting { .. })
    })
    .await;

    let _peer = start_py(port);
    wait_for(&core, "py", "ready again", |s| {
        matches!(s, ConnStatus::Ready { .. })
    })
    .await;
    let out = core
        .call_tool(
            "py",
            "echo",
            serde_json::json!({"message": "two"}).as_object().cloned(),
        )
        .await
        .unwrap();
    assert!(out.result.to_string().contains("two"));
    core.disconnect("py");
    assert_eq!(core.status("py"), ConnStatus::Disconnected);
}

/// A server that connects and drops at once, forever (a real Python `mcp`
/// server told to exit shortly after start): the reconnect attempts carry
/// over from drop to drop, so it is started a bounded number of times, and
/// then the status says Airlock gave up and why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_drops_at_once_is_not_respawned_forever() {
    let dir = tempfile::tempdir().unwrap();
    let spawns = dir.path().join("spawns.log");
    let mut opts = AirlockOptions::new(
        dir.path().join("data"),
        Arc::new(FixedConsent(ConsentDecision::Decline)),
        Arc::new(PrintOpener { print: false }),
    );
    opts.reconnect = airlock_core::limits::ReconnectPolicy {
        first_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_millis(200),
        max_attempts: 4,
        stable_after: Duration::from_secs(30),
    };
    let core = Airlock::open(opts).unwrap();
    let env = [
        ("AIRLOCK_PEER_EXIT_AFTER", "1.5"),
        ("AIRLOCK_PEER_SPAWN_LOG", spawns.to_str().unwrap()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), airlock_core::servers::InputValue::plain(v)))
    .collect();
    core.add_server(&ServerInput {
        name: "flappy".into(),
        options: unconfined(),
        transport: Transport::Stdio {
            command: peers().join(".venv/bin/python").display().to_string(),
            args: vec![
                peers().join("py_server.py").display().to_string(),
                "stdio".into(),
            ],
            env,
            cwd: None,
        },
    })
    .unwrap();
    core.connect("flappy").await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let reason = loop {
        if let ConnStatus::Failed { reason } = core.status("flappy") {
            break reason;
        }
        assert!(
            Instant::now() < deadline,
            "never gave up: {:?}",
            core.status("flappy")
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        reason.contains("gave up after 4 reconnect attempts"),
        "{reason}"
    );
    let count = || {
        std::fs::read_to_string(&spawns)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let at_give_up = count();
    // The first start and at most one per allowed attempt.
    assert!((2..=5).contains(&at_give_up), "started {at_give_up} times");
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(count(), at_give_up, "started again after giving up");
}

/// A stdio server whose every start appends its pid to `spawns`.
fn counted_server(core: &Airlock, name: &str, spawns: &std::path::Path) {
    let env = [("AIRLOCK_PEER_SPAWN_LOG", spawns.to_str().unwrap())]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), airlock_core::servers::InputValue::plain(v)))
        .collect();
    core.add_server(&ServerInput {
        name: name.into(),
        options: unconfined(),
        transport: Transport::Stdio {
            command: peers().join(".venv/bin/python").display().to_string(),
            args: vec![
                peers().join("py_server.py").display().to_string(),
                "stdio".into(),
            ],
            env,
            cwd: None,
        },
    })
    .unwrap();
}

fn pids(spawns: &std::path::Path) -> Vec<u32> {
    std::fs::read_to_string(spawns)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Alive and not a zombie.
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit(')')
                .next()
                .map(|rest| rest.trim_start().to_owned())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// The window, an app through the gateway and start-up all ask for the same
/// server at once: one process starts, every caller gets its session, and
/// the status is never "ready" without a session behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_connects_share_one_server_process() {
    let dir = tempfile::tempdir().unwrap();
    let spawns = dir.path().join("spawns.log");
    let core = Airlock::open(AirlockOptions::new(
        dir.path().join("data"),
        Arc::new(FixedConsent(ConsentDecision::Decline)),
        Arc::new(PrintOpener { print: false }),
    ))
    .unwrap();
    counted_server(&core, "py", &spawns);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..8 {
        let core = core.clone();
        tasks.spawn(async move {
            match i % 4 {
                0 => core.connect("py").await.map(|_| ()),
                1 => core.connect_in_background("py").await.map(|_| ()),
                2 => core.session("py").await.map(|_| ()),
                _ => core.list_tools("py").await.map(|_| ()),
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap().expect("every caller is served");
    }
    let started = pids(&spawns);
    assert_eq!(
        started.len(),
        1,
        "one server process for all callers: {started:?}"
    );
    assert!(matches!(core.status("py"), ConnStatus::Ready { .. }));
    let tools = core.list_tools("py").await.unwrap();
    assert!(tools.iter().any(|t| t.name == "echo"));
    assert_eq!(pids(&spawns).len(), 1, "still one after more calls");
}

/// Disconnect while a connect is under way: the process it started is
/// stopped, the status stays disconnected, and the connect says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disconnect_during_a_connect_leaves_no_process() {
    let dir = tempfile::tempdir().unwrap();
    let spawns = dir.path().join("spawns.log");
    let core = Airlock::open(AirlockOptions::new(
        dir.path().join("data"),
        Arc::new(FixedConsent(ConsentDecision::Decline)),
        Arc::new(PrintOpener { print: false }),
    ))
    .unwrap();
    counted_server(&core, "py", &spawns);
    let connecting = {
        let core = core.clone();
        tokio::spawn(async move { core.connect("py").await })
    };
    // The process started: the handshake is under way (or just done).
    let deadline = Instant::now() + Duration::from_secs(30);
    while pids(&spawns).is_empty() {
        assert!(Instant::now() < deadline, "the server never started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    core.disconnect("py");
    let outcome = connecting.await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    while pids(&spawns).iter().any(|p| running(*p)) {
        assert!(
            Instant::now() < deadline,
            "a server process outlived its disconnect ({outcome:?})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        matches!(core.status("py"), ConnStatus::Disconnected),
        "{:?}",
        core.status("py")
    );
    if let Err(e) = outcome {
        assert!(e.to_string().contains("not connected"), "{e}");
    }
}

/// These tests run a real stdio server from the core's test harness, which
/// cannot be a room's helper (the CLI's binary is: tests/rooms.rs there
/// confines): the server runs unconfined, by choice, as `--no-sandbox`.
fn unconfined() -> airlock_core::servers::ServerOptions {
    airlock_core::servers::ServerOptions {
        sandbox: Some(airlock_sandbox::SandboxSettings::unconfined()),
        ..Default::default()
    }
}
