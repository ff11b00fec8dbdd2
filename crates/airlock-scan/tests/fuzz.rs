//! Property tests over random text weighted towards the hidden ranges and
//! the markers the checks look for (a small xorshift, no dependencies):
//! `clean` is idempotent and leaves no hidden character (checked against a
//! list written here, independently of the crate's); nothing panics; and
//! every function stays linear on 1 MB of adversarial input.

use std::time::{Duration, Instant};

use airlock_scan::{
    clean, clean_json, scan_text, scan_tool, visible, Context, FindingKind, Severity, ToolIndex,
    MAX_EXCERPT_CHARS, MAX_VISIBLE_CHARS,
};
use serde_json::{json, Value};

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn char_in(&mut self, lo: u32, hi: u32) -> char {
        loop {
            if let Some(c) = char::from_u32(lo + self.below(u64::from(hi - lo + 1)) as u32) {
                return c;
            }
        }
    }
}

/// Markers the checks look for, and pieces of escape sequences.
const PIECES: &[&str] = &[
    "<!--",
    "-->",
    "<important>",
    "</IMPORTANT>",
    "<|im_start|>",
    "<|",
    "|>",
    "[INST]",
    "[//]: #",
    "<b ",
    "<span style='display:none'>",
    "~/.ssh/",
    "id_rsa",
    ".env",
    ".env.example",
    "mcp.json",
    "ignore previous instructions",
    "do not tell the user",
    "don't",
    "user's",
    "system prompt",
    "\\x1b[",
    "\\u001b]",
    "\x1b[",
    "\x1b]0;",
    "\x1b\\",
    "\u{9b}",
    "\u{7}",
    "[",
    "]",
    ";",
    "m",
    "31",
    "github__create_issue",
    "send_message",
    "read ",
    "please read ~/",
    "\r\n",
    "\r",
    ". ",
    "\u{1F3F4}",
    "\u{E007F}",
];

fn random_text(rng: &mut Rng, max_len: u64) -> String {
    let len = rng.below(max_len + 1);
    let mut s = String::new();
    for _ in 0..len {
        match rng.below(100) {
            0..=44 => s.push(rng.char_in(0x20, 0x7e)),
            45..=48 => s.push(['\n', '\t', '\r', ' '][rng.below(4) as usize]),
            49..=53 => s.push(rng.char_in(0x00, 0x1f)),
            54..=55 => s.push(rng.char_in(0x7f, 0x9f)),
            56..=60 => s.push(
                [
                    '\u{200B}',
                    '\u{200C}',
                    '\u{200D}',
                    '\u{2060}',
                    '\u{2064}',
                    '\u{FEFF}',
                    '\u{AD}',
                    '\u{34F}',
                    '\u{180E}',
                    '\u{3164}',
                    '\u{2028}',
                    '\u{2029}',
                    '\u{FFF9}',
                    '\u{1D173}',
                    '\u{13430}',
                    '\u{600}',
                ][rng.below(16) as usize],
            ),
            61..=63 => s.push(rng.char_in(0x202A, 0x202E)),
            64..=65 => s.push(rng.char_in(0x2066, 0x2069)),
            66..=70 => s.push(rng.char_in(0xE0000, 0xE007F)),
            71..=73 => s.push(rng.char_in(0xFE00, 0xFE0F)),
            74..=75 => s.push(rng.char_in(0xE0100, 0xE01EF)),
            76..=80 => s.push(rng.char_in(0xA0, 0xFFFF)),
            81..=83 => s.push(rng.char_in(0x10000, 0x10FFFF)),
            84..=85 => s.push(rng.char_in(0x1D400, 0x1D7FF)),
            _ => s.push_str(rng.pick(PIECES)),
        }
    }
    s
}

/// Hidden characters as listed here, independently of the crate: what
/// `clean` must leave none of.
fn hidden(c: char) -> bool {
    let u = c as u32;
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(u, 0x202A..=0x202E | 0x2066..=0x2069 | 0x200E | 0x200F | 0x061C)
        || matches!(u, 0xE0000..=0xE007F)
        || matches!(u, 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
        || matches!(
            u,
            0x200B..=0x200D | 0x2060..=0x2064 | 0xFEFF | 0xAD | 0x2028 | 0x2029 | 0x34F
                | 0x180E | 0x3164 | 0xFFF9..=0xFFFB | 0x1D173..=0x1D17A | 0x13430..=0x1343F
                | 0x0600..=0x0605
        )
}

const CHARACTER_KINDS: [FindingKind; 5] = [
    FindingKind::InvisibleCharacter,
    FindingKind::BidiControl,
    FindingKind::TagCharacter,
    FindingKind::VariationSelector,
    FindingKind::ControlCharacter,
];

#[test]
fn clean_is_idempotent_and_leaves_nothing_hidden() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let ctx = Context::alone("fuzz");
    for round in 0..2000 {
        let s = random_text(&mut rng, 120);
        let once = clean(&s);
        assert_eq!(clean(&once), once, "round {round}: {s:?}");
        assert!(
            !once.chars().any(hidden),
            "round {round}: {once:?} from {s:?}"
        );
        assert!(!once.contains('\r'));
        // What `clean` leaves, the scanner finds no hidden character in.
        let found = scan_text("d", &once, &ctx);
        assert!(
            !found.iter().any(|f| CHARACTER_KINDS.contains(&f.kind)
                || (f.kind == FindingKind::TerminalEscape && f.severity == Severity::Serious)),
            "round {round}: {found:#?} in {once:?}"
        );
        // And whatever was hidden, the scanner saw.
        if s.chars().any(|c| hidden(c) && c != '\r') {
            let found = scan_text("d", &s, &ctx);
            assert!(
                found
                    .iter()
                    .any(|f| CHARACTER_KINDS.contains(&f.kind)
                        || f.kind == FindingKind::TerminalEscape),
                "round {round}: nothing found in {s:?}"
            );
        }
    }
}

#[test]
fn nothing_panics_and_outputs_stay_bounded() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let index = ToolIndex::new([
        ("github", "create_issue", "github__create_issue"),
        ("whatsapp", "send_message", "whatsapp__send_message"),
    ]);
    let ctx = Context::new("fuzz", &index);
    for round in 0..1000 {
        let s = random_text(&mut rng, 300);
        for f in scan_text("d", &s, &ctx) {
            assert!(
                f.excerpt.chars().count() <= MAX_EXCERPT_CHARS,
                "round {round}"
            );
            assert!(!f.detail.is_empty());
            shown_on_one_line(&f, round);
        }
        assert!(visible(&s).chars().count() <= MAX_VISIBLE_CHARS + 40);
        // A definition made of random keys and strings.
        let mut props = serde_json::Map::new();
        props.insert(
            random_text(&mut rng, 12),
            json!({"description": random_text(&mut rng, 60)}),
        );
        let mut tool = json!({
            "name": random_text(&mut rng, 10),
            "description": s,
            "inputSchema": {"properties": props, "enum": [random_text(&mut rng, 20)]}
        });
        for f in scan_tool(&tool, &ctx) {
            shown_on_one_line(&f, round);
        }
        clean_json(&mut tool);
        let mut strings = Vec::new();
        collect(&tool, &mut strings);
        for t in strings {
            assert!(!t.chars().any(hidden), "round {round}: {t:?}");
        }
    }
}

/// A finding's field, excerpt and sentence are single lines with nothing
/// hidden: they are shown as they are.
fn shown_on_one_line(f: &airlock_scan::Finding, round: usize) {
    for (what, text) in [
        ("field", &f.field),
        ("excerpt", &f.excerpt),
        ("detail", &f.detail),
    ] {
        assert!(
            !text.chars().any(|c| c.is_control() || hidden(c)),
            "round {round}: {what} {text:?}"
        );
    }
}

fn collect(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                collect(x, out);
            }
        }
        _ => {}
    }
}

/// Generous: a debug build scans 1 MB in well under a second; anything
/// quadratic would take hours.
const LINEAR_BOUND: Duration = Duration::from_secs(10);

#[test]
fn one_megabyte_inputs_are_linear() {
    const MB: usize = 1 << 20;
    let index = ToolIndex::new([("github", "create_issue", "github__create_issue")]);
    let ctx = Context::new("fuzz", &index);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut inputs: Vec<(String, String)> = Vec::new();
    let mut random = String::new();
    while random.len() < MB {
        random.push_str(&random_text(&mut rng, 200));
    }
    inputs.push(("random".into(), random));
    for piece in [
        "<!--",
        "<|",
        "\u{1b}]",
        "\u{1b}[",
        "< ",
        "<b ",
        "<span ",
        "ignore ",
        "do not ",
        "a.",
        ".env",
        "~/.ssh/",
        "[//]: #",
        "\\x1b",
        "\u{E0041}",
        "\u{200B}",
        "\u{FE0F}",
        "\r",
        "create_issue ",
        "user's ",
        "before using this tool ",
        "<important>",
        "x",
    ] {
        inputs.push((format!("{piece:?}"), piece.repeat(MB / piece.len())));
    }
    // One long token and one long word.
    inputs.push(("path".into(), format!("~/{}", "a/".repeat(MB / 2))));
    inputs.push(("word".into(), "a".repeat(MB)));
    for (name, text) in &inputs {
        let t = Instant::now();
        let found = scan_text("description", text, &ctx);
        let scanned = t.elapsed();
        let t = Instant::now();
        let cleaned = clean(text);
        let cleaned_in = t.elapsed();
        let t = Instant::now();
        let shown = visible(text);
        let shown_in = t.elapsed();
        assert!(
            scanned < LINEAR_BOUND && cleaned_in < LINEAR_BOUND && shown_in < LINEAR_BOUND,
            "{name}: scan {scanned:?}, clean {cleaned_in:?}, visible {shown_in:?}"
        );
        assert!(!found.is_empty() || !text.contains('<') || name == "\"< \"");
        assert!(cleaned.len() <= text.len() + text.matches('\r').count());
        assert!(shown.chars().count() <= MAX_VISIBLE_CHARS + 40);
    }
}
