//! Secrets live in the OS keychain only: never on disk in the data dir, never
//! in logs or output, and without a keychain nothing is saved at all.
//! Run under `scripts/with-session.sh` (private D-Bus + unlocked gnome-keyring).
//!
//! The keychain is shared by every test of the session, so server names that
//! hold secrets carry a random suffix.

mod common;

use common::*;
use serde_json::json;

fn assert_no_canary_in_data_dir(sb: &Sandbox, canaries: &[&str]) {
    let files = read_all_files(&sb.data);
    assert!(!files.is_empty(), "the data dir has files");
    assert!(
        files.iter().any(|(p, _)| p.ends_with("airlock.sqlite3")),
        "the database is among them: {:?}",
        files
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect::<Vec<_>>()
    );
    for (path, bytes) in &files {
        for c in canaries {
            assert!(
                !contains_bytes(bytes, c.as_bytes()),
                "secret {c} found in {}",
                path.display()
            );
        }
    }
}

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

/// A server may return its own token in a tool result (server-everything's
/// `get-env` returns the whole environment). The user asked for it, so it is
/// printed; but history is on disk and must hold it masked, like the logs do.
#[test]
fn history_masks_secrets_a_server_returns() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("env-{}", random_hex());
    let canary = format!("CANARY-RESULT-{}", random_hex());
    sb.run(&[
        "servers",
        "add",
        &name,
        "--env",
        &format!("GITHUB_TOKEN={canary}"),
        "--command",
        "node",
        "--",
        &s(&everything_js()),
        "stdio",
    ])
    .ok();
    let call = sb.run(&["call", &name, "get-env"]);
    call.ok();
    assert!(
        call.stdout.contains(&canary),
        "precondition: the server returned its token: {call:?}"
    );
    let history = sb.run(&["--json", "history"]);
    let leaked: Vec<String> = read_all_files(&sb.data)
        .into_iter()
        .filter(|(_, b)| contains_bytes(b, canary.as_bytes()))
        .map(|(p, _)| p.display().to_string())
        .collect();
    sb.run(&["servers", "remove", &name]).ok();
    assert!(
        !history.stdout.contains(&canary),
        "history shows the token: {history:?}"
    );
    assert!(leaked.is_empty(), "token stored in {leaked:?}");
}

/// A stderr line longer than the 4096-byte log limit is cut before masking,
/// so a secret that straddles the cut is stored half-masked (its prefix).
#[test]
fn long_stderr_line_does_not_leak_part_of_a_secret() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("cut-{}", random_hex());
    let canary = format!("CANARYPREFIX{}", random_hex());
    // 4090 filler bytes, then the token: the cut falls inside it.
    let script = format!(
        "printf '%04090d' 0 >&2; echo $GITHUB_TOKEN >&2; exec '{}' '{}' stdio",
        py().display(),
        py_server().display()
    );
    sb.run(&[
        "servers",
        "add",
        &name,
        "--env",
        &format!("GITHUB_TOKEN={canary}"),
        "--command",
        "sh",
        "--",
        "-c",
        &script,
    ])
    .ok();
    sb.run(&["call", &name, "echo", "--args", r#"{"message":"x"}"#])
        .ok();
    let logs = sb.run(&["--json", "logs", &name]);
    sb.run(&["servers", "remove", &name]).ok();
    let prefix = &canary[..6]; // "CANARY"
    assert!(
        !logs.stdout.contains(prefix),
        "part of the secret is in the log: {logs:?}"
    );
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

/// Base64 (standard alphabet, padded), for the test's own expectations.
fn b64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A careless server repeats its secrets back encoded (base64, inside an
/// HTTP Basic header, URL-encoded, in an error, a PEM key line by line):
/// history and logs keep every form masked.
#[test]
fn every_form_of_a_secret_is_masked_in_what_is_stored() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("leaky-{}", random_hex());
    let token = format!("tok/{}+{}=", random_hex(), random_hex());
    let key_lines = [
        format!("MIIEvQ{}", random_hex().to_uppercase()),
        format!("BKcwgg{}", random_hex().to_uppercase()),
    ];
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n{}\n-----END PRIVATE KEY-----",
        key_lines[0], key_lines[1]
    );
    sb.add_py(
        &name,
        &[&format!("API_TOKEN={token}"), &format!("PEM_SECRET={pem}")],
    );
    for (var, how) in [
        ("API_TOKEN", "plain"),
        ("API_TOKEN", "base64"),
        ("API_TOKEN", "basic"),
        ("API_TOKEN", "url"),
        ("API_TOKEN", "error"),
        ("PEM_SECRET", "lines"),
    ] {
        let args = json!({"name": var, "how": how}).to_string();
        sb.run(&["call", &name, "leak_env", "--args", &args]);
    }
    let url_encoded: String = token
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let basic = b64(format!("me:{token}").as_bytes());
    // The part of the Basic header that only the token determines.
    let basic_core = &basic[4..basic.len() - 4];
    let forms = [
        token.clone(),
        b64(token.as_bytes()).trim_end_matches('=').to_owned(),
        basic_core.to_owned(),
        url_encoded,
        key_lines[0].clone(),
        key_lines[1].clone(),
    ];
    let forms: Vec<&str> = forms.iter().map(String::as_str).collect();
    assert_no_canary_in_data_dir(&sb, &forms);
    let history = sb.history(&["--limit", "10"]).len();
    assert_eq!(history, 6, "every call is in history (masked)");
}

/// Secrets in places that do not look secret are found when a server is
/// added or imported: tokens and DSNs in env or header values go to the
/// keychain; in an argument or the URL (which cannot be kept there) the add
/// is refused with what to do. Nothing lands in SQLite.
#[test]
fn secrets_in_places_that_do_not_look_secret_are_found_at_add_and_import() {
    require_keychain();
    let sb = Sandbox::new();
    let gh = format!("ghp_{}{}", random_hex(), random_hex());
    let dsn_pw = format!("pw{}", random_hex());
    let dsn = format!("postgresql://app:{dsn_pw}@db.internal:5432/prod");
    let name = format!("found-{}", random_hex());
    // Names that do not look secret; values that are.
    let out = sb.run(&[
        "servers",
        "add",
        &name,
        "--env",
        &format!("GH={gh}"),
        "--env",
        &format!("DATABASE={dsn}"),
        "--command",
        "node",
        "--",
        "x.js",
    ]);
    out.ok();
    assert!(
        out.stdout.contains("GH stored in the OS keychain"),
        "{out:?}"
    );
    assert!(
        out.stdout.contains("DATABASE stored in the OS keychain"),
        "{out:?}"
    );
    let shown = sb.run(&["--json", "servers", "show", &name]).ok().json();
    assert!(
        shown["transport"]["env"]["GH"]["secret_ref"].is_string(),
        "{shown:#}"
    );

    // In an argument or the URL: refused, with the way out.
    let arg = sb.run(&[
        "servers",
        "add",
        "in-arg",
        "--command",
        "npx",
        "--",
        "-y",
        "server",
        &format!("--token={gh}"),
    ]);
    arg.expect_code(2);
    assert!(
        arg.stderr.contains("argument") && arg.stderr.contains("--secret-env"),
        "{arg:?}"
    );
    let url = sb.run(&[
        "servers",
        "add",
        "in-url",
        "--url",
        &format!("https://mcp.example.com/mcp?api_key={}", random_hex()),
    ]);
    url.expect_code(2);
    assert!(
        url.stderr.contains("api_key") && url.stderr.contains("--secret-header"),
        "{url:?}"
    );
    let userinfo = sb.run(&[
        "servers",
        "add",
        "in-userinfo",
        "--url",
        "https://me:pw1234@mcp.example.com/",
    ]);
    userinfo.expect_code(2);

    // An imported config with a token in an argument is refused whole.
    let config = sb.write(
        "claude.json",
        &json!({"mcpServers": {
            "fine": {"command": "node", "args": ["a.js"]},
            "leaky": {"command": "npx", "args": ["-y", "gh-server", gh.clone()]}
        }})
        .to_string(),
    );
    let import = sb.run(&["servers", "import", config.to_str().unwrap()]);
    assert_ne!(import.code(), 0, "{import:?}");
    assert!(
        import.stderr.contains("leaky"),
        "names the server: {import:?}"
    );
    assert!(
        !sb.server_names().contains(&"fine".to_owned()),
        "all or nothing"
    );

    assert_no_canary_in_data_dir(&sb, &[&gh, &dsn_pw]);
    sb.run(&["servers", "remove", &name]).ok();
}

/// Secret headers over plain http:// to another computer need an explicit
/// opt-in; loopback is fine; a warning is logged at every connect.
#[test]
fn secret_headers_over_plain_http_to_another_computer_need_an_opt_in() {
    require_keychain();
    let sb = Sandbox::new();
    let name = format!("lan-{}", random_hex());
    let refused = sb.run(&[
        "servers",
        "add",
        &name,
        "--url",
        "http://10.20.30.40:8080/mcp",
        "--header",
        "Authorization=Bearer abcdefgh12345678",
    ]);
    refused.expect_code(2);
    assert!(
        refused.stderr.contains("--allow-insecure-http"),
        "{refused:?}"
    );
    sb.run(&[
        "servers",
        "add",
        &name,
        "--url",
        "http://10.20.30.40:8080/mcp",
        "--header",
        "Authorization=Bearer abcdefgh12345678",
        "--allow-insecure-http",
    ])
    .ok();
    let local = format!("local-{}", random_hex());
    sb.run(&[
        "servers",
        "add",
        &local,
        "--url",
        "http://127.0.0.1:9/mcp",
        "--header",
        "Authorization=Bearer abcdefgh12345678",
    ])
    .ok();
    // Connecting (it fails: nothing listens) logs the plain-http warning.
    sb.run(&["--connect-timeout", "2", "connect", &name]);
    assert!(
        sb.log_texts(&name)
            .iter()
            .any(|t| t.contains("crosses the network unencrypted")),
        "{:?}",
        sb.log_texts(&name)
    );
    sb.run(&["servers", "remove", &name]).ok();
    sb.run(&["servers", "remove", &local]).ok();
}

/// A stdio server gets a minimal environment, not all of Airlock's (which
/// may hold other programs' tokens), unless the user opts in by name.
#[test]
fn stdio_servers_inherit_a_minimal_environment() {
    let sb = Sandbox::new();
    let canary = format!("parent-{}", random_hex());
    sb.add_py("plain", &[]);
    let (py, script) = (s(&py()), s(&py_server()));
    sb.run(&[
        "servers",
        "add",
        "opted",
        "--inherit-env",
        "AIRLOCK_PARENT_CANARY",
        "--command",
        &py,
        "--",
        &script,
        "stdio",
    ])
    .ok();
    let leak = |server: &str| {
        sb.cmd()
            .env("AIRLOCK_PARENT_CANARY", &canary)
            .args([
                "call",
                server,
                "leak_env",
                "--args",
                r#"{"name": "AIRLOCK_PARENT_CANARY", "how": "plain"}"#,
            ])
            .run()
    };
    let plain = leak("plain");
    plain.ok();
    assert!(
        !plain.stdout.contains(&canary),
        "inherited without opt-in: {plain:?}"
    );
    let opted = leak("opted");
    opted.ok();
    assert!(
        opted.stdout.contains(&canary),
        "opted in by name: {opted:?}"
    );
    // What a program needs to run is there.
    let path = sb
        .cmd()
        .args([
            "call",
            "plain",
            "leak_env",
            "--args",
            r#"{"name": "PATH", "how": "plain"}"#,
        ])
        .run();
    assert!(path.stdout.contains("/usr/bin"), "{path:?}");
}
