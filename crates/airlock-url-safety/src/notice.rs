//! Text for desktop notifications, shared by the desktop app and the
//! daemon (`airlock daemon --consent ask`): a server's or app's name
//! defanged so no notification daemon can make a link or markup of it, a
//! registrable domain only when no daemon would linkify it, and body
//! escaping for daemons that render markup.

use crate::neutralize_for_display;

/// Longest server name in a notification.
pub const NOTICE_SERVER_CHARS: usize = 64;
/// Longest host or domain (the longest DNS name).
const HOST_CHARS: usize = 253;

/// Escape `&`, `<` and `>` for a notification daemon that renders body
/// markup (it says so with the `body-markup` capability). There is no
/// standard hint to turn body markup off, so this, and sending no server
/// text but its name, is the defence. A summary is plain text by the
/// specification: it is never escaped.
pub fn escape_markup(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Characters that browsers (IDNA) read as a dot in a host name.
fn is_dot_like(c: char) -> bool {
    matches!(c, '.' | '\u{3002}' | '\u{FF0E}' | '\u{FF61}')
}

/// A server's name as a notification shows it: neutralised, bounded, and
/// defanged so no notification daemon can make a link or markup of it:
/// `<` and `>` become `‹` and `›`, a `:` followed by anything but a space
/// becomes `[:]` (so no `https://`, `mailto:` or `javascript:` is left),
/// and a dot between two letters or digits becomes `[.]` (so
/// `paypal.com.evil.example` cannot be read as, or turned into, a host).
pub fn notification_name(server: &str) -> String {
    notification_text(server, NOTICE_SERVER_CHARS)
}

/// [`notification_name`] for any name, bounded to `max` characters (an
/// app's label, which may list several apps).
pub fn notification_text(server: &str, max: usize) -> String {
    let chars: Vec<char> = neutralize_for_display(server, max).chars().collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || matches!(c, '-' | '_'));
    let mut out = String::with_capacity(chars.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1);
        match c {
            '<' => out.push('‹'),
            '>' => out.push('›'),
            ':' if next.is_some_and(|n| !n.is_whitespace()) => out.push_str("[:]"),
            c if is_dot_like(c)
                && word(i.checked_sub(1).and_then(|p| chars.get(p)))
                && next.is_some_and(|n| n.is_alphanumeric()) =>
            {
                out.push_str("[.]")
            }
            c => out.push(c),
        }
    }
    out
}

/// The registrable domain as a notification may show it, or `None` when a
/// daemon could turn it into a link by itself (it starts like `www.` or
/// `ftp.`, which linkifiers match without a scheme).
pub fn notification_domain(domain: Option<&str>) -> Option<String> {
    let domain = neutralize_for_display(domain?, HOST_CHARS);
    let first = domain
        .split('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let linkable = domain.contains('.')
        && (first == "ftp"
            || first
                .strip_prefix("www")
                .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit())));
    (!linkable && !domain.is_empty()).then_some(domain)
}
