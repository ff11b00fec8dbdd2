//! The elicitation broker: rate limits, blocking, consent, opening, completion
//! matching, persisted states. Real SQLite; the consent port is a scripted one.

use std::sync::Arc;

use airlock_core::caller::{AppCall, AppTarget, Caller};
use airlock_core::elicitation::{Broker, BrokerSettings, Consent, ConsentDecision, Origin};
use airlock_core::store::Store;
use airlock_core::test_support::{open_broker, RecordingOpener, ScriptedConsent};

/// Resident set of this process in kB (Linux).
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn broker(
    consent: Arc<dyn Consent>,
    opener: Arc<RecordingOpener>,
) -> (Arc<Broker>, Arc<Store>, tempfile::TempDir) {
    open_broker(consent, opener, BrokerSettings::default())
}

/// Accepts, but only once released (a person who has not answered yet).
fn slow_consent() -> Arc<ScriptedConsent> {
    ScriptedConsent::accepting().hold()
}

#[tokio::test(flavor = "current_thread")]
async fn a_flood_is_rate_limited_and_the_prompt_queue_stays_short() {
    let consent = slow_consent();
    let opener = RecordingOpener::new();
    let (b, store, _dir) = broker(consent.clone(), opener.clone());
    let rss_before = rss_kb();
    let mut waiting = Vec::new();
    for i in 0..10_000 {
        let b = b.clone();
        let h = tokio::spawn(async move {
            b.handle_url(
                "flood",
                1,
                "m",
                &format!("https://x.example/{i}"),
                Some(&format!("id{i}")),
                Origin::Request,
            )
            .await
        });
        waiting.push(h);
        if i % 1000 == 0 {
            tokio::task::yield_now().await;
        }
    }
    // Let every task reach the broker.
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        consent.url_questions(),
        airlock_core::elicitation::DEFAULT_MAX_PENDING_PER_SERVER,
        "only the allowed number of prompts may be open at once"
    );
    consent.release();
    let mut accepted = 0;
    for h in waiting {
        if h.await.unwrap().decision() == ConsentDecision::Accept {
            accepted += 1;
        }
    }
    assert_eq!(
        accepted,
        airlock_core::elicitation::DEFAULT_MAX_PENDING_PER_SERVER
    );
    assert_eq!(opener.urls().len(), accepted);
    // Memory stays flat: refused requests hold nothing once answered.
    let grown_mb = rss_kb().saturating_sub(rss_before) / 1024;
    println!("RSS growth over a flood of 10,000 URL elicitations: {grown_mb} MB");
    assert!(grown_mb < 64, "memory grew by {grown_mb} MB");
    let rows = store.elicitations(Some("flood"), 1000).unwrap();
    assert!(rows.iter().any(|r| r.state.as_str() == "rate_limited"));
    let audit = store.audit_events(Some("flood"), 1000).unwrap();
    assert!(audit.iter().any(|e| e.detail["state"] == "rate_limited"));
}

#[tokio::test(flavor = "current_thread")]
async fn per_minute_limit_and_blocked_urls_never_reach_consent() {
    let opener = RecordingOpener::new();
    let (b, store, _dir) = broker(
        Arc::new(airlock_core::elicitation::FixedConsent(
            ConsentDecision::Accept,
        )),
        opener.clone(),
    );
    let blocked = b
        .handle_url(
            "s",
            1,
            "m",
            "javascript:alert(1)",
            Some("j"),
            Origin::Request,
        )
        .await;
    assert_eq!(blocked.decision(), ConsentDecision::Decline);
    assert!(opener.urls().is_empty());
    let mut decisions = Vec::new();
    for i in 0..airlock_core::elicitation::DEFAULT_MAX_PER_MINUTE + 1 {
        let o = b
            .handle_url(
                "s",
                1,
                "m",
                &format!("https://ok.example/{i}"),
                Some(&format!("e{i}")),
                Origin::Request,
            )
            .await;
        decisions.push(o.decision());
    }
    // The blocked one counts against the per-minute limit too (issue 11: a
    // flood of bad URLs is cut off like any other), so one fewer is asked.
    let max = airlock_core::elicitation::DEFAULT_MAX_PER_MINUTE;
    assert!(decisions[..max - 1]
        .iter()
        .all(|d| *d == ConsentDecision::Accept));
    assert!(decisions[max - 1..]
        .iter()
        .all(|d| *d == ConsentDecision::Decline));
    let states: Vec<String> = store
        .elicitations(Some("s"), 100)
        .unwrap()
        .into_iter()
        .map(|r| r.state.to_string())
        .collect();
    assert!(states.contains(&"blocked".to_string()));
    assert!(states.contains(&"rate_limited".to_string()));
    assert!(states.contains(&"opened".to_string()));
}

#[tokio::test(flavor = "current_thread")]
async fn completion_counts_only_from_the_connection_that_asked() {
    let opener = RecordingOpener::new();
    let (b, store, _dir) = broker(
        Arc::new(airlock_core::elicitation::FixedConsent(
            ConsentDecision::Accept,
        )),
        opener,
    );
    let o = b
        .handle_url(
            "s",
            7,
            "m",
            "https://ok.example/x",
            Some("abc"),
            Origin::Request,
        )
        .await;
    let id = o.record_id.unwrap();
    assert!(
        !b.complete("s", 8, "abc"),
        "another connection must not complete it"
    );
    assert!(!b.complete("s", 7, "unknown"));
    assert!(b.complete("s", 7, "abc"));
    assert!(!b.complete("s", 7, "abc"), "a second completion is ignored");
    let row = store
        .elicitations(Some("s"), 10)
        .unwrap()
        .into_iter()
        .find(|r| r.id == id)
        .unwrap();
    assert_eq!(row.state.as_str(), "completed");
    let ignored = store
        .audit_events(Some("s"), 100)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "elicitation_complete_ignored")
        .count();
    assert_eq!(ignored, 3);
}

#[tokio::test(flavor = "current_thread")]
async fn server_text_is_stored_bounded_and_neutralised() {
    let opener = RecordingOpener::new();
    let (b, store, _dir) = broker(
        Arc::new(airlock_core::elicitation::FixedConsent(
            ConsentDecision::Decline,
        )),
        opener,
    );
    let message = format!("\u{1b}[31mred\u{202e}evil{}", "m".repeat(1_000_000));
    b.handle_url(
        "s",
        1,
        &message,
        "https://ok.example/",
        Some("x"),
        Origin::Request,
    )
    .await;
    let row = &store.elicitations(Some("s"), 1).unwrap()[0];
    assert!(row.message.chars().count() <= airlock_core::elicitation::MAX_MESSAGE_CHARS);
    assert!(!row.message.contains('\u{1b}'));
    assert!(!row.message.contains('\u{202e}'));
    assert_eq!(row.state.as_str(), "declined");
}

/// A request dropped while the user is being asked (the server disconnected)
/// frees its slot and is recorded as connection_lost, not left "requested".
#[tokio::test(flavor = "current_thread")]
async fn a_question_dropped_mid_consent_frees_its_slot() {
    let consent = slow_consent();
    let opener = RecordingOpener::new();
    let (b, store, _dir) = broker(consent.clone(), opener);
    for i in 0..airlock_core::elicitation::DEFAULT_MAX_PENDING_PER_SERVER * 2 {
        let b2 = b.clone();
        let h = tokio::spawn(async move {
            b2.handle_url(
                "s",
                1,
                "m",
                &format!("https://ok.example/{i}"),
                Some("x"),
                Origin::Request,
            )
            .await
        });
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        h.abort();
        let _ = h.await;
    }
    assert_eq!(
        consent.url_questions(),
        airlock_core::elicitation::DEFAULT_MAX_PENDING_PER_SERVER * 2,
        "every question got a slot: dropped ones gave theirs back"
    );
    let states: Vec<String> = store
        .elicitations(Some("s"), 100)
        .unwrap()
        .into_iter()
        .map(|r| r.state.to_string())
        .collect();
    assert!(states.iter().all(|s| s == "connection_lost"), "{states:?}");
}

/// Every kind of request shares the per-server limits: blocked URLs and
/// forms are cut off like URL elicitations, and one server at its limit
/// never causes another server's request to be refused.
#[tokio::test(flavor = "current_thread")]
async fn blocked_urls_and_forms_share_the_limits_and_other_servers_are_unaffected() {
    let opener = RecordingOpener::new();
    let consent = ScriptedConsent::accepting();
    let (b, store, _dir) = broker(consent.clone(), opener.clone());
    let max = airlock_core::elicitation::DEFAULT_MAX_PER_MINUTE;
    // A flood of blocked URLs from one server: only `max` are even inspected
    // as blocked; the rest are rate-limited.
    for i in 0..max * 3 {
        b.handle_url(
            "flood",
            1,
            "m",
            &format!("javascript:alert({i})"),
            Some(&format!("j{i}")),
            Origin::Request,
        )
        .await;
    }
    let rows = store.elicitations(Some("flood"), 1000).unwrap();
    let blocked = rows
        .iter()
        .filter(|r| r.state.as_str() == "blocked")
        .count();
    let limited = rows
        .iter()
        .filter(|r| r.state.as_str() == "rate_limited")
        .count();
    assert_eq!((blocked, limited), (max, max * 2));
    // Its forms are refused too, without asking.
    let schema = serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let form = b
        .handle_form("flood", "m", &schema, None, Origin::Request)
        .await
        .unwrap();
    assert_eq!(form.result_json(), serde_json::json!({"action": "decline"}));
    assert!(consent.asked_forms.lock().unwrap().is_empty());
    // Another server is asked as usual.
    let other = b
        .handle_url(
            "calm",
            2,
            "m",
            "https://calm.example/",
            Some("c"),
            Origin::Request,
        )
        .await;
    assert_eq!(other.decision(), ConsentDecision::Accept);
    assert_eq!(opener.urls(), ["https://calm.example/"]);
}

/// The consent shows what the user's own history says about a domain: how
/// often this server sent them there, and for a first-time domain one they
/// opened before that it looks like. Sign-ins say where the code goes when
/// that is another domain than the login page's.
#[tokio::test(flavor = "current_thread")]
async fn consent_carries_familiarity_look_alikes_and_where_a_sign_in_code_goes() {
    let consent = ScriptedConsent::accepting();
    let opener = RecordingOpener::new();
    let (b, _store, _dir) = broker(consent.clone(), opener.clone());
    let ask = |url: &'static str, id: &'static str| {
        let b = b.clone();
        async move {
            b.handle_url("bank", 1, "m", url, Some(id), Origin::Request)
                .await
        }
    };
    ask("https://www.paypal.com/signin", "a").await;
    ask("https://www.paypal.com/again", "b").await;
    ask("https://www.paypa1.com/signin", "c").await;
    let asked = consent.asked.lock().unwrap().clone();
    assert_eq!(asked[0].familiarity.times_before, 0);
    assert!(
        asked[0].familiarity.looks_like.is_none(),
        "nothing known yet"
    );
    assert_eq!(asked[1].familiarity.times_before, 1, "opened once before");
    assert!(asked[1].familiarity.first_seen_ms.is_some());
    let lookalike = asked[2]
        .familiarity
        .looks_like
        .as_ref()
        .expect("a look-alike");
    assert_eq!(lookalike.domain, "paypal.com");
    assert!(!asked[2].familiarity.is_reassuring());

    let same = b
        .approve_sign_in(
            "bank",
            "https://login.bank.example/authorize?state=s",
            Some("https://api.bank.example/token"),
            None,
            None,
        )
        .await;
    drop(same);
    let elsewhere = b
        .approve_sign_in(
            "bank",
            "https://login.bank.example/authorize?state=t",
            Some("https://collect.evil.example/token"),
            None,
            None,
        )
        .await;
    drop(elsewhere);
    let asked = consent.asked.lock().unwrap().clone();
    assert_eq!(asked[3].code_goes_to, None, "same registrable domain");
    assert_eq!(asked[4].code_goes_to.as_deref(), Some("evil.example"));
}

/// Why a sign-in is asked again reaches the consent as plain text, at most
/// `MAX_REASON_CHARS` of it.
#[tokio::test(flavor = "current_thread")]
async fn the_reason_for_a_new_sign_in_is_in_the_consent_bounded() {
    use airlock_core::elicitation::MAX_REASON_CHARS;
    let consent = ScriptedConsent::accepting();
    let (b, _store, _dir) = broker(consent.clone(), RecordingOpener::new());
    let ask = |reason: String| {
        let b = b.clone();
        async move {
            drop(
                b.approve_sign_in(
                    "srv",
                    "https://login.example/authorize?state=s",
                    None,
                    None,
                    Some(&reason),
                )
                .await,
            );
        }
    };
    ask("r".repeat(MAX_REASON_CHARS)).await;
    ask("x".repeat(MAX_REASON_CHARS + 1)).await;
    ask("line one\nline two".into()).await;
    let asked = consent.asked.lock().unwrap().clone();
    let shown = |m: &str| {
        let from = m.find("Why again: ").unwrap() + "Why again: ".len();
        m[from..].split('.').next().unwrap().to_owned()
    };
    assert_eq!(
        shown(&asked[0].message),
        "r".repeat(MAX_REASON_CHARS),
        "whole at the bound"
    );
    let cut = shown(&asked[1].message);
    assert_eq!(cut.chars().count(), MAX_REASON_CHARS, "cut past the bound");
    assert!(cut.ends_with('…'), "{cut}");
    // A newline is shown as an escape, never as a line break.
    assert!(!asked[2].message.contains('\n'), "{}", asked[2].message);
    assert!(
        asked[2].message.contains("line one"),
        "{}",
        asked[2].message
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_request_sent_on_a_connection_names_the_apps_whose_calls_are_in_flight_there() {
    let (b, store, _dir) = broker(ScriptedConsent::accepting(), RecordingOpener::new());
    assert_eq!(b.apps_in_flight(1), None, "no call: Airlock itself");
    let own = b.call_started(1, &Caller::own());
    assert_eq!(b.apps_in_flight(1), None, "Airlock's own call");
    let cursor = b.call_started(1, &Caller::named(Some("cursor")));
    let _other_connection = b.call_started(2, &Caller::named(Some("zed")));
    assert_eq!(
        b.apps_in_flight(1).as_deref(),
        Some("one of: airlock, cursor")
    );
    drop(own);
    assert_eq!(b.apps_in_flight(1).as_deref(), Some("cursor"));
    let _again = b.call_started(1, &Caller::named(Some("cursor")));
    assert_eq!(
        b.apps_in_flight(1).as_deref(),
        Some("cursor"),
        "one app, two calls"
    );
    let _code = b.call_started(1, &Caller::named(Some("claude-code")));
    assert_eq!(
        b.apps_in_flight(1).as_deref(),
        Some("one of: cursor, claude-code")
    );
    drop(cursor);

    // The request path records it; history keeps it.
    let outcome = b
        .request_url(
            "srv",
            1,
            "m",
            "https://example.com/x",
            Some("e1"),
            &Default::default(),
        )
        .await;
    let id = outcome.record_id.expect("recorded");
    let record = store.elicitation(id).unwrap().expect("record");
    assert_eq!(record.app.as_deref(), Some("one of: cursor, claude-code"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_servers_request_goes_to_an_app_only_when_that_app_alone_has_calls_in_flight() {
    let (b, _store, _dir) = broker(ScriptedConsent::accepting(), RecordingOpener::new());
    let app = |app, call| Caller::app("cursor", AppCall { app, call });
    assert_eq!(b.sole_app(1), None, "nothing in flight");
    let first = b.call_started(1, &app(7, 1));
    assert_eq!(
        b.sole_app(1),
        Some(AppTarget {
            app: 7,
            call: Some(1)
        }),
        "one call of one app: that call"
    );
    let second = b.call_started(1, &app(7, 2));
    assert_eq!(
        b.sole_app(1),
        Some(AppTarget { app: 7, call: None }),
        "two calls of one app: the app, not a call"
    );
    // Another connection's calls do not count.
    let _elsewhere = b.call_started(2, &app(8, 3));
    assert_eq!(b.sole_app(1).map(|t| t.app), Some(7));
    // Airlock's own call (the window's) on the same connection: nobody is guessed.
    let own = b.call_started(1, &Caller::own());
    assert_eq!(b.sole_app(1), None, "the window's call counts");
    drop(own);
    // A second app with the same client name is still another app.
    let other = b.call_started(1, &app(9, 4));
    assert_eq!(b.sole_app(1), None, "two apps: nobody is guessed");
    drop(other);
    drop(first);
    drop(second);
    assert_eq!(b.sole_app(1), None);
    assert_eq!(b.sole_app(2).map(|t| t.app), Some(8));
}

#[tokio::test(flavor = "current_thread")]
async fn a_log_line_handled_just_after_its_call_ended_still_reaches_that_app_and_no_request_does() {
    let (b, _store, _dir) = broker(ScriptedConsent::accepting(), RecordingOpener::new());
    let app = |app, call| Caller::app("cursor", AppCall { app, call });
    let call = b.call_started(1, &app(7, 1));
    drop(call);
    assert_eq!(
        b.sole_app(1),
        None,
        "a request never goes to an app that no longer waits"
    );
    assert_eq!(
        b.log_app(1),
        Some(AppTarget { app: 7, call: None }),
        "a late log line does"
    );
    assert_eq!(b.log_app(2), None, "another connection's: nobody");
    // Another app's call in flight now: its lines are its own.
    let other = b.call_started(1, &app(9, 2));
    assert_eq!(b.log_app(1).map(|t| t.app), Some(9));
    drop(other);
    std::thread::sleep(airlock_core::elicitation::LATE_LOG_GRACE);
    assert_eq!(b.log_app(1), None, "past the grace: nobody");
}
