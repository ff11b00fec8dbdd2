//! The sites a server's text names: the registrable domains of the URLs,
//! e-mail addresses and bare domain names in a message (`Sign in again at
//! https://accounts.google.com/`, `your paypal.com account`), so a consent
//! can say when the message names one site and the page is on another.
//!
//! Bare names are read with care, since ordinary text is full of dots: the
//! last label must be a top-level domain of the Public Suffix List (so
//! `e.g.`, `v1.2.3` and `Node.js` name nothing), and names under a
//! top-level domain that is also a common file extension (`README.md`,
//! `main.py`, `build.sh`, `Airlock.app`) count only when they are
//! well-known (`allegro.pl`) or written as a URL. A URL's own path or query
//! names nothing here; only the text around it.

use crate::well_known::is_well_known;

/// Most distinct domains reported for one text.
pub const MAX_NAMED: usize = 8;

/// Longest text looked at, in bytes (the rest is ignored).
pub const MAX_TEXT_BYTES: usize = 16 * 1024;

/// Top-level domains that are also common file extensions.
const FILE_LIKE: &[&str] = &[
    "app", "cc", "md", "mov", "pl", "ps", "py", "rs", "sh", "so", "zip",
];

/// The registrable domains `text` names, in order of first mention, at
/// most [`MAX_NAMED`].
pub fn named_domains(text: &str) -> Vec<String> {
    let mut text = text;
    if text.len() > MAX_TEXT_BYTES {
        let mut end = MAX_TEXT_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text = &text[..end];
    }
    let mut out: Vec<String> = Vec::new();
    for token in text.split(is_separator) {
        if out.len() >= MAX_NAMED {
            break;
        }
        if let Some(d) = token_domain(token) {
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

/// Characters that end a token: white space, quotes, brackets and the
/// punctuation text puts around a name.
fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\''
                | '`'
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '<'
                | '>'
                | ','
                | ';'
                | '|'
                | '\u{201C}'
                | '\u{201D}'
                | '\u{2018}'
                | '\u{2019}'
                | '\u{00AB}'
                | '\u{00BB}'
        )
}

/// The registrable domain one token names, if it names one.
fn token_domain(token: &str) -> Option<String> {
    if let Some(at) = token.find("://") {
        let start = token[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let url = url::Url::parse(&token[start..]).ok()?;
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        return match url.host()? {
            url::Host::Domain(d) => crate::registrable_domain_of(d),
            _ => None,
        };
    }
    // An e-mail address names its domain; a path after the name is not
    // part of it.
    let name = token.rsplit('@').next().unwrap_or(token);
    let name = name.split(['/', '?', '#']).next().unwrap_or(name);
    let name = name.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?' | '*' | '_'));
    if !name.contains(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}']) {
        return None;
    }
    // A port after the name.
    let name = match name.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => name,
    };
    let domain = crate::registrable_domain_of(name)?;
    let tld = domain.rsplit('.').next().unwrap_or_default();
    if !psl::suffix(domain.as_bytes()).is_some_and(|s| s.is_known()) {
        return None;
    }
    if FILE_LIKE.contains(&tld) && !is_well_known(&domain) && !name.starts_with("www.") {
        return None;
    }
    Some(domain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_mail_addresses_and_names_are_read() {
        assert_eq!(
            named_domains(
                "Your Google session expired. Sign in again at https://accounts.google.com/."
            ),
            ["google.com"]
        );
        assert_eq!(
            named_domains("Write to help@acme-corp.io, or see docs.acme-corp.io/help"),
            ["acme-corp.io"]
        );
        assert_eq!(
            named_domains("(see <https://www.bbc.co.uk/x>)"),
            ["bbc.co.uk"]
        );
        assert_eq!(
            named_domains("Log in to PAYPAL.COM: your account is locked"),
            ["paypal.com"]
        );
    }

    #[test]
    fn ordinary_text_names_nothing() {
        for text in [
            "Sign in to continue.",
            "e.g. the v1.2.3 release of Node.js and Vue.js",
            "Edit README.md and main.py, then run build.sh",
            "Open Airlock.app",
            "Version 2.0.1 is out.",
            "ftp://files.example.com/x is not a web page",
        ] {
            assert_eq!(named_domains(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn a_long_text_is_bounded() {
        let many: String = (0..100).map(|i| format!("site{i}.com ")).collect();
        assert_eq!(named_domains(&many).len(), MAX_NAMED);
        let huge = "a".repeat(MAX_TEXT_BYTES * 4) + " google.com";
        assert!(named_domains(&huge).is_empty());
    }
}
