//! The exception request, the mailto link, the apps' managed settings.

use std::path::PathBuf;

use airlock_policy::{
    exception_request, export_claude_code, export_claude_code_settings, export_copilot,
    export_vscode, mailto, Contact, Refusal, ServerFacts,
};
use serde_json::json;

const H: &str = "3f5c1a9e0b7d4c2e8a6f1b3d5e7c9a0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f1a";

fn facts() -> ServerFacts {
    ServerFacts {
        name: "evil".into(),
        registry_name: Some("io.github.someone/evil-server".into()),
        version: Some("1.2.3".into()),
        artifact_sha256: Some(H.into()),
        command: Some(vec!["npx".into(), "-y".into(), "evil server".into()]),
        url: None,
        confined: false,
    }
}

fn refusal() -> Refusal {
    Refusal {
        rule: "deniedServers[2]".into(),
        file: Some(PathBuf::from("/etc/airlock/policy.json")),
        detail: "matches the command npx -y evil-server".into(),
        contact: Some(Contact {
            name: Some("Platform Security".into()),
            email: Some("mcp-exceptions@corp.example.com".into()),
            url: None,
        }),
    }
}

#[test]
fn exception_text_has_everything() {
    let t = exception_request(&facts(), &refusal(), "  I need it for the Q3 audit.\u{7}  ");
    for want in [
        "Server: evil",
        "Registry name: io.github.someone/evil-server (version 1.2.3)",
        "Command: npx -y 'evil server'",
        &format!("Locked artifact hash (SHA-256): {H}"),
        "Confined: no",
        "Refused by rule: deniedServers[2] in /etc/airlock/policy.json",
        "Which: matches the command npx -y evil-server",
        "Why I need it:\nI need it for the Q3 audit.\n",
    ] {
        assert!(t.contains(want), "missing {want:?} in:\n{t}");
    }
    assert!(!t.contains('\u{7}'));
    let t = exception_request(&ServerFacts::default(), &refusal(), "");
    assert!(
        t.contains("none (not installed from a locked artifact)"),
        "{t}"
    );
    assert!(t.contains("(no reason given)"), "{t}");
}

#[test]
fn mailto_is_encoded() {
    let c = refusal().contact.expect("contact");
    let link = mailto(&c, "Exception: evil & co", "line 1\nline 2 = 100% #1?").expect("email");
    assert_eq!(
        link,
        "mailto:mcp-exceptions@corp.example.com?subject=Exception%3A%20evil%20%26%20co&body=line%201%0D%0Aline%202%20%3D%20100%25%20%231%3F"
    );
    let link = mailto(&c, "ü", "a+b").expect("email");
    assert!(link.ends_with("subject=%C3%BC&body=a%2Bb"), "{link}");
    assert_eq!(mailto(&Contact::default(), "s", "b"), None);
}

#[test]
fn claude_code_admits_only_airlock() {
    let entry = json!({"type": "stdio", "command": "/usr/bin/airlock", "args": ["gateway", "--app", "claude-code"], "env": {}});
    assert_eq!(
        export_claude_code(&entry),
        json!({"mcpServers": {"airlock": entry.clone()}})
    );
    assert_eq!(
        export_claude_code_settings(&entry),
        json!({
            "allowManagedMcpServersOnly": true,
            "allowedMcpServers": [{"serverCommand": ["/usr/bin/airlock", "gateway", "--app", "claude-code"]}]
        })
    );
    assert_eq!(
        export_copilot(&json!({"type": "http", "url": "http://127.0.0.1:7777/mcp"})),
        json!({"allowedMcpServers": [{"serverUrl": "http://127.0.0.1:7777/mcp"}]})
    );
    let v = export_vscode(&entry);
    let list: serde_json::Value =
        serde_json::from_str(v["ChatAllowedMcpServers"].as_str().expect("a JSON string"))
            .expect("JSON");
    assert_eq!(
        list,
        json!([{"serverCommand": ["/usr/bin/airlock", "gateway", "--app", "claude-code"]}])
    );
}
