//! The rug pull of issue 25, whole: a server on the official Python SDK
//! rewrites a tool's description (instructions to the model, a zero-width
//! space, a Unicode tag character) and adds a parameter, on both protocol
//! revisions; apps on the official TypeScript and Python SDKs attached
//! through `airlock gateway --stdio` see the tool withdrawn and its calls
//! refused with the reason, never the new text; `airlock tools review`
//! shows the change with the hidden characters visible; after `airlock
//! tools approve` the apps see the approved text, cleaned.

mod common;

use std::time::Duration;

use common::gateway::*;
use common::*;
use serde_json::{json, Value};

fn get_weather(tools: &Value) -> Option<Value> {
    tools["tools"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == "weather__get_weather")
        .cloned()
}

fn hidden(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c as u32, 0x200B..=0x200F | 0x2060..=0x2064 | 0xFEFF | 0xE0000..=0xE007F))
}

#[test]
fn a_rug_pull_is_held_for_both_sdks_apps_on_both_revisions() {
    for protocol in ["2026-07-28", "2025-11-25"] {
        let sb = Sandbox::new();
        sb.run(&[
            "servers",
            "add",
            "weather",
            "--protocol",
            protocol,
            "--command",
            &s(&py()),
            "--",
            &s(&py_server()),
            "stdio",
        ])
        .ok();
        let daemon = Daemon::start(&sb, "accept", None);
        let ts_ops = json!([
            {"op": "tool_defs"},
            {"op": "call", "name": "weather__rug_pull", "arguments": {}},
            {"op": "wait_tool", "name": "weather__get_weather", "present": false, "timeout_ms": 20000},
            {"op": "tool_defs"},
            {"op": "call", "name": "weather__get_weather", "arguments": {"city": "Paris", "notes": "x"}},
        ]);
        let v = lines(&ts_app(&sb, "ts-app", Some("ts-app"), &ts_ops).run());
        let before = get_weather(&v[0]).expect("listed before");
        assert_eq!(
            before["description"], "Get the weather for a city.",
            "{protocol}"
        );
        assert_eq!(text(&v[1]["result"]), "pulled", "{protocol}: {v:?}");
        assert_eq!(v[2]["found"], true, "{protocol}: withdrawn: {v:?}");
        assert_eq!(
            v[2]["changed"], true,
            "{protocol}: the app heard list_changed: {v:?}"
        );
        assert!(get_weather(&v[3]).is_none(), "{protocol}: {v:?}");
        assert!(
            !v[3].to_string().contains("IMPORTANT"),
            "{protocol}: never the new text"
        );
        let refused = &v[4]["result"];
        assert_eq!(refused["isError"], true, "{protocol}: {v:?}");
        assert!(
            text(refused).contains("weather changed tool get_weather since you approved it"),
            "{protocol}: {refused}"
        );

        // The Python SDK app, attached now, sees the same.
        let py_ops = json!([
            {"op": "tool_defs"},
            {"op": "call", "name": "weather__get_weather", "arguments": {"city": "Oslo"}},
        ]);
        let p = lines(&py_app(&sb, "py-app", Some("py-app"), &py_ops).run());
        assert!(get_weather(&p[0]).is_none(), "{protocol}: {p:?}");
        assert!(!p[0].to_string().contains("IMPORTANT"), "{protocol}: {p:?}");
        assert!(
            text(&p[1]["result"]).contains("since you approved it"),
            "{protocol}: {p:?}"
        );

        // The review shows it, hidden characters made visible.
        let review = sb.run(&["tools", "review", "weather"]);
        review.ok();
        assert!(
            review
                .stdout
                .contains("get_weather: changed since you approved it"),
            "{review:?}"
        );
        assert!(review.stdout.contains("U+200B"), "{review:?}");
        assert!(review.stdout.contains("model_directive"), "{review:?}");
        assert!(!hidden(&review.stdout), "{review:?}");
        let json_review: Value =
            serde_json::from_str(sb.run(&["--json", "tools", "review"]).stdout.trim()).unwrap();
        assert_eq!(
            json_review.as_array().map(Vec::len),
            Some(1),
            "{json_review}"
        );

        // Approved: both apps see the approved text, cleaned.
        sb.run(&["tools", "approve", "weather", "get_weather"]).ok();
        let after = json!([
            {"op": "wait_tool", "name": "weather__get_weather", "timeout_ms": 20000},
            {"op": "tool_defs"},
            {"op": "call", "name": "weather__get_weather", "arguments": {"city": "Rome"}},
        ]);
        let a = lines(&ts_app(&sb, "ts-app", Some("ts-app"), &after).run());
        assert_eq!(a[0]["found"], true, "{protocol}: {a:?}");
        let served = get_weather(&a[1]).expect("served again");
        let description = served["description"].as_str().unwrap_or_default();
        assert!(
            description.contains("<IMPORTANT>"),
            "{protocol}: what was approved"
        );
        assert!(!hidden(description), "{protocol}: {description:?}");
        assert!(served["inputSchema"].to_string().contains("notes"));
        assert!(
            text(&a[2]["result"]).contains("sunny in Rome"),
            "{protocol}: {a:?}"
        );
        let audit = sb.run(&["audit", "--limit", "50"]).stdout;
        assert!(audit.contains("pin_decision"), "{audit}");
        drop(daemon);
        std::thread::sleep(Duration::from_millis(100));
    }
}
