//! The forms a secret takes in text a server sends back: inside a JSON
//! string, URL-encoded, base64 (standard and URL-safe, at any alignment
//! inside a longer base64 text), and each line of a multi-line secret (a
//! PEM key printed line by line).

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64 without padding.
fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// The base64 characters that depend only on `secret` when it starts `k`
/// bytes into a longer encoded text (k = 0, 1, 2).
fn base64_core(secret: &[u8], k: usize, alphabet: &[u8; 64]) -> String {
    let mut padded = vec![0u8; k];
    padded.extend_from_slice(secret);
    let enc = base64(&padded, alphabet);
    // Leading characters that mix in the k prefix bytes.
    let skip = match k {
        0 => 0,
        1 => 2,
        _ => 3,
    };
    // The last character mixes in whatever follows unless the bits end on
    // a character boundary.
    let drop_last = usize::from(!((k + secret.len()) * 8).is_multiple_of(6));
    let end = enc.len().saturating_sub(drop_last);
    enc.get(skip..end).unwrap_or_default().to_owned()
}

/// Percent-encoding of everything but unreserved characters (RFC 3986),
/// upper- and lower-case hex, and the form encoding with `+` for spaces.
fn url_encodings(secret: &str) -> Vec<String> {
    let mut upper = String::new();
    let mut lower = String::new();
    for b in secret.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            upper.push(char::from(b));
            lower.push(char::from(b));
        } else {
            upper.push_str(&format!("%{b:02X}"));
            lower.push_str(&format!("%{b:02x}"));
        }
    }
    let form: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    vec![upper, lower, form]
}

/// Every derived form of `secret` worth masking (the secret itself not included).
pub fn derived_forms(secret: &str) -> Vec<String> {
    let mut forms = Vec::new();
    // Inside a JSON string: quotes, backslashes, control characters escaped.
    if let Ok(json) = serde_json::to_string(secret) {
        forms.push(json[1..json.len() - 1].to_owned());
    }
    forms.extend(url_encodings(secret));
    for alphabet in [STANDARD, URL_SAFE] {
        for k in 0..3 {
            forms.push(base64_core(secret.as_bytes(), k, alphabet));
        }
    }
    // Each line of a multi-line secret, as printed line by line.
    if secret.contains('\n') {
        forms.extend(
            secret
                .lines()
                .map(str::trim)
                .filter(|l| !l.starts_with("-----"))
                .map(str::to_owned),
        );
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_encoding() {
        assert_eq!(base64(b"", STANDARD), "");
        assert_eq!(base64(b"f", STANDARD), "Zg");
        assert_eq!(base64(b"fo", STANDARD), "Zm8");
        assert_eq!(base64(b"foo", STANDARD), "Zm9v");
        assert_eq!(base64(b"foobar", STANDARD), "Zm9vYmFy");
        assert_eq!(base64(&[0xfb, 0xff], URL_SAFE), "-_8");
    }

    #[test]
    fn a_secret_inside_a_longer_base64_text_is_found_at_every_alignment() {
        let secret = "ghp_0123456789abcdefghijABCDEFGHIJ";
        for prefix in ["", "u", "us", "user:", "Basic-"] {
            for suffix in ["", "x", "xy", "\n"] {
                let text = format!("{prefix}{secret}{suffix}");
                let enc = base64(text.as_bytes(), STANDARD);
                assert!(
                    derived_forms(secret)
                        .iter()
                        .any(|f| f.len() >= 8 && enc.contains(f.as_str())),
                    "{prefix:?}+secret+{suffix:?} -> {enc}"
                );
            }
        }
    }

    #[test]
    fn url_encoded_and_line_forms() {
        let forms = derived_forms("p@ss word/=+");
        assert!(
            forms.contains(&"p%40ss%20word%2F%3D%2B".to_owned()),
            "{forms:?}"
        );
        assert!(
            forms.contains(&"p%40ss+word%2F%3D%2B".to_owned()),
            "{forms:?}"
        );
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----";
        let forms = derived_forms(pem);
        assert!(forms.contains(&"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".to_owned()));
        // The armour lines are the same in every key: never masked alone.
        assert!(!forms.contains(&"-----BEGIN PRIVATE KEY-----".to_owned()));
    }
}
