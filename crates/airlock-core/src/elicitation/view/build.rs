//! Building a [`ConsentView`] from each kind of request, with the words of
//! [`super::sentences`]: every value a server or an app chose is
//! neutralised and bounded here, and kept in a part or a line of its own.

use airlock_url_safety::{neutralize_for_display, Inspection, Warning};

use super::sentences as s;
use super::split::{split_host, split_url, HOST_CHARS};
use super::{
    ButtonRole, ConsentView, ConsentWarning, LineKey, Part, Source, ViewAction, ViewButton,
    ViewKind, ViewLine, ViewWarning, WarningCode,
};
use crate::elicitation::ports::{
    Familiarity, FormConsentRequest, HostConsentRequest, UrlConsentRequest,
};
use crate::elicitation::MAX_MESSAGE_CHARS;
use crate::lifecycle::Origin;

/// Longest server name in a view (titles, headings).
pub const MAX_VIEW_NAME_CHARS: usize = 64;

fn part(text: impl Into<String>, from: Source) -> Part {
    Part {
        text: text.into(),
        from,
    }
}

fn words(text: impl Into<String>) -> Part {
    part(text, Source::Airlock)
}

/// The first letter in upper case (a sentence that starts with a label).
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn server_name(server: &str) -> String {
    neutralize_for_display(server, MAX_VIEW_NAME_CHARS)
}

/// An app's label as a line shows it (`Claude Code`, `app “my tool”`).
fn app_label(app: &str) -> String {
    neutralize_for_display(
        &airlock_apps::caller_label(app),
        airlock_apps::MAX_CALLER_LABEL_CHARS,
    )
}

/// `Claude Code → ` in front of a sentence; nothing for Airlock's own calls.
fn app_prefix(app: Option<&str>) -> Vec<Part> {
    app.map(|c| {
        vec![
            part(
                neutralize_for_display(
                    &airlock_apps::caller_label_capitalised(c),
                    airlock_apps::MAX_CALLER_LABEL_CHARS,
                ),
                Source::App,
            ),
            words(s::APP_ARROW),
        ]
    })
    .unwrap_or_default()
}

/// `[Claude Code → ]the server “github” asks you to …`.
fn who_asks(app: Option<&str>, server: &str, asks: &str) -> Vec<Part> {
    let mut parts = app_prefix(app);
    let the_server = if parts.is_empty() {
        capitalised(s::THE_SERVER)
    } else {
        s::THE_SERVER.to_owned()
    };
    parts.push(words(format!("{the_server} “")));
    parts.push(part(server, Source::Server));
    parts.push(words(format!("” {asks}")));
    parts
}

fn line(key: LineKey, label: &str, text: String, from: Source) -> ViewLine {
    ViewLine {
        key,
        label: label.to_owned(),
        text,
        from,
        split: None,
        note: None,
    }
}

fn app_line(app: Option<&str>) -> Option<ViewLine> {
    app.map(|c| ViewLine {
        note: Some(s::APP_NOTE.to_owned()),
        ..line(LineKey::App, s::LABEL_APP, app_label(c), Source::App)
    })
}

fn why_line(message: &str) -> ViewLine {
    line(
        LineKey::Why,
        s::LABEL_WHY,
        neutralize_for_display(message, MAX_MESSAGE_CHARS),
        Source::Server,
    )
}

fn domain_line(inspection: &Inspection) -> ViewLine {
    let (text, from) = match inspection.registrable_domain.as_deref() {
        Some(d) => (neutralize_for_display(d, HOST_CHARS), Source::Domain),
        None => (s::NO_DOMAIN.to_owned(), Source::Airlock),
    };
    line(LineKey::Domain, s::LABEL_DOMAIN, text, from)
}

/// Full URL, Host (when it is not the registrable domain itself), Port.
fn url_lines(inspection: &Inspection) -> Vec<ViewLine> {
    let mut out = Vec::new();
    let registrable = inspection.registrable_domain.as_deref();
    match inspection.url.as_deref() {
        Some(url) => {
            let split = split_url(url, inspection.ascii_host.as_deref(), registrable);
            out.push(ViewLine {
                split: Some(split.clone()),
                ..line(LineKey::Url, s::LABEL_URL, split.text(), Source::Server)
            });
        }
        None => out.push(line(
            LineKey::Url,
            s::LABEL_URL,
            s::NO_URL.to_owned(),
            Source::Airlock,
        )),
    }
    let host = inspection
        .display_host
        .as_deref()
        .filter(|host| Some(*host) != registrable);
    if let Some(host) = host {
        let split = match (inspection.ascii_host.as_deref(), registrable) {
            (Some(ascii), Some(registrable)) => split_host(host, ascii, registrable),
            _ => None,
        };
        out.push(ViewLine {
            split,
            ..line(
                LineKey::Host,
                s::LABEL_HOST,
                neutralize_for_display(host, HOST_CHARS),
                Source::Server,
            )
        });
    }
    if let Some(port) = inspection.port {
        out.push(line(
            LineKey::Port,
            s::LABEL_PORT,
            port.to_string(),
            Source::Server,
        ));
    }
    out
}

/// The UTC date of `ms` since the epoch, `YYYY-MM-DD` (days since the
/// epoch to a civil date, without a date library).
pub fn utc_date(ms: i64) -> String {
    let days = ms.div_euclid(1000).div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn seen_line(f: &Familiarity) -> ViewLine {
    let first = f.first_seen_ms.map(utc_date);
    line(
        LineKey::Seen,
        s::LABEL_SEEN,
        s::seen(f.times_before, first.as_deref()),
        Source::Airlock,
    )
}

/// The URL's warnings in their sentences, loudest first. A page on this
/// computer that may be opened (a local server, a sign-in callback) gets
/// one neutral line in place of the warnings that only say so (local
/// address, plain http, IP number, port).
fn url_warnings(inspection: &Inspection) -> Vec<ViewWarning> {
    let local = inspection.loopback && inspection.block_reason.is_none();
    let says_local = |w: &Warning| {
        matches!(
            w,
            Warning::LocalAddress
                | Warning::NotHttps
                | Warning::IpLiteral
                | Warning::NonDefaultPort
        )
    };
    let mut out: Vec<ViewWarning> = inspection
        .warnings
        .iter()
        .filter(|w| !(local && says_local(w)))
        .map(|&w| ViewWarning::new(WarningCode::Url(w), s::url_warning(w, inspection)))
        .collect();
    if local {
        out.push(ViewWarning::new(
            WarningCode::Consent(ConsentWarning::ThisComputer),
            s::THIS_COMPUTER.to_owned(),
        ));
    }
    out.sort_by_key(|w| w.weight);
    out
}

fn button(action: ViewAction, label: &str, role: ButtonRole) -> ViewButton {
    ViewButton {
        action,
        label: label.to_owned(),
        role,
    }
}

impl ConsentView {
    /// A URL waiting for consent: a server's page, or a sign-in page.
    pub fn url(request: &UrlConsentRequest) -> ConsentView {
        let sign_in = request.origin == Origin::SignIn;
        let inspection = &request.inspection;
        let server = server_name(&request.server);
        let app = request.app.as_deref();
        let asks = if sign_in {
            s::ASKS_SIGN_IN
        } else {
            s::ASKS_OPEN_PAGE
        };
        let mut lines: Vec<ViewLine> = app_line(app).into_iter().collect();
        lines.push(why_line(&request.message));
        lines.extend(url_lines(inspection));
        lines.push(seen_line(&request.familiarity));
        let mut warnings = url_warnings(inspection);
        if let Some(d) = &request.code_goes_to {
            warnings.push(ViewWarning::new(
                WarningCode::Consent(ConsentWarning::CodeElsewhere),
                s::code_goes_elsewhere(&neutralize_for_display(d, HOST_CHARS)),
            ));
        }
        if let Some(l) = &request.familiarity.looks_like {
            warnings.push(ViewWarning::new(
                WarningCode::Consent(ConsentWarning::LooksLike),
                s::looks_like(
                    &neutralize_for_display(&l.domain, HOST_CHARS),
                    l.resemblance,
                ),
            ));
        }
        ConsentView {
            kind: if sign_in {
                ViewKind::SignIn
            } else {
                ViewKind::OpenPage
            },
            record_id: Some(request.record_id),
            title: format!(
                "{}{server} {asks} {}",
                s::TITLE_PREFIX,
                s::request_number(request.record_id)
            ),
            heading: who_asks(app, &server, asks),
            app: app.map(app_label),
            server,
            domain: Some(domain_line(inspection)),
            lines,
            familiarity: Some(request.familiarity.clone()),
            warnings,
            blocked: inspection.block_reason.map(|b| s::block(b).to_owned()),
            one_click_ok: request.one_click_ok(),
            note: vec![words(s::NOTE_OPEN)],
            question: if sign_in {
                s::QUESTION_SIGN_IN
            } else {
                s::QUESTION_OPEN
            }
            .to_owned(),
            keys: s::KEYS_OPEN.to_owned(),
            // Two answers: "Don't open" is the default, Return and Escape
            // pick it (and closing the window); only a deliberate
            // activation of the other opens the page.
            buttons: vec![
                button(
                    ViewAction::Decline,
                    s::BUTTON_DONT_OPEN,
                    ButtonRole::Default,
                ),
                button(ViewAction::Accept, s::BUTTON_OPEN, ButtonRole::Proceed),
            ],
        }
    }

    /// A confined server's connection to a host its room does not list.
    pub fn host(request: &HostConsentRequest) -> ConsentView {
        let inspection = &request.inspection;
        let server = server_name(&request.server);
        let mut lines = Vec::new();
        let registrable = inspection.registrable_domain.as_deref();
        let shown = inspection
            .display_host
            .clone()
            .unwrap_or_else(|| request.host.clone());
        let split = match (inspection.ascii_host.as_deref(), registrable) {
            (Some(ascii), Some(registrable)) => split_host(&shown, ascii, registrable),
            _ => None,
        };
        lines.push(ViewLine {
            split,
            ..line(
                LineKey::Host,
                s::LABEL_HOST,
                neutralize_for_display(&shown, HOST_CHARS),
                Source::Server,
            )
        });
        lines.push(line(
            LineKey::Port,
            s::LABEL_PORT,
            request.port.to_string(),
            Source::Server,
        ));
        // The page is never opened: a plain-http or odd-port warning says
        // nothing about a connection's host.
        let warnings = url_warnings(inspection)
            .into_iter()
            .filter(|w| {
                !matches!(
                    w.code,
                    WarningCode::Url(
                        airlock_url_safety::Warning::NotHttps
                            | airlock_url_safety::Warning::NonDefaultPort
                    )
                )
            })
            .collect();
        ConsentView {
            kind: ViewKind::ReachHost,
            record_id: None,
            title: format!(
                "{}{server} wants to reach {}:{}",
                s::TITLE_PREFIX,
                neutralize_for_display(&request.host, HOST_CHARS),
                request.port
            ),
            heading: who_asks(None, &server, s::ASKS_REACH_HOST),
            app: None,
            server,
            domain: Some(domain_line(inspection)),
            lines,
            familiarity: None,
            warnings,
            blocked: None,
            one_click_ok: false,
            note: vec![words(s::NOTE_REACH_HOST)],
            question: s::QUESTION_REACH_HOST.to_owned(),
            keys: s::KEYS_REACH_HOST.to_owned(),
            buttons: vec![
                button(ViewAction::Decline, s::BUTTON_DENY, ButtonRole::Default),
                button(
                    ViewAction::Accept,
                    s::BUTTON_ALLOW_ONCE,
                    ButtonRole::Proceed,
                ),
                button(ViewAction::Always, s::BUTTON_ALWAYS, ButtonRole::Proceed),
            ],
        }
    }

    /// A page that was blocked before any consent: told, never opened.
    pub fn blocked(server: &str, message: &str, inspection: &Inspection) -> ConsentView {
        let server = server_name(server);
        let mut lines = vec![why_line(message)];
        lines.extend(url_lines(inspection));
        ConsentView {
            kind: ViewKind::Blocked,
            record_id: None,
            title: format!("{} {server}", s::BLOCKED_TITLE),
            heading: vec![
                words(format!("{} {} “", s::BLOCKED_HEADING, s::THE_SERVER)),
                part(server.clone(), Source::Server),
                words(format!("” {}", s::BLOCKED_ASKED)),
            ],
            server,
            app: None,
            domain: Some(domain_line(inspection)),
            lines,
            familiarity: None,
            warnings: url_warnings(inspection),
            blocked: Some(
                inspection
                    .block_reason
                    .map_or(
                        s::block(airlock_url_safety::BlockReason::Unparseable),
                        s::block,
                    )
                    .to_owned(),
            ),
            one_click_ok: false,
            note: Vec::new(),
            question: String::new(),
            keys: String::new(),
            buttons: vec![button(
                ViewAction::Close,
                s::BUTTON_CLOSE,
                ButtonRole::Default,
            )],
        }
    }

    /// An opened page whose completion is late (or that has no completion
    /// signal): Continue once done in the browser, or Cancel.
    pub fn late(request: &UrlConsentRequest) -> ConsentView {
        let inspection = &request.inspection;
        let server = server_name(&request.server);
        let app = request.app.as_deref();
        let domain = domain_line(inspection);
        let place = match domain.from {
            Source::Domain => part(domain.text.clone(), Source::Domain),
            _ => words(s::THE_WEB_PAGE),
        };
        let heading = vec![words(format!("{} ", s::STILL_WAITING_FOR)), place];
        let mut note = app_prefix(app);
        note.push(part(server.clone(), Source::Server));
        note.push(words(format!(" {}", s::LATE_NOTE)));
        let heading_text: String = heading.iter().map(|p| p.text.as_str()).collect();
        let mut lines: Vec<ViewLine> = app_line(app).into_iter().collect();
        lines.push(why_line(&request.message));
        ConsentView {
            kind: ViewKind::Late,
            record_id: Some(request.record_id),
            title: format!(
                "{}{heading_text} {}",
                s::TITLE_PREFIX,
                s::request_number(request.record_id)
            ),
            question: format!("{heading_text}."),
            heading,
            server,
            app: app.map(app_label),
            domain: Some(domain),
            lines,
            familiarity: None,
            warnings: Vec::new(),
            blocked: None,
            one_click_ok: false,
            note,
            keys: s::KEYS_LATE.to_owned(),
            buttons: vec![
                button(
                    ViewAction::Continue,
                    s::BUTTON_CONTINUE,
                    ButtonRole::Default,
                ),
                button(ViewAction::Cancel, s::BUTTON_CANCEL, ButtonRole::Other),
            ],
        }
    }

    /// A form to fill in. The fields themselves are the form's
    /// (`FormSchema`); the view says who asks, why, and what the answers do.
    pub fn form(request: &FormConsentRequest) -> ConsentView {
        let server = server_name(&request.server);
        let app = request.app.as_deref();
        let schema = &request.schema;
        let mut lines: Vec<ViewLine> = app_line(app).into_iter().collect();
        lines.push(why_line(&request.message));
        for text in [&schema.title, &schema.description].into_iter().flatten() {
            lines.push(line(
                LineKey::Form,
                s::LABEL_FORM,
                neutralize_for_display(text, MAX_MESSAGE_CHARS),
                Source::Server,
            ));
        }
        let warnings = if schema.secret_looking().next().is_some() {
            vec![ViewWarning::new(
                WarningCode::Consent(ConsentWarning::SecretField),
                s::SECRET_FIELD.to_owned(),
            )]
        } else {
            Vec::new()
        };
        ConsentView {
            kind: ViewKind::Form,
            record_id: Some(request.record_id),
            title: format!(
                "{}{server} {} {}",
                s::TITLE_PREFIX,
                s::ASKS_FORM,
                s::request_number(request.record_id)
            ),
            heading: who_asks(app, &server, s::ASKS_FORM),
            server,
            app: app.map(app_label),
            domain: None,
            lines,
            familiarity: None,
            warnings,
            blocked: None,
            one_click_ok: false,
            note: vec![words(s::NOTE_FORM)],
            question: s::QUESTION_FORM.to_owned(),
            keys: s::KEYS_FORM.to_owned(),
            buttons: vec![
                button(ViewAction::Decline, s::BUTTON_DECLINE, ButtonRole::Default),
                button(ViewAction::Cancel, s::BUTTON_CANCEL, ButtonRole::Other),
                button(ViewAction::Accept, s::BUTTON_ACCEPT, ButtonRole::Proceed),
            ],
        }
    }
}
