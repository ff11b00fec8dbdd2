//! Offline detection and cleaning of poisoned MCP definitions.
//!
//! A server can hide instructions to the model in the text an app reads
//! about its tools, prompts and resources ("tool poisoning"): invisible
//! Unicode, bidi controls, Unicode tag characters, terminal escapes, HTML
//! comments, `<IMPORTANT>` blocks telling the model to read the user's SSH
//! key and keep quiet about it, mentions of another server's tools
//! ("shadowing"). This crate finds those signs and removes the hidden
//! characters. It is pure and deterministic: no network, no model, nothing
//! sent anywhere; plain linear scanning (no regular expressions).
//!
//! - [`scan_tool`], [`scan_prompt`], [`scan_resource`], [`scan_instructions`]
//!   walk every text an app would read in a definition and return
//!   [`Finding`]s; [`scan_text`] scans one text.
//! - [`clean`] and [`clean_json`] remove hidden characters (what apps get);
//!   [`visible`] names them (what a person reviewing a change sees).
//! - [`worst`] gives the [`Severity`] that decides whether a definition is
//!   held until the user allows it.
//!
//! # Severity policy
//!
//! [`Severity::Serious`] holds a definition until the user allows it, so it
//! is kept for signs that have no legitimate use in a description:
//!
//! | kind | severity |
//! |---|---|
//! | [`FindingKind::TagCharacter`] | Serious (an emoji subdivision flag, 🏴 + tags + cancel tag: Warning) |
//! | [`FindingKind::BidiControl`] | Serious |
//! | [`FindingKind::TerminalEscape`] | Serious for a real ESC / C1 sequence; Warning for one written out as text (`\x1b[`, `\u001b[`), which hides nothing by itself |
//! | [`FindingKind::ControlCharacter`] | Serious (a lone carriage return: Warning) |
//! | [`FindingKind::HtmlComment`] | Serious (also the Markdown comment idiom `[//]: #`) |
//! | [`FindingKind::HtmlTag`] | Serious for tags that frame or hide text for the model (`<important>`, `<system>`, `<instructions>`, `<secret>`, `<hidden>`, `<script>`, `<style>`, chat-template tokens such as `[INST]` and `<\|im_start\|>`, any tag styled invisible); Notice for ordinary markup (`<b>`, `<code>`, `<br>`) |
//! | [`FindingKind::ModelDirective`] | Serious for text telling the model to hide something from the user, to ignore its instructions, to read a file of the user's, or to hand over the conversation; Warning for weaker forms ("secretly", "before using this tool, read ..."); Notice for emphasis that real tools use all the time ("you must", "very important") |
//! | [`FindingKind::SecretPath`] | Serious for files that hold nothing but secrets (`id_rsa` and the other SSH private keys, `wallet.dat`, `login.keychain-db`, `/etc/shadow`, `.git-credentials`, browser password stores), and for any place of secrets the text orders the model to read or send ("read ~/.aws/credentials", "then attach .env"); Warning for a mere mention of a place that also holds other things (`~/.ssh`, `.env`, `~/.aws`, `.npmrc`, `~/.kube/config`, `mcp.json` ...: a tool for SSH, AWS or a project names them for good reasons) and for words about secrets ("private key", "keychain", "seed phrase"). `.env.example`, `.env.sample`, `.env.template` and `.env.dist` are templates without secrets: no finding |
//! | [`FindingKind::Shadowing`] | Serious |
//! | [`FindingKind::InvisibleCharacter`] | Warning (emoji and some scripts use them; removed anyway); Serious for a run of [`INVISIBLE_RUN_SERIOUS`] or more, which can only carry hidden data |
//! | [`FindingKind::VariationSelector`] | Warning for one (an emoji's U+FE0F); Serious for two or more in a row, which no emoji needs and which can carry hidden bytes |
//! | [`FindingKind::ExtremeLength`] | Warning; Serious when a definition is so large or deep that part of it was not inspected |
//!
//! This is heuristics: a determined attacker can write a polite description
//! that still misleads. The pin review (a person reading the diff of every
//! change) is the backstop; this crate makes sure that what the person reads
//! is what the model reads.

#![warn(missing_docs)]

mod chars;
mod excerpt;
mod hits;
mod markup;
mod phrases;
mod reading;
mod scan;
mod secrets;
mod shadow;
mod walk;
mod words;

use serde::{Deserialize, Serialize};

pub use chars::{clean, clean_in_place, visible, MAX_VISIBLE_CHARS};
pub use excerpt::MAX_EXCERPT_CHARS;
pub use shadow::{ToolIndex, MIN_BARE_NAME};
pub use walk::{
    clean_json, scan_instructions, scan_prompt, scan_resource, scan_tool, MAX_FIELD_CHARS,
    MAX_FINDINGS, MAX_WALK_DEPTH, MAX_WALK_TEXTS,
};

/// Longest tool, prompt or resource description (and title) that is not
/// flagged as [`FindingKind::ExtremeLength`], in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;
/// Longest server instructions text not flagged, in characters.
pub const MAX_INSTRUCTIONS_CHARS: usize = 8192;
/// Longest text inside an input or output schema (a parameter's
/// description, an enum value, a default) not flagged, in characters.
pub const MAX_SCHEMA_TEXT_CHARS: usize = 1024;
/// Longest name (of a tool, prompt, argument or property) not flagged, in
/// characters (the MCP specification's bound for tool names).
pub const MAX_NAME_CHARS: usize = 128;
/// Longest resource URI, URI template or MIME type not flagged, in characters.
pub const MAX_URI_CHARS: usize = 2048;
/// Longest text that is inspected at all, in bytes; the rest of a longer
/// text is not read (and that is reported as a Serious
/// [`FindingKind::ExtremeLength`]).
pub const MAX_SCANNED_BYTES: usize = 4 * 1024 * 1024;
/// Consecutive invisible characters from which a run counts as hidden data.
pub const INVISIBLE_RUN_SERIOUS: usize = 8;

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth showing, not a sign of an attack by itself.
    Notice,
    /// Suspicious or unusual; shown with the definition.
    Warning,
    /// No legitimate use in a description: the definition is held until the
    /// user allows it.
    Serious,
}

impl Severity {
    /// The stable word (as in JSON, SQLite and TypeScript).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Notice => "notice",
            Severity::Warning => "warning",
            Severity::Serious => "serious",
        }
    }
}

/// What was found. The serde names (snake_case) are stable words: they are
/// stored in SQLite and sent to JSON and TypeScript.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Zero-width characters (U+200B..U+200D, U+2060..U+2064, U+FEFF), the
    /// soft hyphen, other format (Cf) characters and blank-rendering fillers.
    InvisibleCharacter,
    /// Bidirectional controls: U+202A..U+202E, U+2066..U+2069, U+200E,
    /// U+200F, U+061C.
    BidiControl,
    /// Unicode tag characters U+E0000..U+E007F: invisible copies of ASCII.
    TagCharacter,
    /// Variation selectors U+FE00..U+FE0F, U+E0100..U+E01EF (and Mongolian).
    VariationSelector,
    /// C0 and C1 control characters other than `\n`, `\r\n` and `\t`.
    ControlCharacter,
    /// Terminal escape sequences (CSI, OSC, ...), raw or written out as text.
    TerminalEscape,
    /// `<!-- ... -->` (and the Markdown comment idiom): hidden when rendered.
    HtmlComment,
    /// Markup that frames or hides text for the model, or ordinary markup.
    HtmlTag,
    /// Text aimed at the model rather than describing the tool.
    ModelDirective,
    /// A place where secrets live (`~/.ssh`, `.env`, ...) or words about them.
    SecretPath,
    /// A mention of a tool of another server.
    Shadowing,
    /// A text longer than its named bound, or a definition too large to
    /// inspect whole.
    ExtremeLength,
}

impl FindingKind {
    /// Every kind, in declaration order.
    pub const ALL: [FindingKind; 12] = [
        FindingKind::InvisibleCharacter,
        FindingKind::BidiControl,
        FindingKind::TagCharacter,
        FindingKind::VariationSelector,
        FindingKind::ControlCharacter,
        FindingKind::TerminalEscape,
        FindingKind::HtmlComment,
        FindingKind::HtmlTag,
        FindingKind::ModelDirective,
        FindingKind::SecretPath,
        FindingKind::Shadowing,
        FindingKind::ExtremeLength,
    ];

    /// The stable word (as in JSON, SQLite and TypeScript).
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::InvisibleCharacter => "invisible_character",
            FindingKind::BidiControl => "bidi_control",
            FindingKind::TagCharacter => "tag_character",
            FindingKind::VariationSelector => "variation_selector",
            FindingKind::ControlCharacter => "control_character",
            FindingKind::TerminalEscape => "terminal_escape",
            FindingKind::HtmlComment => "html_comment",
            FindingKind::HtmlTag => "html_tag",
            FindingKind::ModelDirective => "model_directive",
            FindingKind::SecretPath => "secret_path",
            FindingKind::Shadowing => "shadowing",
            FindingKind::ExtremeLength => "extreme_length",
        }
    }
}

/// One thing found in one text of a definition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// How much it matters; [`Severity::Serious`] holds the definition.
    pub severity: Severity,
    /// Where: `"description"`, `"title"`, `"annotations.title"`,
    /// `"inputSchema.properties.notes.description"`, `"instructions"`, ...
    /// Names the server chose appear made [`visible`], at most
    /// [`MAX_FIELD_CHARS`] characters.
    pub field: String,
    /// The offending text with its surroundings, every hidden character made
    /// [`visible`]; at most [`MAX_EXCERPT_CHARS`] characters.
    pub excerpt: String,
    /// One plain sentence for a person: what was found and why it matters.
    pub detail: String,
}

/// What a scan knows beyond the text: which server it came from, and the
/// tools of every server (to tell a mention of another server's tool).
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    server: &'a str,
    tools: Option<&'a ToolIndex>,
}

impl<'a> Context<'a> {
    /// The context of `server` (its name as the user configured it), with
    /// `tools` the index of every server's tools, this one's included: a
    /// mention of one of this server's own tools is not shadowing, a mention
    /// of another server's is.
    pub fn new(server: &'a str, tools: &'a ToolIndex) -> Self {
        Context {
            server,
            tools: Some(tools),
        }
    }

    /// The context of `server` when no other server's tools are known (no
    /// shadowing check).
    pub fn alone(server: &'a str) -> Self {
        Context {
            server,
            tools: None,
        }
    }

    /// The server the scanned text came from.
    pub fn server(&self) -> &'a str {
        self.server
    }

    /// The tool index, if any.
    pub fn tools(&self) -> Option<&'a ToolIndex> {
        self.tools
    }
}

/// Findings in one text (`field` names where it came from). The text is
/// read as a description: every check runs, including the length bound
/// [`MAX_DESCRIPTION_CHARS`]. Linear in the length of `text`.
pub fn scan_text(field: &str, text: &str, ctx: &Context<'_>) -> Vec<Finding> {
    scan::scan(text, scan::Role::Description, ctx)
        .into_iter()
        .map(|p| p.with_field(field.to_owned()))
        .collect()
}

/// The worst severity in a list (`None` if it is empty).
pub fn worst(findings: &[Finding]) -> Option<Severity> {
    findings.iter().map(|f| f.severity).max()
}
