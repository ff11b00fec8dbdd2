//! A tool budget per app (issue 26): the most tools one app's `tools/list`
//! holds through the gateway. When its profile shows more, the gateway
//! lists the tools the app used most and two of Airlock's own
//! (`airlock__find_tools`, `airlock__call_tool`) that reach every other.
//!
//! A profile's budget is a number of tools, `none` (no budget), or unset:
//! the app's default, from [`APP_TOOL_CAPS`], the caps the apps themselves
//! put on the tools they pass to a model, each with where it is written.
//!
//! ```
//! use airlock_core::tool_budget::{default_budget, ToolBudget};
//! assert_eq!(default_budget("cursor"), Some(40));
//! assert_eq!("none".parse::<ToolBudget>(), Ok(ToolBudget::Off));
//! assert_eq!("64".parse::<ToolBudget>(), Ok(ToolBudget::Tools(64)));
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Fewest tools a budget may hold: Airlock's own two (every other tool is
/// then found and called through them).
pub const MIN_TOOL_BUDGET: u32 = 2;
/// Most tools a budget may hold (more is no budget at all).
pub const MAX_TOOL_BUDGET: u32 = 10_000;
/// Tools of Airlock's own in a budgeted list.
pub const OWN_TOOLS: u32 = 2;

/// A profile's tool budget, when it sets one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolBudget {
    /// At most this many tools (Airlock's own two included).
    Tools(u32),
    /// No budget, even where the app has a default (`--tool-budget none`).
    Off,
}

impl ToolBudget {
    /// Within [`MIN_TOOL_BUDGET`]..=[`MAX_TOOL_BUDGET`], or why not.
    pub fn check(self) -> Result<Self, String> {
        match self {
            ToolBudget::Tools(n) if !(MIN_TOOL_BUDGET..=MAX_TOOL_BUDGET).contains(&n) => {
                Err(format!(
                "a tool budget is {MIN_TOOL_BUDGET} to {MAX_TOOL_BUDGET} tools, or `none` (got {n})"
            ))
            }
            b => Ok(b),
        }
    }
}

impl fmt::Display for ToolBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolBudget::Tools(n) => write!(f, "{n}"),
            ToolBudget::Off => f.write_str("none"),
        }
    }
}

impl FromStr for ToolBudget {
    type Err = String;

    /// `none`, or a number of tools within the bounds.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("none") {
            return Ok(ToolBudget::Off);
        }
        s.parse::<u32>()
            .map_err(|_| {
                format!(
                    "a tool budget is a number of tools ({MIN_TOOL_BUDGET} to {MAX_TOOL_BUDGET}) or `none`"
                )
            })
            .and_then(|n| ToolBudget::Tools(n).check())
    }
}

/// As JSON: the number, or `"none"`.
impl Serialize for ToolBudget {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolBudget::Tools(n) => s.serialize_u32(*n),
            ToolBudget::Off => s.serialize_str("none"),
        }
    }
}

impl<'de> Deserialize<'de> for ToolBudget {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u32),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(ToolBudget::Tools(n)),
            Raw::Word(w) if w == "none" => Ok(ToolBudget::Off),
            Raw::Word(w) => Err(serde::de::Error::custom(format!(
                "a tool budget is a number or \"none\", not {w:?}"
            ))),
        }
    }
}

/// What an app's cap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapCounts {
    /// MCP tools only: the budget is the cap.
    McpTools,
    /// Every tool in one model request, the app's own built-in tools and
    /// its other servers' included: the budget is half the cap
    /// ([`REQUEST_CAP_SHARE`]), the rest left to them.
    RequestTools,
}

/// Of a cap that counts every tool of a request, the part Airlock takes
/// (1 in this many).
pub const REQUEST_CAP_SHARE: u32 = 2;

/// One app's cap on the tools it passes to a model, and where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AppToolCap {
    /// The app name (`airlock apps connect` writes it as `--app`).
    pub app: &'static str,
    pub cap: u32,
    pub counts: CapCounts,
    /// What the cap is, in words.
    pub what: &'static str,
    /// Where it is written (the app's docs, or its issue tracker quoting
    /// the error or the docs).
    pub source: &'static str,
}

impl AppToolCap {
    /// The app's default budget.
    pub const fn budget(&self) -> u32 {
        match self.counts {
            CapCounts::McpTools => self.cap,
            CapCounts::RequestTools => self.cap / REQUEST_CAP_SHARE,
        }
    }
}

/// Cursor sends the agent only its first 40 MCP tools.
pub const CURSOR_TOOL_CAP: u32 = 40;
/// Windsurf's Cascade has at most 100 MCP tools at any time.
pub const WINDSURF_TOOL_CAP: u32 = 100;
/// GitHub Copilot (VS Code, the Copilot CLI) refuses a request with more
/// than 128 tools.
pub const COPILOT_TOOL_CAP: u32 = 128;
/// OpenAI's API refuses a request with more than 128 tools (Codex CLI).
pub const OPENAI_TOOL_CAP: u32 = 128;
/// Google's Gemini API refuses more than 512 function declarations
/// (Gemini CLI).
pub const GEMINI_TOOL_CAP: u32 = 512;

/// Every known app's cap, with its source. Apps not here (Claude Code
/// defers MCP tools behind its own tool search; others depend on the model
/// chosen) have no default budget.
pub const APP_TOOL_CAPS: &[AppToolCap] = &[
    AppToolCap {
        app: "cursor",
        cap: CURSOR_TOOL_CAP,
        counts: CapCounts::McpTools,
        what: "\"Cursor will only send the first 40 tools to the Agent\" (newer Cursor warns above 80)",
        source: "https://docs.cursor.com/context/model-context-protocol#tool-quantity (quoted in github.com/getsentry/sentry-mcp-stdio/issues/3 and github.com/anyproto/anytype-mcp/issues/5; 80: github.com/Snowflake-Labs/mcp/issues/77)",
    },
    AppToolCap {
        app: "windsurf",
        cap: WINDSURF_TOOL_CAP,
        counts: CapCounts::McpTools,
        what: "\"Cascade has a limit of 100 total tools that it has access to at any given time\" (50 before)",
        source: "https://docs.windsurf.com/windsurf/cascade/mcp (50: github.com/Zhwt/go-mcp-mysql/issues/3)",
    },
    AppToolCap {
        app: "vscode",
        cap: COPILOT_TOOL_CAP,
        counts: CapCounts::RequestTools,
        what: "GitHub Copilot Chat: \"Cannot have more than 128 tools per request\", built-in tools included",
        source: "https://github.com/microsoft/vscode-copilot-release/issues/11653 (and /issues/9375; github.com/microsoft/vscode/issues/255585)",
    },
    AppToolCap {
        app: "copilot-cli",
        cap: COPILOT_TOOL_CAP,
        counts: CapCounts::RequestTools,
        what: "the Copilot API: \"You may not include more than 128 tools in your request\"",
        source: "https://github.com/microsoft/copilot-intellij-feedback/issues/1842 (the same refusal from VS Code: github.com/microsoft/vscode-copilot-release/issues/9375)",
    },
    AppToolCap {
        app: "codex-cli",
        cap: OPENAI_TOOL_CAP,
        counts: CapCounts::RequestTools,
        what: "OpenAI's API: \"Invalid 'tools': array too long. Expected an array with maximum length 128\"",
        source: "https://github.com/zed-industries/zed/issues/32946 (and github.com/anomalyco/opencode/issues/4909)",
    },
    AppToolCap {
        app: "gemini-cli",
        cap: GEMINI_TOOL_CAP,
        counts: CapCounts::RequestTools,
        what: "the Gemini API: \"At most 512 function declarations can be specified\"",
        source: "https://github.com/google-gemini/gemini-cli/issues/19083 (and /issues/25440)",
    },
];

/// The known cap of the app `app`, if any.
pub fn app_cap(app: &str) -> Option<&'static AppToolCap> {
    APP_TOOL_CAPS.iter().find(|c| c.app == app)
}

/// The default budget of the app `app` (none for an app not in
/// [`APP_TOOL_CAPS`]).
pub fn default_budget(app: &str) -> Option<u32> {
    app_cap(app).map(AppToolCap::budget)
}

/// The budget that applies to `app` with `set` in its profile.
pub fn effective(set: Option<ToolBudget>, app: &str) -> Option<u32> {
    match set {
        Some(ToolBudget::Tools(n)) => Some(n),
        Some(ToolBudget::Off) => None,
        None => default_budget(app),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_within_their_bounds_only() {
        assert_eq!(
            MIN_TOOL_BUDGET.to_string().parse(),
            Ok(ToolBudget::Tools(MIN_TOOL_BUDGET))
        );
        assert_eq!(
            MAX_TOOL_BUDGET.to_string().parse(),
            Ok(ToolBudget::Tools(MAX_TOOL_BUDGET))
        );
        assert!((MIN_TOOL_BUDGET - 1)
            .to_string()
            .parse::<ToolBudget>()
            .is_err());
        assert!((MAX_TOOL_BUDGET + 1)
            .to_string()
            .parse::<ToolBudget>()
            .is_err());
        assert_eq!("None".parse(), Ok(ToolBudget::Off));
        for bad in ["", "-3", "4.5", "forty", "40 tools"] {
            assert!(bad.parse::<ToolBudget>().is_err(), "{bad:?}");
        }
        assert_eq!(OWN_TOOLS, MIN_TOOL_BUDGET);
    }

    #[test]
    fn budgets_are_a_number_or_none_in_json() {
        let j = serde_json::to_string(&[ToolBudget::Tools(40), ToolBudget::Off]).unwrap();
        assert_eq!(j, r#"[40,"none"]"#);
        let back: Vec<ToolBudget> = serde_json::from_str(&j).unwrap();
        assert_eq!(back, [ToolBudget::Tools(40), ToolBudget::Off]);
        assert!(serde_json::from_str::<ToolBudget>(r#""all""#).is_err());
        assert!(serde_json::from_str::<ToolBudget>("-1").is_err());
    }

    #[test]
    fn each_app_default_comes_from_its_cap() {
        assert_eq!(default_budget("cursor"), Some(40));
        assert_eq!(default_budget("windsurf"), Some(100));
        // Caps counting every tool of a request leave half to the app's own.
        assert_eq!(default_budget("vscode"), Some(64));
        assert_eq!(default_budget("codex-cli"), Some(64));
        assert_eq!(default_budget("gemini-cli"), Some(256));
        assert_eq!(default_budget("claude-code"), None);
        assert_eq!(default_budget("my-own-app"), None);
        for cap in APP_TOOL_CAPS {
            assert!(cap.source.contains("github.com") || cap.source.starts_with("https://"));
            let b = cap.budget();
            assert!(ToolBudget::Tools(b).check().is_ok(), "{}", cap.app);
        }
        let names: std::collections::HashSet<_> = APP_TOOL_CAPS.iter().map(|c| c.app).collect();
        assert_eq!(names.len(), APP_TOOL_CAPS.len(), "one row per app");
    }

    #[test]
    fn a_profile_budget_overrides_the_default_and_none_turns_it_off() {
        assert_eq!(effective(None, "cursor"), Some(40));
        assert_eq!(effective(Some(ToolBudget::Tools(12)), "cursor"), Some(12));
        assert_eq!(effective(Some(ToolBudget::Off), "cursor"), None);
        assert_eq!(effective(Some(ToolBudget::Tools(12)), "other"), Some(12));
    }
}
