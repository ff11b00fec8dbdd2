//! Asking for an exception: a prepared text, and a `mailto:` link to the
//! policy's contact.

use std::fmt::Write as _;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::decide::{display_argv, Refusal, ServerFacts};
use crate::model::Contact;

/// Longest reason kept in the text, in characters.
const MAX_REASON_CHARS: usize = 4000;

/// Control characters (other than line breaks and tabs) removed, so the text
/// shows what it says.
fn clean(s: &str) -> String {
    s.chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect()
}

/// Plain text asking for an exception: the server, its registry name and
/// version, its command or URL, its locked hash, the rule that refused it
/// and the user's reason. Meant to be copied or sent to [`Refusal::contact`].
pub fn exception_request(facts: &ServerFacts, refusal: &Refusal, reason: &str) -> String {
    let mut t = String::new();
    t.push_str("Request for an exception to the organization's Airlock policy\n\n");
    let _ = writeln!(t, "Server: {}", clean(&facts.name));
    if let Some(n) = &facts.registry_name {
        match &facts.version {
            Some(v) => {
                let _ = writeln!(t, "Registry name: {} (version {})", clean(n), clean(v));
            }
            None => {
                let _ = writeln!(t, "Registry name: {}", clean(n));
            }
        }
    }
    if let Some(cmd) = &facts.command {
        let _ = writeln!(t, "Command: {}", clean(&display_argv(cmd)));
    }
    if let Some(u) = &facts.url {
        let _ = writeln!(t, "URL: {}", clean(u));
    }
    let _ = writeln!(
        t,
        "Locked artifact hash (SHA-256): {}",
        facts
            .artifact_sha256
            .as_deref()
            .map(clean)
            .unwrap_or_else(|| "none (not installed from a locked artifact)".to_owned())
    );
    let _ = writeln!(t, "Confined: {}", if facts.confined { "yes" } else { "no" });
    t.push('\n');
    if refusal.rule.is_empty() {
        let _ = writeln!(t, "Refused because: {}", clean(&refusal.detail));
    } else {
        let _ = write!(t, "Refused by rule: {}", refusal.rule);
        if let Some(f) = &refusal.file {
            let _ = write!(t, " in {}", f.display());
        }
        let _ = writeln!(t, "\nWhich: {}", clean(&refusal.detail));
    }
    t.push_str("\nWhy I need it:\n");
    let reason: String = clean(reason.trim())
        .chars()
        .take(MAX_REASON_CHARS)
        .collect();
    if reason.is_empty() {
        t.push_str("(no reason given)\n");
    } else {
        t.push_str(&reason);
        t.push('\n');
    }
    t
}

/// Everything but RFC 3986 unreserved characters is encoded in a subject or
/// body (so `&`, `=`, `#`, `+`, `%` and line breaks cannot change the link).
const QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The address keeps `@`; everything else outside unreserved is encoded.
const ADDRESS: &AsciiSet = &QUERY.remove(b'@');

/// A `mailto:` link to the contact with the subject and body (RFC 6068:
/// percent-encoded UTF-8, line breaks as `%0D%0A`). `None` when the contact
/// has no email address. Open it through the same consent as any URL.
pub fn mailto(contact: &Contact, subject: &str, body: &str) -> Option<String> {
    let to = contact.email.as_deref()?;
    let crlf = |s: &str| {
        s.replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\n', "\r\n")
    };
    Some(format!(
        "mailto:{}?subject={}&body={}",
        utf8_percent_encode(to, ADDRESS),
        utf8_percent_encode(&crlf(subject), QUERY),
        utf8_percent_encode(&crlf(body), QUERY)
    ))
}
