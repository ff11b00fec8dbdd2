//! Fuzz targets for what a hostile MCP server controls.
//!
//! Each target is a plain function from bytes to nothing that panics when a
//! property breaks, so the same code runs under the coverage-guided driver
//! (`libfuzzer/`, `bash scripts/fuzz.sh`) and in `cargo test`
//! (`tests/corpus.rs` replays every saved input of `corpus/` and
//! `regressions/`):
//!
//! - [`url_inspect`]: `inspect` of airlock-url-safety under both policies, the
//!   look-alike functions (`skeleton`, `resemblance`, `closest_resemblance`)
//!   and the display helpers (`neutralize_for_display`, `elide_middle`);
//! - [`form_schema`]: `parse_schema` on a `requestedSchema`, then
//!   `FormSchema::validate` on an answer and every helper a shell calls;
//! - [`config_import`]: `parse_config` on a Claude Desktop / Cursor / VS Code
//!   file, `ImportPlan::resolve`, `ServerInput::guard_secrets` and the
//!   redactor on what it marked secret;
//! - [`scan_definition`]: airlock-scan's `scan_text`, `clean` and `visible`
//!   on a text, and `scan_tool` / `scan_prompt` / `scan_resource` /
//!   `clean_json` on it as JSON;
//! - [`server_messages`]: bytes written as a server would (JSON-RPC lines on
//!   stdio) into Airlock's client side: a real rmcp session over an
//!   in-memory pipe, with a consent port and an opener that check what the
//!   user would be shown and what would be opened.
//!
//! Every target bounds its own work per input (sizes, lines, waits), so a
//! slow input is a finding, not the harness.
//!
//! Everything is behind the `targets` feature (on for the replay test and
//! the driver), so that a plain `cargo build --workspace` neither builds the
//! targets nor turns on airlock-core's `test-support`.
#![cfg(feature = "targets")]

pub mod config_import;
pub mod form_schema;
pub mod scan_definition;
pub mod server_messages;
pub mod url_inspect;

/// A target: its name (the folder of its corpus) and its function.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by the name `scripts/fuzz.sh` and the corpus folders use.
pub const TARGETS: &[Target] = &[
    ("url_inspect", url_inspect::run),
    ("form_schema", form_schema::run),
    ("config_import", config_import::run),
    ("server_messages", server_messages::run),
    ("scan_definition", scan_definition::run),
];

/// The target called `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Characters a person must never see raw in server text Airlock shows:
/// controls, bidi controls, zero-width characters (an independent list, so
/// the properties do not trust the code they check).
pub(crate) fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// `text` is safe to show as plain text and at most `max` characters long.
pub(crate) fn assert_shown_safely(what: &str, text: &str, max: usize) {
    assert!(
        !text.chars().any(is_hidden),
        "{what} shows a hidden or control character: {text:?}"
    );
    let n = text.chars().count();
    assert!(n <= max, "{what} is {n} characters long (at most {max})");
}
