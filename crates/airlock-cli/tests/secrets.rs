//! Secrets live in the OS keychain only: never on disk in the data dir, never
//! in logs or output, and without a keychain nothing is saved at all; each
//! data dir has its own entries, removed with the server. The other ways a
//! secret could slip out are in secret_leaks.rs.
//! Run under `scripts/with-session.sh` (private D-Bus + unlocked gnome-keyring).
//!
//! The keychain is shared by every test of the session, so server names that
//! hold secrets carry a random suffix.

mod common;

use common::*;
use serde_json::json;

fn assert_no_canary_in(out: &Out, canaries: &[&str]) {
    for c in canaries {
        assert!(
            !out.stdout.contains(c) && !out.stderr.contains(c),
            "secret {c} printed: {out:?}"
        );
    }
}

#[test]
fn canary_secrets_never_reach_the_data_dir_or_the_logs() {
    require_keychain();
    let peer = start_py_http(&[]);
    let sb = Sandbox::new();
    let http = format!("canary-http-{}", random_hex());
    let stdio = format!("canary-stdio-{}", random_hex());
    let c1 = format!("CANARY-{}", random_hex());
    let c2 = format!("CANARY2-{}", random_hex());
    let canaries = [c1.as_str(), c2.as_str()];

    let added = sb.run(&[
        "servers",
        "add",
        &http,
        "--url",
        &peer.url,
        "--header",
        &format!("Authorization=Bearer {c1}"),
    ]);
    added.ok();
    assert!(
        added
            .stdout
            .contains("Authorization stored in the OS keychain"),
        "{added:?}"
    );
    assert_no_canary_in(&added, &canaries);
    let script = format!(
        "echo token=$GITHUB_TOKEN >&2; exec '{}' '{}' stdio",
        py().display(),
        py_server().display()
    );
    let added = sb.run(&[
        "servers",
        "add",
        &stdio,
        "--env",
        &format!("GITHUB_TOKEN={c2}"),
        "--env",
        "PLAIN_SETTING=visible",
        "--command",
        "sh",
        "--",
        "-c",
        &script,
    ]);
    added.ok();
    assert!(
        added
            .stdout
            .contains("GITHUB_TOKEN stored in the OS keychain"),
        "{added:?}"
    );

    // Stored as references; the values are in the keychain.
    let show = sb.run(&["--json", "servers", "show", &http]);
    show.ok();
    let r1 = show.json()["transport"]["headers"]["Authorization"]["secret_ref"]
        .as_str()
        .expect("secret_ref")
        .to_owned();
    assert_eq!(
        keychain_lookup(&r1).as_deref(),
        Some(format!("Bearer {c1}").as_str())
    );
    let show = sb.run(&["--json", "servers", "show", &stdio]);
    let env = &show.json()["transport"]["env"];
    let r2 = env["GITHUB_TOKEN"]["secret_ref"]
        .as_str()
        .expect("secret_ref")
        .to_owned();
    assert_eq!(env["PLAIN_SETTING"], json!({"value": "visible"}));
    assert_eq!(keychain_lookup(&r2).as_deref(), Some(c2.as_str()));

    // Use both servers.
    for name in [&http, &stdio] {
        let conn = sb.run(&["--json", "connect", name]);
        conn.ok();
        assert_eq!(conn.json()["status"]["state"], "ready", "{conn:?}");
        let call = sb.run(&["call", name, "add", "--args", r#"{"a":1,"b":2}"#]);
        call.ok();
        assert_eq!(call.stdout.trim(), "3");
        assert_no_canary_in(&call, &canaries);
    }

    // The server echoed its token on stderr: the log shows it masked, and
    // proves the env var really reached the server.
    let logs = sb.log_texts(&stdio);
    assert!(
        logs.iter().any(|t| t == "token=[secret redacted]"),
        "stderr echo is masked: {logs:?}"
    );
    let mut outputs = vec![
        sb.run(&["logs", &stdio]),
        sb.run(&["--json", "logs", &stdio]),
        sb.run(&["logs", &http]),
        sb.run(&["servers", "list"]),
        sb.run(&["--json", "servers", "list"]),
        sb.run(&["servers", "show", &http]),
        sb.run(&["servers", "show", &stdio]),
        sb.run(&["servers", "export"]),
        sb.run(&["--json", "history"]),
        sb.run(&["--json", "audit"]),
    ];
    for out in &mut outputs {
        out.ok();
        assert_no_canary_in(out, &canaries);
    }
    assert!(outputs[0].stdout.contains("token=[secret redacted]"));
    assert!(outputs[5]
        .stdout
        .contains("Authorization=<secret, in the OS keychain>"));

    // Every byte Airlock wrote: database, WAL, shared memory, anything else.
    assert_no_canary_in_data_dir(&sb, &canaries);

    sb.run(&["servers", "remove", &http]).ok();
    sb.run(&["servers", "remove", &stdio]).ok();
    assert_eq!(keychain_lookup(&r1), None);
    assert_eq!(keychain_lookup(&r2), None);
    assert_no_canary_in_data_dir(&sb, &canaries);
}

/// The header value comes out of the keychain and reaches the server, and
/// nothing about it is written when the server then fails.
#[test]
fn secret_header_is_sent_to_the_server_from_the_keychain() {
    require_keychain();
    let listener = CountingListener::start(Some(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    ));
    let sb = Sandbox::new();
    let name = format!("hdr-{}", random_hex());
    let canary = format!("CANARY-HDR-{}", random_hex());
    sb.run(&[
        "servers",
        "add",
        &name,
        "--url",
        &format!("http://127.0.0.1:{}/mcp", listener.port),
        "--header",
        &format!("Authorization=Bearer {canary}"),
        "--secret-header",
        "X-Region=eu-west",
        "--header",
        "X-Team=blue",
    ])
    .ok();
    let show = sb.run(&["--json", "servers", "show", &name]);
    let headers = show.json()["transport"]["headers"].clone();
    assert!(
        headers["X-Region"]["secret_ref"].is_string(),
        "--secret-header forces the keychain: {headers:#}"
    );
    assert_eq!(headers["X-Team"], json!({"value": "blue"}));

    let conn = sb.run(&["connect", &name]);
    conn.expect_code(1);
    assert_no_canary_in(&conn, &[&canary]);
    let requests = listener.requests();
    assert!(!requests.is_empty(), "the server was contacted");
    let first = requests[0].to_ascii_lowercase();
    assert!(
        first.contains(&format!(
            "authorization: bearer {}",
            canary.to_ascii_lowercase()
        )),
        "the secret header was sent: {}",
        requests[0]
    );
    assert!(first.contains("x-region: eu-west"), "{}", requests[0]);
    assert!(first.contains("x-team: blue"), "{}", requests[0]);
    assert_no_canary_in_data_dir(&sb, &[&canary, "eu-west"]);
    sb.run(&["servers", "remove", &name]).ok();
}

#[test]
fn without_a_keychain_nothing_is_saved_in_plain_text() {
    let sb = Sandbox::new();
    sb.add_url("keep", "https://keep.example/mcp");
    let before = sb.servers();
    let canary = format!("CANARY-NOKEY-{}", random_hex());
    let no_bus = |cmd: Cmd| {
        cmd.env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
            .run()
    };

    let add = no_bus(sb.cmd().args([
        "servers",
        "add",
        "x",
        "--url",
        "https://x.example/mcp",
        "--header",
        &format!("Authorization=Bearer {canary}"),
    ]));
    assert_ne!(add.code(), 0, "{add:?}");
    assert!(add.stderr.contains("OS keychain"), "{add:?}");
    assert!(add.stderr.contains("never in plain text"), "{add:?}");
    assert_no_canary_in(&add, &[&canary]);

    let env = no_bus(sb.cmd().args([
        "servers",
        "add",
        "y",
        "--command",
        "node",
        "--env",
        &format!("OPENAI_API_KEY={canary}"),
    ]));
    assert_ne!(env.code(), 0, "{env:?}");
    assert!(env.stderr.contains("OS keychain"), "{env:?}");

    let file = sb.write(
        "claude_desktop_config.json",
        &json!({"mcpServers": {
            "plain-one": {"command": "node"},
            "with-token": {"command": "node", "env": {"GITHUB_TOKEN": canary}}
        }})
        .to_string(),
    );
    let import = no_bus(sb.cmd().args(["servers", "import", &s(&file)]));
    assert_ne!(import.code(), 0, "{import:?}");
    assert!(import.stderr.contains("OS keychain"), "{import:?}");

    let names = sb.server_names();
    assert_eq!(
        names,
        vec!["keep".to_string()],
        "no server x, y or half an import"
    );
    assert_eq!(sb.servers(), before);
    assert_no_canary_in_data_dir(&sb, &[&canary]);

    // Without secrets, the keychain is not needed.
    no_bus(sb.cmd().args([
        "servers",
        "add",
        "plain",
        "--url",
        "https://plain.example/mcp",
        "--header",
        "X-Team=blue",
    ]))
    .ok();
}

#[test]
fn edit_and_remove_clean_up_keychain_entries() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("rot-{}", random_hex());
    let v1 = format!("CANARY-V1-{}", random_hex());
    let v2 = format!("CANARY-V2-{}", random_hex());
    sb.run(&[
        "servers",
        "add",
        &name,
        "--command",
        "node",
        "--env",
        &format!("GITHUB_TOKEN={v1}"),
    ])
    .ok();
    let stored = sb.run(&["--json", "servers", "show", &name]).json();
    // References are `<data dir instance>/server/<name>/<kind>/<key>`.
    let r = stored["transport"]["env"]["GITHUB_TOKEN"]["secret_ref"]
        .as_str()
        .expect("the env var is stored as a keychain reference")
        .to_owned();
    assert!(
        r.ends_with(&format!("/server/{name}/env/GITHUB_TOKEN")),
        "{r}"
    );
    assert_eq!(keychain_lookup(&r).as_deref(), Some(v1.as_str()));

    // Rotate the token.
    sb.run(&[
        "servers",
        "edit",
        &name,
        "--command",
        "node",
        "--env",
        &format!("GITHUB_TOKEN={v2}"),
    ])
    .ok();
    assert_eq!(keychain_lookup(&r).as_deref(), Some(v2.as_str()));

    // Drop it; keep another secret.
    sb.run(&[
        "servers",
        "edit",
        &name,
        "--command",
        "node",
        "--secret-env",
        "REGION=eu",
    ])
    .ok();
    assert_eq!(
        keychain_lookup(&r),
        None,
        "the dropped secret left the keychain"
    );
    let r_region = r.replace("/env/GITHUB_TOKEN", "/env/REGION");
    assert_eq!(keychain_lookup(&r_region).as_deref(), Some("eu"));

    sb.run(&["servers", "remove", &name]).ok();
    assert_eq!(keychain_lookup(&r_region), None);
    assert_no_canary_in_data_dir(&sb, &[&v1, &v2]);
}

/// Two data dirs (`--data-dir`, `AIRLOCK_DATA_DIR`) are two independent
/// Airlocks; a server of the same name in each must not share one keychain
/// entry.
#[test]
fn keychain_entries_are_not_shared_between_data_dirs() {
    require_keychain();
    let a = Sandbox::new();
    let b = Sandbox::new();
    let name = format!("dup-{}", random_hex());
    let va = format!("CANARY-A-{}", random_hex());
    let vb = format!("CANARY-B-{}", random_hex());
    a.run(&[
        "servers",
        "add",
        &name,
        "--command",
        "true",
        "--env",
        &format!("GITHUB_TOKEN={va}"),
    ])
    .ok();
    b.run(&[
        "servers",
        "add",
        &name,
        "--command",
        "true",
        "--env",
        &format!("GITHUB_TOKEN={vb}"),
    ])
    .ok();
    let ra = a.run(&["--json", "servers", "show", &name]).json()["transport"]["env"]
        ["GITHUB_TOKEN"]["secret_ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let a_value = keychain_lookup(&ra);
    b.run(&["servers", "remove", &name]).ok();
    let a_after = keychain_lookup(&ra);
    a.run(&["servers", "remove", &name]).ok();
    assert_eq!(
        a_value.as_deref(),
        Some(va.as_str()),
        "adding in B overwrote A's secret"
    );
    assert_eq!(
        a_after.as_deref(),
        Some(va.as_str()),
        "removing in B deleted A's secret"
    );
}

/// `airlock login` is for HTTP servers; `airlock logout` without tokens says so
/// and a failed login names the step (discovery) and what to do.
#[test]
fn login_and_logout_basics() {
    require_keychain();
    let sb = Sandbox::new();
    let stdio = format!("oauth-stdio-{}", random_hex());
    sb.add_everything(&stdio);
    let login = sb.run(&["login", &stdio]);
    login.expect_code(2);
    assert!(login.stderr.contains("stdio server"), "{login:?}");

    let http = format!("oauth-http-{}", random_hex());
    let port = free_port();
    sb.run(&[
        "servers",
        "add",
        &http,
        "--url",
        &format!("http://127.0.0.1:{port}/mcp"),
    ])
    .ok();
    let out = sb.run(&["logout", &http]);
    out.ok();
    assert!(out.stdout.contains("had no stored tokens"), "{out:?}");
    // Nothing listens there: discovery fails, and says what to do.
    let failed = sb.cmd().open("none").args(["login", &http]).run();
    failed.expect_code(1);
    assert!(
        failed.stderr.contains("discovery") && failed.stderr.contains("What to do"),
        "{failed:?}"
    );
}
