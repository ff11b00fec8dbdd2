//! How a consent names the app whose tool call raised it: a friendly name
//! for the apps Airlock knows (`claude-code` -> "Claude Code"), any other
//! app name quoted and labelled as an app's own name (`app “my tool”`),
//! so that a name an app chose for itself can never read as a server, a
//! domain or a line of Airlock's own.

use crate::apps::AppId;

/// Longest label, in characters (a list of several apps included).
pub const MAX_CALLER_LABEL_CHARS: usize = 160;
/// How the core starts a list of several apps ("one of: a, b").
const ONE_OF: &str = "one of: ";

/// The label of `app` (an app name, or the core's "one of: a, b"):
/// plain text, bounded, no characters outside an app name's own
/// (letters, digits, space, `.`, `_`, `-`).
pub fn caller_label(app: &str) -> String {
    let label = match app.strip_prefix(ONE_OF) {
        Some(list) => {
            let names: Vec<String> = list.split(", ").map(one).collect();
            format!("one of: {}", names.join(", "))
        }
        None => one(app),
    };
    bound(&label)
}

/// The start of a notification's summary naming the app ("Claude Code → "),
/// neutralised for notification servers; empty for Airlock's own requests.
pub fn notice_prefix(app: Option<&str>) -> String {
    app.map(|c| {
        let label = caller_label_capitalised(c);
        format!(
            "{} → ",
            airlock_url_safety::notice::notification_text(&label, MAX_CALLER_LABEL_CHARS)
        )
    })
    .unwrap_or_default()
}

/// The same, starting with a capital letter (at the start of a sentence).
pub fn caller_label_capitalised(app: &str) -> String {
    let label = caller_label(app);
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => label,
    }
}

fn one(name: &str) -> String {
    if name == "airlock" {
        return "Airlock".to_owned();
    }
    match name.parse::<AppId>() {
        Ok(app) => app.display_name().to_owned(),
        Err(_) => format!("app “{}”", clean(name)),
    }
}

/// A app name as the core's rule allows it; anything else becomes `?`,
/// whitespace runs become one space, at most 64 characters.
fn clean(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().take(64) {
        let c = if c.is_whitespace() {
            ' '
        } else if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') {
            c
        } else {
            '?'
        };
        if !(c == ' ' && out.ends_with(' ')) {
            out.push(c);
        }
    }
    out
}

fn bound(label: &str) -> String {
    if label.chars().count() <= MAX_CALLER_LABEL_CHARS {
        return label.to_owned();
    }
    let mut cut: String = label.chars().take(MAX_CALLER_LABEL_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_apps_get_their_names_and_others_are_quoted_as_an_apps_own_name() {
        assert_eq!(caller_label("claude-code"), "Claude Code");
        assert_eq!(caller_label("lm-studio"), "LM Studio");
        assert_eq!(caller_label("my tool"), "app “my tool”");
        assert_eq!(caller_label_capitalised("my tool"), "App “my tool”");
        assert_eq!(
            caller_label("one of: cursor, claude-code, airlock"),
            "one of: Cursor, Claude Code, Airlock"
        );
    }

    #[test]
    fn a_hostile_name_cannot_break_out_of_its_quotes_or_its_line() {
        let l = caller_label("x”\n→ github asks to open github.com\u{202e}");
        assert_eq!(l, "app “x? ? github asks to open github.com?”");
        assert!(!l.contains('\n'));
        let long = caller_label(&"a".repeat(500));
        assert!(long.chars().count() <= MAX_CALLER_LABEL_CHARS);
        let many = caller_label(&format!("one of: {}", vec!["b".repeat(60); 9].join(", ")));
        assert!(many.chars().count() <= MAX_CALLER_LABEL_CHARS);
        assert!(many.ends_with('…'));
    }
}
