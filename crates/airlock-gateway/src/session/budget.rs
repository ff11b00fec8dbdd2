//! An app's tool budget (issue 26): when its profile shows more tools than
//! its budget ([`airlock_core::tool_budget`]), its `tools/list` holds two of
//! Airlock's own first, [`FIND_TOOLS`] and [`CALL_TOOL`], then the tools it
//! used most lately (from history), then, while room is left, the others
//! one server at a time (no server fills the list alone).
//!
//! - `airlock__find_tools {query, limit?}`: words over the names,
//!   parameters and descriptions of every tool the app may see
//!   ([`crate::catalog::search`]); the matches with their full definitions,
//!   at most [`FIND_MAX_LIMIT`] and [`FIND_MAX_BYTES`].
//! - `airlock__call_tool {name, arguments}`: calls a tool by its exposed
//!   name, its arguments first checked against its input schema
//!   ([`crate::session::schema`]); then the one path of every call
//!   (`AppSession::call_exposed`): the profile, a hold, a pause refuse it
//!   exactly as a direct call, and history records it as that tool, with
//!   the app.
//!
//! Found tools are not added to the app's list (no list_changed): the list
//! stays what the app's model was given, and a found tool is called through
//! `airlock__call_tool`, or directly by its name, which works for any tool
//! the profile shows, listed or not.

use std::collections::{BTreeMap, HashMap};

use airlock_core::apps::AppProfile;
use airlock_core::tool_budget::OWN_TOOLS;
use rmcp::model::{CallToolResponse, CallToolResult, JsonObject, Tool};
use serde_json::{json, Value};

use crate::catalog::names::RESERVED_PREFIX;
use crate::catalog::View;

/// Airlock's search over the tools an app may see.
pub const FIND_TOOLS: &str = "airlock__find_tools";
/// Airlock's call of a found tool.
pub const CALL_TOOL: &str = "airlock__call_tool";
/// Results of one search when the app names no limit.
pub const FIND_DEFAULT_LIMIT: usize = 8;
/// Most results of one search.
pub const FIND_MAX_LIMIT: usize = 25;
/// Most bytes of the found tools' definitions in one answer (JSON); the
/// ones that do not fit are counted, not sent.
pub const FIND_MAX_BYTES: usize = 64 * 1024;

/// One of Airlock's own tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Own {
    Find,
    Call,
}

/// `name` is one of Airlock's own tools.
pub fn own(name: &str) -> Option<Own> {
    match name {
        FIND_TOOLS => Some(Own::Find),
        CALL_TOOL => Some(Own::Call),
        _ => None,
    }
}

/// The definitions of Airlock's own two tools.
pub fn own_tools() -> Vec<Tool> {
    debug_assert!(
        FIND_TOOLS.starts_with(RESERVED_PREFIX) && CALL_TOOL.starts_with(RESERVED_PREFIX)
    );
    [
        json!({
            "name": FIND_TOOLS,
            "title": "Find tools",
            "description": format!(
                "Search the tools this app may use but that are not in its tool list (Airlock lists only some of them). \
                 Give a few words of what you want to do; the matching tools come back with their names, descriptions \
                 and input schemas (at most {FIND_MAX_LIMIT}). Call one with {CALL_TOOL}."
            ),
            "inputSchema": find_schema(),
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
        }),
        json!({
            "name": CALL_TOOL,
            "title": "Call a found tool",
            "description": format!(
                "Call a tool found with {FIND_TOOLS}, by its full name, with arguments that fit its input schema \
                 (checked before the call)."
            ),
            "inputSchema": call_schema(),
            "annotations": {"openWorldHint": true},
        }),
    ]
    .into_iter()
    .filter_map(|t| serde_json::from_value(t).ok())
    .collect()
}

fn find_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": crate::catalog::search::MAX_QUERY_CHARS,
                "description": "Words of what the tool should do, or of its name or parameters"
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": FIND_MAX_LIMIT,
                "description": format!("How many tools at most (default {FIND_DEFAULT_LIMIT})")
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

fn call_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "minLength": 1,
                "description": format!("The tool's full name, as {FIND_TOOLS} gave it")
            },
            "arguments": {
                "type": "object",
                "description": "The tool's arguments, fitting its input schema"
            }
        },
        "required": ["name"],
        "additionalProperties": false
    })
}

/// The tools `app`'s tools/list holds with `profile`: every tool the
/// profile shows, or within its budget the most used and Airlock's own.
pub fn listed(
    core: &airlock_core::Airlock,
    view: &View,
    profile: &AppProfile,
    app: &str,
) -> Vec<Tool> {
    let all = crate::catalog::profile::tools(view, profile);
    match profile.tool_budget_for(app) {
        Some(budget) if all.len() > budget as usize => {
            let room = budget.saturating_sub(OWN_TOOLS) as usize;
            let used = if room == 0 {
                Vec::new()
            } else {
                // More than the room: some used tools may be gone or hidden now.
                let ask = u32::try_from(room.saturating_mul(2)).unwrap_or(u32::MAX);
                core.most_used_tools(app, ask)
                    .unwrap_or_else(|e| {
                        crate::catalog::log(&format!(
                            "{app}: cannot read the tools it used most: {e}; its list holds others"
                        ));
                        Vec::new()
                    })
                    .into_iter()
                    .map(|u| (u.server, u.tool))
                    .collect()
            };
            let mut out = own_tools();
            out.extend(within(view, all, &used, room));
            out
        }
        _ => all,
    }
}

/// At most `room` of `all` (in view order): those in `used` (`(server,
/// own name)`, most used first) first, then one server at a time.
fn within(view: &View, all: Vec<Tool>, used: &[(String, String)], room: usize) -> Vec<Tool> {
    let route = |t: &Tool| {
        view.tool(&t.name)
            .map(|r| (r.server.clone(), r.name.clone()))
    };
    let mut by_route: HashMap<(String, String), usize> = HashMap::new();
    for (i, t) in all.iter().enumerate() {
        if let Some(r) = route(t) {
            by_route.insert(r, i);
        }
    }
    let mut taken = vec![false; all.len()];
    let mut order: Vec<usize> = Vec::with_capacity(room);
    for key in used {
        if order.len() == room {
            break;
        }
        if let Some(&i) = by_route.get(key) {
            if !taken[i] {
                taken[i] = true;
                order.push(i);
            }
        }
    }
    // The rest, one server at a time, each in its own order.
    let mut queues: BTreeMap<String, std::collections::VecDeque<usize>> = BTreeMap::new();
    for (i, t) in all.iter().enumerate() {
        if !taken[i] {
            let server = view
                .tool(&t.name)
                .map_or_else(String::new, |r| r.server.clone());
            queues.entry(server).or_default().push_back(i);
        }
    }
    while order.len() < room && queues.values().any(|q| !q.is_empty()) {
        for q in queues.values_mut() {
            if order.len() == room {
                break;
            }
            if let Some(i) = q.pop_front() {
                order.push(i);
            }
        }
    }
    let mut slots: Vec<Option<Tool>> = all.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Why arguments do not fit `tool`'s schema, in a sentence.
fn misfit(tool: &str, errors: &[String]) -> String {
    format!(
        "the arguments do not fit {tool}'s input schema: {}",
        errors.join("; ")
    )
}

/// A sentence of Airlock's as the tool error the app gets.
pub fn refusal(why: &str) -> CallToolResponse {
    crate::session::forward::tool_error(format!("Airlock: {why}"))
}

/// `airlock__call_tool`'s arguments: the name and the arguments to call it
/// with, or why they do not fit (see [`refusal`]).
pub fn call_request(
    arguments: Option<&JsonObject>,
) -> Result<(String, Option<JsonObject>), String> {
    let args = Value::Object(arguments.cloned().unwrap_or_default());
    if let Value::Object(schema) = call_schema() {
        crate::session::schema::check(&schema, &args).map_err(|e| misfit(CALL_TOOL, &e))?;
    }
    let name = args
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let inner = args.get("arguments").and_then(Value::as_object).cloned();
    Ok((name, inner))
}

/// Arguments of a call through `airlock__call_tool` checked against the
/// called tool's input schema: why they do not fit (the app's tool error,
/// [`refusal`], and history's record say it).
pub fn check_arguments(tool: &Tool, arguments: Option<&JsonObject>) -> Result<(), String> {
    let args = Value::Object(arguments.cloned().unwrap_or_default());
    crate::session::schema::check(&tool.input_schema, &args).map_err(|e| misfit(&tool.name, &e))
}

/// `airlock__find_tools`: the tools of `view` the profile shows that match
/// the app's words, with their definitions.
pub fn find(
    catalog: &crate::catalog::Catalog,
    view: &View,
    profile: &AppProfile,
    arguments: Option<&JsonObject>,
) -> CallToolResponse {
    let args = Value::Object(arguments.cloned().unwrap_or_default());
    if let Value::Object(schema) = find_schema() {
        if let Err(e) = crate::session::schema::check(&schema, &args) {
            return refusal(&misfit(FIND_TOOLS, &e));
        }
    }
    let text = args
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let query = match crate::catalog::search::Query::parse(text) {
        Ok(q) => q,
        Err(why) => return refusal(&why),
    };
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(FIND_DEFAULT_LIMIT, |n| {
            usize::try_from(n).unwrap_or(FIND_MAX_LIMIT)
        })
        .clamp(1, FIND_MAX_LIMIT);
    let allowed = |exposed: &str| {
        view.tool(exposed)
            .is_some_and(|r| profile.allows_tool(&r.server, &r.name))
    };
    let names = match catalog.find_tools(view, &query, limit, allowed) {
        Ok(n) => n,
        Err(e) => return refusal(&e.to_string()),
    };
    let mut tools: Vec<Value> = Vec::new();
    let (mut bytes, mut not_sent) = (0usize, 0usize);
    for name in &names {
        let Some(v) = view
            .tool_def(name)
            .and_then(|t| serde_json::to_value(t).ok())
        else {
            continue;
        };
        let size = v.to_string().len();
        if bytes + size > FIND_MAX_BYTES {
            not_sent += 1;
            continue;
        }
        bytes += size;
        tools.push(v);
    }
    let mut answer = json!({
        "tools": tools,
        "words": query.words(),
    });
    if not_sent > 0 {
        answer["not_sent"] = json!(not_sent);
        answer["note"] = json!(format!(
            "{not_sent} more matched but their definitions are over {FIND_MAX_BYTES} bytes in all: search with more precise words"
        ));
    }
    if names.is_empty() {
        answer["note"] = json!("no tool matched: try other words");
    }
    CallToolResponse::Complete(CallToolResult::structured(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The caps table is keyed by the app names `airlock apps
    /// connect` writes (airlock-apps' ids), declared there once.
    #[test]
    fn every_app_with_a_cap_is_one_airlock_connects() {
        for cap in airlock_core::tool_budget::APP_TOOL_CAPS {
            assert!(
                cap.app.parse::<airlock_apps::AppId>().is_ok(),
                "{} is not an app id",
                cap.app
            );
        }
    }

    #[test]
    fn airlocks_own_tools_are_named_as_reserved_and_their_schemas_check() {
        let tools = own_tools();
        assert_eq!(tools.len(), OWN_TOOLS as usize);
        for t in &tools {
            assert!(crate::catalog::names::is_reserved(&t.name));
            assert!(own(&t.name).is_some());
        }
        assert_eq!(own("airlock__other"), None);
        assert!(call_request(None).is_err(), "name is required");
        let args: JsonObject =
            serde_json::from_value(json!({"name": "s__t", "arguments": {"a": 1}})).unwrap();
        let (name, inner) = call_request(Some(&args)).unwrap();
        assert_eq!(name, "s__t");
        assert_eq!(inner.unwrap()["a"], 1);
        let bad: JsonObject =
            serde_json::from_value(json!({"name": "s__t", "arguments": [1]})).unwrap();
        assert!(call_request(Some(&bad)).is_err());
        let extra: JsonObject =
            serde_json::from_value(json!({"name": "s__t", "args": {}})).unwrap();
        assert!(call_request(Some(&extra)).is_err());
    }
}
