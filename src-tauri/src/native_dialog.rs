//! Airlock's own native dialog about one web page: the consent dialog
//! (Decline, Open in browser, Cancel) and the notice that a page was
//! blocked (Close). It lays out the core's view (`ConsentView`, bounded for
//! a dialog by `presenter::for_dialog`) and adds no word of its own.
//!
//! On Linux it is a GTK dialog built here, so the registrable domain can be
//! shown large and bold at the top and emphasised inside the host and the
//! full URL (Pango attributes on plain text: nothing the server sent is
//! ever parsed as markup). On Windows it is a TaskDialog with the domain as
//! its main instruction (`task_dialog`); on macOS an NSAlert whose
//! accessory view shows the domain large and bold (`ns_alert`,
//! compile-checked only).
//!
//! Either way the dialog is a separate top-level window titled with the
//! view's title, built without blocking the main thread, and its answer
//! comes back through a channel. "Don't open" is the default: Return,
//! Escape and closing the window pick it; only a deliberate activation of
//! "Open in browser" gives Open. A consent dialog that is still up when its
//! request is answered elsewhere is found by its title and withdrawn
//! (`consent::Surfaces::close`): it answers Cancel, which nobody waits for.
//!
//! Every dialog shows Airlock's own icon and the person's mark (chosen at
//! the first start, see `settings::Settings::consent_mark`): another
//! program can draw a dialog that looks like this one, but it cannot know
//! the mark (a confined server cannot read Airlock's files).

use std::sync::RwLock;

use airlock_core::elicitation::view::{ButtonRole, ConsentView, ViewAction, ViewKind};
use tauri::AppHandle;
use tokio::sync::oneshot;

/// The person's mark, shown on every dialog.
static MARK: RwLock<String> = RwLock::new(String::new());

/// Set the mark every dialog shows from now on.
pub fn set_mark(mark: &str) {
    if let Ok(mut m) = MARK.write() {
        mark.clone_into(&mut m);
    }
}

/// The mark as a dialog shows it (empty when none is set).
fn mark() -> String {
    MARK.read().map(|m| m.clone()).unwrap_or_default()
}

/// What Escape or closing the window answers: the view's default (the safe
/// answer), or Cancel when it has none.
fn escape_action(view: &ConsentView) -> ViewAction {
    view.buttons
        .iter()
        .find(|b| b.role == ButtonRole::Default)
        .map_or(ViewAction::Cancel, |b| b.action)
}

/// What the person chose in a consent dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Decline,
    Open,
    /// Cancel, Escape, the window closed, or the dialog withdrawn.
    Cancel,
    /// Allow for good (a host kept in a server's room).
    Always,
}

/// Show the dialog of `view` (a consent, or a blocked page); the receiver
/// gets the choice once it is made (a blocked page always answers
/// `Cancel`). If the dialog cannot be shown, the sender is dropped: treat
/// that as `Cancel`.
pub fn show(app: &AppHandle, view: ConsentView) -> oneshot::Receiver<Choice> {
    let (tx, rx) = oneshot::channel();
    imp::show(app, view, tx);
    rx
}

/// Withdraw the dialog titled `title`, if one is up (its request was
/// answered elsewhere or ended): it answers Cancel, which nobody waits for.
pub fn withdraw(app: &AppHandle, title: String) {
    imp::withdraw(app, title)
}

/// What a button's answer means to the dialog's caller.
fn choice(action: ViewAction) -> Choice {
    match action {
        ViewAction::Accept => Choice::Open,
        ViewAction::Decline => Choice::Decline,
        ViewAction::Always => Choice::Always,
        _ => Choice::Cancel,
    }
}

fn is_blocked(view: &ConsentView) -> bool {
    view.kind == ViewKind::Blocked
}

#[cfg(target_os = "linux")]
mod imp {
    use std::cell::RefCell;

    use gtk::prelude::*;
    use tauri::AppHandle;
    use tokio::sync::oneshot;

    use airlock_core::elicitation::view::{
        ButtonRole, ConsentView, LineKey, Split, ViewAction, ViewLine, Weight,
    };

    use super::{choice, escape_action, is_blocked, mark, Choice};

    /// Airlock's own icon, at the head of every dialog.
    const ICON_PNG: &[u8] = include_bytes!("../../icons/64x64.png");
    /// The response a withdrawn dialog gets (not Escape's `DeleteEvent`).
    const WITHDRAWN: gtk::ResponseType = gtk::ResponseType::Other(7001);

    /// Widest a text line of the dialog gets, in characters; longer text wraps.
    const TEXT_CHARS: i32 = 72;
    /// A registrable domain up to this long is never broken across lines.
    const UNBROKEN_DOMAIN_CHARS: usize = 48;
    /// Text longer than this many characters (about five lines) goes in a
    /// box that scrolls past `SCROLL_MAX_PX`: a short text needs none (a
    /// scrolled box is never shorter than its scroll bar).
    const SCROLL_OVER_CHARS: usize = 5 * TEXT_CHARS as usize;
    const SCROLL_MAX_PX: i32 = 130;

    /// The GTK response of each answer (and back).
    const RESPONSES: [(ViewAction, gtk::ResponseType); 6] = [
        (ViewAction::Decline, gtk::ResponseType::Reject),
        (ViewAction::Accept, gtk::ResponseType::Accept),
        (ViewAction::Cancel, gtk::ResponseType::Cancel),
        (ViewAction::Continue, gtk::ResponseType::Ok),
        (ViewAction::Close, gtk::ResponseType::Close),
        (ViewAction::Always, gtk::ResponseType::Apply),
    ];

    fn response(action: ViewAction) -> gtk::ResponseType {
        RESPONSES
            .iter()
            .find(|(a, _)| *a == action)
            .map_or(gtk::ResponseType::Cancel, |(_, r)| *r)
    }

    pub(super) fn show(app: &AppHandle, view: ConsentView, tx: oneshot::Sender<Choice>) {
        // GTK lives on the main thread; the closure only builds and shows
        // the dialog (`response` answers later), so it never blocks.
        let _ = app.run_on_main_thread(move || build(&view, tx));
    }

    fn build(page: &ConsentView, tx: oneshot::Sender<Choice>) {
        let dialog = gtk::Dialog::new();
        dialog.set_title(&page.title);
        dialog.set_modal(false);
        dialog.set_keep_above(true);
        dialog.set_urgency_hint(true);
        dialog.set_position(gtk::WindowPosition::Center);

        let content = dialog.content_area();
        let body = gtk::Box::new(gtk::Orientation::Vertical, 12);
        body.set_margin_top(18);
        body.set_margin_bottom(12);
        body.set_margin_start(18);
        body.set_margin_end(18);
        content.pack_start(&body, true, true, 0);

        body.pack_start(&header(page), false, false, 0);
        body.pack_start(&details(page), false, false, 0);
        if !page.warnings.is_empty() || page.blocked.is_some() {
            body.pack_start(&warnings(page), false, false, 0);
        }
        if !page.note.is_empty() {
            let note = text_label(&page.note_text());
            note.set_attributes(Some(&dim_attrs()));
            body.pack_start(&note, false, false, 0);
        }

        // The view's buttons in its order; the safe one is the default
        // (Return), and the one that opens is never it.
        let mut default = None;
        for b in &page.buttons {
            let button = dialog.add_button(&b.label, response(b.action));
            match b.role {
                ButtonRole::Default => {
                    dialog.set_default_response(response(b.action));
                    // Visibly the default: the theme's accent, and Return.
                    button.style_context().add_class("suggested-action");
                    default = Some(button);
                }
                ButtonRole::Proceed if page.warned() => {
                    button.style_context().add_class("destructive-action");
                }
                _ => {}
            }
        }

        let tx = RefCell::new(Some(tx));
        let on_escape = choice(escape_action(page));
        dialog.connect_response(move |dialog, given| {
            let answer = if given == gtk::ResponseType::DeleteEvent {
                // Escape or the window closed: the safe answer.
                on_escape
            } else {
                RESPONSES
                    .iter()
                    .find(|(_, r)| *r == given)
                    .map_or(Choice::Cancel, |(a, _)| choice(*a))
            };
            if let Some(tx) = tx.borrow_mut().take() {
                let _ = tx.send(answer);
            }
            // SAFETY: the dialog is ours, on the main thread, and nothing
            // uses it after its response (the title lookup that withdraws
            // it finds no window once it is destroyed).
            unsafe { dialog.destroy() };
        });

        dialog.show_all();
        // The default has the keyboard focus, not the first selectable
        // text: Return picks it, Tab goes on to the next button.
        if let Some(default) = default {
            default.grab_focus();
        }
        dialog.present();
    }

    /// Find the dialog by its exact title and answer it with `DeleteEvent`.
    pub(super) fn withdraw(app: &AppHandle, title: String) {
        let _ = app.run_on_main_thread(move || {
            for window in gtk::Window::list_toplevels() {
                let Ok(window) = window.downcast::<gtk::Window>() else {
                    continue;
                };
                if window.title().is_some_and(|t| t.as_str() == title) {
                    if let Ok(dialog) = window.downcast::<gtk::Dialog>() {
                        dialog.response(WITHDRAWN);
                    }
                }
            }
        });
    }

    /// Airlock's icon and the person's mark, who asks for what, and the
    /// registrable domain, large and bold; a danger sign beside the domain
    /// when a warning is one.
    fn header(page: &ConsentView) -> gtk::Box {
        let row = gtk::Box::new(gtk::Orientation::Horizontal, 14);
        let badge = gtk::Box::new(gtk::Orientation::Vertical, 4);
        badge.pack_start(&airlock_icon(), false, false, 0);
        let mark = mark();
        if !mark.is_empty() {
            let label = gtk::Label::new(None);
            label.set_text(&mark);
            label.set_use_markup(false);
            label.set_line_wrap(true);
            label.set_max_width_chars(14);
            label.set_justify(gtk::Justification::Center);
            let attrs = pango::AttrList::new();
            attrs.insert(pango::AttrInt::new_weight(pango::Weight::Bold));
            attrs.insert(pango::AttrFloat::new_scale(0.85));
            label.set_attributes(Some(&attrs));
            label.set_tooltip_text(Some("Your Airlock mark"));
            label.set_widget_name("airlock-mark");
            badge.pack_start(&label, false, false, 0);
        }
        row.pack_start(&badge, false, false, 0);
        let column = gtk::Box::new(gtk::Orientation::Vertical, 2);
        column.pack_start(&text_label(&page.heading_text()), false, false, 0);
        let domain_text = page.domain.as_ref().map(|d| d.text.as_str()).unwrap_or("");
        let domain = text_label(domain_text);
        domain.set_selectable(true);
        let attrs = pango::AttrList::new();
        attrs.insert(pango::AttrFloat::new_scale(2.0));
        attrs.insert(pango::AttrInt::new_weight(pango::Weight::Bold));
        attrs.insert(pango::AttrInt::new_insert_hyphens(false));
        domain.set_attributes(Some(&attrs));
        domain.set_line_wrap_mode(pango::WrapMode::Char);
        let sign = if is_blocked(page) {
            Some("dialog-error")
        } else if page.loudest() == Some(Weight::Danger) {
            Some("dialog-warning")
        } else {
            None
        };
        match sign {
            Some(icon) => {
                let line = gtk::Box::new(gtk::Orientation::Horizontal, 8);
                let icon = icon_widget(icon, gtk::IconSize::Dnd);
                icon.set_valign(gtk::Align::Start);
                line.pack_start(&icon, false, false, 0);
                line.pack_start(&domain, true, true, 0);
                column.pack_start(&line, false, false, 0);
            }
            None => column.pack_start(&domain, false, false, 0),
        }
        row.pack_start(&column, true, true, 0);
        row
    }

    /// Airlock's icon (the themed question mark any program can show is
    /// never used), or its name when the image cannot be read.
    fn airlock_icon() -> gtk::Widget {
        let pixbuf = gtk::gdk_pixbuf::Pixbuf::from_read(std::io::Cursor::new(ICON_PNG))
            .ok()
            .and_then(|p| p.scale_simple(48, 48, gtk::gdk_pixbuf::InterpType::Bilinear));
        match pixbuf {
            Some(p) => gtk::Image::from_pixbuf(Some(&p)).upcast(),
            None => gtk::Label::new(Some("Airlock")).upcast(),
        }
    }

    /// The view's lines (app, why, full URL, host, port, seen), each by its
    /// caption; the host and the URL with their domain emphasised.
    fn details(page: &ConsentView) -> gtk::Grid {
        let grid = gtk::Grid::new();
        grid.set_column_spacing(12);
        grid.set_row_spacing(8);
        let mut row = 0;
        let mut add = |caption: &str, value: &gtk::Widget| {
            let label = gtk::Label::new(Some(caption));
            label.set_xalign(1.0);
            label.set_yalign(0.0);
            label.set_attributes(Some(&dim_attrs()));
            grid.attach(&label, 0, row, 1, 1);
            value.set_hexpand(true);
            grid.attach(value, 1, row, 1, 1);
            row += 1;
        };
        for line in &page.lines {
            add(&line.label, &value(line));
        }
        grid
    }

    /// A line's value: the host and the URL emphasised around their
    /// domain, the server's message selectable, in a box that scrolls when
    /// long.
    fn value(line: &ViewLine) -> gtk::Widget {
        let chars = line.text.chars().count();
        match (line.key, &line.split) {
            (LineKey::Url | LineKey::Host, Some(split)) => bounded(emphasised(split), chars),
            (LineKey::Why, _) => {
                let reason = text_label(&line.text);
                reason.set_selectable(true);
                bounded(reason, chars)
            }
            _ => {
                let text = match &line.note {
                    Some(note) => format!("{} ({note})", line.text),
                    None => line.text.clone(),
                };
                text_label(&text).upcast()
            }
        }
    }

    /// One line per warning (and the reason it was blocked), each with an
    /// icon of its weight: a danger bold, a caution plain, a note dimmed.
    fn warnings(page: &ConsentView) -> gtk::Box {
        let column = gtk::Box::new(gtk::Orientation::Vertical, 6);
        let lines = page
            .blocked
            .iter()
            .map(|b| (Weight::Danger, "dialog-error", b))
            .chain(page.warnings.iter().map(|w| {
                let icon = match w.weight {
                    Weight::Danger => "dialog-warning",
                    Weight::Caution => "dialog-warning",
                    Weight::Note => "dialog-information",
                };
                (w.weight, icon, &w.sentence)
            }));
        for (weight, icon, text) in lines {
            let row = gtk::Box::new(gtk::Orientation::Horizontal, 8);
            let icon = icon_widget(icon, gtk::IconSize::Menu);
            icon.set_valign(gtk::Align::Start);
            row.pack_start(&icon, false, false, 0);
            let label = text_label(text);
            match weight {
                Weight::Danger => {
                    let attrs = pango::AttrList::new();
                    attrs.insert(pango::AttrInt::new_weight(pango::Weight::Bold));
                    attrs.insert(pango::AttrColor::new_foreground(0xa6a6, 0x1e1e, 0x1e1e));
                    label.set_attributes(Some(&attrs));
                }
                Weight::Note => label.set_attributes(Some(&dim_attrs())),
                Weight::Caution => {}
            }
            row.pack_start(&label, true, true, 0);
            column.pack_start(&row, false, false, 0);
        }
        column
    }

    /// A themed icon, or an emoji when the theme has none.
    fn icon_widget(name: &str, size: gtk::IconSize) -> gtk::Widget {
        let themed = gtk::IconTheme::default().is_some_and(|t| t.has_icon(name));
        if themed {
            return gtk::Image::from_icon_name(Some(name), size).upcast();
        }
        let emoji = match name {
            "dialog-error" => "⛔",
            "dialog-information" => "ℹ",
            _ => "⚠",
        };
        let label = gtk::Label::new(Some(emoji));
        if size == gtk::IconSize::Dialog {
            let attrs = pango::AttrList::new();
            attrs.insert(pango::AttrFloat::new_scale(2.5));
            label.set_attributes(Some(&attrs));
        }
        label.upcast()
    }

    /// Plain text (never markup), wrapped, aligned left. Its width is
    /// fixed: GTK sizes a window for the narrowest its wrapped labels may
    /// get, which would leave a tall empty band above the buttons.
    fn text_label(text: &str) -> gtk::Label {
        let label = gtk::Label::new(None);
        label.set_text(text);
        label.set_use_markup(false);
        label.set_line_wrap(true);
        label.set_line_wrap_mode(pango::WrapMode::WordChar);
        label.set_width_chars(TEXT_CHARS);
        label.set_max_width_chars(TEXT_CHARS);
        label.set_xalign(0.0);
        label.set_yalign(0.0);
        label
    }

    /// Selectable monospace text with its registrable domain bold and
    /// highlighted, the rest dimmed.
    fn emphasised(e: &Split) -> gtk::Label {
        let label = text_label(&e.text());
        label.set_selectable(true);
        label.set_line_wrap_mode(pango::WrapMode::Char);
        label.set_attributes(Some(&emphasis_attrs(e)));
        label
    }

    fn index(n: usize) -> u32 {
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Pango attributes (byte ranges of `e.text()`) for `emphasised`.
    fn emphasis_attrs(e: &Split) -> pango::AttrList {
        let attrs = pango::AttrList::new();
        attrs.insert(pango::AttrString::new_family("monospace"));
        // Wrapped anywhere, as a URL must be, but without the hyphens Pango
        // would add (they are not part of the address).
        attrs.insert(pango::AttrInt::new_insert_hyphens(false));
        if e.domain.is_empty() {
            return attrs;
        }
        let start = index(e.before.len());
        let end = index(e.before.len() + e.domain.len());
        let total = index(e.before.len() + e.domain.len() + e.after.len());
        for (from, to) in [(0, start), (end, total)] {
            if from < to {
                let mut dim = pango::AttrInt::new_foreground_alpha(0x9999);
                dim.set_start_index(from);
                dim.set_end_index(to);
                attrs.insert(dim);
            }
        }
        let mut bold = pango::AttrInt::new_weight(pango::Weight::Bold);
        let mut fg = pango::AttrColor::new_foreground(0x1a1a, 0x1a1a, 0x1a1a);
        let mut bg = pango::AttrColor::new_background(0xffff, 0xeaea, 0x9e9e);
        for attr in [&mut *bold, &mut *fg, &mut *bg] {
            attr.set_start_index(start);
            attr.set_end_index(end);
        }
        attrs.insert(bold);
        attrs.insert(fg);
        attrs.insert(bg);
        if e.domain.chars().count() <= UNBROKEN_DOMAIN_CHARS {
            let mut whole = pango::AttrInt::new_allow_breaks(false);
            whole.set_start_index(start);
            whole.set_end_index(end);
            attrs.insert(whole);
        }
        attrs
    }

    fn dim_attrs() -> pango::AttrList {
        let attrs = pango::AttrList::new();
        attrs.insert(pango::AttrInt::new_foreground_alpha(0xaaaa));
        attrs
    }

    /// A label of `chars` characters as it is, or when long in a box that
    /// grows with it up to `SCROLL_MAX_PX`, then scrolls.
    fn bounded(label: gtk::Label, chars: usize) -> gtk::Widget {
        if chars <= SCROLL_OVER_CHARS {
            return label.upcast();
        }
        let sw = gtk::ScrolledWindow::new(None::<&gtk::Adjustment>, None::<&gtk::Adjustment>);
        sw.set_policy(gtk::PolicyType::Never, gtk::PolicyType::Automatic);
        sw.set_propagate_natural_height(true);
        sw.set_max_content_height(SCROLL_MAX_PX);
        sw.add(&label);
        sw.upcast()
    }
}

#[cfg(windows)]
mod task_dialog;
#[cfg(windows)]
use task_dialog as imp;

#[cfg(target_os = "macos")]
mod ns_alert;
#[cfg(target_os = "macos")]
use ns_alert as imp;
