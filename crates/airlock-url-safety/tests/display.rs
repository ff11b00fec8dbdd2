//! Tests of `neutralize_for_display` and `elide_middle`.

use airlock_url_safety::{elide_middle, neutralize_for_display};

#[test]
fn neutralize_escapes_dangerous_characters() {
    let rows: &[(&str, &str)] = &[
        ("plain text", "plain text"),
        ("", ""),
        ("Grüße, 日本語, emoji 😀❤️", "Grüße, 日本語, emoji 😀❤️"),
        ("invoice\u{202E}fdp.exe", "invoice\\u{202E}fdp.exe"),
        (
            "\u{202A}\u{202B}\u{202C}\u{202D}",
            "\\u{202A}\\u{202B}\\u{202C}\\u{202D}",
        ),
        (
            "\u{2066}a\u{2067}b\u{2068}c\u{2069}",
            "\\u{2066}a\\u{2067}b\\u{2068}c\\u{2069}",
        ),
        ("\u{200E}\u{200F}\u{061C}", "\\u{200E}\\u{200F}\\u{61C}"),
        (
            "a\u{200B}b\u{200C}c\u{200D}d",
            "a\\u{200B}b\\u{200C}c\\u{200D}d",
        ),
        ("\u{2060}\u{FEFF}", "\\u{2060}\\u{FEFF}"),
        ("\u{1B}[31mred\u{1B}[0m", "\\u{1B}[31mred\\u{1B}[0m"),
        ("\u{1B}]0;title\u{7}", "\\u{1B}]0;title\\u{7}"),
        ("\u{9B}31m", "\\u{9B}31m"),
        ("line1\nline2\r\n", "line1\\u{A}line2\\u{D}\\u{A}"),
        ("tab\there", "tab\\u{9}here"),
        ("nul\0byte", "nul\\u{0}byte"),
        ("del\u{7F}", "del\\u{7F}"),
        ("soft\u{AD}hyphen", "soft\\u{AD}hyphen"),
        ("tag\u{E0041}", "tag\\u{E0041}"),
        ("sep\u{2028}\u{2029}", "sep\\u{2028}\\u{2029}"),
    ];
    for (input, expected) in rows {
        assert_eq!(neutralize_for_display(input, 1000), *expected, "{input:?}");
    }
}

#[test]
fn neutralize_output_has_no_dangerous_characters() {
    let all: String = (0u32..0x3000)
        .chain(0xFE00..0xFF00)
        .chain(0xE0000..0xE0080)
        .filter_map(char::from_u32)
        .collect();
    let out = neutralize_for_display(&all, usize::MAX);
    for c in out.chars() {
        assert!(!c.is_control(), "{c:?}");
        assert!(
            !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}'..='\u{200F}'
                | '\u{061C}' | '\u{2060}' | '\u{FEFF}' | '\u{AD}' | '\u{E0000}'..='\u{E007F}'),
            "{c:?}"
        );
    }
}

#[test]
fn neutralize_truncates() {
    let rows: &[(&str, usize, &str)] = &[
        ("abcdef", 6, "abcdef"),
        ("abcdef", 7, "abcdef"),
        ("abcdef", 5, "abcd…"),
        ("abcdef", 2, "a…"),
        ("abcdef", 1, "…"),
        ("abcdef", 0, ""),
        ("", 0, ""),
        ("日本語テキスト", 4, "日本語…"),
        ("日本語", 3, "日本語"),
        // An escape is never cut in half.
        ("ab\u{202E}cdef", 6, "ab…"),
        ("ab\u{202E}cdef", 11, "ab\\u{202E}…"),
        ("ab\u{202E}", 10, "ab\\u{202E}"),
        ("ab\u{202E}", 9, "ab…"),
    ];
    for (input, max, expected) in rows {
        let out = neutralize_for_display(input, *max);
        assert_eq!(out, *expected, "{input:?} max {max}");
        assert!(out.chars().count() <= *max, "{input:?} max {max}");
    }
}

#[test]
fn elide_middle_cases() {
    let url = "https://example.com/a/very/long/path/that/goes/on";
    let rows: &[(&str, usize, &str)] = &[
        ("short", 10, "short"),
        ("exactly10!", 10, "exactly10!"),
        ("abcdefghijk", 10, "abcde…hijk"),
        ("abcdef", 1, "…"),
        ("abcdef", 0, ""),
        ("abcdef", 2, "a…"),
        ("abcdef", 3, "a…f"),
        (url, 20, "https://ex…t/goes/on"),
        ("日本語のテキストです", 5, "日本…です"),
    ];
    for (input, max, expected) in rows {
        let out = elide_middle(input, *max);
        assert_eq!(out, *expected, "{input:?} max {max}");
        assert!(out.chars().count() <= *max);
    }
}
