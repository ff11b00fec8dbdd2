//! A server's lists (tools, prompts, resources), page by page, bounded: a
//! hostile server cannot grow memory or keep Airlock asking forever.

use std::collections::HashSet;

use rmcp::service::ServiceError;

use super::session_errors::{protocol, session_error};
use crate::mcp::Session;
use crate::{Airlock, CoreResult};

/// Longest completion value passed on, in characters.
pub const MAX_COMPLETION_CHARS: usize = 1000;

/// Pages of one list a server may send before Airlock stops asking.
pub const MAX_LIST_PAGES: usize = 100;
/// Items of one list (tools, prompts, resources) Airlock keeps at most.
pub const MAX_LIST_ITEMS: usize = 10_000;
/// Bytes of one whole list (its items as JSON) Airlock keeps at most: each
/// page is bounded by the server's message limit, the whole by this.
pub const MAX_LIST_BYTES: usize = 32 * 1024 * 1024;

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
    T: serde::Serialize,
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    let mut seen = HashSet::new();
    let mut bytes = 0usize;
    for _ in 0..MAX_LIST_PAGES {
        let (batch, next) = page(cursor).await.map_err(|e| session_error(session, e))?;
        bytes = bytes.saturating_add(serde_json::to_vec(&batch).map_or(usize::MAX, |b| b.len()));
        if bytes > MAX_LIST_BYTES {
            return Err(protocol(
                &session.server,
                format!("the server's {what} came to more than {MAX_LIST_BYTES} bytes; stopped"),
            ));
        }
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
    /// limit), each plain text within `MAX_COMPLETION_CHARS`.
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
    /// Subscribe at `server` to `uri` (its own URI there): `resources/subscribe`
    /// on 2025-11-25, the session's listen stream on 2026-07-28
    /// (crate::mcp::listen). A server that did not declare
    /// `resources.subscribe` gets none, and the caller a usage error saying so.
    pub async fn subscribe_resource(
        self: &std::sync::Arc<Self>,
        server: &str,
        uri: &str,
    ) -> CoreResult<()> {
        let s = self.session(server).await?;
        let uris = [uri.to_owned()];
        match subscription_kind(&s)? {
            Kind::Listen(listener) => {
                let followed = listener
                    .follow(&uris)
                    .await
                    .map_err(|e| listen_error(&s, e))?;
                if followed.is_empty() {
                    return Err(unsupported(
                        server,
                        "it did not acknowledge a subscription to this resource",
                    ));
                }
                Ok(())
            }
            Kind::Subscribe => legacy_subscribe(&s, uri).await,
        }
    }

    /// Subscribe at `server` to each of `uris` (on 2026-07-28 with one new
    /// listen stream for them all): the URIs subscribed, or why none.
    pub async fn subscribe_resources(
        self: &std::sync::Arc<Self>,
        server: &str,
        uris: &[String],
    ) -> CoreResult<Vec<String>> {
        let s = self.session(server).await?;
        match subscription_kind(&s)? {
            Kind::Listen(listener) => listener.follow(uris).await.map_err(|e| listen_error(&s, e)),
            Kind::Subscribe => {
                let (mut done, mut failed) = (Vec::new(), None);
                for uri in uris {
                    match legacy_subscribe(&s, uri).await {
                        Ok(()) => done.push(uri.clone()),
                        Err(e) => failed = Some(e),
                    }
                }
                match failed {
                    Some(e) if done.is_empty() => Err(e),
                    _ => Ok(done),
                }
            }
        }
    }

    /// Unsubscribe at `server` from `uri`: `resources/unsubscribe`, or a
    /// listen stream without it.
    #[allow(deprecated)] // resources/unsubscribe: 2025-11-25 servers use it
    pub async fn unsubscribe_resource(
        self: &std::sync::Arc<Self>,
        server: &str,
        uri: &str,
    ) -> CoreResult<()> {
        let s = self.session(server).await?;
        if let Some(listener) = &s.listener {
            return listener
                .unfollow(uri)
                .await
                .map_err(|e| listen_error(&s, e));
        }
        s.peer
            .unsubscribe(rmcp::model::UnsubscribeRequestParams::new(uri))
            .await
            .map_err(|e| session_error(&s, e))
    }
}

/// How a session subscribes to resources.
enum Kind<'a> {
    /// 2026-07-28: its listen stream.
    Listen(&'a crate::mcp::listen::Listener),
    /// 2025-11-25: `resources/subscribe`.
    Subscribe,
}

fn unsupported(server: &str, why: &str) -> crate::CoreError {
    crate::CoreError::BadInput(format!(
        "{server} does not support resource subscriptions ({why})"
    ))
}

/// How `s` subscribes, if its server declared `resources.subscribe`.
fn subscription_kind(s: &Session) -> CoreResult<Kind<'_>> {
    let Some(info) = s.peer.peer_info() else {
        return Err(unsupported(&s.server, "it declared nothing"));
    };
    let declared = info
        .capabilities
        .resources
        .as_ref()
        .and_then(|r| r.subscribe);
    if declared != Some(true) {
        return Err(unsupported(
            &s.server,
            "it did not declare resources.subscribe",
        ));
    }
    Ok(match &s.listener {
        Some(listener) => Kind::Listen(listener),
        None => Kind::Subscribe,
    })
}

/// `resources/subscribe` (2025-11-25).
#[allow(deprecated)] // resources/subscribe: 2025-11-25 servers use it
async fn legacy_subscribe(s: &Session, uri: &str) -> CoreResult<()> {
    match s
        .peer
        .subscribe(rmcp::model::SubscribeRequestParams::new(uri))
        .await
    {
        Err(ServiceError::McpError(e)) if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND => {
            Err(unsupported(&s.server, "it has no resources/subscribe"))
        }
        r => r.map_err(|e| session_error(s, e)),
    }
}

/// A listen stream that could not follow a change, as a core error.
fn listen_error(s: &Session, e: crate::mcp::listen::ListenError) -> crate::CoreError {
    use crate::mcp::listen::{describe, ListenError};
    match e {
        ListenError::TooMany | ListenError::TooLong => crate::CoreError::BadInput(format!(
            "cannot subscribe at {}: {}",
            s.server,
            describe(&e)
        )),
        ListenError::Open(e) => session_error(s, e),
        ListenError::Timeout => protocol(&s.server, describe(&e)),
    }
}
