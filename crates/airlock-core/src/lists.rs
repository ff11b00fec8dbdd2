//! A server's lists (tools, prompts, resources), page by page, bounded: a
//! hostile server cannot grow memory or keep Airlock asking forever.

use std::collections::HashSet;

use rmcp::service::ServiceError;

use crate::mcp::Session;
use crate::tools::{protocol, session_error};
use crate::{Airlock, CoreResult};

/// Longest completion value passed on, in characters.
pub const MAX_COMPLETION_CHARS: usize = 1000;

/// Pages of one list a server may send before Airlock stops asking.
pub const MAX_LIST_PAGES: usize = 100;
/// Items of one list (tools, prompts, resources) Airlock keeps at most.
pub const MAX_LIST_ITEMS: usize = 10_000;

pub(crate) fn paginated(cursor: Option<String>) -> Option<rmcp::model::PaginatedRequestParams> {
    cursor.map(|c| rmcp::model::PaginatedRequestParams::default().with_cursor(Some(c)))
}

/// Follow a list's pages, stopping with a clear error after
/// [`MAX_LIST_PAGES`] pages, [`MAX_LIST_ITEMS`] items, or a cursor the
/// server already sent (a loop), so a hostile server cannot grow memory or
/// keep Airlock asking forever.
pub(crate) async fn list_bounded<T, F, Fut>(
    session: &Session,
    what: &str,
    mut page: F,
) -> CoreResult<Vec<T>>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    let mut seen = HashSet::new();
    for _ in 0..MAX_LIST_PAGES {
        let (batch, next) = page(cursor).await.map_err(|e| session_error(session, e))?;
        items.extend(batch);
        if items.len() > MAX_LIST_ITEMS {
            return Err(protocol(
                &session.server,
                format!("the server listed more than {MAX_LIST_ITEMS} {what}; stopped"),
            ));
        }
        match next {
            None => return Ok(items),
            Some(c) if !seen.insert(c.clone()) => {
                return Err(protocol(
                    &session.server,
                    format!(
                    "the server sent the same {what} page cursor twice; stopped to avoid a loop"
                ),
                ))
            }
            Some(c) => cursor = Some(c),
        }
    }
    Err(protocol(
        &session.server,
        format!("the server's {what} list went on for more than {MAX_LIST_PAGES} pages; stopped"),
    ))
}

impl Airlock {
    /// Every resource template of a server, page by page (bounded).
    pub async fn list_resource_templates(
        self: &std::sync::Arc<Self>,
        server: &str,
    ) -> CoreResult<Vec<rmcp::model::ResourceTemplate>> {
        let s = self.session(server).await?;
        list_bounded(&s, "resource templates", |cursor| async {
            let page = s.peer.list_resource_templates(paginated(cursor)).await?;
            Ok((page.resource_templates, page.next_cursor))
        })
        .await
    }

    /// `completion/complete` on a server: at most 100 values (the spec's
    /// limit), each plain text within [`MAX_COMPLETION_CHARS`].
    pub async fn complete(
        self: &std::sync::Arc<Self>,
        server: &str,
        params: rmcp::model::CompleteRequestParams,
    ) -> CoreResult<rmcp::model::CompleteResult> {
        let s = self.session(server).await?;
        let mut result = s
            .peer
            .complete(params)
            .await
            .map_err(|e| session_error(&s, e))?;
        let values = &mut result.completion.values;
        values.truncate(rmcp::model::CompletionInfo::MAX_VALUES);
        for v in values.iter_mut() {
            *v = crate::url_safety::neutralize_for_display(v, MAX_COMPLETION_CHARS);
        }
        result.meta = None;
        Ok(result)
    }
}

impl Airlock {
    /// `resources/subscribe` at `server` for `uri` (its own URI there); a
    /// server that did not declare `resources.subscribe` gets none, and the
    /// caller a usage error saying so.
    #[allow(deprecated)] // resources/subscribe: 2025-11-25 servers use it
    pub async fn subscribe_resource(
        self: &std::sync::Arc<Self>,
        server: &str,
        uri: &str,
    ) -> CoreResult<()> {
        let s = self.session(server).await?;
        let unsupported = |why: &str| {
            crate::CoreError::BadInput(format!(
                "{server} does not support resource subscriptions ({why})"
            ))
        };
        let Some(info) = s.peer.peer_info() else {
            return Err(unsupported("it declared nothing"));
        };
        // A 2026-07-28 server's `resources.subscribe` means subscriptions/listen.
        if info.protocol_version >= rmcp::model::ProtocolVersion::V_2026_07_28 {
            return Err(unsupported(
                "it speaks 2026-07-28, whose subscriptions/listen Airlock does not use for resources yet",
            ));
        }
        let declared = info
            .capabilities
            .resources
            .as_ref()
            .and_then(|r| r.subscribe);
        if declared != Some(true) {
            return Err(unsupported("it did not declare resources.subscribe"));
        }
        match s
            .peer
            .subscribe(rmcp::model::SubscribeRequestParams::new(uri))
            .await
        {
            Err(ServiceError::McpError(e))
                if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND =>
            {
                Err(unsupported("it has no resources/subscribe"))
            }
            r => r.map_err(|e| session_error(&s, e)),
        }
    }

    /// `resources/unsubscribe` at `server` for `uri`.
    #[allow(deprecated)] // resources/unsubscribe: 2025-11-25 servers use it
    pub async fn unsubscribe_resource(
        self: &std::sync::Arc<Self>,
        server: &str,
        uri: &str,
    ) -> CoreResult<()> {
        let s = self.session(server).await?;
        s.peer
            .unsubscribe(rmcp::model::UnsubscribeRequestParams::new(uri))
            .await
            .map_err(|e| session_error(&s, e))
    }
}
