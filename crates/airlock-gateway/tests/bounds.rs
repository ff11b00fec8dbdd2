//! Bounded sizes (issue 25, item 3): an answer larger than the server's
//! message limit is never read whole; the call fails with an error naming
//! the limit, and the server's next answers go on. (The 1 GB result and the
//! host's memory meanwhile: crates/airlock-cli/tests/gateway_bounds.rs.)

mod common;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_limit_is_a_clear_error_and_the_next_call_goes_on() {
    let h = Harness::new().await;
    let limit = 256 * 1024;
    let server = Server::with_tools(vec![tool("big", "Big."), tool("echo", "Echo.")]);
    h.server_limited("big", server, false, limit).await;
    let app = h.app("cursor", App::default()).await;
    let r = call_with(&app, "big__big", json!({"bytes": 2 * limit}))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let why = text(&r);
    assert!(
        why.contains(&format!("limit of {limit} bytes")) && why.contains("--max-message-bytes"),
        "{why}"
    );
    // Just under the limit passes whole.
    let r = call_with(&app, "big__big", json!({"bytes": limit - 1024}))
        .await
        .unwrap();
    assert_eq!(text(&r).len(), limit - 1024);
    assert_eq!(
        text(&call(&app, "big__echo", "after").await.unwrap()),
        "echo: after"
    );
}
