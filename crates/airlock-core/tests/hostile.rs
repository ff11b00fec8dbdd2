//! Hostile servers (real rmcp servers in this process) cannot keep Airlock
//! listing forever or grow its memory: list calls stop after a bounded
//! number of pages and items, or at a repeated cursor, with a clear error,
//! and the connection stays usable.

use std::sync::Arc;

use airlock_core::elicitation::BrokerSettings;
use airlock_core::test_support::{open_core, RecordingOpener, ScriptedConsent};
use rmcp::model::{
    ErrorData, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{ClientLifecycleMode, RequestContext, RoleServer};
use rmcp::ServerHandler;

/// How the server pages its tools.
#[derive(Clone, Copy)]
enum Paging {
    /// `per_page` tools and a new cursor on every page, forever.
    Forever { per_page: usize },
    /// Always the same cursor.
    Loop,
    /// Three pages of two tools, then the end.
    Honest,
}

#[derive(Clone)]
struct Pager(Paging);

fn tool(name: String) -> Tool {
    Tool::new(name, "t", Arc::new(serde_json::Map::new()))
}

impl ServerHandler for Pager {
    fn get_info(&self) -> ServerConfig {
        let mut c = ServerConfig::default();
        c.capabilities = ServerCapabilities::builder().enable_tools().build();
        c
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let page: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let (n, next) = match self.0 {
            Paging::Forever { per_page } => (per_page, Some((page + 1).to_string())),
            Paging::Loop => (1, Some("7".to_owned())),
            Paging::Honest => (2, (page < 2).then(|| (page + 1).to_string())),
        };
        let mut r =
            ListToolsResult::with_all_items((0..n).map(|i| tool(format!("p{page}t{i}"))).collect());
        r.next_cursor = next;
        Ok(r)
    }
}

async fn listing(paging: Paging) -> Result<usize, String> {
    let (core, _dir) = open_core(
        ScriptedConsent::accepting(),
        RecordingOpener::new(),
        BrokerSettings::default(),
    );
    let (client, server) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(r) = rmcp::ServiceExt::serve(Pager(paging), server).await {
            let _ = r.waiting().await;
        }
    });
    core.connect_in_process("pager", client, ClientLifecycleMode::Initialize)
        .await
        .unwrap();
    core.list_tools("pager")
        .await
        .map(|t| t.len())
        .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "current_thread")]
async fn list_calls_stop_at_a_bound_with_a_clear_error() {
    assert_eq!(
        listing(Paging::Honest).await,
        Ok(6),
        "an honest server pages normally"
    );
    let endless = listing(Paging::Forever { per_page: 10 }).await.unwrap_err();
    assert!(endless.contains("more than 100 pages"), "{endless}");
    let huge = listing(Paging::Forever { per_page: 2_000 })
        .await
        .unwrap_err();
    assert!(huge.contains("more than 10000 tools"), "{huge}");
    let looping = listing(Paging::Loop).await.unwrap_err();
    assert!(
        looping.contains("same tools page cursor twice"),
        "{looping}"
    );
}
