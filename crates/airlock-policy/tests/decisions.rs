//! Each rule kind admits and refuses, naming the rule; deny wins; the URL
//! and host tricks an attacker would try.

use std::path::{Path, PathBuf};

use airlock_policy::{parse_policy, Policy, Refusal, ServerFacts, Verdict};

const FILE: &str = "/etc/airlock/policy.json";

fn policy(json: &str) -> Policy {
    let file = parse_policy(json).expect("test policy parses");
    let mut notes = Vec::new();
    Policy::merge(&[(PathBuf::from(FILE), file)], &mut notes)
}

#[track_caller]
fn refused(v: Verdict) -> Refusal {
    match v {
        Verdict::Refused(r) => r,
        Verdict::Allowed => panic!("expected a refusal"),
    }
}

#[track_caller]
fn refused_by(v: Verdict, rule: &str) -> Refusal {
    let r = refused(v);
    assert_eq!(r.rule, rule, "{r}");
    assert_eq!(r.file.as_deref(), Some(Path::new(FILE)));
    r
}

fn stdio(argv: &[&str]) -> ServerFacts {
    ServerFacts {
        name: "s".into(),
        command: Some(argv.iter().map(|s| s.to_string()).collect()),
        confined: true,
        ..ServerFacts::default()
    }
}

fn remote(url: &str) -> ServerFacts {
    ServerFacts {
        name: "r".into(),
        url: Some(url.into()),
        confined: true,
        ..ServerFacts::default()
    }
}

fn from_registry(name: &str, version: &str, sha: &str) -> ServerFacts {
    ServerFacts {
        name: "x".into(),
        registry_name: Some(name.into()),
        version: Some(version.into()),
        artifact_sha256: Some(sha.into()),
        confined: true,
        ..ServerFacts::default()
    }
}

const H1: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const H2: &str = "2222222222222222222222222222222222222222222222222222222222222222";

#[test]
fn no_policy_allows_everything() {
    let p = Policy::default();
    assert!(!p.is_active());
    assert!(p.check_server(&stdio(&["anything"])).is_allowed());
    assert!(p.check_registry("https://any.example/").is_allowed());
    assert!(p.check_host("x.example").is_allowed());
    assert!(p.check_path(Path::new("/etc/shadow")).is_allowed());
    assert!(p.check_app("whatever").is_allowed());
    assert!(p.check_elicitation_domain("example.com").is_allowed());
    assert_eq!(p.fixed_pin_mode(), None);
}

#[test]
fn denied_by_command_with_display() {
    let p = policy(
        r#"{"deniedServers": [
            {"command": ["npx", "-y", "good"]},
            {"registryName": "io.x/y"},
            {"command": ["npx", "-y", "evil-server"]}
        ]}"#,
    );
    let r = refused_by(
        p.check_server(&stdio(&["npx", "-y", "evil-server"])),
        "deniedServers[2]",
    );
    assert_eq!(
        r.to_string(),
        "denied by your organization's policy: deniedServers[2] (/etc/airlock/policy.json) matches the command npx -y evil-server"
    );
    // Exact argv only.
    assert!(p
        .check_server(&stdio(&["npx", "-y", "evil-server", "--flag"]))
        .is_allowed());
    assert!(p.check_server(&stdio(&["npx", "evil-server"])).is_allowed());
}

#[test]
fn denied_by_registry_name_version_and_hash() {
    let p = policy(&format!(
        r#"{{"deniedServers": [
            {{"registryName": "io.github.bad/*"}},
            {{"registryName": "io.github.ok/tool", "version": "1.0.0"}},
            {{"artifactSha256": "{}"}}
        ]}}"#,
        H1.to_uppercase()
    ));
    let r = refused_by(
        p.check_server(&from_registry("io.github.bad/thing", "9", H2)),
        "deniedServers[0]",
    );
    assert!(
        r.detail.contains("registry name io.github.bad/thing"),
        "{r}"
    );
    refused_by(
        p.check_server(&from_registry("IO.GitHub.Bad/Thing", "9", H2)),
        "deniedServers[0]",
    );
    refused_by(
        p.check_server(&from_registry("io.github.ok/tool", "1.0.0", H2)),
        "deniedServers[1]",
    );
    assert!(p
        .check_server(&from_registry("io.github.ok/tool", "1.0.1", H2))
        .is_allowed());
    let r = refused_by(
        p.check_server(&from_registry("io.github.ok/other", "1", H1)),
        "deniedServers[2]",
    );
    assert!(r.detail.contains(H1), "{r}");
    assert!(p
        .check_server(&from_registry("io.github.bad2/x", "1", H2))
        .is_allowed());
}

#[test]
fn matchers_in_one_rule_must_all_match() {
    let p = policy(&format!(
        r#"{{"onlyListedServers": true, "allowedServers": [
            {{"registryName": "io.github.ok/tool", "artifactSha256": "{H1}"}}
        ]}}"#
    ));
    assert!(p
        .check_server(&from_registry("io.github.ok/tool", "1", H1))
        .is_allowed());
    // Same name, other bytes: not listed.
    refused_by(
        p.check_server(&from_registry("io.github.ok/tool", "1", H2)),
        "onlyListedServers",
    );
}

#[test]
fn denied_by_url_pattern() {
    let p = policy(r#"{"deniedServers": [{"url": "https://*.evil.test/*"}]}"#);
    refused_by(
        p.check_server(&remote("https://mcp.evil.test/sse")),
        "deniedServers[0]",
    );
    refused_by(
        p.check_server(&remote("HTTPS://MCP.EVIL.TEST./x")),
        "deniedServers[0]",
    );
    refused_by(
        p.check_server(&remote("https://mcp.evil.test:443/x")),
        "deniedServers[0]",
    );
    assert!(p
        .check_server(&remote("https://evil.test.good.example/"))
        .is_allowed());
}

#[test]
fn url_patterns_resist_tricks() {
    let p = policy(
        r#"{"onlyListedServers": true, "allowedServers": [{"url": "https://good.example.com/*"}]}"#,
    );
    let ok = |u: &str| p.check_server(&remote(u)).is_allowed();
    assert!(ok("https://good.example.com/mcp"));
    assert!(ok("https://GOOD.Example.COM/mcp"));
    assert!(ok("https://good.example.com./mcp"));
    assert!(ok("https://good.example.com:443/mcp"));
    assert!(!ok("https://good.example.com.evil.test/"));
    assert!(!ok("https://good.example.com@evil.test/"));
    assert!(!ok("https://good.example.com:8443/"));
    assert!(!ok("http://good.example.com/mcp"));
    assert!(!ok("https://evil.test/https://good.example.com/"));
    assert!(!ok("https://evil.test/?https://good.example.com/"));
    assert!(!ok("https://xgood.example.com/"));
    // A URL that cannot be parsed is refused, not waved through.
    let r = refused(p.check_server(&remote("https://[bad/")));
    assert!(r.rule.is_empty());
    assert!(r.detail.contains("cannot be read"), "{r}");
    // A path traversal is resolved before matching.
    let p = policy(
        r#"{"onlyListedServers": true, "allowedServers": [{"url": "https://good.example.com/public/*"}]}"#,
    );
    assert!(p
        .check_server(&remote("https://good.example.com/public/a"))
        .is_allowed());
    assert!(!p
        .check_server(&remote("https://good.example.com/public/../admin"))
        .is_allowed());
    assert!(!p
        .check_server(&remote("https://good.example.com/public/%2e%2e/admin"))
        .is_allowed());
    // Ports: `:*` admits any.
    let p = policy(
        r#"{"onlyListedServers": true, "allowedServers": [{"url": "http://localhost:*/*"}]}"#,
    );
    assert!(p
        .check_server(&remote("http://localhost:8080/mcp"))
        .is_allowed());
    assert!(p.check_server(&remote("http://LOCALHOST/mcp")).is_allowed());
}

#[test]
fn deny_wins_over_allow() {
    let p = policy(
        r#"{"onlyListedServers": true,
            "allowedServers": [{"command": ["npx", "-y", "evil-server"]}],
            "deniedServers": [{"command": ["npx", "-y", "evil-server"]}]}"#,
    );
    refused_by(
        p.check_server(&stdio(&["npx", "-y", "evil-server"])),
        "deniedServers[0]",
    );
}

#[test]
fn only_listed_servers() {
    let p = policy(
        r#"{"onlyListedServers": true,
            "allowedServers": [{"registryName": "com.corp/*"}, {"command": ["corp-mcp"]}]}"#,
    );
    assert!(p.check_server(&stdio(&["corp-mcp"])).is_allowed());
    assert!(p
        .check_server(&from_registry("com.corp/search", "1", H1))
        .is_allowed());
    let r = refused_by(p.check_server(&stdio(&["other"])), "onlyListedServers");
    assert!(r.detail.contains("allowedServers"), "{r}");
    // No allow list at all: nothing is listed.
    let p = policy(r#"{"onlyListedServers": true}"#);
    refused_by(p.check_server(&stdio(&["corp-mcp"])), "onlyListedServers");
    // An allow list without onlyListedServers does not restrict, and says so.
    let mut notes = Vec::new();
    let file = parse_policy(r#"{"allowedServers": [{"command": ["a"]}]}"#).unwrap();
    let p = Policy::merge(&[(PathBuf::from(FILE), file)], &mut notes);
    assert!(p.check_server(&stdio(&["b"])).is_allowed());
    assert!(
        notes.iter().any(|n| n.contains("onlyListedServers")),
        "{notes:?}"
    );
}

#[test]
fn require_confinement() {
    let p = policy(r#"{"requireConfinement": true}"#);
    let mut s = stdio(&["x"]);
    assert!(p.check_server(&s).is_allowed());
    s.confined = false;
    refused_by(p.check_server(&s), "requireConfinement");
}

#[test]
fn registries() {
    let p = policy(r#"{"registries": ["https://reg.corp.example/mcp/", "http://127.0.0.1:8080"]}"#);
    assert!(p
        .check_registry("https://reg.corp.example/mcp")
        .is_allowed());
    assert!(p
        .check_registry("https://REG.corp.example./mcp/v0/servers?cursor=1")
        .is_allowed());
    assert!(p
        .check_registry("http://127.0.0.1:8080/v0/servers")
        .is_allowed());
    for bad in [
        "https://reg.corp.example/mcpevil/v0",
        "https://reg.corp.example/other",
        "https://reg.corp.example.evil.test/mcp",
        "https://reg.corp.example@evil.test/mcp",
        "http://reg.corp.example/mcp",
        "https://reg.corp.example:8443/mcp",
        "https://registry.modelcontextprotocol.io/",
        "not a url",
    ] {
        refused_by(p.check_registry(bad), "registries");
    }
    // An empty list admits none.
    let p = policy(r#"{"registries": []}"#);
    refused_by(p.check_registry("https://reg.corp.example/"), "registries");
}

#[test]
fn registry_urls_must_be_secure() {
    for bad in [
        r#"{"registries": ["http://reg.corp.example/"]}"#,
        r#"{"registries": ["ftp://reg.corp.example/"]}"#,
        r#"{"registries": ["https://u:p@reg.corp.example/"]}"#,
        r#"{"registries": ["https://reg.corp.example/?q=1"]}"#,
    ] {
        let e = parse_policy(bad).expect_err(bad);
        assert_eq!(e.key.as_deref(), Some("registries"), "{e}");
    }
}

#[test]
fn denied_hosts() {
    let p = policy(
        r#"{"deniedHosts": ["*.corp.internal", "metadata.example", "169.254.169.254", "::1"]}"#,
    );
    refused_by(p.check_host("db.corp.internal"), "deniedHosts[0]");
    refused_by(p.check_host("A.B.CORP.INTERNAL."), "deniedHosts[0]");
    assert!(p.check_host("corp.internal").is_allowed());
    assert!(p.check_host("xcorp.internal").is_allowed());
    refused_by(p.check_host("metadata.example"), "deniedHosts[1]");
    assert!(p.check_host("sub.metadata.example").is_allowed());
    refused_by(p.check_host("169.254.169.254"), "deniedHosts[2]");
    // Another spelling of the same address.
    refused_by(p.check_host("0xa9.0xfe.0xa9.0xfe"), "deniedHosts[2]");
    refused_by(p.check_host("[::1]"), "deniedHosts[3]");
    // A host that cannot be read is refused while hosts are denied.
    assert!(!p.check_host("exa mple").is_allowed());
    // A remote server's host is checked too.
    refused_by(
        p.check_server(&remote("https://api.corp.internal/mcp")),
        "deniedHosts[0]",
    );
    let p = policy(r#"{"deniedHosts": ["*"]}"#);
    refused_by(p.check_host("anything.example"), "deniedHosts[0]");
}

#[test]
fn denied_paths() {
    let p = policy(r#"{"deniedPaths": ["/etc/shadow", "/home/alice/.ssh/"]}"#);
    refused_by(p.check_path(Path::new("/etc/shadow")), "deniedPaths[0]");
    refused_by(
        p.check_path(Path::new("/home/alice/.ssh/id_ed25519")),
        "deniedPaths[1]",
    );
    refused_by(
        p.check_path(Path::new("/home/alice/./x/../.ssh")),
        "deniedPaths[1]",
    );
    // Granting a folder that contains a denied path grants it too.
    let r = refused_by(p.check_path(Path::new("/home")), "deniedPaths[1]");
    assert!(r.detail.contains("contains"), "{r}");
    refused_by(p.check_path(Path::new("/")), "deniedPaths[0]");
    assert!(p.check_path(Path::new("/home/alice/projects")).is_allowed());
    assert!(p
        .check_path(Path::new("/etc/shadow-backup-not"))
        .is_allowed());
    assert!(!p.check_path(Path::new("relative/path")).is_allowed());
    assert!(parse_policy(r#"{"deniedPaths": ["relative"]}"#).is_err());
}

#[test]
fn elicitation_domains() {
    let p = policy(
        r#"{"elicitationDomains": {"deny": ["evil.test"], "only": ["corp.example", "github.com"]}}"#,
    );
    assert!(p.check_elicitation_domain("github.com").is_allowed());
    assert!(p.check_elicitation_domain("GitHub.com.").is_allowed());
    refused_by(
        p.check_elicitation_domain("evil.test"),
        "elicitationDomains.deny[0]",
    );
    refused_by(
        p.check_elicitation_domain("gitlab.com"),
        "elicitationDomains.only",
    );
    refused_by(
        p.check_elicitation_domain("github.com.evil.test"),
        "elicitationDomains.deny[0]",
    );
    refused_by(
        p.check_elicitation_domain("notgithub.com"),
        "elicitationDomains.only",
    );
    // Deny wins over only.
    let p = policy(r#"{"elicitationDomains": {"deny": ["x.example"], "only": ["x.example"]}}"#);
    refused_by(
        p.check_elicitation_domain("x.example"),
        "elicitationDomains.deny[0]",
    );
}

#[test]
fn apps_tools_pin_mode() {
    let p = policy(&format!(
        r#"{{"apps": {{"allow": ["claude-code", "VSCode"]}},
            "approvedTools": [{{"server": "corp", "tool": "search", "sha256": "{H1}"}}],
            "pinMode": "hold"}}"#
    ));
    assert!(p.check_app("claude-code").is_allowed());
    assert!(p.check_app("vscode").is_allowed());
    refused_by(p.check_app("cursor"), "apps.allow");
    assert!(p.is_tool_approved("corp", "search", &H1.to_uppercase()));
    assert!(!p.is_tool_approved("corp", "search", H2));
    assert!(!p.is_tool_approved("corp", "other", H1));
    assert!(!p.is_tool_approved("other", "search", H1));
    assert_eq!(p.fixed_pin_mode(), Some("hold"));
    assert!(parse_policy(r#"{"pinMode": "float"}"#).is_err());
}

#[test]
fn contact_travels_with_refusals() {
    let p = policy(
        r#"{"deniedServers": [{"command": ["x"]}], "contact": {"name": "Sec", "email": "sec@corp.example"}}"#,
    );
    let r = refused(p.check_server(&stdio(&["x"])));
    assert_eq!(
        r.contact.and_then(|c| c.email).as_deref(),
        Some("sec@corp.example")
    );
}

#[test]
fn broken_policy_fails_closed() {
    let p = Policy::fail_closed(Path::new("/etc/airlock/policy.json"), "line 3: bad");
    let r = refused(p.check_server(&stdio(&["x"])));
    assert!(
        r.to_string().starts_with(
            "denied by your organization's policy: the policy file /etc/airlock/policy.json cannot be read: line 3: bad"
        ),
        "{r}"
    );
    assert!(!p.check_registry("https://a.example/").is_allowed());
    assert!(!p.check_host("a.example").is_allowed());
    assert!(!p.check_path(Path::new("/tmp")).is_allowed());
    assert!(!p.check_app("claude-code").is_allowed());
    assert!(!p.check_elicitation_domain("a.example").is_allowed());
    assert!(!p.is_tool_approved("a", "b", H1));
    assert_eq!(p.fixed_pin_mode(), Some("hold"));
}
