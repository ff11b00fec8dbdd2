//! Single tools turned off by the person: no app sees a tool that is off
//! (the gateway serves its name as withheld, with the reason), and no call
//! reaches the server, from an app, the window or the command line.

use super::Airlock;
use crate::error::{CoreError, CoreResult};

/// Most tools one server may have turned off.
pub const MAX_TOOLS_OFF: usize = 1000;
/// Longest tool name that can be turned off, in bytes.
pub const MAX_TOOL_NAME_BYTES: usize = 256;

/// What an app, the window and the command line are told of a call to a
/// tool that is off.
pub fn tool_off_reason(server: &str, tool: &str) -> String {
    format!("the tool {tool} of {server} is turned off in Airlock; turn it on there to use it")
}

impl Airlock {
    /// Turn `tool` of `server` on (`on`) or off. The tool need not be
    /// listed now (a server may list it later). `Ok(false)`: it already was.
    pub fn set_tool_on(&self, server: &str, tool: &str, on: bool) -> CoreResult<bool> {
        // A configured server, or one connected in this process (an
        // embedder's own).
        let known = self.get_server(server).is_ok()
            || self
                .managed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains_key(server);
        if !known {
            return Err(CoreError::UnknownServer(server.to_owned()));
        }
        if tool.is_empty() || tool.len() > MAX_TOOL_NAME_BYTES || tool.chars().any(char::is_control)
        {
            return Err(CoreError::BadInput(format!(
                "a tool name is 1 to {MAX_TOOL_NAME_BYTES} bytes without control characters"
            )));
        }
        if !on && self.store.tools_off(server)?.len() >= MAX_TOOLS_OFF {
            return Err(CoreError::BadInput(format!(
                "{server} has {MAX_TOOLS_OFF} tools turned off already; turn some on first"
            )));
        }
        let changed = self.store.set_tool_off(server, tool, !on)?;
        if changed {
            // Hosts in this process serve the server's list again at once;
            // others within seconds (`pin_generation`).
            self.pins_changed(server);
            let _ = self.store.audit(
                Some(server),
                "tool_switched",
                &serde_json::json!({"tool": tool, "on": on}),
            );
        }
        Ok(changed)
    }

    /// The tools of `server` that are off.
    pub fn tools_off(&self, server: &str) -> CoreResult<Vec<String>> {
        Ok(self.store.tools_off(server)?)
    }

    /// Whether `tool` of `server` is off.
    pub fn is_tool_off(&self, server: &str, tool: &str) -> bool {
        self.store
            .tools_off(server)
            .is_ok_and(|off| off.iter().any(|n| n == tool))
    }
}

impl Airlock {
    /// What the Servers page shows of `server` at a glance: tools approved
    /// and off, and the apps that used it lately.
    pub fn server_glance(&self, server: &str) -> CoreResult<crate::store::ServerGlance> {
        Ok(self.server_glances(&[server])?.pop().unwrap_or_default())
    }

    /// [`Airlock::server_glance`] of each of `servers`, in order, with one
    /// flush of the history writer (calls still in its queue count too)
    /// for all of them.
    pub fn server_glances(&self, servers: &[&str]) -> CoreResult<Vec<crate::store::ServerGlance>> {
        self.history.flush()?;
        servers
            .iter()
            .map(|s| Ok(self.store.server_glance(s)?))
            .collect()
    }
}
