//! Reading policy files: merge order, restrictions that stay on, files the
//! user could write, broken files, bounds.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use airlock_policy::{
    default_locations, load_with_trusted_owner, parse_policy, LoadProblem, Loaded, ServerFacts,
    Verdict, MAX_FILE_BYTES,
};

struct Fixture {
    dir: tempfile::TempDir,
    /// The uid the test's files are owned by (ours).
    uid: u32,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::create_dir(dir.path().join("policy.d")).expect("mkdir");
        let uid = fs::metadata(dir.path()).expect("stat").uid();
        Fixture { dir, uid }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root().join(rel);
        fs::write(&p, text).expect("write");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).expect("chmod");
        p
    }

    fn locations(&self) -> Vec<PathBuf> {
        vec![
            self.root().join("policy.json"),
            self.root().join("policy.d"),
        ]
    }

    fn load(&self) -> Loaded {
        load_with_trusted_owner(&self.locations(), self.uid)
    }
}

fn stdio(argv: &[&str], confined: bool) -> ServerFacts {
    ServerFacts {
        name: "s".into(),
        command: Some(argv.iter().map(|s| s.to_string()).collect()),
        confined,
        ..ServerFacts::default()
    }
}

#[test]
fn default_locations_are_fixed() {
    let l = default_locations();
    assert_eq!(l.len(), 2);
    #[cfg(target_os = "linux")]
    assert_eq!(
        l,
        vec![
            PathBuf::from("/etc/airlock/policy.json"),
            PathBuf::from("/etc/airlock/policy.d")
        ]
    );
}

#[test]
fn nothing_there_is_no_policy() {
    let fx = Fixture::new();
    let l = fx.load();
    assert!(!l.policy.is_active());
    assert!(l.files.is_empty() && l.errors.is_empty() && l.warnings.is_empty());
}

#[test]
fn merge_order_and_origins() {
    let fx = Fixture::new();
    let main = fx.write(
        "policy.json",
        r#"{"deniedServers": [{"command": ["a"]}], "contact": {"name": "first"}}"#,
    );
    let second = fx.write(
        "policy.d/20-b.json",
        r#"{"deniedServers": [{"command": ["c"]}], "contact": {"name": "third"}}"#,
    );
    let first = fx.write(
        "policy.d/10-a.json",
        r#"{"deniedServers": [{"command": ["x"]}, {"command": ["b"]}], "contact": {"name": "second"}}"#,
    );
    // Ignored: not .json, hidden.
    fx.write("policy.d/README.txt", "not a policy");
    fx.write("policy.d/.hidden.json", "{ broken");
    let l = fx.load();
    assert!(l.errors.is_empty(), "{:?}", l.errors);
    assert_eq!(l.files, vec![main.clone(), first.clone(), second.clone()]);
    let r = match l.policy.check_server(&stdio(&["b"], true)) {
        Verdict::Refused(r) => r,
        Verdict::Allowed => panic!("b is denied"),
    };
    assert_eq!(r.rule, "deniedServers[1]");
    assert_eq!(r.file.as_deref(), Some(first.as_path()));
    assert!(r
        .to_string()
        .contains(&format!("deniedServers[1] ({})", first.display())));
    let r = l.policy.check_server(&stdio(&["c"], true));
    assert_eq!(r.refusal().and_then(|r| r.file.clone()), Some(second));
    let r = l.policy.check_server(&stdio(&["a"], true));
    assert_eq!(r.refusal().and_then(|r| r.file.clone()), Some(main));
    // Scalars: the last file wins.
    assert_eq!(
        l.policy.contact().and_then(|c| c.name.as_deref()),
        Some("third")
    );
}

#[test]
fn a_later_file_cannot_lift_a_restriction() {
    let fx = Fixture::new();
    fx.write(
        "policy.json",
        r#"{"requireConfinement": true, "onlyListedServers": true, "allowedServers": [{"command": ["ok"]}]}"#,
    );
    fx.write(
        "policy.d/99-relax.json",
        r#"{"requireConfinement": false, "onlyListedServers": false}"#,
    );
    let l = fx.load();
    assert!(l.errors.is_empty(), "{:?}", l.errors);
    assert_eq!(
        l.policy
            .check_server(&stdio(&["ok"], false))
            .refusal()
            .map(|r| r.rule.as_str()),
        Some("requireConfinement")
    );
    assert_eq!(
        l.policy
            .check_server(&stdio(&["other"], true))
            .refusal()
            .map(|r| r.rule.as_str()),
        Some("onlyListedServers")
    );
    assert!(l.policy.check_server(&stdio(&["ok"], true)).is_allowed());
    assert!(
        l.notes
            .iter()
            .any(|n| n.contains("cannot lift a restriction")),
        "{:?}",
        l.notes
    );
    // A later file can turn one on.
    let fx = Fixture::new();
    fx.write("policy.json", r#"{"requireConfinement": false}"#);
    fx.write("policy.d/10.json", r#"{"requireConfinement": true}"#);
    assert!(!fx
        .load()
        .policy
        .check_server(&stdio(&["x"], false))
        .is_allowed());
}

#[test]
fn a_file_others_can_write_is_refused() {
    let fx = Fixture::new();
    let p = fx.write("policy.json", r#"{"deniedServers": [{"command": ["x"]}]}"#);
    fs::set_permissions(&p, fs::Permissions::from_mode(0o646)).expect("chmod");
    let l = fx.load();
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    assert_eq!(l.warnings[0].path, p);
    assert!(
        l.warnings[0].reason.contains("writable"),
        "{}",
        l.warnings[0]
    );
    assert!(l.files.is_empty());
    // Its rules do not apply.
    assert!(l.policy.check_server(&stdio(&["x"], true)).is_allowed());

    fs::set_permissions(&p, fs::Permissions::from_mode(0o664)).expect("chmod");
    assert_eq!(fx.load().warnings.len(), 1);
    fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).expect("chmod");
    assert!(fx.load().warnings.is_empty());
}

#[test]
fn a_folder_others_can_write_is_refused_unless_sticky() {
    let fx = Fixture::new();
    let p = fx.write("policy.d/10.json", r#"{"requireConfinement": true}"#);
    let d = fx.root().join("policy.d");
    fs::set_permissions(&d, fs::Permissions::from_mode(0o775)).expect("chmod");
    let l = fx.load();
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    assert_eq!(l.warnings[0].path, p);
    assert!(
        l.warnings[0].reason.contains("policy.d"),
        "{}",
        l.warnings[0]
    );
    assert!(l.policy.check_server(&stdio(&["x"], false)).is_allowed());
    // With the sticky bit (like /tmp) others cannot replace the file.
    fs::set_permissions(&d, fs::Permissions::from_mode(0o1777)).expect("chmod");
    let l = fx.load();
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    assert!(!l.policy.check_server(&stdio(&["x"], false)).is_allowed());
}

#[test]
fn the_owner_must_be_trusted() {
    let fx = Fixture::new();
    let p = fx.write("policy.json", r#"{"requireConfinement": true}"#);
    // A uid that is not root: ours, or (when the test runs as root) another
    // one the file is given to.
    let other = if fx.uid == 0 {
        std::os::unix::fs::chown(&p, Some(4242), None).expect("chown");
        4242
    } else {
        fx.uid
    };
    // Trusted owner = the file's owner: accepted.
    let l = load_with_trusted_owner(&fx.locations(), other);
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    assert_eq!(l.files, vec![p.clone()]);
    // Only root trusted (the default): refused, with the owner named.
    let l = load_with_trusted_owner(&fx.locations(), 0);
    assert_eq!(l.warnings.len(), 1);
    assert!(
        l.warnings[0].reason.contains(&format!("uid {other}")),
        "{}",
        l.warnings[0]
    );
    assert!(l.policy.check_server(&stdio(&["x"], false)).is_allowed());
}

#[test]
fn a_symlink_to_a_file_the_user_owns_is_refused() {
    let fx = Fixture::new();
    let target = fx.write("policy.d/real.txt", r#"{"requireConfinement": true}"#);
    let link = fx.root().join("policy.d/10-link.json");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    fs::set_permissions(&target, fs::Permissions::from_mode(0o666)).expect("chmod");
    let l = fx.load();
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    assert_eq!(l.warnings[0].path, link);
}

#[test]
fn a_broken_file_fails_closed_naming_file_key_and_place() {
    let fx = Fixture::new();
    fx.write(
        "policy.json",
        r#"{"contact": {"email": "sec@corp.example"}, "deniedServers": []}"#,
    );
    let bad = fx.write(
        "policy.d/10-team.json",
        "{\n  \"deniedServers\": [\n    {\"comand\": [\"x\"]}\n  ]\n}\n",
    );
    let l = fx.load();
    assert_eq!(l.errors.len(), 1);
    let e = &l.errors[0];
    assert_eq!(e.path, bad);
    let LoadProblem::Parse(pe) = &e.error else {
        panic!("a parse error: {e}");
    };
    assert_eq!(pe.key.as_deref(), Some("deniedServers[0].comand"), "{pe}");
    assert_eq!(pe.line, 3, "{pe}");
    assert!(pe.message.contains("unknown field `comand`"), "{pe}");
    let shown = e.to_string();
    assert!(
        shown.contains("10-team.json") && shown.contains("line 3"),
        "{shown}"
    );
    // Everything is refused, with the reason and the contact.
    let r = match l.policy.check_server(&stdio(&["anything"], true)) {
        Verdict::Refused(r) => r,
        Verdict::Allowed => panic!("a broken policy must refuse"),
    };
    let text = r.to_string();
    assert!(
        text.contains(&format!("the policy file {} cannot be read", bad.display())),
        "{text}"
    );
    assert!(text.contains("deniedServers[0].comand"), "{text}");
    assert_eq!(
        r.contact.and_then(|c| c.email).as_deref(),
        Some("sec@corp.example")
    );
    assert!(l.policy.broken().is_some());
}

#[test]
fn bad_json_and_bad_values_are_errors_with_places() {
    let e = parse_policy("{\n \"onlyListedServers\": true,,\n}").expect_err("syntax");
    assert_eq!(e.line, 2);
    let e = parse_policy(r#"{"onlyListedServers": "yes"}"#).expect_err("type");
    assert_eq!(e.key.as_deref(), Some("onlyListedServers"));
    let e = parse_policy(r#"{"deniedServers": [{}]}"#).expect_err("no matcher");
    assert_eq!(e.key.as_deref(), Some("deniedServers[0]"));
    assert!(e.message.contains("at least one"), "{e}");
    let e = parse_policy(r#"{"allowedServers": [{"artifactSha256": "abc"}]}"#).expect_err("hash");
    assert!(e.message.contains("SHA-256"), "{e}");
    let e = parse_policy(r#"{"allowedServers": [{"version": "1"}]}"#).expect_err("version");
    assert!(e.message.contains("registryName"), "{e}");
    let e = parse_policy(r#"{"deniedServers": [{"command": []}]}"#).expect_err("empty argv");
    assert!(e.message.contains("empty"), "{e}");
    let e = parse_policy(r#"{"deniedServers": [{"url": "evil.test"}]}"#).expect_err("url");
    assert!(e.message.contains("url"), "{e}");
    let e = parse_policy(r#"{"deniedServers": [{"registryName": "io.*x/y"}]}"#).expect_err("name");
    assert!(e.message.contains("registryName"), "{e}");
    let e = parse_policy(r#"{"deniedHosts": ["ex*ample.com"]}"#).expect_err("host");
    assert_eq!(e.key.as_deref(), Some("deniedHosts"));
    assert!(e.message.contains("item 0"), "{e}");
    let e = parse_policy(r#"{"audit": {"otlpEndpoint": "http://collector.corp.example:4318"}}"#)
        .expect_err("plain http");
    assert_eq!(e.key.as_deref(), Some("audit.otlpEndpoint"));
    assert!(parse_policy(r#"{"audit": {"otlpEndpoint": "http://127.0.0.1:4318"}}"#).is_ok());
    assert!(parse_policy(
        r#"{"audit": {"otlpEndpoint": "https://c.example", "headers": {"Bad Name": "x"}}}"#
    )
    .is_err());
    assert!(parse_policy(r#"{"contact": {"email": "not an email"}}"#).is_err());
    assert!(parse_policy(r#"[]"#).is_err());
    let e = parse_policy(r#"{"contact": ["n", "a@b.example"]}"#).expect_err("array");
    assert_eq!(e.key.as_deref(), Some("contact"));
    let e = parse_policy(r#"{"deniedServers": [["reg/x"]]}"#).expect_err("array");
    assert_eq!(e.key.as_deref(), Some("deniedServers[0]"));
    assert!(parse_policy(r#"{} {}"#).is_err());
    assert!(parse_policy(r#"{"pinMode": "hold", "pinMode": "hold"}"#).is_err());
    // A byte-order mark is tolerated.
    assert!(parse_policy("\u{feff}{}").is_ok());
}

#[test]
fn unknown_keys_are_refused_at_every_level() {
    for (text, key) in [
        (r#"{"allowManagedMcpServersOnly": true}"#, None),
        (
            r#"{"audit": {"otlpEndpoint": "https://c.example", "x": 1}}"#,
            Some("audit.x"),
        ),
        (r#"{"apps": {"deny": []}}"#, Some("apps.deny")),
        (
            r#"{"elicitationDomains": {"allow": []}}"#,
            Some("elicitationDomains.allow"),
        ),
        (r#"{"contact": {"phone": "1"}}"#, Some("contact.phone")),
        (
            r#"{"approvedTools": [{"server": "a", "tool": "b", "sha256": "1111111111111111111111111111111111111111111111111111111111111111", "note": ""}]}"#,
            Some("approvedTools[0].note"),
        ),
    ] {
        let e = parse_policy(text).expect_err(text);
        assert!(e.message.contains("unknown field"), "{e}");
        if let Some(k) = key {
            assert_eq!(e.key.as_deref(), Some(k), "{e}");
        }
    }
}

#[test]
fn size_bounds() {
    // The file.
    let fx = Fixture::new();
    let big = format!(
        "{{\"contact\": {{\"name\": \"x\"}}}}{}",
        " ".repeat(MAX_FILE_BYTES as usize)
    );
    fx.write("policy.json", &big);
    let l = fx.load();
    assert_eq!(l.errors.len(), 1);
    assert!(l.errors[0].to_string().contains("limit"), "{}", l.errors[0]);
    assert!(!l.policy.check_server(&stdio(&["x"], true)).is_allowed());
    // A string.
    let long = "a".repeat(5000);
    let e = parse_policy(&format!(r#"{{"contact": {{"name": "{long}"}}}}"#)).expect_err("long");
    assert_eq!(e.key.as_deref(), Some("contact.name"));
    assert!(e.message.contains("4096"), "{e}");
    // A list.
    let many = vec!["\"a.example\""; 1001].join(",");
    let e = parse_policy(&format!(r#"{{"deniedHosts": [{many}]}}"#)).expect_err("many");
    assert!(e.message.contains("1000"), "{e}");
    let many = vec![r#"{"command": ["x"]}"#; 1001].join(",");
    assert!(parse_policy(&format!(r#"{{"deniedServers": [{many}]}}"#)).is_err());
    let ok = vec![r#"{"command": ["x"]}"#; 1000].join(",");
    assert!(parse_policy(&format!(r#"{{"deniedServers": [{ok}]}}"#)).is_ok());
}

#[test]
fn a_drop_in_that_is_not_a_file_is_refused() {
    let fx = Fixture::new();
    fs::create_dir(fx.root().join("policy.d/10.json")).expect("mkdir");
    let l = fx.load();
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    assert!(l.warnings[0].reason.contains("regular file"));
}
