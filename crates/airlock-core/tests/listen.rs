//! Resource subscriptions at a 2026-07-28 server: Airlock's listen stream
//! there names the subscribed URIs (opened again when the set changes or
//! the server ends it), against the real Python `mcp` server (py-peer,
//! stdio, pinned to 2026-07-28).

#![allow(deprecated)] // sampling and roots: part of the AppRequests trait

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_core::elicitation::{BoxFuture, ConsentDecision, FixedConsent, PrintOpener};
use airlock_core::forward::AppRequests;
use airlock_core::servers::{ProtocolChoice, ServerInput, ServerOptions, Transport};
use airlock_core::{Airlock, AirlockOptions};
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult, ErrorData, ListRootsResult};

/// The updates the core passes on, as (server, URI).
#[derive(Default)]
struct Updates(Mutex<Vec<(String, String)>>);

impl AppRequests for Updates {
    fn create_message<'a>(
        &'a self,
        _server: &'a str,
        _to_app: Option<airlock_core::caller::AppTarget>,
        _params: CreateMessageRequestParams,
    ) -> BoxFuture<'a, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async { Err(ErrorData::internal_error("no app", None)) })
    }
    fn list_roots<'a>(
        &'a self,
        _server: &'a str,
        _to_app: Option<airlock_core::caller::AppTarget>,
    ) -> BoxFuture<'a, Result<ListRootsResult, ErrorData>> {
        Box::pin(async { Ok(ListRootsResult::default()) })
    }
    fn resource_updated(&self, server: &str, uri: &str) {
        let mut all = self.0.lock().unwrap();
        all.push((server.to_owned(), uri.to_owned()));
    }
}

impl Updates {
    fn of(&self, uri: &str) -> usize {
        let all = self.0.lock().unwrap();
        all.iter().filter(|(s, u)| s == "py" && u == uri).count()
    }

    /// Wait (bounded) until `uri` has more than `seen` updates.
    async fn wait_past(&self, uri: &str, seen: usize) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.of(uri) > seen {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }
}

fn peers() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers")
}

async fn touch(core: &Arc<Airlock>, uri: &str) {
    let args = serde_json::json!({"uri": uri}).as_object().cloned();
    let out = core.call_tool("py", "touch_resource", args).await.unwrap();
    assert!(
        out.result.to_string().contains("touched"),
        "{:?}",
        out.result
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_ride_the_listen_stream_of_a_2026_server() {
    let dir = tempfile::tempdir().unwrap();
    let updates = Arc::new(Updates::default());
    let mut opts = AirlockOptions::new(
        dir.path().to_owned(),
        Arc::new(FixedConsent(ConsentDecision::Decline)),
        Arc::new(PrintOpener { print: false }),
    );
    opts.app_requests = Some(updates.clone());
    let core = Airlock::open(opts).unwrap();
    // Unconfined: the core's test harness cannot be a room's helper (the
    // CLI's tests/rooms.rs confines).
    let options = ServerOptions {
        sandbox: Some(airlock_sandbox::SandboxSettings::unconfined()),
        protocol: ProtocolChoice::V2026_07_28,
        ..Default::default()
    };
    core.add_server(&ServerInput {
        name: "py".into(),
        options,
        transport: Transport::Stdio {
            command: peers().join(".venv/bin/python").display().to_string(),
            args: vec![
                peers().join("py_server.py").display().to_string(),
                "stdio".into(),
            ],
            env: Default::default(),
            cwd: None,
        },
    })
    .unwrap();
    core.connect("py").await.unwrap();

    // Subscribed: the update comes; one not subscribed does not.
    core.subscribe_resource("py", "peer://note/a")
        .await
        .unwrap();
    touch(&core, "peer://note/a").await;
    touch(&core, "peer://note/other").await;
    assert!(updates.wait_past("peer://note/a", 0).await);
    // A second URI: a new stream, which still carries the first.
    core.subscribe_resource("py", "peer://note/b")
        .await
        .unwrap();
    touch(&core, "peer://note/a").await;
    touch(&core, "peer://note/b").await;
    assert!(updates.wait_past("peer://note/a", 1).await);
    assert!(updates.wait_past("peer://note/b", 0).await);
    assert_eq!(updates.of("peer://note/other"), 0);

    // The server ends its streams: Airlock listens again (after a second).
    let ended = core
        .call_tool("py", "end_listen_streams", None)
        .await
        .unwrap();
    assert!(
        ended.result.to_string().contains("ended"),
        "{:?}",
        ended.result
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let before = updates.of("peer://note/b");
    touch(&core, "peer://note/b").await;
    assert!(
        updates.wait_past("peer://note/b", before).await,
        "listening again"
    );

    // Unsubscribed: no more updates of it; the other goes on.
    core.unsubscribe_resource("py", "peer://note/b")
        .await
        .unwrap();
    let (a, b) = (updates.of("peer://note/a"), updates.of("peer://note/b"));
    touch(&core, "peer://note/b").await;
    touch(&core, "peer://note/a").await;
    assert!(updates.wait_past("peer://note/a", a).await);
    assert_eq!(updates.of("peer://note/b"), b, "none after unsubscribe");

    // Bounded: over 1,024 URIs at one server is refused, nothing changes.
    let many: Vec<String> = (0..1024).map(|i| format!("peer://note/n{i}")).collect();
    let refused = core.subscribe_resources("py", &many).await.unwrap_err();
    assert!(refused.to_string().contains("at most 1024"), "{refused}");
    let long = format!("peer://note/{}", "x".repeat(3000));
    let refused = core.subscribe_resource("py", &long).await.unwrap_err();
    assert!(refused.to_string().contains("longer than"), "{refused}");
    let a = updates.of("peer://note/a");
    touch(&core, "peer://note/a").await;
    assert!(updates.wait_past("peer://note/a", a).await);
    core.disconnect("py");
}
