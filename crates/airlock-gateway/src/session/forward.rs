//! One tool call of an app, forwarded to its server through the core, and
//! what the app gets back (of a prompt or a resource too).

use std::sync::Arc;

use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, GetPromptResult, MetaObject,
    ReadResourceResult, ResourceContents, ResultType,
};
use rmcp::service::RoleServer;

/// A server's result as the app gets it: complete (whatever revision the
/// server spoke: a 2026-07-28 app needs the marker, and rmcp drops it again
/// for a 2025-11-25 app), and without the server's own identity in `_meta`
/// (the app talks to Airlock).
fn as_airlocks(result_type: &mut Option<ResultType>, meta: &mut Option<MetaObject>) {
    *result_type = Some(ResultType::COMPLETE);
    if let Some(m) = meta.as_mut() {
        m.remove(SERVER_INFO_META);
        if m.is_empty() {
            *meta = None;
        }
    }
}

fn for_the_app(mut result: CallToolResult) -> CallToolResult {
    as_airlocks(&mut result.result_type, &mut result.meta);
    result.content.iter_mut().for_each(clean_block);
    if let Some(structured) = result.structured_content.as_mut() {
        airlock_scan::clean_json(structured);
    }
    result
}

/// A prompt as the app gets it (see [`for_the_app`]).
pub(crate) fn prompt_for_the_app(mut result: GetPromptResult) -> GetPromptResult {
    as_airlocks(&mut result.result_type, &mut result.meta);
    if let Some(d) = result.description.as_mut() {
        airlock_scan::clean_in_place(d);
    }
    for message in &mut result.messages {
        clean_block(&mut message.content);
    }
    result
}

/// A resource's contents as the app gets it (see [`for_the_app`]).
pub(crate) fn resource_for_the_app(mut result: ReadResourceResult) -> ReadResourceResult {
    as_airlocks(&mut result.result_type, &mut result.meta);
    result.contents.iter_mut().for_each(clean_contents);
    result
}

/// The text of a block without hidden characters (invisible, format, bidi,
/// tag, variation-selector and control characters, terminal escapes: what
/// a model reads and a person does not see). Images, audio and blobs are
/// left as they are; their `_meta` too.
fn clean_block(block: &mut ContentBlock) {
    match block {
        ContentBlock::Text(t) => {
            airlock_scan::clean_in_place(&mut t.text);
        }
        ContentBlock::Resource(r) => clean_contents(&mut r.resource),
        ContentBlock::ResourceLink(link) => {
            airlock_scan::clean_in_place(&mut link.name);
            if let Some(t) = link.title.as_mut() {
                airlock_scan::clean_in_place(t);
            }
            if let Some(d) = link.description.as_mut() {
                airlock_scan::clean_in_place(d);
            }
        }
        _ => {}
    }
}

/// A text resource's contents cleaned, except an MCP App's page: it is
/// rendered in the app's sandbox, not read by the model, and passes byte
/// for byte (its emoji's variation selectors included).
fn clean_contents(contents: &mut ResourceContents) {
    if let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = contents
    {
        if mime_type.as_deref() != Some(airlock_core::mcp_apps::MCP_APP_MIME_TYPE) {
            airlock_scan::clean_in_place(text);
        }
    }
}

/// Where a 2026-07-28 server names itself in a result's `_meta`.
const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// One call to a server for an app, owned (it may run on its own task):
/// progress the app asked for reaches it with its token; the outcome as the
/// app gets it.
pub(crate) async fn forward_call(
    core: Arc<airlock_core::Airlock>,
    caller: airlock_core::caller::Caller,
    route: crate::catalog::Route,
    links: Arc<crate::session::links::Links>,
    arguments: Option<rmcp::model::JsonObject>,
    progress_token: Option<rmcp::model::ProgressToken>,
    peer: rmcp::service::Peer<RoleServer>,
) -> crate::session::rounds::Finish<CallToolResponse> {
    let relay = crate::routing::progress::Relay::new(progress_token);
    let sender = crate::routing::progress::Relay::sender(relay.as_ref());
    let call = core.call_tool_with_progress(&caller, &route.server, &route.name, arguments, sender);
    let outcome = crate::routing::progress::forwarding(call, relay.as_ref(), &peer).await;
    match outcome {
        Ok(outcome) => match serde_json::from_value::<CallToolResult>(outcome.result) {
            Ok(result) => {
                links.record(&route.server, &result);
                Ok(CallToolResponse::Complete(for_the_app(result)))
            }
            Err(e) => Ok(tool_error(format!(
                "Airlock: {} returned a result Airlock could not pass on: {e}",
                route.server
            ))),
        },
        Err(e) => Ok(tool_error(format!("Airlock: {e}"))),
    }
}

/// A call that did not produce a result, as a tool error the app (and its
/// model) can read: which server, and why.
pub(crate) fn tool_error(text: String) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
}
