//! `clean` (what apps get), `clean_json`, and `visible` (what a reviewer
//! sees).

use airlock_scan::{clean, clean_json, visible, MAX_VISIBLE_CHARS};
use serde_json::json;

#[test]
fn clean_removes_hidden_characters_and_keeps_text() {
    assert_eq!(clean("plain text\n\twith tab"), "plain text\n\twith tab");
    assert_eq!(clean("a\u{200B}b\u{200D}c\u{FEFF}"), "abc");
    assert_eq!(clean("x\u{202E}y\u{2066}z"), "xyz");
    assert_eq!(clean("heart ❤\u{FE0F}"), "heart ❤");
    assert_eq!(
        clean("Weather.\u{E0072}\u{E0065}\u{E0061}\u{E0064}"),
        "Weather."
    );
    assert_eq!(
        clean("bell\u{7} nul\u{0} del\u{7f} c1\u{85}"),
        "bell nul del c1"
    );
    assert_eq!(clean("soft\u{AD}hyphen"), "softhyphen");
    assert_eq!(clean("naïve café 日本 😀"), "naïve café 日本 😀");
}

#[test]
fn clean_line_ends() {
    assert_eq!(clean("a\r\nb"), "a\nb");
    // A lone CR, and the Unicode separators, are line breaks.
    assert_eq!(clean("shown\rhidden"), "shown\nhidden");
    assert_eq!(clean("a\u{2028}b\u{2029}c"), "a\nb\nc");
}

#[test]
fn clean_removes_terminal_sequences_whole() {
    assert_eq!(clean("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
    assert_eq!(clean("up\u{1b}[1A\u{1b}[2Kline"), "upline");
    assert_eq!(clean("t\u{1b}]0;title\u{7}x"), "tx");
    assert_eq!(
        clean("t\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\"),
        "tlink"
    );
    assert_eq!(clean("c1 \u{9b}2Jx"), "c1 x");
    assert_eq!(clean("reset\u{1b}c now"), "reset now");
    // No terminator: only the introducer goes, the text stays readable.
    assert_eq!(clean("a\u{1b}]0;never ends"), "a0;never ends");
    assert_eq!(clean("lone \u{1b}"), "lone ");
    // Written out as text, an escape is text.
    assert_eq!(clean("\\x1b[31m"), "\\x1b[31m");
}

#[test]
fn clean_is_idempotent_on_tricky_joins() {
    for s in [
        "\r\u{200B}\n",
        "\u{1b}\u{200B}[31m",
        "\u{1b}[3\u{200B}1m",
        "a\u{1b}]x\u{1b}[31m",
        "\r\r\n\r",
        "\u{E0041}\u{FE0F}\u{1b}",
    ] {
        let once = clean(s);
        assert_eq!(clean(&once), once, "{s:?}");
    }
}

#[test]
fn clean_json_cleans_strings_and_keys_and_counts() {
    let mut v = json!({
        "name": "get\u{200B}_weather",
        "description": "Weather\u{E0041}\u{E0042}",
        "inputSchema": {
            "properties": {
                "notes\u{200B}": {"type": "string", "enum": ["a\u{202E}"]},
                "city": {"type": "string"}
            }
        },
        "n": 1
    });
    let removed = clean_json(&mut v);
    assert_eq!(removed, 5);
    assert_eq!(v["name"], "get_weather");
    assert_eq!(v["description"], "Weather");
    assert_eq!(v["inputSchema"]["properties"]["notes"]["enum"][0], "a");
    assert_eq!(v["n"], 1);
    assert_eq!(clean_json(&mut v), 0, "idempotent");
}

#[test]
fn clean_json_keeps_the_clean_key_on_a_collision() {
    let mut v = json!({"city\u{200B}": "hidden one", "city": "real one"});
    let removed = clean_json(&mut v);
    assert_eq!(v, json!({"city": "real one"}));
    // The zero-width space, and the dropped entry's key and value.
    assert_eq!(removed, 1 + "city".len() + "hidden one".len());
}

#[test]
fn clean_json_takes_any_depth() {
    let mut v = json!("x\u{200B}");
    for _ in 0..100_000 {
        v = serde_json::Value::Array(vec![v]);
    }
    assert_eq!(clean_json(&mut v), 1);
    // Dropping a deep value recursively would overflow the stack too.
    while let serde_json::Value::Array(mut a) = v {
        v = a.pop().unwrap_or_default();
    }
    assert_eq!(v, "x");
}

#[test]
fn visible_names_hidden_characters() {
    assert_eq!(visible("a\u{200B}b"), "a⟦U+200B ZERO WIDTH SPACE⟧b");
    assert_eq!(
        visible("a\u{200B}\u{200B}\u{200B}b"),
        "a⟦U+200B ZERO WIDTH SPACE ×3⟧b"
    );
    assert_eq!(visible("x\u{202E}y"), "x⟦U+202E RIGHT-TO-LEFT OVERRIDE⟧y");
    assert_eq!(
        visible("Weather.\u{E0072}\u{E0065}\u{E0061}\u{E0064} \u{E007E}/.ssh"),
        "Weather.⟦hidden text: 'read'⟧ ⟦hidden text: '~'⟧/.ssh"
    );
    assert_eq!(visible("red\u{1b}[31m"), "red⟦ESC⟧[31m");
    assert_eq!(visible("bell\u{7}"), "bell⟦U+0007 BELL⟧");
    assert_eq!(visible("cr\rx"), "cr⟦U+000D CARRIAGE RETURN⟧x");
    assert_eq!(visible("❤\u{FE0F}"), "❤⟦U+FE0F VARIATION SELECTOR-16⟧");
    assert_eq!(visible("keeps\nlines\tand tabs"), "keeps\nlines\tand tabs");
}

#[test]
fn visible_markers_cannot_be_forged() {
    // A "⟦" in the text is itself named, so every marker comes from here.
    let forged = "safe ⟦U+200B ZERO WIDTH SPACE⟧";
    let shown = visible(forged);
    assert!(shown.starts_with("safe ⟦U+27E6 "), "{shown}");
}

#[test]
fn visible_is_bounded() {
    let long = "a".repeat(MAX_VISIBLE_CHARS + 10);
    let shown = visible(&long);
    assert!(
        shown.chars().count() <= MAX_VISIBLE_CHARS + 40,
        "{}",
        shown.len()
    );
    assert!(
        shown.ends_with("⟦… 10 more characters⟧"),
        "{}",
        &shown[shown.len() - 40..]
    );
    let exact = "a".repeat(MAX_VISIBLE_CHARS);
    assert_eq!(visible(&exact), exact);
    let hidden = "\u{200B}x".repeat(MAX_VISIBLE_CHARS);
    assert!(visible(&hidden).chars().count() <= MAX_VISIBLE_CHARS + 40);
}
