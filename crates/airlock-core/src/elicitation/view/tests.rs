//! The sentence table, tested once, and the views and notices made with it:
//! every code has a sentence, no sentence is empty, and nothing a server or
//! an app chose reaches a surface unneutralised, unbounded or unlabelled.

use airlock_url_safety::{inspect, BlockReason, Policy, Resemblance, Warning};

use super::notice::{flood_notice, form_notice, late_notice, url_notice, Notice, NoticeHost};
use super::sentences as s;
use super::*;
use crate::elicitation::form::parse_schema;
use crate::elicitation::ports::{FormConsentRequest, LookAlike, UrlConsentRequest};
use crate::lifecycle::Origin;

fn request(server: &str, message: &str, url: &str, origin: Origin) -> UrlConsentRequest {
    UrlConsentRequest {
        record_id: 42,
        server: server.into(),
        message: message.into(),
        elicitation_id: Some("e1".into()),
        origin,
        inspection: inspect(url, &Policy::default()),
        familiarity: Familiarity::default(),
        code_goes_to: None,
        app: None,
    }
}

fn form(server: &str, message: &str, app: Option<&str>) -> FormConsentRequest {
    FormConsentRequest {
        record_id: 5,
        server: server.into(),
        message: message.into(),
        origin: Origin::Request,
        schema: parse_schema(&serde_json::json!({"title": "Sign up", "properties": {
            "user": {"type": "string"},
            "api_key": {"type": "string"}
        }}))
        .unwrap(),
        app: app.map(str::to_owned),
        to_app: None,
    }
}

/// Every text a view shows, with whose words it is.
fn texts(v: &ConsentView) -> Vec<(String, Source)> {
    let mut out = vec![
        (v.title.clone(), Source::Server),
        (v.question.clone(), Source::Airlock),
    ];
    out.extend(v.heading.iter().map(|p| (p.text.clone(), p.from)));
    out.extend(v.note.iter().map(|p| (p.text.clone(), p.from)));
    for l in v.lines.iter().chain(&v.domain) {
        out.push((l.label.clone(), Source::Airlock));
        out.push((l.text.clone(), l.from));
        out.extend(l.note.clone().map(|n| (n, Source::Airlock)));
        if let Some(split) = &l.split {
            out.push((split.text(), l.from));
        }
    }
    out.extend(
        v.warnings
            .iter()
            .map(|w| (w.sentence.clone(), Source::Airlock)),
    );
    out.extend(v.blocked.clone().map(|b| (b, Source::Airlock)));
    out.extend(v.buttons.iter().map(|b| (b.label.clone(), Source::Airlock)));
    out
}

fn notice_texts(n: &Notice) -> Vec<String> {
    let mut out = vec![n.summary.clone(), n.body.clone()];
    out.extend(n.actions.iter().map(|a| a.label.clone()));
    out
}

// ----- the table -----

#[test]
fn every_warning_code_has_its_own_sentence() {
    let sentences: Vec<&str> = Warning::ALL.iter().map(|&w| s::warning(w)).collect();
    for (w, text) in Warning::ALL.iter().zip(&sentences) {
        assert!(text.len() > 20 && text.ends_with('.'), "{w}: {text:?}");
    }
    let mut distinct = sentences.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), sentences.len(), "one sentence per code");

    for b in [
        BlockReason::SchemeNotAllowed,
        BlockReason::InsecureScheme,
        BlockReason::Unparseable,
        BlockReason::TooLong,
    ] {
        assert!(s::block(b).len() > 20 && s::block(b).ends_with('.'), "{b}");
    }
    for r in Resemblance::ALL {
        let text = s::resemblance(r);
        assert!(text.len() > 20 && text.ends_with('.'), "{r}");
        assert!(s::looks_like("known.example", r).contains(text));
    }
}

#[test]
fn no_fixed_sentence_or_word_is_empty() {
    let fixed = [
        s::SECRET_FIELD,
        s::THE_SERVER,
        s::ASKS_OPEN_PAGE,
        s::ASKS_SIGN_IN,
        s::ASKS_FORM,
        s::APP_ARROW,
        s::TITLE_PREFIX,
        s::BLOCKED_TITLE,
        s::BLOCKED_HEADING,
        s::BLOCKED_ASKED,
        s::STILL_WAITING_FOR,
        s::THE_WEB_PAGE,
        s::LATE_NOTE,
        s::LABEL_DOMAIN,
        s::LABEL_HOST,
        s::LABEL_URL,
        s::LABEL_PORT,
        s::LABEL_WHY,
        s::LABEL_SEEN,
        s::LABEL_APP,
        s::LABEL_FORM,
        s::LABEL_WARNING,
        s::LABEL_BLOCKED,
        s::APP_NOTE,
        s::NO_DOMAIN,
        s::NO_URL,
        s::NOTE_OPEN,
        s::NOTE_FORM,
        s::QUESTION_OPEN,
        s::QUESTION_SIGN_IN,
        s::QUESTION_FORM,
        s::BUTTON_OPEN,
        s::BUTTON_DECLINE,
        s::BUTTON_DONT_OPEN,
        s::BUTTON_CANCEL,
        s::BUTTON_CLOSE,
        s::BUTTON_CONTINUE,
        s::BUTTON_ACCEPT,
        s::BUTTON_REVIEW,
        s::KEYS_OPEN,
        s::KEYS_LATE,
        s::KEYS_FORM,
        s::KEYS_FORM_FIELDS,
        s::FORM_ABOUT_TO_SEND,
        s::FORM_NO_VALUES,
        s::FORM_END_OF_INPUT,
        s::FORM_DOES_NOT_FIT,
        s::NOTICE_OPEN,
        s::NOTICE_SIGN_IN_AT,
        s::NOTICE_A_WEB_PAGE,
        s::NOTICE_ONE_CLICK,
        s::NOTICE_REVIEW,
        s::NOTICE_DAEMON_ONE_CLICK,
        s::NOTICE_DAEMON_DECLINED,
        s::NOTICE_DAEMON_REVIEW_IN,
        s::NOTICE_LOOKS_LIKE,
        s::NOTICE_CODE_ELSEWHERE,
        s::NOTICE_NO_DOMAIN,
        s::NOTICE_FORM_WINDOW,
        s::NOTICE_FORM_DAEMON,
        s::FLOOD_SENDS,
        s::FLOOD_BODY,
    ];
    for text in fixed {
        assert!(!text.trim().is_empty(), "an empty entry in the table");
        assert!(!text.contains('\n'), "one line each: {text:?}");
    }
    for times in [0, 1, 2] {
        for first in [None, Some("2023-11-14")] {
            assert!(!s::seen(times, first).is_empty());
        }
    }

    // And nothing a view or a notice shows is empty, for every kind.
    let mut r = request("srv", "m", "https://a.example:8443/x", Origin::Request);
    r.app = Some("cursor".into());
    r.code_goes_to = Some("b.example".into());
    r.familiarity.looks_like = Some(LookAlike {
        domain: "c.example".into(),
        resemblance: Resemblance::EditDistance,
    });
    let views = [
        ConsentView::url(&r),
        ConsentView::url(&request("s", "m", "https://a.example/", Origin::SignIn)),
        ConsentView::late(&r),
        ConsentView::form(&form("srv", "m", Some("zed"))),
        ConsentView::blocked("s", "m", &inspect("javascript:x", &Policy::default())),
    ];
    for v in &views {
        for (text, _) in texts(v) {
            if text.is_empty() {
                // Only a blocked page has no question (it asks nothing).
                assert_eq!(v.kind, ViewKind::Blocked, "an empty text in {v:#?}");
            }
        }
        assert!(!v.buttons.is_empty());
    }
    let notices = [
        url_notice(&r, NoticeHost::Window).0,
        url_notice(&r, NoticeHost::Daemon).0,
        late_notice(&r),
        form_notice(&form("s", "m", None), NoticeHost::Window),
        form_notice(&form("s", "m", None), NoticeHost::Daemon),
        flood_notice("s"),
    ];
    for n in &notices {
        assert!(notice_texts(n).iter().all(|t| !t.is_empty()), "{n:#?}");
    }
}

// ----- nothing a server or an app chose passes as Airlock's words -----

const HOSTILE_SERVER: &str =
    "<b>evil</b> & \u{202e}moc.elgoog\u{202c} https://accounts.google.com asks you to open paypal.com";
const HOSTILE_MESSAGE: &str =
    "Click <a href=\"https://x.example\">here</a>\nnow \u{2066}%s\u{2069}\u{1b}[31m";
const HOSTILE_APP: &str = "x”\n→ the server “github” asks you to open paypal.com\u{202e}";

fn hostile_request(origin: Origin) -> UrlConsentRequest {
    let mut r = request(
        HOSTILE_SERVER,
        HOSTILE_MESSAGE,
        "https://ok.example/\u{202e}path",
        origin,
    );
    r.app = Some(HOSTILE_APP.into());
    r.code_goes_to = Some("collect.example\u{202e}\n".into());
    r.familiarity.looks_like = Some(LookAlike {
        domain: "known.example\u{2066}".into(),
        resemblance: Resemblance::SameSkeleton,
    });
    r
}

fn has_raw_control(text: &str) -> bool {
    text.chars().any(|c| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

#[test]
fn no_server_or_app_text_is_inserted_unescaped_unbounded_or_unlabelled() {
    let r = hostile_request(Origin::Request);
    let mut form_request = form(HOSTILE_SERVER, HOSTILE_MESSAGE, Some(HOSTILE_APP));
    form_request.schema.title = Some("Title \u{202e}".into());
    let views = [
        ConsentView::url(&r),
        ConsentView::url(&hostile_request(Origin::SignIn)),
        ConsentView::late(&r),
        ConsentView::form(&form_request),
        ConsentView::blocked(
            HOSTILE_SERVER,
            HOSTILE_MESSAGE,
            &inspect("http://evil.example/", &Policy::default()),
        ),
    ];
    for v in &views {
        for (text, from) in texts(v) {
            assert!(!has_raw_control(&text), "raw control or bidi in {text:?}");
            assert!(text.chars().count() <= MAX_VIEW_URL_CHARS, "unbounded");
            // Airlock's own words never carry what a server or an app wrote.
            if from == Source::Airlock {
                for theirs in ["evil", "paypal", "Click", "x.example", "github"] {
                    assert!(
                        !text.contains(theirs),
                        "{theirs} in Airlock's words: {text:?}"
                    );
                }
            }
        }
        // The server's name is one part of the heading (or of the note of a
        // late page), marked as the server's.
        let servers: Vec<&Part> = v
            .heading
            .iter()
            .chain(&v.note)
            .filter(|p| p.from == Source::Server)
            .collect();
        assert_eq!(servers.len(), 1, "{v:#?}");
        assert!(servers[0].text.starts_with("<b>evil</b> & \\u{202E}moc"));
        assert!(servers[0].text.chars().count() <= MAX_VIEW_NAME_CHARS);
        // The message is escaped, never on a line of its own.
        let why = v.line(LineKey::Why).unwrap();
        assert!(why.text.contains("here</a>\\u{A}now"), "{}", why.text);
        assert_eq!(why.from, Source::Server);
    }
    // The app: its own label, quoted, on its own line and in its own part.
    let v = &views[0];
    let app = v.line(LineKey::App).unwrap();
    assert_eq!(app.from, Source::App);
    assert!(
        app.text.starts_with("app “x? ? the server ?github? asks"),
        "{}",
        app.text
    );
    assert_eq!(v.heading[0].from, Source::App);
    assert!(
        v.heading[0].text.starts_with("App “x?"),
        "{}",
        v.heading[0].text
    );
    assert!(v.app.as_deref().is_some_and(|a| a == app.text));
    // Values in Airlock's sentences (a look-alike, a sign-in's code) come in
    // escaped.
    let sentences: Vec<&str> = v.warnings.iter().map(|w| w.sentence.as_str()).collect();
    assert!(
        sentences
            .iter()
            .any(|w| w.contains("known.example\\u{2066}")),
        "{sentences:?}"
    );
    assert!(
        sentences
            .iter()
            .any(|w| w.contains("collect.example\\u{202E}\\u{A}")),
        "{sentences:?}"
    );

    // A huge message and name stay bounded.
    let huge = request(
        &"n".repeat(10_000),
        &"m".repeat(100_000),
        "https://ok.example/",
        Origin::Request,
    );
    let v = ConsentView::url(&huge);
    assert!(v.server.chars().count() <= MAX_VIEW_NAME_CHARS);
    assert!(v.title.chars().count() < 200);
    assert!(
        v.line(LineKey::Why).unwrap().text.chars().count() <= crate::elicitation::MAX_MESSAGE_CHARS
    );
}

#[test]
fn a_name_cannot_become_a_link_or_markup_in_a_notification() {
    use airlock_url_safety::notice::notification_name;
    for (server, shown) in [
        (
            "<a href=\"https://evil.example\">click</a>",
            "‹a href=\"https[:]//evil[.]example\"›click‹/a›",
        ),
        ("paypal.com.evil.example", "paypal[.]com[.]evil[.]example"),
        ("mailto:x@evil.example", "mailto[:]x@evil[.]example"),
        ("javascript:alert(1)", "javascript[:]alert(1)"),
        (
            "evil\u{3002}example and 1.2.3.4",
            "evil[.]example and 1[.]2[.]3[.]4",
        ),
        ("www.evil.example", "www[.]evil[.]example"),
        ("Prod: files. Docs v2", "Prod: files. Docs v2"),
    ] {
        assert_eq!(notification_name(server), shown, "{server}");
        let r = request(server, "m", "https://login.evil.example/", Origin::Request);
        let (n, _) = url_notice(&r, NoticeHost::Window);
        assert_eq!(n.summary, format!("{shown} asks you to open evil.example"));
        assert_eq!(n.actions[0].label, "Open evil.example");
    }
    // An app's name: labelled as the app's own, defanged, bounded.
    let mut r = request("github", "m", "https://github.com/", Origin::Request);
    r.app = Some("claude-code".into());
    assert_eq!(
        url_notice(&r, NoticeHost::Window).0.summary,
        "Claude Code → github asks you to open github.com"
    );
    r.app = Some("github asks you to open paypal.com".into());
    let summary = url_notice(&r, NoticeHost::Daemon).0.summary;
    assert_eq!(
        summary,
        "App “github asks you to open paypal[.]com” → github asks you to open github.com"
    );
    r.app = Some("y".repeat(9000));
    assert!(url_notice(&r, NoticeHost::Window).0.summary.chars().count() < 250);
}

#[test]
fn notifications_carry_no_link_markup_message_or_url() {
    for server in [
        HOSTILE_SERVER,
        "paypal.com.evil.example",
        "mailto:x@evil.example",
    ] {
        let mut r = hostile_request(Origin::Request);
        r.server = server.into();
        let notices = [
            url_notice(&r, NoticeHost::Window).0,
            url_notice(&r, NoticeHost::Daemon).0,
            late_notice(&r),
            form_notice(
                &form(server, HOSTILE_MESSAGE, Some(HOSTILE_APP)),
                NoticeHost::Window,
            ),
            form_notice(&form(server, HOSTILE_MESSAGE, None), NoticeHost::Daemon),
            flood_notice(server),
        ];
        for n in &notices {
            for t in notice_texts(n) {
                assert!(!t.contains("://"), "{t}");
                assert!(!t.contains('<') && !t.contains('>'), "{t}");
                assert!(
                    !t.contains("paypal.com") && !t.contains("evil.example"),
                    "{t}"
                );
                assert!(
                    !t.contains("Click") && !t.contains("/path"),
                    "no message, no URL: {t}"
                );
                assert!(
                    !t.contains("known.example") && !t.contains("collect"),
                    "no other domain: {t}"
                );
                assert!(!has_raw_control(&t), "{t:?}");
            }
        }
    }
}

// ----- what the views say -----

#[test]
fn a_page_and_a_sign_in_are_worded_apart_and_name_the_app() {
    let page = ConsentView::url(&request("ex", "m", "https://ok.example/", Origin::Request));
    let sign_in = ConsentView::url(&request("ex", "m", "https://ok.example/", Origin::SignIn));
    assert_eq!(
        page.title,
        "Airlock: ex asks you to open a web page (request 42)"
    );
    assert_eq!(
        sign_in.title,
        "Airlock: ex asks you to sign in (request 42)"
    );
    assert_eq!(
        page.heading_text(),
        "The server “ex” asks you to open a web page"
    );
    assert_eq!(
        (page.kind, sign_in.kind),
        (ViewKind::OpenPage, ViewKind::SignIn)
    );
    assert_eq!(page.question, "Open it in your browser?");
    assert_eq!(sign_in.question, "Open the sign-in page in your browser?");
    assert_eq!(page.note_text(), sign_in.note_text());

    let mut r = request(
        "github",
        "m",
        "https://github.com/login/device",
        Origin::Request,
    );
    r.app = Some("claude-code".into());
    let v = ConsentView::url(&r);
    assert_eq!(
        v.heading_text(),
        "Claude Code → the server “github” asks you to open a web page"
    );
    let app = v.line(LineKey::App).unwrap();
    assert_eq!(
        (app.text.as_str(), app.note.as_deref()),
        ("Claude Code", Some("its tool call asked for this"))
    );
    r.app = Some("one of: cursor, claude-code".into());
    assert_eq!(
        ConsentView::url(&r).heading_text(),
        "One of: Cursor, Claude Code → the server “github” asks you to open a web page"
    );
}

#[test]
fn lines_come_in_reading_order_and_the_domain_apart() {
    let v = ConsentView::url(&request(
        "srv",
        "Connect",
        "https://user@login.example.co.uk:8443/x",
        Origin::Request,
    ));
    let keys: Vec<LineKey> = v.lines.iter().map(|l| l.key).collect();
    assert_eq!(
        keys,
        [
            LineKey::Why,
            LineKey::Url,
            LineKey::Host,
            LineKey::Port,
            LineKey::Seen
        ]
    );
    let labels: Vec<&str> = v.lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(labels, ["Why", "Full URL", "Host", "Port", "Seen"]);
    let domain = v.domain.as_ref().unwrap();
    assert_eq!(
        (domain.label.as_str(), domain.text.as_str()),
        ("Domain", "example.co.uk")
    );
    let codes: Vec<WarningCode> = v.warnings.iter().map(|w| w.code).collect();
    assert_eq!(
        codes,
        [
            WarningCode::Url(Warning::Userinfo),
            WarningCode::Url(Warning::NonDefaultPort)
        ]
    );
    let buttons: Vec<(ViewAction, &str, ButtonRole)> = v
        .buttons
        .iter()
        .map(|b| (b.action, b.label.as_str(), b.role))
        .collect();
    assert_eq!(
        buttons,
        [
            (ViewAction::Decline, "Don't open", ButtonRole::Default),
            (ViewAction::Accept, "Open in browser", ButtonRole::Proceed),
        ]
    );
    assert!(!v.one_click_ok);
    let none = ConsentView::url(&request("s", "m", "https://ok.example/", Origin::Request));
    assert!(none.one_click_ok && !none.warned());
    assert!(none.line(LineKey::Host).is_none(), "the host is the domain");
}

#[test]
fn familiarity_in_words_and_a_look_alike_warned_last() {
    let day = 1_700_000_000_000; // 2023-11-14
    assert_eq!(utc_date(day), "2023-11-14");
    assert_eq!(utc_date(0), "1970-01-01");
    let seen = |times_before, first_seen_ms| {
        let mut r = request("srv", "m", "https://example.com/", Origin::Request);
        r.familiarity = Familiarity {
            times_before,
            first_seen_ms,
            looks_like: None,
        };
        ConsentView::url(&r)
            .line(LineKey::Seen)
            .unwrap()
            .text
            .clone()
    };
    assert_eq!(
        seen(0, None),
        "first time this server sends you to this domain"
    );
    assert_eq!(
        seen(1, Some(day)),
        "this server sent you here once before, on 2023-11-14"
    );
    assert_eq!(
        seen(3, Some(day)),
        "this server sent you here 3 times before, first on 2023-11-14"
    );
    assert_eq!(seen(2, None), "this server sent you here 2 times before");

    let mut r = request("bank", "m", "https://login.paypa1.com/", Origin::SignIn);
    r.code_goes_to = Some("collect.example".into());
    r.familiarity.looks_like = Some(LookAlike {
        domain: "paypal.com".into(),
        resemblance: Resemblance::EditDistance,
    });
    let v = ConsentView::url(&r);
    assert!(!v.one_click_ok);
    let codes: Vec<WarningCode> = v.warnings.iter().map(|w| w.code).collect();
    assert_eq!(
        codes,
        [
            // `paypa1.com` reads as `paypal.com`: it carries the name
            // of a well-known site too.
            WarningCode::Url(Warning::EmbedsWellKnown),
            WarningCode::Consent(ConsentWarning::CodeElsewhere),
            WarningCode::Consent(ConsentWarning::LooksLike)
        ]
    );
    assert_eq!(
        v.warnings[0].sentence,
        "The address carries paypal.com, but the page is on paypa1.com, not on paypal.com. This is how imitations of well-known sites look."
    );
    assert_eq!(v.warnings[0].weight, Weight::Danger);
    assert_eq!(
        v.warnings[2].sentence,
        "This domain looks like paypal.com, which you opened before. It differs by only a letter or two; it may be imitating it. Check it letter by letter."
    );
    assert_eq!(
        v.warnings[1].sentence,
        "After you sign in, the authorization code goes to collect.example, not to the login page's domain."
    );
}

#[test]
fn hosts_and_urls_are_cut_at_their_registrable_domain() {
    let host = "accounts.google.com.secure-login.verify-account.example.co.uk";
    let url = format!("https://{host}/signin?continue=https%3A%2F%2Fmail.google.com");
    let v = ConsentView::url(&request("s", "m", &url, Origin::Request));
    assert_eq!(v.domain.as_ref().unwrap().text, "example.co.uk");
    let h = v.line(LineKey::Host).unwrap().split.clone().unwrap();
    assert_eq!(
        (h.before.as_str(), h.domain.as_str(), h.after.as_str()),
        (
            "accounts.google.com.secure-login.verify-account.",
            "example.co.uk",
            ""
        )
    );
    let u = v.line(LineKey::Url).unwrap().split.clone().unwrap();
    assert_eq!(
        u.before,
        "https://accounts.google.com.secure-login.verify-account."
    );
    assert_eq!(u.domain, "example.co.uk");
    assert_eq!(u.after, "/signin?continue=https%3A%2F%2Fmail.google.com");
    assert_eq!(u.text(), url);

    // A trailing dot, user information, a port.
    let i = inspect(
        "https://user:pw@a.b.example.com.:8443/x",
        &Policy::default(),
    );
    let host = split_host(
        i.display_host.as_deref().unwrap(),
        i.ascii_host.as_deref().unwrap(),
        i.registrable_domain.as_deref().unwrap(),
    )
    .unwrap();
    assert_eq!(
        (
            host.before.as_str(),
            host.domain.as_str(),
            host.after.as_str()
        ),
        ("a.b.", "example.com", ".")
    );
    let u = split_url(
        i.url.as_deref().unwrap(),
        i.ascii_host.as_deref(),
        i.registrable_domain.as_deref(),
    );
    assert_eq!(
        (u.before.as_str(), u.domain.as_str(), u.after.as_str()),
        ("https://user:pw@a.b.", "example.com", ".:8443/x")
    );

    // An IDN shown in Unicode: the host's domain as displayed, the URL in ASCII.
    let v = ConsentView::url(&request(
        "s",
        "m",
        "https://www.münchen.de/karte",
        Origin::Request,
    ));
    let h = v.line(LineKey::Host).unwrap().split.clone().unwrap();
    assert_eq!(
        (h.before.as_str(), h.domain.as_str()),
        ("www.", "münchen.de")
    );
    let u = v.line(LineKey::Url).unwrap().split.clone().unwrap();
    assert_eq!(
        (u.before.as_str(), u.domain.as_str(), u.after.as_str()),
        ("https://www.", "xn--mnchen-3ya.de", "/karte")
    );

    // A confusable IDN stays Punycode, and is warned of.
    let v = ConsentView::url(&request(
        "s",
        "m",
        "https://login.xn--80ak6aa92e.com/",
        Origin::Request,
    ));
    assert_eq!(v.domain.as_ref().unwrap().text, "xn--80ak6aa92e.com");
    assert!(!v.warnings.is_empty());

    // An IP address is its own domain; text that does not match is shown whole.
    let v = ConsentView::url(&request(
        "s",
        "m",
        "https://93.184.216.34/x",
        Origin::Request,
    ));
    assert!(v.line(LineKey::Host).is_none());
    let u = v.line(LineKey::Url).unwrap().split.clone().unwrap();
    assert_eq!(
        (u.before.as_str(), u.domain.as_str()),
        ("https://", "93.184.216.34")
    );
    assert_eq!(split_host("a.example", "b.example", "c.example"), None);
    let u = split_url("https://a.example/", Some("b.example"), Some("b.example"));
    assert_eq!(
        (u.before.as_str(), u.domain.as_str()),
        ("https://a.example/", "")
    );
    assert_eq!(split_url("mailto:x@y", None, None).before, "mailto:x@y");
}

#[test]
fn a_blocked_page_says_why_and_offers_only_close() {
    let v = ConsentView::blocked(
        "hostile",
        "m",
        &inspect("http://evil.example/", &Policy::default()),
    );
    assert_eq!(v.title, "Airlock blocked a web page from hostile");
    assert_eq!(
        v.heading_text(),
        "Airlock blocked a web page that the server “hostile” asked to open"
    );
    assert_eq!(v.domain.as_ref().unwrap().text, "evil.example");
    assert_eq!(
        v.blocked.as_deref(),
        Some(s::block(BlockReason::InsecureScheme))
    );
    let actions: Vec<ViewAction> = v.buttons.iter().map(|b| b.action).collect();
    assert_eq!(actions, [ViewAction::Close]);
    assert!(!v.one_click_ok && v.record_id.is_none());
    let long = inspect(
        &format!("https://ok.example/{}", "a".repeat(100_000)),
        &Policy::default(),
    );
    let v = ConsentView::blocked("h", "m", &long);
    assert_eq!(v.domain.as_ref().unwrap().text, "(no domain)");
    assert_eq!(v.line(LineKey::Url).unwrap().text, "(not a valid URL)");
}

#[test]
fn a_late_page_asks_continue_or_cancel() {
    let mut r = request("<py>", "m", "https://example.com/x", Origin::Request);
    let v = ConsentView::late(&r);
    assert_eq!(v.heading_text(), "Still waiting for example.com");
    assert_eq!(
        v.note_text(),
        "<py> has not heard back yet. Continue if you finished in the browser; Cancel stops the tool call."
    );
    assert_eq!(v.question, "Still waiting for example.com.");
    let actions: Vec<ViewAction> = v.buttons.iter().map(|b| b.action).collect();
    assert_eq!(actions, [ViewAction::Continue, ViewAction::Cancel]);
    let n = late_notice(&r);
    assert_eq!(n.summary, "Still waiting for example.com");
    assert!(
        n.body.starts_with("‹py› has not heard back yet."),
        "{}",
        n.body
    );
    let ids: Vec<(&str, Option<ViewAction>)> =
        n.actions.iter().map(|a| (a.id, a.answer())).collect();
    assert_eq!(
        ids,
        [
            ("continue", Some(ViewAction::Continue)),
            ("cancel", Some(ViewAction::Cancel))
        ]
    );
    r.app = Some("zed".into());
    assert!(late_notice(&r)
        .body
        .starts_with("Zed → ‹py› has not heard back yet"));
    assert_eq!(ConsentView::late(&r).note[0].text, "Zed");
}

#[test]
fn a_form_names_who_asks_and_warns_of_secret_looking_fields() {
    let v = ConsentView::form(&form("<b>srv</b>", "Sign up & go", Some("cursor")));
    assert_eq!(
        v.title,
        "Airlock: <b>srv</b> asks you to fill in a form (request 5)"
    );
    assert_eq!(
        v.heading_text(),
        "Cursor → the server “<b>srv</b>” asks you to fill in a form"
    );
    let keys: Vec<LineKey> = v.lines.iter().map(|l| l.key).collect();
    assert_eq!(keys, [LineKey::App, LineKey::Why, LineKey::Form]);
    assert_eq!(v.warnings.len(), 1);
    assert_eq!(
        v.warnings[0].code,
        WarningCode::Consent(ConsentWarning::SecretField)
    );
    assert!(v.domain.is_none());
    let actions: Vec<ViewAction> = v.buttons.iter().map(|b| b.action).collect();
    assert_eq!(
        actions,
        [ViewAction::Decline, ViewAction::Cancel, ViewAction::Accept]
    );

    let n = form_notice(
        &form("<b>srv</b>", "m", Some("lm-studio")),
        NoticeHost::Window,
    );
    assert_eq!(
        n.summary,
        "LM Studio → ‹b›srv‹/b› asks you to fill in a form"
    );
    assert_eq!(n.body, "Answer in the Airlock window.");
    assert_eq!(
        n.actions.iter().map(|a| a.id).collect::<Vec<_>>(),
        ["review"]
    );
    let d = form_notice(&form("srv", "m", None), NoticeHost::Daemon);
    assert!(d.actions.is_empty() && d.body.contains("Open Airlock"));
}

#[test]
fn one_click_only_for_a_page_with_nothing_to_review_and_a_nameable_domain() {
    let clean = request("s", "m", "https://ok.example/", Origin::Request);
    let (n, one_click) = url_notice(&clean, NoticeHost::Window);
    assert!(one_click);
    assert_eq!(n.summary, "s asks you to open ok.example");
    let ids: Vec<(&str, &str)> = n.actions.iter().map(|a| (a.id, a.label.as_str())).collect();
    assert_eq!(
        ids,
        [("open", "Open ok.example"), ("decline", "Don't open")]
    );
    assert_eq!(
        n.action("open").and_then(|a| a.answer()),
        Some(ViewAction::Accept)
    );
    let (d, _) = url_notice(&clean, NoticeHost::Daemon);
    assert!(
        d.body
            .starts_with("First time this server sends you to this domain. Open shows it"),
        "{}",
        d.body
    );

    for url in [
        "http://127.0.0.1/",
        "https://xn--80ak6aa92e.com/",
        "https://93.184.216.34/",
    ] {
        let r = request("s", "m", url, Origin::Request);
        assert!(!ConsentView::url(&r).one_click_ok, "{url}");
        let (n, one_click) = url_notice(&r, NoticeHost::Window);
        assert!(!one_click, "{url}");
        assert_eq!(
            n.actions.iter().map(|a| a.id).collect::<Vec<_>>(),
            ["review"],
            "{url}"
        );
        let (d, _) = url_notice(&r, NoticeHost::Daemon);
        assert!(d.actions.is_empty(), "{url}");
        assert!(
            d.body.starts_with("Review in Airlock: ") && d.body.contains("declined"),
            "{}",
            d.body
        );
    }

    // A domain a daemon would linkify is not named, and not one-click.
    let www = request("s", "m", "https://www.example/", Origin::Request);
    let (n, one_click) = url_notice(&www, NoticeHost::Window);
    assert!(!one_click);
    assert_eq!(n.summary, "s asks you to open a web page");
    let (d, _) = url_notice(&www, NoticeHost::Daemon);
    assert!(
        d.body.contains("its domain cannot be shown here"),
        "{}",
        d.body
    );

    let sign_in = request("ex", "m", "https://ok.example/", Origin::SignIn);
    assert_eq!(
        url_notice(&sign_in, NoticeHost::Window).0.summary,
        "ex asks you to sign in at ok.example"
    );
}

/// Whatever the warning (a new code included, with no row here), it is
/// shown in its sentence on every surface and turns one-click approval off.
#[test]
fn every_url_warning_is_shown_in_its_sentence_and_turns_one_click_off() {
    for w in Warning::ALL {
        let mut r = request("s", "m", "https://ok.example/", Origin::Request);
        r.inspection.warnings = vec![w];
        r.inspection.verdict = airlock_url_safety::Verdict::Warn;
        let v = ConsentView::url(&r);
        assert!(!v.one_click_ok, "{w}");
        assert!(v.warned(), "{w}");
        assert_eq!(
            v.warnings,
            [ViewWarning::new(
                WarningCode::Url(w),
                s::warning(w).to_owned()
            )]
        );
        let (n, one_click) = url_notice(&r, NoticeHost::Window);
        assert!(!one_click, "{w}");
        assert_eq!(
            n.actions.iter().map(|a| a.id).collect::<Vec<_>>(),
            ["review"],
            "{w}"
        );
        let (d, _) = url_notice(&r, NoticeHost::Daemon);
        assert!(d.actions.is_empty(), "{w}");
        assert!(
            d.body.contains(s::warning(w).trim_end_matches('.')),
            "{w}: {}",
            d.body
        );
    }
}

#[test]
fn a_flood_can_be_paused_from_its_notification() {
    let n = flood_notice("a.b");
    assert_eq!(n.summary, "a[.]b sends too many requests");
    let ids: Vec<(&str, &str)> = n.actions.iter().map(|a| (a.id, a.label.as_str())).collect();
    assert_eq!(ids, [("pause", "Pause a[.]b"), ("review", "Review")]);
}

#[test]
fn the_weight_follows_the_danger_a_local_page_is_one_neutral_line() {
    // A local development server or sign-in callback: one note, no alarm.
    let r = request(
        "dev",
        "m",
        "http://localhost:3000/callback",
        Origin::Request,
    );
    let v = ConsentView::url(&r);
    assert_eq!(
        v.warnings,
        [ViewWarning::new(
            WarningCode::Consent(ConsentWarning::ThisComputer),
            s::THIS_COMPUTER.to_owned()
        )]
    );
    assert_eq!(v.warnings[0].weight, Weight::Note);
    // A private address is not this computer: its warnings stay.
    let r = request("dev", "m", "https://192.168.1.10/", Origin::Request);
    let codes: Vec<&str> = ConsentView::url(&r)
        .warnings
        .iter()
        .map(|w| w.code.code())
        .collect();
    assert_eq!(codes, ["ip_literal", "local_address"]);

    // An imitation and a message naming another site: loud, first, with
    // the domains in the sentences.
    let mut r = request(
        "mail",
        "Your Google session expired. Sign in again at https://accounts.google.com/",
        "https://accounts.google.com.secure-login.example.co.uk:8443/signin",
        Origin::Request,
    );
    r.inspection = airlock_url_safety::inspect_with_text(
        "https://accounts.google.com.secure-login.example.co.uk:8443/signin",
        &r.message,
        &Policy::default(),
    );
    let v = ConsentView::url(&r);
    let shown: Vec<(&str, Weight)> = v
        .warnings
        .iter()
        .map(|w| (w.code.code(), w.weight))
        .collect();
    assert_eq!(
        shown,
        [
            ("embeds_well_known", Weight::Danger),
            ("names_other_site", Weight::Danger),
            ("non_default_port", Weight::Caution)
        ]
    );
    assert!(v.warnings[0]
        .sentence
        .contains("carries google.com, but the page is on example.co.uk"));
    assert!(v.warnings[1]
        .sentence
        .contains("names google.com, but the page is on example.co.uk"));
    assert!(!v.one_click_ok);
}
