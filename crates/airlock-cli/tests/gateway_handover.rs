//! "Always there" (issue 13): a second host (the desktop window; here
//! `airlock daemon --take-over`, the same path: `HostOptions::take_over`)
//! takes the socket over from a running daemon, and the apps attached to the
//! daemon (the official TypeScript SDK client through the stdio shim) keep
//! working; an unexpected host death gives calls in flight a clear error and
//! the shim attaches to a new daemon.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::gateway::*;
use common::*;
use serde_json::{json, Value};

const LONG: &str = "everything__trigger-long-running-operation";
/// Calls an app makes, 300 ms apart, while a handover goes on.
const SWITCH_CALLS: usize = 15;

/// `airlock daemon --take-over` (the window's way to claim the socket),
/// stopped when dropped.
struct Successor {
    guard: ChildGuard,
    log: std::path::PathBuf,
}

impl Successor {
    fn start(sb: &Sandbox) -> Successor {
        let log = sb.dir().join(format!("successor-{}.log", random_hex()));
        let guard = sb
            .cmd()
            .consent("accept")
            .open("system")
            .args(["daemon", "--take-over"])
            .spawn_daemon(std::fs::File::create(&log).expect("successor log"));
        Successor { guard, log }
    }

    /// Start one and wait until it owns the socket and accepts.
    fn take_over(sb: &Sandbox) -> Successor {
        let successor = Successor::start(sb);
        wait_until(
            "the successor owns the socket",
            Duration::from_secs(60),
            || {
                (host_pid(sb) == Some(successor.pid()) && UnixStream::connect(socket(sb)).is_ok())
                    .then_some(())
            },
        );
        successor
    }

    fn pid(&self) -> u32 {
        self.guard.pid()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Successor {
    fn drop(&mut self) {
        stop(self.pid());
    }
}

/// The server-everything processes `host` runs (its children).
fn servers_of(host: u32) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // pid (comm) state ppid ...: comm may hold spaces; ppid follows the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if ppid == Some(host)
            && contains_bytes(&cmdline, b"server-everything")
            && !process_is_dead(pid)
        {
            pids.push(pid);
        }
    }
    pids
}

fn wait_file(path: &Path, what: &str) {
    wait_until(what, Duration::from_secs(60), || {
        path.exists().then_some(())
    });
}

fn touch(path: &Path) {
    std::fs::write(path, b"").expect("touch");
}

fn long_text(v: &Value) -> String {
    text(&v["result"])
}

#[test]
fn an_app_keeps_working_when_another_host_takes_over() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let old = daemon.pid();
    let old_servers = wait_until(
        "the daemon's server process",
        Duration::from_secs(30),
        || {
            let s = servers_of(old);
            (!s.is_empty()).then_some(s)
        },
    );
    let ready = sb.dir().join("ready");
    let mut ops = vec![
        json!({"op": "set_level", "level": "info"}),
        call("everything__echo", json!({"message": "before"})),
        // In flight while the window takes over: it finishes on the daemon.
        json!({"op": "start", "key": "long", "name": LONG, "arguments": {"duration": 3, "steps": 3}}),
        json!({"op": "touch", "path": ready}),
    ];
    // Calls all through the switch: held by the shim while the host moves,
    // then sent to the new one.
    for i in 0..SWITCH_CALLS {
        ops.push(call(
            "everything__echo",
            json!({"message": format!("during {i}")}),
        ));
        ops.push(json!({"op": "sleep", "ms": 300}));
    }
    ops.extend([
        json!({"op": "await", "key": "long"}),
        call("everything__echo", json!({"message": "after"})),
        json!({"op": "tools"}),
        json!({"op": "wire"}),
    ]);
    let ops = Value::Array(ops);
    let app = {
        let cmd = ts_app(&sb, "handover-app", Some("handover"), &ops);
        std::thread::spawn(move || cmd.run())
    };
    wait_file(&ready, "the app's first call");
    let successor = Successor::take_over(&sb);
    assert!(
        wait_for_exit(old, Duration::from_secs(10)),
        "the daemon did not exit after handing over; its log: {}",
        daemon.log()
    );
    assert!(
        daemon
            .log()
            .contains(&format!("handing over to pid {}", successor.pid())),
        "{}",
        daemon.log()
    );
    // The apps left because their calls were done, not because the wait ran out.
    assert!(
        !daemon.log().contains("calls still in flight: cancelled"),
        "{}",
        daemon.log()
    );
    let out = app.join().expect("the app's thread");
    let v = lines(&out);
    assert_eq!(text(&v[1]["result"]), "Echo: before", "{v:?}");
    let during: Vec<String> = v
        .iter()
        .filter(|l| l["op"] == "call" && l["name"] == "everything__echo")
        .map(|l| text(&l["result"]))
        .filter(|t| t.contains("during"))
        .collect();
    let want: Vec<String> = (0..SWITCH_CALLS)
        .map(|i| format!("Echo: during {i}"))
        .collect();
    assert_eq!(
        during, want,
        "every call during the switch got its real result: {v:?}"
    );
    let long = v.iter().find(|l| l["op"] == "await").expect("await");
    assert_ne!(long["result"]["isError"], true, "{long}");
    assert!(
        long_text(long).contains("Long running operation"),
        "the call in flight finished on the old host: {long}"
    );
    let after = v
        .iter()
        .find(|l| l["op"] == "call" && l["result"].to_string().contains("after"))
        .unwrap_or_else(|| panic!("no call after the handover answered: {v:?}\n{}", out.stderr));
    assert_eq!(text(&after["result"]), "Echo: after", "{after}");
    let tools = v.iter().find(|l| l["op"] == "tools").expect("tools");
    assert!(tool_names(tools).contains(&"everything__echo".to_owned()));
    let wire = v.iter().find(|l| l["op"] == "wire").expect("wire");
    assert_eq!(
        wire["initialize_results"], 1,
        "the app saw exactly one initialize answer: {wire}"
    );
    assert_eq!(wire["errors"], json!([]), "{wire}");

    // One set of server processes: the daemon's are gone, the successor runs one.
    for pid in &old_servers {
        assert!(
            wait_for_exit(*pid, Duration::from_secs(10)),
            "the daemon's server {pid} outlived it"
        );
    }
    assert_eq!(servers_of(successor.pid()).len(), 1, "{}", successor.log());
    // Both hosts recorded the app's calls under its name.
    let rows = wait_until("every call's history row", Duration::from_secs(10), || {
        let rows = sb.history(&["--app", "handover"]);
        (rows.len() == 3 + SWITCH_CALLS).then_some(rows)
    });
    assert!(rows.iter().all(|r| r["outcome"] == "ok"), "{rows:?}");
}

#[test]
fn a_killed_host_fails_calls_in_flight_clearly_and_the_shim_attaches_to_a_new_one() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let old = daemon.pid();
    let ready = sb.dir().join("ready");
    let ops = json!([
        call("everything__echo", json!({"message": "before"})),
        {"op": "start", "key": "long", "name": LONG, "arguments": {"duration": 20, "steps": 2}},
        {"op": "touch", "path": ready},
        {"op": "await", "key": "long"},
        call("everything__echo", json!({"message": "after"})),
        {"op": "wire"},
    ]);
    let app = {
        let cmd = ts_app(&sb, "crash-app", Some("crash"), &ops);
        std::thread::spawn(move || cmd.run())
    };
    wait_file(&ready, "the app's long call");
    // The call reaches the server (it runs 20 s).
    std::thread::sleep(Duration::from_secs(1));
    let _ = Command::new("kill")
        .args(["-KILL", &old.to_string()])
        .status();
    let out = app.join().expect("the app's thread");
    let v = lines(&out);
    let new_host = host_pid(&sb);
    // Started by the shim, not by the test: stopped when the test ends.
    let _stop = new_host.map(scopeguard);
    assert_eq!(text(&v[0]["result"]), "Echo: before", "{v:?}");
    let long = v.iter().find(|l| l["op"] == "await").expect("await");
    assert!(
        long["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("Airlock restarted; retry"),
        "the call in flight got a clear error: {long}"
    );
    let after = v
        .iter()
        .rev()
        .find(|l| l["op"] == "call")
        .expect("the call after");
    assert_eq!(
        text(&after["result"]),
        "Echo: after",
        "{after}\n{}",
        out.stderr
    );
    assert!(
        new_host.is_some_and(|p| p != old),
        "a new daemon: {new_host:?}"
    );
    let wire = v.iter().find(|l| l["op"] == "wire").expect("wire");
    assert_eq!(wire["initialize_results"], 1, "{wire}");
    assert_eq!(wire["errors"], json!([]), "{wire}");
}

/// Stops a host the shim started (not a child of the test) when dropped.
fn scopeguard(pid: u32) -> impl Drop {
    struct Stop(u32);
    impl Drop for Stop {
        fn drop(&mut self) {
            stop(self.0);
        }
    }
    Stop(pid)
}

fn say(stream: &mut UnixStream, line: &str) -> Value {
    stream.write_all(line.as_bytes()).expect("write");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut answer = String::new();
    BufReader::new(stream.try_clone().expect("clone"))
        .read_line(&mut answer)
        .expect("read");
    serde_json::from_str(&answer).expect("a JSON answer")
}

#[test]
fn only_a_host_going_through_the_claim_path_gets_the_socket() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    // A handover hello alone (what an app or a confused program could send)
    // is refused: the asker does not hold the successor lock.
    let mut s = UnixStream::connect(socket(&sb)).expect("connect");
    let answer = say(&mut s, "{\"airlock_gateway\":1,\"handover\":true}\n");
    assert_ne!(answer["ok"], true, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap_or("")
            .contains("successor lock"),
        "{answer}"
    );
    // The daemon keeps serving.
    let ops = json!([call("everything__echo", json!({"message": "still here"}))]);
    let v = lines(&ts_app(&sb, "app", Some("app"), &ops).run());
    assert_eq!(text(&v[0]["result"]), "Echo: still here", "{v:?}");
    assert_eq!(host_pid(&sb), Some(daemon.pid()));

    // A host that takes over (the window) does not hand over in turn: a
    // second one is refused and exits with why.
    let window = Successor::take_over(&sb);
    assert!(wait_for_exit(daemon.pid(), Duration::from_secs(10)));
    let second = sb.cmd().args(["daemon", "--take-over"]).run();
    assert_eq!(second.code(), 1, "{second:?}");
    assert!(
        second.stderr.contains("does not hand its socket over"),
        "{second:?}"
    );
    assert_eq!(host_pid(&sb), Some(window.pid()));
    let v = lines(&ts_app(&sb, "app", Some("app"), &ops).run());
    assert_eq!(text(&v[0]["result"]), "Echo: still here", "{v:?}");
}

#[test]
fn a_python_app_on_2026_07_28_keeps_working_across_a_handover() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let (ready, go) = (sb.dir().join("ready"), sb.dir().join("go"));
    let ops = json!([
        {"op": "info"},
        call("everything__echo", json!({"message": "before"})),
        {"op": "touch", "path": ready},
        {"op": "wait_file", "path": go},
        call("everything__echo", json!({"message": "after"})),
    ]);
    let app = {
        let cmd = py_app(&sb, "py-handover", Some("py-handover"), &ops);
        std::thread::spawn(move || cmd.run())
    };
    wait_file(&ready, "the app's first call");
    let _successor = Successor::take_over(&sb);
    assert!(wait_for_exit(daemon.pid(), Duration::from_secs(10)));
    touch(&go);
    let out = app.join().expect("the app's thread");
    let v = lines(&out);
    assert_eq!(v[0]["protocol"], "2026-07-28", "{v:?}");
    assert_eq!(text(&v[1]["result"]), "Echo: before", "{v:?}");
    assert_eq!(
        text(&v[4]["result"]),
        "Echo: after",
        "{v:?}\n{}",
        out.stderr
    );
    assert!(
        !daemon.log().contains("calls still in flight: cancelled"),
        "{}",
        daemon.log()
    );
}

#[test]
fn a_successor_that_goes_away_before_taking_over_leaves_the_daemon_serving() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    let daemon = Daemon::start(&sb, "accept", None);
    let (ready, go) = (sb.dir().join("ready"), sb.dir().join("go"));
    let ops = json!([
        call("everything__echo", json!({"message": "before"})),
        {"op": "touch", "path": ready},
        {"op": "wait_file", "path": go},
        call("everything__echo", json!({"message": "after"})),
        {"op": "wire"},
    ]);
    let app = {
        let cmd = ts_app(&sb, "stays-app", Some("stays"), &ops);
        std::thread::spawn(move || cmd.run())
    };
    wait_file(&ready, "the app's first call");
    // This test process asks as a successor would (it holds the successor
    // lock with its pid), is accepted, then goes away without claiming.
    let lock_at = sb.data.join("gateway.next.lock");
    let mut lock = std::fs::File::create(&lock_at).expect("successor lock");
    lock.try_lock().expect("lock it");
    write!(lock, "{}", std::process::id()).expect("write the pid");
    let mut s = UnixStream::connect(socket(&sb)).expect("connect");
    let answer = say(&mut s, "{\"airlock_gateway\":1,\"handover\":true}\n");
    assert_eq!(answer["ok"], true, "{answer}");
    drop(s);
    drop(lock);
    wait_until("the daemon to serve on", Duration::from_secs(30), || {
        daemon
            .log()
            .contains("went away before taking over")
            .then_some(())
    });
    touch(&go);
    let out = app.join().expect("the app's thread");
    let v = lines(&out);
    assert_eq!(text(&v[0]["result"]), "Echo: before", "{v:?}");
    let after = v
        .iter()
        .rev()
        .find(|l| l["op"] == "call")
        .expect("the call after");
    assert_eq!(
        text(&after["result"]),
        "Echo: after",
        "{after}\n{}",
        out.stderr
    );
    let wire = v.iter().find(|l| l["op"] == "wire").expect("wire");
    assert_eq!(wire["initialize_results"], 1, "{wire}");
    assert_eq!(host_pid(&sb), Some(daemon.pid()), "{}", daemon.log());
    assert!(!process_is_dead(daemon.pid()));
}
