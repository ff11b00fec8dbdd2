//! Poisoned definitions: what airlock-scan finds in the text a server
//! writes about its tools, prompts and resources, and what apps get once
//! it is cleaned.
//!
//! Input: text (invalid UTF-8 replaced), scanned as one description; and,
//! when it parses as JSON, the value as a tool, a prompt and a resource
//! definition, then cleaned.

use airlock_scan::{
    clean, clean_json, scan_prompt, scan_resource, scan_text, scan_tool, visible, Context, Finding,
    ToolIndex, MAX_EXCERPT_CHARS, MAX_FIELD_CHARS, MAX_FINDINGS, MAX_VISIBLE_CHARS,
};
use serde_json::Value;

use crate::{assert_shown_safely, is_hidden};

/// Longest sentence a finding may carry, in characters.
const MAX_DETAIL_CHARS: usize = 1024;

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let index = ToolIndex::new([
        ("github", "create_issue", "github__create_issue"),
        ("whatsapp", "send_message", "whatsapp__send_message"),
        ("fuzz", "read_notes", "fuzz__read_notes"),
    ]);
    let ctx = Context::new("fuzz", &index);
    check_findings("scan_text", &scan_text("description", &text, &ctx));
    check_clean(&text);
    // `visible` keeps line breaks and tabs; nothing else may stay hidden.
    let shown = visible(&text);
    assert!(
        !shown
            .chars()
            .any(|c| c != '\n' && c != '\t' && is_hidden(c)),
        "visible shows a hidden character: {shown:?}"
    );
    let n = shown.chars().count();
    assert!(
        n <= MAX_VISIBLE_CHARS + 64,
        "visible is {n} characters long"
    );

    if let Ok(mut value) = serde_json::from_str::<Value>(&text) {
        check_findings("scan_tool", &scan_tool(&value, &ctx));
        check_findings("scan_prompt", &scan_prompt(&value, &ctx));
        check_findings("scan_resource", &scan_resource(&value, &ctx));
        clean_json(&mut value);
        assert_eq!(clean_json(&mut value), 0, "clean_json is not idempotent");
        let mut strings = Vec::new();
        every_string(&value, &mut strings);
        for s in strings {
            assert!(
                !s.chars().any(|c| c != '\n' && c != '\t' && is_hidden(c)),
                "clean_json left a hidden character: {s:?}"
            );
        }
    }
}

/// Bounded findings, each shown safely.
fn check_findings(what: &str, found: &[Finding]) {
    assert!(
        found.len() <= MAX_FINDINGS,
        "{what}: {} findings",
        found.len()
    );
    for f in found {
        assert_shown_safely("a finding's field", &f.field, MAX_FIELD_CHARS);
        assert_shown_safely("a finding's excerpt", &f.excerpt, MAX_EXCERPT_CHARS);
        assert_shown_safely("a finding's sentence", &f.detail, MAX_DETAIL_CHARS);
        assert!(!f.detail.is_empty(), "{what}: a finding without a sentence");
    }
}

/// `clean` is idempotent, keeps line breaks and tabs, and leaves nothing
/// hidden.
fn check_clean(text: &str) {
    let cleaned = clean(text);
    assert_eq!(clean(&cleaned), cleaned, "clean is not idempotent");
    assert!(
        !cleaned
            .chars()
            .any(|c| c != '\n' && c != '\t' && is_hidden(c)),
        "clean left a hidden character: {cleaned:?}"
    );
    assert!(!cleaned.contains('\r'), "clean left a carriage return");
}

fn every_string(v: &Value, out: &mut Vec<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (k, item) in map {
                    out.push(k.clone());
                    stack.push(item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}
