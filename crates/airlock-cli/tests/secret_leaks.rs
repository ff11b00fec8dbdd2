//! The ways a secret could slip out other than the keychain (secrets.rs):
//! a server returning or echoing it (history and logs keep it masked, in
//! every encoding, even cut in a long stderr line), secrets in places that
//! do not look secret at add and import, secret headers over plain http,
//! and the environment a stdio server inherits.
//! Run under `scripts/with-session.sh` (private D-Bus + unlocked gnome-keyring).
//!
//! The keychain is shared by every test of the session, so server names that
//! hold secrets carry a random suffix.

mod common;

use common::*;
use serde_json::json;

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
            .call(
                server,
                "leak_env",
                r#"{"name": "AIRLOCK_PARENT_CANARY", "how": "plain"}"#,
            )
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
        .call("plain", "leak_env", r#"{"name": "PATH", "how": "plain"}"#)
        .run();
    assert!(path.stdout.contains("/usr/bin"), "{path:?}");
}
