//! What a consent says, once, for every surface: [`ConsentView`] is made
//! from a request (a URL, a sign-in, a late page, a form, a blocked page)
//! and holds every word shown about it: the title, who asks and for which
//! app, the registrable domain, the labelled lines, the warnings as
//! sentences, the familiarity, whether one click may approve it, the
//! buttons. The terminal, the native dialog, the window's inbox and the
//! notifications ([`notice`]) only lay it out; the words come from one
//! table ([`sentences`]).
//!
//! Whose words are whose stays visible: a server chose its name, its
//! message and its URL, an app chose its own name. Those come as labelled
//! values ([`ViewLine`]) or as parts of a heading marked with their
//! [`Source`], neutralised (no control, bidi or invisible character) and
//! bounded, never spliced into Airlock's sentences as if Airlock said them.

mod build;
pub mod notice;
pub mod sentences;
mod split;

pub use airlock_url_safety::Weight;
use airlock_url_safety::{Warning, MAX_URL_LEN};
use serde::Serialize;

use super::ports::Familiarity;

pub use build::{utc_date, MAX_VIEW_NAME_CHARS};
pub use split::{split_host, split_url};

/// Longest URL in a view: the longest URL inspected at all, percent-encoded
/// (a byte becomes `%XX`).
pub const MAX_VIEW_URL_CHARS: usize = 3 * MAX_URL_LEN;

/// What the view is about; it decides the heading, the buttons and the
/// question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    /// A server asks to open a web page (URL elicitation).
    OpenPage,
    /// Airlock's own sign-in page for a server (MCP authorization).
    SignIn,
    /// An opened page whose completion is late: Continue or Cancel.
    Late,
    /// A form to fill in.
    Form,
    /// A page that is never opened; Close only.
    Blocked,
    /// A confined server's connection to a host its room does not list:
    /// Deny, Allow once, Always.
    ReachHost,
}

/// Whose words a piece of text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Airlock's own words (the sentence table).
    Airlock,
    /// Chosen by the server: its name, its message, the URL it sent.
    Server,
    /// Chosen by an app: its own name (a known app's name is Airlock's
    /// word for it, still shown as the app's).
    App,
    /// The registrable domain Airlock computed from the server's URL.
    Domain,
}

/// A run of text in a heading or a note, with whose words it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Part {
    pub text: String,
    pub from: Source,
}

/// Which line a [`ViewLine`] is, so a surface can place it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum LineKey {
    App,
    Why,
    Url,
    Host,
    Port,
    Seen,
    Domain,
    /// A form's own title (and description, as another line of this key).
    Form,
}

/// A text cut around its registrable domain, so a surface can emphasise
/// that part without reading any of it as markup: `before + domain +
/// after` is the whole text. `domain` is empty when it cannot be located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Split {
    pub before: String,
    pub domain: String,
    pub after: String,
}

impl Split {
    pub fn plain(text: String) -> Self {
        Split {
            before: text,
            domain: String::new(),
            after: String::new(),
        }
    }

    /// The whole text.
    pub fn text(&self) -> String {
        format!("{}{}{}", self.before, self.domain, self.after)
    }
}

/// One labelled line: `Why: <the server's message>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ViewLine {
    pub key: LineKey,
    /// Airlock's word for it (`Why`, `Full URL`).
    pub label: String,
    /// The value, neutralised and bounded; whose it is says `from`.
    pub text: String,
    pub from: Source,
    /// The host and the URL, cut around the registrable domain.
    pub split: Option<Split>,
    /// Airlock's words after the value (`its tool call asked for this`).
    pub note: Option<String>,
}

/// Warnings that are not about the URL itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ConsentWarning {
    /// A first-time domain looks like one the user opened before.
    LooksLike,
    /// A sign-in's authorization code goes to another domain.
    CodeElsewhere,
    /// A form field looks like it asks for a secret.
    SecretField,
    /// The page is on this computer: one neutral line in place of the
    /// local-address, plain-http, IP and port warnings.
    ThisComputer,
}

impl ConsentWarning {
    /// Stable snake_case code, identical to the serde form.
    pub fn code(self) -> &'static str {
        match self {
            Self::LooksLike => "looks_like",
            Self::CodeElsewhere => "code_elsewhere",
            Self::SecretField => "secret_field",
            Self::ThisComputer => "this_computer",
        }
    }

    /// How loud it is shown.
    pub fn weight(self) -> Weight {
        match self {
            Self::LooksLike | Self::CodeElsewhere => Weight::Danger,
            Self::SecretField => Weight::Caution,
            Self::ThisComputer => Weight::Note,
        }
    }
}

/// A warning's code: one of the URL's (airlock-url-safety) or one of the
/// consent's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum WarningCode {
    Url(Warning),
    Consent(ConsentWarning),
}

impl WarningCode {
    /// Stable snake_case code, identical to the serde form.
    pub fn code(self) -> &'static str {
        match self {
            Self::Url(w) => w.code(),
            Self::Consent(c) => c.code(),
        }
    }

    /// How loud it is shown.
    pub fn weight(self) -> Weight {
        match self {
            Self::Url(w) => w.weight(),
            Self::Consent(c) => c.weight(),
        }
    }
}

/// A warning, in its sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ViewWarning {
    pub code: WarningCode,
    pub sentence: String,
    /// How loud a surface shows it: a sign of imitation is a danger, a
    /// page on this computer a neutral note.
    pub weight: Weight,
}

impl ViewWarning {
    pub fn new(code: WarningCode, sentence: String) -> Self {
        ViewWarning {
            code,
            sentence,
            weight: code.weight(),
        }
    }
}

/// What a button answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ViewAction {
    /// Open the page / send the form.
    Accept,
    Decline,
    Cancel,
    /// Done in the browser (a late page).
    Continue,
    /// Dismiss a notice (a blocked page).
    Close,
    /// Allow for good (a host, kept in the server's room).
    Always,
}

impl ViewAction {
    /// The answer's word, as the window sends it back.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
            Self::Continue => "continue",
            Self::Close => "close",
            Self::Always => "always",
        }
    }
}

/// How a button behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ButtonRole {
    /// The safe answer: focused, Return picks it.
    Default,
    Other,
    /// Opens or sends: never the default; shown as a danger when the view
    /// has warnings.
    Proceed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ViewButton {
    pub action: ViewAction,
    pub label: String,
    pub role: ButtonRole,
}

/// Everything a surface shows about one request (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConsentView {
    pub kind: ViewKind,
    /// The record it is about (`None`: a blocked page, told only).
    pub record_id: Option<i64>,
    /// The window title: unique per request, so a dialog can be found and
    /// withdrawn by it.
    pub title: String,
    /// Who asks for what, in parts: `Claude Code → the server “github”
    /// asks you to open a web page`.
    pub heading: Vec<Part>,
    /// The server's name, neutralised and bounded.
    pub server: String,
    /// The app whose call asked (its label, see `airlock_apps::caller_label`);
    /// `None` for Airlock's own calls.
    pub app: Option<String>,
    /// The registrable domain (`(no domain)` when a page has none); `None`
    /// for a form.
    pub domain: Option<ViewLine>,
    /// In reading order: App, Why, Full URL, Host, Port, Seen (URL pages);
    /// App, Why, Form (forms); Why (late pages).
    pub lines: Vec<ViewLine>,
    /// What the user's history says of the domain (URL pages).
    pub familiarity: Option<Familiarity>,
    /// Warnings, each in its sentence: the URL's, then the sign-in code's,
    /// then a look-alike (closest to the domain in a list read downwards).
    pub warnings: Vec<ViewWarning>,
    /// Why it is never opened (a blocked page).
    pub blocked: Option<String>,
    /// One click may approve it (a notification's "Open"): nothing about
    /// it calls for a closer look.
    pub one_click_ok: bool,
    /// Below the lines: what the answer does, or who waits.
    pub note: Vec<Part>,
    /// The question, for a surface that asks it in words (the terminal).
    pub question: String,
    /// The terminal's keys for that question.
    pub keys: String,
    /// In the order a dialog lays them out.
    pub buttons: Vec<ViewButton>,
}

impl ConsentView {
    /// The heading as one line of plain text.
    pub fn heading_text(&self) -> String {
        self.heading.iter().map(|p| p.text.as_str()).collect()
    }

    /// The note as one line of plain text.
    pub fn note_text(&self) -> String {
        self.note.iter().map(|p| p.text.as_str()).collect()
    }

    /// The line of this key, if the view has one.
    pub fn line(&self, key: LineKey) -> Option<&ViewLine> {
        self.lines.iter().find(|l| l.key == key)
    }

    /// Anything calls for a closer look: a warning or a block.
    /// A neutral note (a page on this computer) is not a warning here.
    pub fn warned(&self) -> bool {
        self.warnings.iter().any(|w| w.weight != Weight::Note) || self.blocked.is_some()
    }

    /// The loudest of its warnings, if any.
    pub fn loudest(&self) -> Option<Weight> {
        self.warnings.iter().map(|w| w.weight).min()
    }
}

#[cfg(test)]
mod tests;
