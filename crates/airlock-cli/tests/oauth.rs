//! MCP authorization (OAuth 2.1) end to end against the TypeScript SDK's
//! `elicitationUrlExample` server and its demo authorization server:
//! a 401 during connect starts a sign-in; the sign-in page is shown for
//! consent like a URL elicitation (and recorded); after consent xdg-open
//! hands it to $BROWSER, here a recorder that follows the demo server's
//! immediate redirect back to Airlock's loopback listener, as a browser
//! would. Tokens go to the real OS keychain (gnome-keyring of
//! scripts/with-session.sh) and nowhere else; a new process uses them
//! without a browser. Then `third-party-auth` takes the -32042 path.

mod common;

use common::*;
use serde_json::Value;

struct Setup {
    sb: Sandbox,
    example: OAuthExample,
    browser: BrowserRecorder,
    name: String,
}

fn setup() -> Setup {
    require_keychain();
    let sb = Sandbox::new();
    let example = start_oauth_example();
    let name = format!("ex-{}", &random_hex()[..8]);
    sb.add_url(&name, &example.mcp_url);
    let browser = BrowserRecorder::following(sb.dir(), &example.auth_origin);
    Setup {
        sb,
        example,
        browser,
        name,
    }
}

impl Setup {
    /// `airlock --consent <consent> --open system <args>` with the recorder as browser.
    fn run(&self, consent: &str, args: &[&str]) -> Out {
        self.browser
            .apply(self.sb.cmd())
            .consent(consent)
            .open("system")
            .args(args)
            .run()
    }

    fn sign_ins(&self) -> Vec<String> {
        self.browser
            .lines()
            .into_iter()
            .filter(|u| u.starts_with(&self.example.auth_origin))
            .collect()
    }

    fn credentials(&self) -> Option<(String, String)> {
        keychain_find(&format!("/server/{}/oauth/credentials", self.name))
    }

    fn sign_in(&self) {
        let out = self.run("accept", &["--json", "tools", &self.name]);
        out.ok();
        assert_eq!(self.sign_ins().len(), 1, "{out:?}");
    }
}

fn query(url: &str) -> Vec<(String, String)> {
    url::Url::parse(url)
        .expect("URL")
        .query_pairs()
        .into_owned()
        .collect()
}

fn param<'a>(q: &'a [(String, String)], k: &str) -> Option<&'a str> {
    q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

#[test]
fn sign_in_is_consented_once_and_tokens_survive_a_restart_in_the_keychain_only() {
    let t = setup();
    let out = t.run("accept", &["--json", "tools", &t.name]);
    out.ok();
    let tools = out.json_last();
    assert!(
        tools.to_string().contains("third-party-auth"),
        "listed the tools after signing in: {out:?}"
    );

    // One browser round trip, to the demo authorization server, with PKCE
    // (S256), a state, our loopback redirect and the resource indicator.
    let opened = t.sign_ins();
    assert_eq!(opened.len(), 1, "one sign-in page: {:?}", t.browser.lines());
    let q = query(&opened[0]);
    assert!(opened[0].starts_with(&format!("{}/authorize?", t.example.auth_origin)));
    assert_eq!(param(&q, "response_type"), Some("code"));
    assert_eq!(param(&q, "code_challenge_method"), Some("S256"));
    assert!(param(&q, "state").is_some_and(|s| s.len() >= 16));
    assert_eq!(param(&q, "resource"), Some(t.example.mcp_url.as_str()));
    let redirect = param(&q, "redirect_uri").expect("redirect_uri");
    assert!(
        redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"),
        "{redirect}"
    );

    // The sign-in was asked for like a URL elicitation and is in the history.
    let records = t.sb.elicitations();
    let sign_in: Vec<&Value> = records
        .iter()
        .filter(|r| r["origin"] == "sign_in")
        .collect();
    assert_eq!(sign_in.len(), 1, "{records:#?}");
    assert_eq!(sign_in[0]["state"], "completed", "{:#?}", sign_in[0]);
    assert_eq!(sign_in[0]["registrable_domain"], "localhost");
    assert!(sign_in[0]["message"]
        .as_str()
        .unwrap()
        .contains("Sign in to"));

    // Tokens are in the OS keychain ...
    let (_, creds) = t.credentials().expect("OAuth credentials in the keychain");
    let creds: Value = serde_json::from_str(&creds).expect("stored credentials are JSON");
    let access = creds["token_response"]["access_token"]
        .as_str()
        .expect("access token")
        .to_owned();
    assert!(access.len() >= 16, "{creds}");
    // ... and nowhere in Airlock's files (SQLite, WAL, settings, logs).
    for (path, bytes) in read_all_files(&t.sb.data) {
        assert!(
            !contains_bytes(&bytes, access.as_bytes()),
            "the access token leaked into {}",
            path.display()
        );
    }

    let shown =
        t.sb.run(&["--json", "servers", "show", &t.name])
            .ok()
            .json();
    assert_eq!(shown["oauth"]["signed_in"], true, "{shown}");

    // A new process (a restart) connects with the stored tokens: no browser.
    let again = t.run("decline", &["--json", "tools", &t.name]);
    again.ok();
    assert!(again.stdout.contains("third-party-auth"), "{again:?}");
    assert_eq!(t.sign_ins().len(), 1, "no second sign-in");
}

#[test]
fn third_party_auth_takes_the_required_error_path_after_sign_in() {
    let t = setup();
    t.sign_in();
    let out = t.run(
        "accept",
        &[
            "--json",
            "--late-after",
            "30",
            "call",
            &t.name,
            "third-party-auth",
            "--args",
            r#"{"param1":"x"}"#,
        ],
    );
    // -32042 lists https://www.example.com/oauth/authorize; after consent the
    // system browser gets it (the recorder does not fetch it: no network).
    let third_party: Vec<String> = t
        .browser
        .lines()
        .into_iter()
        .filter(|u| u == "https://www.example.com/oauth/authorize")
        .collect();
    assert_eq!(third_party.len(), 1, "{out:?}\n{:?}", t.browser.lines());
    // The server sends notifications/elicitation/complete 5 s later: the
    // record completes and Airlock retries the call. This example server
    // asks again for the same URL on every call, so the retry ends in
    // Airlock's loop guard instead of a result.
    let records = t.sb.elicitations();
    let example: Vec<&Value> = records
        .iter()
        .filter(|r| r["url"] == "https://www.example.com/oauth/authorize")
        .collect();
    assert!(!example.is_empty(), "{records:#?}");
    let first = example.last().unwrap();
    assert_eq!(first["origin"], "required_error");
    assert_eq!(
        first["state"], "completed",
        "completed by the server's notification: {first:#?}\n{out:?}"
    );
    assert_eq!(first["registrable_domain"], "example.com");
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(
        text.contains("asked again for the same page"),
        "the retry was sent and stopped by the loop guard: {out:?}"
    );
    assert_ne!(out.code(), 0);
}

#[test]
fn a_declined_sign_in_opens_nothing_stores_nothing_and_says_what_to_do() {
    let t = setup();
    let out = t.run("decline", &["tools", &t.name]);
    assert_ne!(out.code(), 0, "{out:?}");
    assert!(
        out.stderr.contains("authorization in the browser")
            && out.stderr.contains("declined")
            && out.stderr.contains("What to do"),
        "{out:?}"
    );
    assert!(t.browser.settle().is_empty(), "nothing was opened");
    assert!(t.credentials().is_none(), "no tokens were stored");
    let records = t.sb.elicitations();
    assert_eq!(records[0]["origin"], "sign_in");
    assert_eq!(records[0]["state"], "declined");
}

#[test]
fn logout_forgets_the_tokens_and_the_next_connect_asks_again() {
    let t = setup();
    t.sign_in();
    let (reference, _) = t.credentials().expect("stored");
    let out = t.run("decline", &["logout", &t.name]);
    out.ok();
    assert!(out.stdout.contains("signed out"), "{out:?}");
    assert_eq!(keychain_lookup(&reference), None, "tokens removed");
    let shown =
        t.sb.run(&["--json", "servers", "show", &t.name])
            .ok()
            .json();
    assert_eq!(shown["oauth"]["signed_in"], false);
    // Without tokens the next connect needs a sign-in again (declined here).
    let again = t.run("decline", &["tools", &t.name]);
    assert_ne!(again.code(), 0);
    assert!(again.stderr.contains("declined"), "{again:?}");
    assert_eq!(t.sign_ins().len(), 1, "the declined one opened nothing");
}

/// Register a client with the demo authorization server, the way a user
/// would in a provider's developer console: `(client_id, client_secret)`.
fn register_confidential_client(auth_origin: &str, redirect_uri: &str) -> (String, String) {
    let body = serde_json::json!({
        "client_name": "registered by hand",
        "redirect_uris": [redirect_uri],
        "token_endpoint_auth_method": "client_secret_post",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    let out = std::process::Command::new("curl")
        .args([
            "-s",
            "-X",
            "POST",
            "-H",
            "content-type: application/json",
            "-d",
        ])
        .arg(body.to_string())
        .arg(format!("{auth_origin}/register"))
        .output()
        .expect("curl is installed");
    let reg: Value = serde_json::from_slice(&out.stdout).expect("registration JSON");
    (
        reg["client_id"].as_str().expect("client_id").to_owned(),
        reg["client_secret"]
            .as_str()
            .expect("client_secret")
            .to_owned(),
    )
}

#[test]
fn a_registered_client_with_a_fixed_redirect_port_replaces_dynamic_registration() {
    let t = setup();
    let port = free_port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let (id, secret) = register_confidential_client(&t.example.auth_origin, &redirect);

    let login = |secret_line: String| {
        t.browser
            .apply(t.sb.cmd())
            .consent("accept")
            .open("system")
            .args(["login", &t.name])
            .args(["--client-id", &id, "--client-secret-stdin"])
            .args(["--redirect-port", &port.to_string()])
            .stdin(secret_line)
            .run()
    };

    // A wrong secret fails at the token exchange, with what to do.
    let wrong = login("not-the-secret\n".into());
    assert_eq!(wrong.code(), 1, "{wrong:?}");
    assert!(
        wrong.stderr.contains("the token exchange") && wrong.stderr.contains("What to do"),
        "{wrong:?}"
    );

    login(format!("{secret}\n")).ok();
    let opened = t.sign_ins();
    assert_eq!(opened.len(), 2, "{:?}", t.browser.lines());
    for url in &opened {
        let q = query(url);
        assert_eq!(
            param(&q, "client_id"),
            Some(id.as_str()),
            "no dynamic registration"
        );
        assert_eq!(param(&q, "redirect_uri"), Some(redirect.as_str()));
    }
    // The client secret is in the keychain only; the audit trail names the
    // client without its secret.
    let (_, stored) = keychain_find(&format!("/server/{}/oauth/client", t.name)).expect("client");
    assert!(stored.contains(&secret));
    for (path, bytes) in read_all_files(&t.sb.data) {
        assert!(
            !contains_bytes(&bytes, secret.as_bytes()),
            "the client secret leaked into {}",
            path.display()
        );
    }
    let audit = t.sb.audit();
    assert!(audit
        .iter()
        .any(|e| e["kind"] == "oauth_client" && e["detail"]["client_id"] == id.as_str()));

    let shown = t.sb.run(&["--json", "servers", "show", &t.name]);
    let v = shown.ok().json();
    assert_eq!(v["oauth"]["client_id"], id.as_str());
    assert_eq!(v["oauth"]["client_secret_in_keychain"], true);
    assert_eq!(v["oauth"]["redirect_port"], port);
    assert!(!shown.stdout.contains(&secret));

    // A new process connects with the stored tokens.
    let tools = t.run("decline", &["--json", "tools", &t.name]);
    tools.ok();
    assert!(tools.stdout.contains("third-party-auth"));

    // `logout --forget-client` removes tokens and the client.
    t.run("decline", &["logout", "--forget-client", &t.name])
        .ok();
    assert!(keychain_find(&format!("/server/{}/oauth/client", t.name)).is_none());
    assert!(t.credentials().is_none());
}
