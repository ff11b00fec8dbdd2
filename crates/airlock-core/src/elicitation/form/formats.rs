//! The string formats of the form subset: email, uri, date, date-time.

use super::StringFormat;

impl StringFormat {
    pub(super) fn parse(s: &str) -> Option<Self> {
        match s {
            "email" => Some(Self::Email),
            "uri" => Some(Self::Uri),
            "date" => Some(Self::Date),
            "date-time" => Some(Self::DateTime),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Date => "date",
            Self::DateTime => "date-time",
        }
    }

    /// What a person should type, e.g. "a date as YYYY-MM-DD, like 2025-03-01".
    pub fn hint(self) -> &'static str {
        match self {
            Self::Email => "an email address, like name@example.com",
            Self::Uri => "a full URI with a scheme, like https://example.com/page",
            Self::Date => "a date as YYYY-MM-DD, like 2025-03-01",
            Self::DateTime => {
                "a date and time as YYYY-MM-DDTHH:MM:SS with Z or an offset, like 2025-03-01T14:30:00Z"
            }
        }
    }

    pub(super) fn accepts(self, s: &str) -> bool {
        match self {
            Self::Email => is_email(s),
            Self::Uri => is_uri(s),
            Self::Date => is_date(s),
            Self::DateTime => is_date_time(s),
        }
    }
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let ok_chars =
        |p: &str| !p.is_empty() && !p.chars().any(|c| c.is_whitespace() || c.is_control());
    ok_chars(local)
        && ok_chars(domain)
        && !local.contains('@')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && (domain.contains('.') || domain.starts_with('['))
}

fn is_uri(s: &str) -> bool {
    !s.chars().any(|c| c.is_whitespace() || c.is_control()) && url::Url::parse(s).is_ok()
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (
        digits(&s[0..4], 4),
        digits(&s[5..7], 2),
        digits(&s[8..10], 2),
    ) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
fn is_date_time(s: &str) -> bool {
    if !s.is_ascii() || s.len() < 20 {
        return false;
    }
    let (date, rest) = s.split_at(10);
    if !is_date(date) || !matches!(rest.as_bytes()[0], b'T' | b't') {
        return false;
    }
    let rest = &rest[1..];
    if rest.len() < 9 {
        return false;
    }
    let (time, mut zone) = rest.split_at(8);
    let tb = time.as_bytes();
    if tb[2] != b':' || tb[5] != b':' {
        return false;
    }
    let (Some(h), Some(mi), Some(sec)) = (
        digits(&time[0..2], 2),
        digits(&time[3..5], 2),
        digits(&time[6..8], 2),
    ) else {
        return false;
    };
    if h > 23 || mi > 59 || sec > 60 {
        return false;
    }
    if let Some(frac) = zone.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        zone = &frac[n..];
    }
    match zone {
        "Z" | "z" => true,
        z if z.len() == 6 && matches!(z.as_bytes()[0], b'+' | b'-') && z.as_bytes()[3] == b':' => {
            matches!((digits(&z[1..3], 2), digits(&z[4..6], 2)), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        for ok in ["a@b.co", "first.last+tag@sub.example.org", "x@[127.0.0.1]"] {
            assert!(is_email(ok), "{ok}");
        }
        for no in [
            "", "a", "a@", "@b.co", "a@b", "a b@c.de", "a@b..c", "a@.b.c", "a@b.c.",
        ] {
            assert!(!is_email(no), "{no}");
        }
        for ok in ["https://example.com", "mailto:x@y.z", "urn:isbn:123"] {
            assert!(is_uri(ok), "{ok}");
        }
        for no in ["example.com", "/relative", "https://exa mple.com", ""] {
            assert!(!is_uri(no), "{no}");
        }
        for ok in ["2024-02-29", "2000-02-29", "1999-12-31"] {
            assert!(is_date(ok), "{ok}");
        }
        for no in [
            "1900-02-29",
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "2024-04-31",
        ] {
            assert!(!is_date(no), "{no}");
        }
        for ok in [
            "2024-01-01T00:00:00Z",
            "2024-01-01t10:20:30z",
            "2024-01-01T10:20:30.5-08:00",
            "2024-01-01T23:59:60+00:00",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for no in [
            "2024-01-01",
            "2024-01-01T10:20:30",
            "2024-01-01 10:20:30Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T10:20:30.Z",
            "2024-01-01T10:20:30+0800",
            "2024-01-01T10:20:30+24:00",
            "2024-01-01T10:20Z",
        ] {
            assert!(!is_date_time(no), "{no}");
        }
    }
}
