//! Commands that talk to one server: `connect`, `tools`, `prompts`,
//! `resources`, `read`, `prompt` and `call`. Each disconnects when done.

use std::sync::Arc;

use airlock_core::Airlock;

use crate::failure::{usage, Failure};
use crate::output::{self, plain, print_json};

pub(crate) async fn connect(core: &Arc<Airlock>, server: &str, json: bool) -> Result<u8, Failure> {
    let report = core.connect(server).await?;
    if json {
        print_json(&report);
    } else {
        output::print_connection(&report);
    }
    core.disconnect(server);
    Ok(0)
}

pub(crate) async fn tools(core: &Arc<Airlock>, server: &str, json: bool) -> Result<u8, Failure> {
    let tools = core.list_tools(server).await?;
    if json {
        print_json(&tools);
    } else {
        for t in &tools {
            let desc = t.description.as_deref().unwrap_or("");
            say!("{}  {}", plain(&t.name), plain(&output::first_line(desc)));
        }
    }
    core.disconnect(server);
    Ok(0)
}

pub(crate) async fn prompts(core: &Arc<Airlock>, server: &str, json: bool) -> Result<u8, Failure> {
    let prompts = core.list_prompts(server).await?;
    if json {
        print_json(&prompts);
    } else {
        for p in &prompts {
            say!(
                "{}  {}",
                plain(&p.name),
                plain(&output::first_line(p.description.as_deref().unwrap_or("")))
            );
        }
    }
    core.disconnect(server);
    Ok(0)
}

pub(crate) async fn resources(
    core: &Arc<Airlock>,
    server: &str,
    json: bool,
) -> Result<u8, Failure> {
    let resources = core.list_resources(server).await?;
    if json {
        print_json(&resources);
    } else {
        for r in &resources {
            say!("{}  {}", plain(&r.uri), plain(&r.name));
        }
    }
    core.disconnect(server);
    Ok(0)
}

pub(crate) async fn read(core: &Arc<Airlock>, server: &str, uri: &str) -> Result<u8, Failure> {
    let r = core.read_resource(server, uri).await?;
    print_json(&r);
    core.disconnect(server);
    Ok(0)
}

pub(crate) async fn prompt(
    core: &Arc<Airlock>,
    server: &str,
    name: &str,
    args: Option<&str>,
) -> Result<u8, Failure> {
    let args = parse_object(args, "--args")?;
    let r = core.get_prompt(server, name, args).await?;
    print_json(&r);
    core.disconnect(server);
    Ok(0)
}

/// `call`: exit code 1 when the tool reports an error.
pub(crate) async fn call(
    core: &Arc<Airlock>,
    server: &str,
    tool: &str,
    args: Option<&str>,
    json: bool,
) -> Result<u8, Failure> {
    let args = parse_object(args, "--args")?;
    let outcome = core.call_tool(server, tool, args).await;
    core.disconnect(server);
    // Let the --json event printer catch up with the last transitions.
    for _ in 0..16 {
        tokio::task::yield_now().await;
    }
    let outcome = outcome?;
    if json {
        print_json(&outcome);
    } else {
        output::print_tool_result(&outcome.result);
    }
    Ok(if outcome.is_error { 1 } else { 0 })
}

fn parse_object(
    text: Option<&str>,
    what: &str,
) -> Result<Option<serde_json::Map<String, serde_json::Value>>, Failure> {
    match text {
        None => Ok(None),
        Some(t) => match serde_json::from_str::<serde_json::Value>(t) {
            Ok(serde_json::Value::Object(m)) => Ok(Some(m)),
            Ok(_) => Err(usage(format!(
                "{what} must be a JSON object, like '{{\"message\":\"hi\"}}'"
            ))),
            Err(e) => Err(usage(format!("{what} is not valid JSON: {e}"))),
        },
    }
}
