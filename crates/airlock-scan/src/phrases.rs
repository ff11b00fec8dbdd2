//! Directives aimed at the model: text telling it to keep something from the
//! user, to ignore its instructions, to read a file of the user's, to hand
//! over the conversation, and the emphasis real tools also use ("you must").
//!
//! Each rule is a few words within a short window of one sentence, checked
//! only at the words that can start it, so the scan stays linear.

use crate::hits::Hits;
use crate::words::{class::*, Word};
use crate::{FindingKind, Severity};

/// The first kept word after word `i`, at most `n` words on, in the same
/// sentence, with `class`.
fn ahead(words: &[Word], i: usize, n: u32, class: u64) -> Option<usize> {
    let w = words[i];
    for (j, x) in words.iter().enumerate().skip(i + 1) {
        if x.sentence != w.sentence || x.ord - w.ord > n {
            return None;
        }
        if x.is(class) {
            return Some(j);
        }
    }
    None
}

/// The nearest kept word before word `i`, at most `n` words back, in the
/// same sentence, with `class`.
fn behind(words: &[Word], i: usize, n: u32, class: u64) -> Option<usize> {
    let w = words[i];
    for j in (0..i).rev() {
        let x = words[j];
        if x.sentence != w.sentence || w.ord - x.ord > n {
            return None;
        }
        if x.is(class) {
            return Some(j);
        }
    }
    None
}

/// Word `i + 1` if it directly follows word `i` in the text.
fn next(words: &[Word], i: usize) -> Option<&Word> {
    let w = words[i];
    words
        .get(i + 1)
        .filter(|x| x.sentence == w.sentence && x.ord == w.ord + 1)
}

/// Word `i - 1` if it directly precedes word `i` in the text.
fn prev(words: &[Word], i: usize) -> Option<&Word> {
    let w = words[i];
    let p = words.get(i.checked_sub(1)?)?;
    (p.sentence == w.sentence && p.ord + 1 == w.ord).then_some(p)
}

/// Whether word `i` reads as an order: first in its sentence or clause, or
/// right after "please", "first", "then", "and", "you", "must" ...
pub(crate) fn imperative(words: &[Word], i: usize) -> bool {
    words[i].clause_first || prev(words, i).is_some_and(|p| p.is(IMPERATIVE))
}

/// Whether word `i` starts its sentence or clause (a German order puts
/// its verb first: "Sag dem Benutzer nichts").
fn imperative_de(words: &[Word], i: usize) -> bool {
    words[i].clause_first
}

/// Same as [`ahead`], for an audience that is not a possessive ("the
/// user's files" is not telling the user).
fn audience_ahead(words: &[Word], i: usize, n: u32) -> Option<usize> {
    let j = ahead(words, i, n, AUDIENCE)?;
    (!words[j].possessive).then_some(j)
}

/// The rest of the sentence from byte `from` of the reading, at most
/// [`MAX_ORDER_BYTES`].
fn sentence_rest(reading: &str, from: usize) -> &str {
    let b = reading.as_bytes();
    let limit = (from + MAX_ORDER_BYTES).min(b.len());
    let mut end = limit;
    for i in from..limit {
        let brk = b[i] == b'\n'
            || (matches!(b[i], b'.' | b'!' | b'?')
                && b.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()));
        if brk {
            end = i;
            break;
        }
    }
    while !reading.is_char_boundary(end) {
        end -= 1;
    }
    &reading[from.min(end)..end]
}

/// How far after a verb its object is looked for, in bytes.
pub(crate) const MAX_ORDER_BYTES: usize = 100;

/// Adds a hit for each directive in `words` (a reading of `reading`); the
/// hit ranges are byte offsets in the reading.
pub(crate) fn directives(reading: &str, words: &[Word], hits: &mut Hits) {
    let push = |hits: &mut Hits, from: usize, to: usize, severity: Severity, detail: &str| {
        hits.add(
            FindingKind::ModelDirective,
            severity,
            words[from].start as usize,
            words[to].end as usize,
            || detail.to_owned(),
        );
    };
    for (i, w) in words.iter().enumerate() {
        // "do not tell the user", "without mentioning this", "never notify users".
        if w.is(TELL | SHOW) {
            if let Some(n) = behind(words, i, 3, NEG) {
                let object = if w.is(TELL) {
                    audience_ahead(words, i, 6)
                        .or_else(|| next(words, i).filter(|x| x.is(THIS)).map(|_| i + 1))
                } else {
                    // "don't show the user", "don't let the user know".
                    audience_ahead(words, i, 3).filter(|&a| {
                        !reading[w.start as usize..w.end as usize].eq("let")
                            || ahead(words, a, 1, KNOW).is_some()
                    })
                };
                // "does not notify the user" describes the tool; "do not
                // notify the user" orders the model.
                let aux = prev(words, n).is_some_and(|p| p.is(AUX));
                let statement = words[n].is(AUX) || aux;
                match object {
                    Some(o) if statement => push(
                        hits,
                        if aux { n - 1 } else { n },
                        o,
                        Severity::Warning,
                        "Says that something is not told to the user: check that the tool \
                         does not hide what it does.",
                    ),
                    Some(o) => push(
                        hits,
                        n,
                        o,
                        Severity::Serious,
                        "Tells the model to keep something from the user: a tool has no reason \
                         to hide what it does from the person using it.",
                    ),
                    None => {}
                }
            }
        }
        // "hide this from the user", "keep it secret from users".
        if w.is(HIDE) {
            if let Some(f) = ahead(words, i, 5, FROM) {
                if let Some(a) = audience_ahead(words, f, 3) {
                    push(
                        hits,
                        i,
                        a,
                        Severity::Serious,
                        "Tells the model to hide something from the user.",
                    );
                }
            }
        }
        // "the user must not know", "users don't need to see".
        if w.is(AUDIENCE) && !w.possessive {
            if let Some(n) = ahead(words, i, 3, NEG) {
                if let Some(k) = ahead(words, n, 3, KNOW) {
                    push(
                        hits,
                        i,
                        k,
                        Severity::Warning,
                        "Talks about what the user must not know or see: text for the model, \
                         not a description of the tool.",
                    );
                }
            }
        }
        // "without the user knowing", "without the user's knowledge";
        // "without asking the user", "without the user's permission".
        if w.is(WITHOUT) {
            // The user right after "without" ("without the user's", "without
            // asking the user"), not "without the global Browse Users permission".
            if let Some(a) = ahead(words, i, 3, AUDIENCE) {
                if let Some(k) = ahead(words, a, 2, KNOWING) {
                    push(
                        hits,
                        i,
                        k,
                        Severity::Serious,
                        "Tells the model to act without the user knowing.",
                    );
                } else if let Some(k) =
                    ahead(words, a, 2, ASK).or_else(|| ahead(words, i, 2, ASK).filter(|&k| k < a))
                {
                    push(
                        hits,
                        i,
                        k.max(a),
                        Severity::Warning,
                        "Tells the model to act without asking the user.",
                    );
                }
            }
        }
        if w.is(SECRETLY) {
            push(
                hits,
                i,
                i,
                Severity::Warning,
                "Asks for something to be done secretly: text for the model, not a description.",
            );
        }
        // "ignore all previous instructions", "disregard your rules",
        // "forget everything above".
        if w.is(OVERRIDE) {
            if let Some(r) = ahead(words, i, 4, RULES) {
                if (i + 1..r).any(|k| words[k].is(QUALIFIER)) {
                    push(
                        hits,
                        i,
                        r,
                        Severity::Serious,
                        "Tells the model to ignore its instructions: the classic prompt injection.",
                    );
                }
            } else if let Some(e) = ahead(words, i, 2, EVERYTHING) {
                if let Some(q) = ahead(words, e, 1, QUALIFIER | BEFORE) {
                    push(
                        hits,
                        i,
                        q,
                        Severity::Serious,
                        "Tells the model to ignore what it was told before: the classic prompt \
                         injection.",
                    );
                }
            }
        }
        // "these instructions override / take precedence over ...".
        if w.is(RULES) {
            if let Some(p) = ahead(words, i, 3, PRECEDENCE) {
                push(
                    hits,
                    i,
                    p,
                    Severity::Warning,
                    "Claims that its own instructions override others.",
                );
            }
        }
        // "system prompt": serious when revealed, replaced or addressed.
        if w.is(SYSTEM) && next(words, i).is_some_and(|x| x.is(PROMPT)) {
            match behind(words, i, 3, LEAK | OVERRIDE) {
                Some(v) => push(
                    hits,
                    v,
                    i + 1,
                    Severity::Serious,
                    "Tells the model to reveal, replace or ignore its system prompt.",
                ),
                None => push(
                    hits,
                    i,
                    i + 1,
                    Severity::Notice,
                    "Mentions a system prompt.",
                ),
            }
        }
        // "read ~/.cursor/mcp.json", "please open /etc/...": an order to read
        // a file of the user's.
        if w.is(READ) && imperative(words, i) {
            let rest = sentence_rest(reading, w.end as usize);
            if names_user_file(rest) {
                hits.add(
                    FindingKind::ModelDirective,
                    Severity::Serious,
                    w.start as usize,
                    w.end as usize + rest.len(),
                    || {
                        "Tells the model to read or send a file of the user's: a description \
                         has no business asking for the user's files."
                            .to_owned()
                    },
                );
            }
        }
        // "before using this tool, read ...": a precondition for the model.
        if w.is(BEFORE) || (w.is(PRIOR) && ahead(words, i, 1, TO).is_some()) {
            if let Some(u) = ahead(words, i, 2, USE) {
                if let Some(t) = ahead(words, u, 3, TOOL) {
                    if let Some(r) = ahead(words, t, 10, READ) {
                        push(
                            hits,
                            i,
                            r,
                            Severity::Warning,
                            "Sets a precondition for the model before it uses a tool: check \
                             what it asks to be read or sent.",
                        );
                    }
                }
            }
        }
        // German: "sag dem Benutzer nichts davon", "erwähne das nicht
        // gegenüber dem Nutzer": the negation follows the verb.
        if w.is(TELL | SHOW) && imperative_de(words, i) {
            if let (Some(n), Some(a)) = (ahead(words, i, 6, DE_NEG), audience_ahead(words, i, 6)) {
                push(
                    hits,
                    i,
                    n.max(a),
                    Severity::Serious,
                    "Tells the model to keep something from the user: a tool has no reason \
                     to hide what it does from the person using it.",
                );
            }
        }
        // "must hold everything the user wrote so far", "all the user typed":
        // the conversation asked for in other words.
        if w.is(EVERYTHING | FULL) {
            if let Some(a) = audience_ahead(words, i, 3) {
                if let Some(u) = ahead(words, a, 2, UTTERED) {
                    push(
                        hits,
                        i,
                        u,
                        Severity::Serious,
                        "Asks for everything the user wrote: tools should not collect \
                         what the user said to other tools.",
                    );
                }
            }
        }
        // "include the full conversation history".
        if w.is(CONVERSATION) {
            if let Some(h) = ahead(words, i, 1, HISTORY) {
                if let Some(s) = behind(words, i, 6, SEND) {
                    push(
                        hits,
                        s,
                        h,
                        Severity::Serious,
                        "Asks the model to send the conversation: tools should not collect \
                         what the user said to other tools.",
                    );
                }
            }
        }
        // "include a full list of the last messages".
        if w.is(MESSAGES) {
            if let (Some(f), Some(s)) = (behind(words, i, 3, FULL), behind(words, i, 8, SEND)) {
                if s < f {
                    push(
                        hits,
                        s,
                        i,
                        Severity::Warning,
                        "Asks the model to pass on earlier messages.",
                    );
                }
            }
        }
        // Emphasis that real tools use too: "you must", "very important",
        // "IMPORTANT:".
        if w.is(MUST) && prev(words, i).is_some_and(|p| p.is(YOU)) {
            push(
                hits,
                i - 1,
                i,
                Severity::Notice,
                "Addresses the model with an order (\"you must\").",
            );
        }
        if w.is(IMPORTANT) {
            let colon = reading
                .as_bytes()
                .get(w.end as usize)
                .is_some_and(|&b| b == b':' || b == b'!');
            let very = prev(words, i).is_some_and(|p| p.is(VERY));
            if colon || very {
                push(
                    hits,
                    if very { i - 1 } else { i },
                    i,
                    Severity::Notice,
                    "Emphasis aimed at the model (\"important\").",
                );
            }
        }
    }
}

/// Whether a stretch of the reading names a file in the user's home or
/// system folders.
fn names_user_file(span: &str) -> bool {
    const MARKS: [&str; 10] = [
        "~/",
        "~\\",
        "$home",
        "%userprofile%",
        "%appdata%",
        "/etc/",
        "/home/",
        "/users/",
        "c:\\users",
        "/root/",
    ];
    MARKS.iter().any(|m| span.contains(m))
}
