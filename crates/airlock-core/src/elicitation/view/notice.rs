//! What a desktop notification says about a request, for the desktop app
//! (which has a window to review in) and the daemon (which has none).
//!
//! A notification daemon may turn text into links or markup, and its
//! reader cannot see who wrote what: so a notice carries the server's and
//! the app's names defanged (`notification_name`: no link, no markup, no
//! dotted host), the registrable domain Airlock computed when no daemon
//! would linkify it, and the words of [`super::sentences`]; never the
//! server's message or a URL. The shells escape the body where the daemon
//! renders markup (`escape_markup`).

use airlock_url_safety::notice::{notification_domain, notification_name};

use super::build::utc_date;
use super::sentences as s;
use super::ViewAction;
use crate::elicitation::ports::{FormConsentRequest, HostConsentRequest, UrlConsentRequest};
use crate::lifecycle::Origin;

/// Who shows the notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeHost {
    /// The desktop app: the window shows whatever a notification cannot.
    Window,
    /// `airlock daemon --consent ask`: no window; what needs one is
    /// declined at once, and the notification says why.
    Daemon,
}

/// What a notification button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeDo {
    /// Answer the request.
    Answer(ViewAction),
    /// Bring the window forward (nothing is answered).
    Review,
    /// Pause the server.
    Pause,
}

/// A notification button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeAction {
    /// The action's id on the notification bus.
    pub id: &'static str,
    pub label: String,
    pub does: NoticeDo,
}

impl NoticeAction {
    fn new(does: NoticeDo, label: impl Into<String>) -> Self {
        let id = match does {
            NoticeDo::Answer(ViewAction::Accept) => "open",
            NoticeDo::Answer(ViewAction::Decline) => "decline",
            NoticeDo::Answer(ViewAction::Cancel) => "cancel",
            NoticeDo::Answer(ViewAction::Continue) => "continue",
            NoticeDo::Answer(ViewAction::Close) => "close",
            NoticeDo::Answer(ViewAction::Always) => "always",
            NoticeDo::Review => "review",
            NoticeDo::Pause => "pause",
        };
        NoticeAction {
            id,
            label: label.into(),
            does,
        }
    }

    /// Review: bring Airlock forward on what the notification is about
    /// (the one action a notice about held tool changes has).
    pub fn review() -> Self {
        Self::new(NoticeDo::Review, s::BUTTON_REVIEW)
    }

    /// The answer this action gives, if it answers.
    pub fn answer(&self) -> Option<ViewAction> {
        match self.does {
            NoticeDo::Answer(a) => Some(a),
            _ => None,
        }
    }
}

/// One notification: plain text (the summary is plain by the
/// specification; the body is escaped by the shell where needed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub summary: String,
    pub body: String,
    pub actions: Vec<NoticeAction>,
}

impl Notice {
    /// The action with this id.
    pub fn action(&self, id: &str) -> Option<&NoticeAction> {
        self.actions.iter().find(|a| a.id == id)
    }
}

/// `Claude Code → github`: the app (if any) and the server, defanged.
fn who(app: Option<&str>, server: &str) -> String {
    format!(
        "{}{}",
        airlock_apps::notice_prefix(app),
        notification_name(server)
    )
}

fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let start: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    let text = format!("{start}{}", chars.as_str());
    if text.ends_with('.') {
        text
    } else {
        format!("{text}.")
    }
}

/// The notification for a URL waiting for consent, and whether it offers
/// one-click approval: only under [`UrlConsentRequest::one_click_ok`] and
/// when a domain can be named.
pub fn url_notice(request: &UrlConsentRequest, host: NoticeHost) -> (Notice, bool) {
    let domain = notification_domain(request.inspection.registrable_domain.as_deref());
    let one_click = request.one_click_ok() && domain.is_some();
    let asks = if request.origin == Origin::SignIn {
        s::NOTICE_SIGN_IN_AT
    } else {
        s::NOTICE_OPEN
    };
    let place = domain
        .clone()
        .unwrap_or_else(|| s::NOTICE_A_WEB_PAGE.into());
    let summary = format!(
        "{} {asks} {place}",
        who(request.app.as_deref(), &request.server)
    );
    let open_decline = || {
        vec![
            NoticeAction::new(
                NoticeDo::Answer(ViewAction::Accept),
                s::notice_open_button(domain.as_deref().unwrap_or_default()),
            ),
            NoticeAction::new(NoticeDo::Answer(ViewAction::Decline), s::BUTTON_DONT_OPEN),
        ]
    };
    let (body, actions) = match (host, one_click) {
        (NoticeHost::Window, true) => (s::NOTICE_ONE_CLICK.to_owned(), open_decline()),
        (NoticeHost::Window, false) => (
            s::NOTICE_REVIEW.to_owned(),
            vec![NoticeAction::new(NoticeDo::Review, s::BUTTON_REVIEW)],
        ),
        (NoticeHost::Daemon, true) => {
            let first = request.familiarity.first_seen_ms.map(utc_date);
            let seen = s::seen(request.familiarity.times_before, first.as_deref());
            (
                format!("{} {}", sentence(&seen), s::NOTICE_DAEMON_ONE_CLICK),
                open_decline(),
            )
        }
        (NoticeHost::Daemon, false) => {
            let mut why: Vec<&str> = request
                .inspection
                .warnings
                .iter()
                .map(|&w| s::warning(w).trim_end_matches('.'))
                .collect();
            if request.familiarity.looks_like.is_some() {
                why.push(s::NOTICE_LOOKS_LIKE);
            }
            if request.code_goes_to.is_some() {
                why.push(s::NOTICE_CODE_ELSEWHERE);
            }
            if domain.is_none() {
                why.push(s::NOTICE_NO_DOMAIN);
            }
            (
                format!(
                    "{} {}. {}",
                    s::NOTICE_DAEMON_REVIEW_IN,
                    why.join("; "),
                    s::NOTICE_DAEMON_DECLINED
                ),
                Vec::new(),
            )
        }
    };
    (
        Notice {
            summary,
            body,
            actions,
        },
        one_click,
    )
}

/// The notification for an accepted page whose completion is late:
/// Continue or Cancel (the same wherever it is shown).
pub fn late_notice(request: &UrlConsentRequest) -> Notice {
    let domain = notification_domain(request.inspection.registrable_domain.as_deref())
        .unwrap_or_else(|| s::THE_WEB_PAGE.into());
    Notice {
        summary: format!("{} {domain}", s::STILL_WAITING_FOR),
        body: format!(
            "{} {}",
            who(request.app.as_deref(), &request.server),
            s::LATE_NOTE
        ),
        actions: vec![
            NoticeAction::new(NoticeDo::Answer(ViewAction::Continue), s::BUTTON_CONTINUE),
            NoticeAction::new(NoticeDo::Answer(ViewAction::Cancel), s::BUTTON_CANCEL),
        ],
    }
}

/// The notification for a form: answered in the window only (a window's
/// notification brings it forward; the daemon's says it was declined).
/// The server's message stays out.
pub fn form_notice(request: &FormConsentRequest, host: NoticeHost) -> Notice {
    let summary = format!(
        "{} {}",
        who(request.app.as_deref(), &request.server),
        s::ASKS_FORM
    );
    match host {
        NoticeHost::Window => Notice {
            summary,
            body: s::NOTICE_FORM_WINDOW.into(),
            actions: vec![NoticeAction::new(NoticeDo::Review, s::BUTTON_REVIEW)],
        },
        NoticeHost::Daemon => Notice {
            summary,
            body: s::NOTICE_FORM_DAEMON.into(),
            actions: Vec::new(),
        },
    }
}

/// The notification for a confined server's connection to a host its room
/// does not list, and whether it may be answered from the notification:
/// only when the host has a nameable domain and no warning (an IP address,
/// Punycode, a look-alike call for the window's review).
pub fn host_notice(request: &HostConsentRequest) -> (Notice, bool) {
    let domain = notification_domain(request.inspection.registrable_domain.as_deref());
    let one_click = request.inspection.warnings.is_empty()
        && request.inspection.block_reason.is_none()
        && domain.is_some();
    let place = domain.clone().unwrap_or_else(|| s::NOTICE_A_HOST.into());
    let summary = format!(
        "{} {} {place} (port {})",
        notification_name(&request.server),
        s::NOTICE_REACH,
        request.port
    );
    if one_click {
        (
            Notice {
                summary,
                body: s::NOTICE_REACH_BODY.into(),
                actions: vec![
                    NoticeAction::new(NoticeDo::Answer(ViewAction::Accept), s::BUTTON_ALLOW_ONCE),
                    NoticeAction::new(NoticeDo::Answer(ViewAction::Always), s::BUTTON_ALWAYS),
                    NoticeAction::new(NoticeDo::Answer(ViewAction::Decline), s::BUTTON_DENY),
                ],
            },
            true,
        )
    } else {
        let why: Vec<&str> = request
            .inspection
            .warnings
            .iter()
            .map(|&w| s::warning(w).trim_end_matches('.'))
            .collect();
        let why = if why.is_empty() {
            s::NOTICE_NO_DOMAIN.to_owned()
        } else {
            why.join("; ")
        };
        (
            Notice {
                summary,
                body: format!(
                    "{} {why}. {}",
                    s::NOTICE_DAEMON_REVIEW_IN,
                    s::NOTICE_REACH_DENIED
                ),
                actions: Vec::new(),
            },
            false,
        )
    }
}

/// The notification for a server that sends more requests than its limits
/// allow: it can be paused from here.
pub fn flood_notice(server: &str) -> Notice {
    let name = notification_name(server);
    Notice {
        summary: format!("{name} {}", s::FLOOD_SENDS),
        body: s::FLOOD_BODY.into(),
        actions: vec![
            NoticeAction::new(NoticeDo::Pause, s::pause_button(&name)),
            NoticeAction::new(NoticeDo::Review, s::BUTTON_REVIEW),
        ],
    }
}
