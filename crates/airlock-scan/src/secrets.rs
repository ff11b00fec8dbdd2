//! Places where secrets live (`~/.ssh`, `id_rsa`, `.env`, `.aws/credentials`,
//! MCP client configs, keychains, wallets ...) and words about secrets
//! ("private key", "seed phrase").

use crate::hits::Hits;
use crate::phrases::{imperative, MAX_ORDER_BYTES};
use std::sync::OnceLock;

use crate::words::{class::*, FxMap, Span, Word};
use crate::{FindingKind, Severity};

/// A file or folder name whose mention is a secret path.
struct Place {
    name: &'static str,
    what: &'static str,
    /// A file that holds nothing but secrets (a private key, a password
    /// store): Serious whenever named. Other places hold secrets among
    /// other things (`~/.ssh/config`, `.env`, `~/.aws`): a tool for SSH, AWS
    /// or a project legitimately names them, so they are Serious only when
    /// the text orders the model to read or send them.
    only_secrets: bool,
}

const PLACES: &[Place] = &[
    Place {
        name: ".ssh",
        what: "SSH keys",
        only_secrets: false,
    },
    Place {
        name: "id_rsa",
        what: "an SSH private key",
        only_secrets: true,
    },
    Place {
        name: "id_dsa",
        what: "an SSH private key",
        only_secrets: true,
    },
    Place {
        name: "id_ecdsa",
        what: "an SSH private key",
        only_secrets: true,
    },
    Place {
        name: "id_ed25519",
        what: "an SSH private key",
        only_secrets: true,
    },
    Place {
        name: "id_ecdsa_sk",
        what: "an SSH private key",
        only_secrets: true,
    },
    Place {
        name: "id_ed25519_sk",
        what: "an SSH private key",
        only_secrets: true,
    },
    Place {
        name: ".aws",
        what: "AWS credentials",
        only_secrets: false,
    },
    Place {
        name: ".env",
        what: "environment secrets such as API keys and passwords",
        only_secrets: false,
    },
    Place {
        name: ".envrc",
        what: "environment secrets such as API keys and passwords",
        only_secrets: false,
    },
    Place {
        name: ".netrc",
        what: "login passwords",
        only_secrets: false,
    },
    Place {
        name: "_netrc",
        what: "login passwords",
        only_secrets: false,
    },
    Place {
        name: ".npmrc",
        what: "package registry tokens",
        only_secrets: false,
    },
    Place {
        name: ".pypirc",
        what: "package registry tokens",
        only_secrets: false,
    },
    Place {
        name: ".pgpass",
        what: "database passwords",
        only_secrets: false,
    },
    Place {
        name: ".git-credentials",
        what: "Git passwords and tokens",
        only_secrets: true,
    },
    Place {
        name: ".gnupg",
        what: "GPG private keys",
        only_secrets: false,
    },
    Place {
        name: ".docker/config.json",
        what: "container registry credentials",
        only_secrets: false,
    },
    Place {
        name: ".kube/config",
        what: "Kubernetes cluster credentials",
        only_secrets: false,
    },
    Place {
        name: ".bash_history",
        what: "shell history, often with secrets in it",
        only_secrets: false,
    },
    Place {
        name: ".zsh_history",
        what: "shell history, often with secrets in it",
        only_secrets: false,
    },
    Place {
        name: ".password-store",
        what: "saved passwords",
        only_secrets: true,
    },
    Place {
        name: ".vault-token",
        what: "a Vault token",
        only_secrets: false,
    },
    Place {
        name: "wallet.dat",
        what: "a cryptocurrency wallet",
        only_secrets: true,
    },
    Place {
        name: "login.keychain",
        what: "the macOS keychain",
        only_secrets: true,
    },
    Place {
        name: "login.keychain-db",
        what: "the macOS keychain",
        only_secrets: true,
    },
    Place {
        name: "credentials.json",
        what: "OAuth client secrets",
        only_secrets: false,
    },
    Place {
        name: "application_default_credentials.json",
        what: "cloud credentials",
        only_secrets: false,
    },
    Place {
        name: "mcp.json",
        what: "every MCP server's settings and keys",
        only_secrets: false,
    },
    Place {
        name: "claude_desktop_config.json",
        what: "every MCP server's settings and keys",
        only_secrets: false,
    },
    Place {
        name: "/etc/shadow",
        what: "password hashes",
        only_secrets: true,
    },
    Place {
        name: "logins.json",
        what: "saved browser passwords",
        only_secrets: true,
    },
    Place {
        name: "key4.db",
        what: "saved browser passwords",
        only_secrets: true,
    },
    Place {
        name: "cookies.sqlite",
        what: "browser sessions",
        only_secrets: false,
    },
];

/// Suffixes of `.env.<suffix>` files that are templates without secrets.
const ENV_TEMPLATES: &[&str] = &[
    "example", "sample", "template", "dist", "defaults", "default", "tpl", "schema",
];

#[inline]
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-'
}

/// Adds a hit for each secret place named in the path-like `tokens` of
/// `reading` (offsets in the reading).
pub(crate) fn secret_places(reading: &str, paths: &[Span], words: &[Word], hits: &mut Hits) {
    for t in paths {
        token(reading, t, words, hits);
    }
}

/// Whether an imperative "read", "send", "include" ... comes shortly before
/// byte `at` in the same sentence: an order about the place named there.
fn ordered(words: &[Word], at: usize, sentence: u32) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        w.is(READ | SEND)
            && w.sentence == sentence
            && (w.end as usize) <= at
            && at - (w.end as usize) <= MAX_ORDER_BYTES
            && imperative(words, i)
    })
}

/// The places by the first two bytes of their name, and a bit per such
/// pair: most positions of a token are rejected with one look-up.
struct Prefixes {
    bits: Vec<u64>,
    places: FxMap<u16, Vec<usize>>,
}

fn pair(a: u8, b: u8) -> u16 {
    u16::from(a) << 8 | u16::from(b)
}

fn prefixes() -> &'static Prefixes {
    static PREFIXES: OnceLock<Prefixes> = OnceLock::new();
    PREFIXES.get_or_init(|| {
        let mut p = Prefixes {
            bits: vec![0; 1 << 10],
            places: FxMap::default(),
        };
        for (i, place) in PLACES.iter().enumerate() {
            let n = place.name.as_bytes();
            let key = pair(n[0], n[1]);
            p.bits[usize::from(key) / 64] |= 1 << (key % 64);
            p.places.entry(key).or_default().push(i);
        }
        p
    })
}

/// Checks one path-like token.
fn token(reading: &str, t: &Span, words: &[Word], hits: &mut Hits) {
    let (start, end) = (t.start as usize, t.end as usize);
    let tok = &reading.as_bytes()[start..end];
    let p = prefixes();
    for at in 0..tok.len().saturating_sub(1) {
        let key = pair(tok[at], tok[at + 1]);
        if p.bits[usize::from(key) / 64] & (1 << (key % 64)) == 0 {
            continue;
        }
        let Some(candidates) = p.places.get(&key) else {
            continue;
        };
        for &i in candidates {
            let place = &PLACES[i];
            let name = place.name.as_bytes();
            if !tok[at..].starts_with(name) {
                continue;
            }
            let before_ok = at == 0 || !is_name_byte(tok[at - 1]);
            let after = &tok[at + name.len()..];
            if !(before_ok && after_ok(place.name, after)) {
                continue;
            }
            let order = ordered(words, start + at, t.sentence);
            let severity = if place.only_secrets || order {
                Severity::Serious
            } else {
                Severity::Warning
            };
            hits.add(
                FindingKind::SecretPath,
                severity,
                start + at,
                start + at + name.len(),
                || {
                    if severity == Severity::Serious {
                        format!(
                            "{} {}, where {} live: a description has no reason to point the \
                             model at it.",
                            if order { "Asks for" } else { "Names" },
                            place.name,
                            place.what
                        )
                    } else {
                        format!(
                            "Mentions {}, where {} live: check why the tool's text names it.",
                            place.name, place.what
                        )
                    }
                },
            );
        }
    }
}

/// Whether what follows a place's name ends it: `id_rsa.pub` is a public
/// key; `.env.example` is a template; `.environment` is another word.
fn after_ok(name: &str, after: &[u8]) -> bool {
    let Some(&next) = after.first() else {
        return true;
    };
    if is_name_byte(next) {
        return false;
    }
    if next != b'.' {
        return true;
    }
    let suffix: Vec<u8> = after[1..]
        .iter()
        .copied()
        .take_while(|&b| is_name_byte(b))
        .collect();
    if name.starts_with("id_") {
        return suffix != b"pub";
    }
    if name == ".env" {
        return !ENV_TEMPLATES
            .iter()
            .any(|t| t.as_bytes() == suffix.as_slice());
    }
    true
}

/// Adds a hit for each phrase about secrets: "private key", "keychain",
/// "seed phrase" (offsets in the reading).
pub(crate) fn secret_words(words: &[Word], hits: &mut Hits) {
    for (i, w) in words.iter().enumerate() {
        let next = words
            .get(i + 1)
            .filter(|n| n.sentence == w.sentence && n.ord == w.ord + 1);
        let what = if w.is(PRIVATE) && next.is_some_and(|n| n.is(KEY)) {
            Some((i + 1, "a private key"))
        } else if w.is(SEED) && next.is_some_and(|n| n.is(PHRASE)) {
            Some((i + 1, "a wallet's recovery phrase"))
        } else if w.is(KEYCHAIN) {
            Some((i, "the system keychain"))
        } else {
            None
        };
        if let Some((end, what)) = what {
            hits.add(
                FindingKind::SecretPath,
                Severity::Warning,
                w.start as usize,
                words[end].end as usize,
                || format!("Mentions {what}: check why a tool's text talks about secrets."),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(s: &str) -> Vec<String> {
        let mut tokens = crate::words::Tokens::default();
        crate::words::tokenize(s, None, &mut tokens);
        let mut hits = Hits::default();
        secret_places(s, &tokens.paths, &tokens.words, &mut hits);
        hits.list
            .iter()
            .map(|h| s[h.start..h.end].to_owned())
            .collect()
    }

    fn severity(s: &str) -> Option<Severity> {
        let mut tokens = crate::words::Tokens::default();
        crate::words::tokenize(s, None, &mut tokens);
        let mut hits = Hits::default();
        secret_places(s, &tokens.paths, &tokens.words, &mut hits);
        hits.list.first().map(|h| h.severity)
    }

    #[test]
    fn an_order_reaches_max_order_bytes() {
        // "read" then spaces: the place starts MAX_ORDER_BYTES after the verb.
        let at = format!("read{}.env", " ".repeat(MAX_ORDER_BYTES));
        let over = format!("read{}.env", " ".repeat(MAX_ORDER_BYTES + 1));
        assert_eq!(severity(&at), Some(Severity::Serious));
        assert_eq!(severity(&over), Some(Severity::Warning));
    }

    #[test]
    fn boundaries() {
        assert_eq!(places("read ~/.ssh/id_rsa now"), vec![".ssh", "id_rsa"]);
        assert!(places("upload id_rsa.pub to github").is_empty());
        assert!(places("uses process.env.token").is_empty());
        assert!(places("copy .env.example to start").is_empty());
        assert_eq!(places("edit .env.local and .env."), vec![".env", ".env"]);
        assert!(places("the .environment file").is_empty());
        assert_eq!(places("c:\\users\\me\\.aws\\credentials"), vec![".aws"]);
        assert_eq!(places("~/.cursor/mcp.json"), vec!["mcp.json"]);
        assert!(places("a gmail_credentials.json file").is_empty());
    }
}
