//! Every fixed word of consent, once: what each URL warning and block
//! reason means, how a look-alike resembles a domain opened before, the
//! headings, labels, buttons and questions, and what notifications say.
//! The view ([`super::ConsentView`]) and the notices ([`super::notice`]) are
//! built from these; no surface (terminal, native dialog, notifications,
//! the window) writes a sentence of its own. The window gets the warning
//! sentences generated from here too (`consentSentences.ts`).
//!
//! A sentence with a blank is a function: its value (a server's or app's
//! name, a domain) comes in already neutralised and bounded by the caller
//! (`super::build`), and a test puts hostile text through every one.

use airlock_url_safety::{BlockReason, Inspection, Resemblance, Warning};

/// What a URL warning means, for a person: one row per warning code of
/// airlock-url-safety (the match is exhaustive: a new code does not compile
/// without its row).
pub fn warning(w: Warning) -> &'static str {
    match w {
        Warning::NotHttps => {
            "The connection is not encrypted (http, not https): others on the network can read or change it."
        }
        Warning::Punycode => {
            "The address contains international characters that could imitate another name, so it is shown in its encoded (xn--) form."
        }
        Warning::IpLiteral => {
            "The address is a raw IP number, not a domain name, so you cannot tell who runs it."
        }
        Warning::LocalAddress => {
            "The address points to this computer or to a private or local network, not to the public Internet."
        }
        Warning::Userinfo => {
            "The address has text before an @ sign; everything before the @ is not the site you will visit."
        }
        Warning::NonDefaultPort => {
            "The address uses an unusual port number, which ordinary websites rarely do."
        }
        Warning::HiddenCharacters => {
            "The link as sent contains invisible, text-direction or control characters that can disguise what it says."
        }
        Warning::LinkShortener => {
            "The address is a link shortener: it sends you on to another address, which Airlock cannot show you and which may be anywhere."
        }
        Warning::EmbedsWellKnown => {
            "The address carries the name of a well-known site, but the page belongs to a different domain."
        }
        Warning::NamesOtherSite => {
            "The server's message names a different site from the one the page is on."
        }
    }
}

/// A URL warning as a consent shows it: [`warning`], with the domains it is
/// about where the inspection names them. The domains come from
/// airlock-url-safety (ASCII or display form, at most 253 bytes), already
/// checked to be host names.
pub fn url_warning(w: Warning, inspection: &Inspection) -> String {
    let page = inspection
        .registrable_domain
        .as_deref()
        .unwrap_or(THE_WEB_PAGE);
    match (w, &inspection.embedded_domain, &inspection.named_domain) {
        (Warning::EmbedsWellKnown, Some(known), _) => format!(
            "The address carries {known}, but the page is on {page}, not on {known}. This is how imitations of well-known sites look."
        ),
        (Warning::NamesOtherSite, _, Some(named)) => format!(
            "The server's message names {named}, but the page is on {page}. Do not sign in there expecting {named}."
        ),
        _ => warning(w).to_owned(),
    }
}

/// In place of the local-address, plain-http, IP and port warnings of a
/// page on this computer: one neutral line.
pub const THIS_COMPUTER: &str =
    "The page is on this computer (a local server or a sign-in callback), not on the Internet.";

/// Why a URL is never opened.
pub fn block(reason: BlockReason) -> &'static str {
    match reason {
        BlockReason::SchemeNotAllowed => {
            "Only web addresses (https, or http to this computer) can be opened; this link is of another kind."
        }
        BlockReason::InsecureScheme => {
            "The link uses unencrypted http to a site other than this computer; only https is allowed there."
        }
        BlockReason::Unparseable => "The text is not a valid web address.",
        BlockReason::TooLong => "The address is too long to be shown and checked safely.",
    }
}

/// How a first-time domain resembles one the user opened before (named
/// next to it by [`looks_like`]).
pub fn resemblance(r: Resemblance) -> &'static str {
    match r {
        Resemblance::SameSkeleton => {
            "It looks the same, but it is a different domain: some of its characters only look alike."
        }
        Resemblance::OtherSuffix => {
            "It has the same name but ends differently, so it can belong to someone else."
        }
        Resemblance::EditDistance => {
            "It differs by only a letter or two; it may be imitating it."
        }
        Resemblance::Embedded => {
            "The address contains that name, but it belongs to a different domain."
        }
    }
}

/// The look-alike warning. `known` is the domain opened before.
pub fn looks_like(known: &str, r: Resemblance) -> String {
    format!(
        "This domain looks like {known}, which you opened before. {} Check it letter by letter.",
        resemblance(r)
    )
}

/// The warning of a sign-in whose authorization code goes to `domain`.
pub fn code_goes_elsewhere(domain: &str) -> String {
    format!(
        "After you sign in, the authorization code goes to {domain}, not to the login page's domain."
    )
}

/// Shown by every form field that looks like it asks for a secret.
pub const SECRET_FIELD: &str =
    "This field looks like it asks for a secret: servers must use URL mode for secrets; Airlock does not protect what you type here.";

// ----- who asks for what -----

/// Before a server's name: `the server “github”`.
pub const THE_SERVER: &str = "the server";
pub const ASKS_OPEN_PAGE: &str = "asks you to open a web page";
pub const ASKS_SIGN_IN: &str = "asks you to sign in";
pub const ASKS_FORM: &str = "asks you to fill in a form";
/// A confined server's connection to a host its room does not list.
pub const ASKS_REACH_HOST: &str = "wants to connect to a host its room does not list";
/// Between the app's label and the server: `Claude Code → the server …`.
pub const APP_ARROW: &str = " → ";
/// Every window title starts with it.
pub const TITLE_PREFIX: &str = "Airlock: ";
/// The window title of the notice that a page was blocked.
pub const BLOCKED_TITLE: &str = "Airlock blocked a web page from";
/// `Airlock blocked a web page that the server “x” asked to open`.
pub const BLOCKED_HEADING: &str = "Airlock blocked a web page that";
pub const BLOCKED_ASKED: &str = "asked to open";

/// `(request 42)`, after a window title: unique per request.
pub fn request_number(record_id: i64) -> String {
    format!("(request {record_id})")
}

/// The heading of a late page: `Still waiting for example.com`.
pub const STILL_WAITING_FOR: &str = "Still waiting for";
/// In place of a domain that cannot be named.
pub const THE_WEB_PAGE: &str = "the web page";
/// After the server's name on a late page.
pub const LATE_NOTE: &str =
    "has not heard back yet. Continue if you finished in the browser; Cancel stops the tool call.";

// ----- labels of the lines -----

pub const LABEL_DOMAIN: &str = "Domain";
pub const LABEL_HOST: &str = "Host";
pub const LABEL_URL: &str = "Full URL";
pub const LABEL_PORT: &str = "Port";
pub const LABEL_WHY: &str = "Why";
pub const LABEL_SEEN: &str = "Seen";
pub const LABEL_APP: &str = "App";
pub const LABEL_FORM: &str = "Form";
pub const LABEL_WARNING: &str = "Warning";
/// A warning of the danger weight in the terminal.
pub const LABEL_DANGER: &str = "DANGER";
/// A neutral note in the terminal.
pub const LABEL_NOTE: &str = "Note";
pub const LABEL_BLOCKED: &str = "Blocked";
/// After the app's label on its line.
pub const APP_NOTE: &str = "its tool call asked for this";
/// In place of a registrable domain there is none of.
pub const NO_DOMAIN: &str = "(no domain)";
/// In place of a URL that could not be parsed.
pub const NO_URL: &str = "(not a valid URL)";

// ----- what the user's history says (the `Seen` line) -----

/// `times` before from this server, the first on `first_date` (UTC,
/// `YYYY-MM-DD`) when known.
pub fn seen(times: u32, first_date: Option<&str>) -> String {
    match (times, first_date) {
        (0, _) => "first time this server sends you to this domain".into(),
        (1, Some(d)) => format!("this server sent you here once before, on {d}"),
        (1, None) => "this server sent you here once before".into(),
        (n, Some(d)) => format!("this server sent you here {n} times before, first on {d}"),
        (n, None) => format!("this server sent you here {n} times before"),
    }
}

// ----- below the lines, and the answers -----

pub const NOTE_OPEN: &str =
    "Open in browser opens this page in your system browser; Airlock does not see what you do there.";
pub const NOTE_FORM: &str =
    "Nothing is sent until you press Accept. Decline tells the server no; Cancel dismisses the request without an answer.";

pub const QUESTION_OPEN: &str = "Open it in your browser?";
pub const QUESTION_SIGN_IN: &str = "Open the sign-in page in your browser?";
pub const QUESTION_FORM: &str = "Send it?";
pub const QUESTION_REACH_HOST: &str = "Let it connect?";
pub const NOTE_REACH_HOST: &str =
    "The server runs in its own room: its connection waits in Airlock until you answer. Allow once lasts until the server restarts; Always keeps the host in its room.";

pub const BUTTON_OPEN: &str = "Open in browser";
pub const BUTTON_DECLINE: &str = "Decline";
/// The safe answer to a web page: the default, and Return and Escape.
pub const BUTTON_DONT_OPEN: &str = "Don't open";
pub const BUTTON_CANCEL: &str = "Cancel";
pub const BUTTON_CLOSE: &str = "Close";
pub const BUTTON_CONTINUE: &str = "Continue";
pub const BUTTON_ACCEPT: &str = "Accept";
pub const BUTTON_REVIEW: &str = "Review";
pub const BUTTON_DENY: &str = "Deny";
pub const BUTTON_ALLOW_ONCE: &str = "Allow once";
pub const BUTTON_ALWAYS: &str = "Always for this server";

/// The terminal's keys for each question (the CLI reads these letters).
pub const KEYS_OPEN: &str = "[y]es, open it / [N]o, don't open";
pub const KEYS_LATE: &str = "Press Enter when you are done, or type c to cancel";
pub const KEYS_FORM: &str = "[a]ccept / [D]ecline / [c]ancel";
pub const KEYS_REACH_HOST: &str = "[o]nce / [a]lways / [N]o";
/// The terminal's keys for each field of a form.
pub const KEYS_FORM_FIELDS: &str =
    "Enter takes a field's default; - leaves an optional field empty.";
/// Before the answers, at the end of a form on the terminal: `You are
/// about to send to github:`.
pub const FORM_ABOUT_TO_SEND: &str = "You are about to send to";
pub const FORM_NO_VALUES: &str = "(no values)";
pub const FORM_END_OF_INPUT: &str = "(end of input: the form is cancelled)";
pub const FORM_DOES_NOT_FIT: &str = "The answers do not fit the form: declined.";

// ----- notifications (names defanged, no URL, no server message) -----

/// `fetch wants to reach github.com (port 443)`.
pub const NOTICE_REACH: &str = "wants to reach";
/// In place of a domain a host has none of (an IP address).
pub const NOTICE_A_HOST: &str = "a host";
pub const NOTICE_REACH_BODY: &str =
    "Its room does not list this host; the connection waits for your answer. Always keeps it in the server's room.";
pub const NOTICE_REACH_DENIED: &str =
    "Denied for now: allow it with `airlock servers sandbox SERVER allow-host HOST:PORT` if you trust it.";
/// `… asks you to open example.com`.
pub const NOTICE_OPEN: &str = "asks you to open";
/// `… asks you to sign in at example.com`.
pub const NOTICE_SIGN_IN_AT: &str = "asks you to sign in at";
/// In place of a domain a notification may not name.
pub const NOTICE_A_WEB_PAGE: &str = "a web page";

/// `Open example.com`: one-click approval.
pub fn notice_open_button(domain: &str) -> String {
    format!("Open {domain}")
}

/// The body of a one-click notification, where a window can show the rest.
pub const NOTICE_ONE_CLICK: &str =
    "The full address is in Airlock. Nothing opens unless you choose to.";
/// The body of a notification that needs the window.
pub const NOTICE_REVIEW: &str =
    "Review the full address and its warnings in Airlock. Nothing opens unless you choose to.";
/// The daemon's one-click body, after the `Seen` words.
pub const NOTICE_DAEMON_ONE_CLICK: &str =
    "Open shows it in your browser; Airlock does not see what you do there. No answer declines.";
/// The daemon's body when a page needs the window, after its reasons.
pub const NOTICE_DAEMON_DECLINED: &str =
    "The Airlock daemon has no window to show the whole address, so this was declined; open the Airlock app to review such a page.";
/// Before the reasons: `Review in Airlock: <reasons>.`
pub const NOTICE_DAEMON_REVIEW_IN: &str = "Review in Airlock:";
/// Reasons a notification may give without naming another domain.
pub const NOTICE_LOOKS_LIKE: &str = "the domain looks like one you opened before";
pub const NOTICE_CODE_ELSEWHERE: &str = "the sign-in code goes to another domain";
pub const NOTICE_NO_DOMAIN: &str = "its domain cannot be shown here";
/// A form, from a window's notification.
pub const NOTICE_FORM_WINDOW: &str = "Answer in the Airlock window.";
/// A form, from the daemon's notification.
pub const NOTICE_FORM_DAEMON: &str =
    "Declined: a form cannot be filled in from a notification. Open Airlock to fill in forms.";

/// A server over its limits: `x sends too many requests`.
pub const FLOOD_SENDS: &str = "sends too many requests";
pub const FLOOD_BODY: &str =
    "Airlock refused the ones over its limits (they are in History). Pause the server to stop it asking.";
/// `Pause x`.
pub fn pause_button(server: &str) -> String {
    format!("Pause {server}")
}
