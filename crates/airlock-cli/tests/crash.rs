//! kill -9 of the CLI at random points of runs with URL elicitations
//! waiting, opened or late: the next start finds the database intact
//! (`PRAGMA integrity_check`), the records that were open marked
//! `interrupted` (in the CLI's list and the audit trail), and nothing else
//! lost. Real server-everything, real SQLite file.

mod common;

use std::time::Duration;

use common::*;

/// A delay in `lo..hi` ms, different on every run of the test.
fn random_ms(lo: u64, hi: u64) -> u64 {
    let n = u64::from_str_radix(&random_hex()[..8], 16).unwrap_or(0);
    lo + n % (hi - lo)
}

#[test]
fn kill_9_at_random_points_leaves_an_intact_database_and_interrupted_records() {
    let sb = Sandbox::new();
    sb.add_everything("everything");
    // What must survive every kill: a finished call in history.
    sb.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message":"before the kills"}"#,
    ])
    .ok();
    let mut delays = Vec::new();
    // Record ids each killed run created.
    let mut killed_records: Vec<i64> = Vec::new();
    let newest_id = |sb: &Sandbox| -> i64 {
        let db = rusqlite::Connection::open(sb.data.join("airlock.sqlite3")).expect("db");
        db.query_row("SELECT COALESCE(MAX(id), 0) FROM elicitations", [], |r| {
            r.get(0)
        })
        .expect("max id")
    };
    for round in 0..6 {
        let before = newest_id(&sb);
        // Even rounds wait for a completion that never comes (the record
        // stays opened); odd rounds go late after 1 s, continue and retry.
        let (late_after, delay) = if round % 2 == 0 {
            ("3600", random_ms(2500, 4500))
        } else {
            ("1", random_ms(300, 3500))
        };
        delays.push(delay);
        let args =
            serde_json::json!({"url": format!("https://example.com/k{round}"), "errorPath": true});
        let out = sb
            .cmd()
            .consent("accept")
            .open("none")
            .deadlines(late_after, "3600")
            .call("everything", URL_TRIGGER, &args.to_string())
            .timeout(Duration::from_millis(delay))
            .run();
        if round % 2 == 0 {
            assert!(out.timed_out, "killed while waiting: {out:?}");
        }
        if out.timed_out {
            // Read without starting Airlock (which would already recover).
            let after = newest_id(&sb);
            killed_records.extend(before + 1..=after);
        }
    }

    // The next start: an intact database ...
    let db = rusqlite::Connection::open(sb.data.join("airlock.sqlite3")).expect("open the db");
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check");
    assert_eq!(check, "ok", "kills after {delays:?} ms");
    drop(db);
    // ... where nothing a killed process left open is still "waiting". (A
    // run that ended cleanly may leave a request-path record opened: the
    // CLI does not wait for a completion that may come later.)
    let records = sb.elicitations();
    assert!(!records.is_empty());
    for r in records
        .iter()
        .filter(|r| killed_records.contains(&r["id"].as_i64().unwrap_or(-1)))
    {
        let state = r["state"].as_str().unwrap_or("?");
        assert!(
            !["requested", "accepted", "opened", "open_failed", "late"].contains(&state),
            "record of a killed run left open ({delays:?} ms): {r:#}"
        );
    }
    let interrupted: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["state"] == "interrupted")
        .collect();
    assert!(
        interrupted.len() >= 3,
        "the three rounds killed while opened end interrupted: {records:#?}"
    );
    for r in &interrupted {
        let states = sb.states_of(id_of(r));
        assert_eq!(
            states.last().map(String::as_str),
            Some("interrupted"),
            "{states:?}"
        );
        assert!(states.contains(&"opened".to_owned()) || states.contains(&"requested".to_owned()));
    }
    // The text list shows the word too.
    let text = sb.run(&["elicitations"]);
    text.ok();
    assert!(text.stdout.contains("interrupted"), "{text:?}");
    // Nothing else lost: the first call is still in history.
    let history = sb.history(&[]);
    assert!(
        history
            .iter()
            .any(|h| h["tool"] == "echo" && h["outcome"] == "ok"),
        "{history:#?}"
    );
    // And the data dir is still usable.
    sb.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message":"after"}"#,
    ])
    .ok();
}

/// A data dir Airlock creates, and its database files, are private to the user.
#[test]
fn the_data_dir_is_0700_and_the_database_0600() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    sb.add_everything("everything");
    sb.run(&["call", "everything", "echo", "--args", r#"{"message":"x"}"#])
        .ok();
    let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode(&sb.data).unwrap(), 0o700);
    for f in [
        "airlock.sqlite3",
        "airlock.sqlite3-wal",
        "airlock.sqlite3-shm",
    ] {
        let p = sb.data.join(f);
        if p.exists() {
            assert_eq!(mode(&p).unwrap(), 0o600, "{f}");
        }
    }
    assert_eq!(mode(&sb.data.join("airlock.sqlite3")).unwrap(), 0o600);
}
