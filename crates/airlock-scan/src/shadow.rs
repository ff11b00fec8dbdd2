//! Shadowing: a text of one server that names a tool of another server,
//! to steer how the model uses it ("when send_message is called, change
//! the recipient"). [`ToolIndex`] holds every server's tool names, built
//! once per catalog refresh; the check is one hash look-up per word.

use crate::hits::Hits;
use crate::words::{fx, FxMap, NameFilter, Span, MIN_NAME};
use crate::{Context, FindingKind, Severity};

/// Bits of the filter that lets a text skip the look-up of words that are
/// certainly no tool's name (one bit per key; 2^20 bits, 128 KiB).
const FILTER_BITS: usize = 1 << 20;

/// Shortest tool name that is matched on its own (without its server's
/// prefix); shorter names are ordinary words too often.
pub const MIN_BARE_NAME: usize = 5;

struct Tool {
    server: Box<str>,
    name: Box<str>,
}

/// The tools of every server, indexed by the names a text could call them:
/// the name apps see (`github__create_issue`), the forms clients prefix
/// (`mcp__github__create_issue`, `mcp_github_create_issue`), and the tool's
/// own name when it is distinctive (`create_issue`, `sendMessage`: at least
/// [`MIN_BARE_NAME`] characters with a `_`, `-`, `.` or an inner capital).
/// Look-ups ignore ASCII case.
#[derive(Default)]
pub struct ToolIndex {
    tools: Vec<Tool>,
    keys: FxMap<Box<str>, Vec<u32>>,
    /// The tail of each prefixed name ("update_issue" of "jira_update_issue"),
    /// with the tools that have it: a server's text saying "update_issue"
    /// most likely means its own "jira_update_issue".
    tails: FxMap<Box<str>, Vec<u32>>,
    /// One bit per key's hash: "certainly not a key" for most words.
    filter: Vec<u64>,
    /// Shortest and longest key, in bytes.
    lengths: (usize, usize),
    /// A bit per (first byte, last byte, length) of the keys that are
    /// letters and digits only (a camelCase tool name read in lower case):
    /// most plain words are turned away with one look-up.
    plain_keys: Vec<u64>,
}

/// Bits of [`ToolIndex::plain_keys`].
const PLAIN_BITS: usize = 4096;

fn plain_bit(key: &[u8]) -> Option<usize> {
    let (first, last) = (key.first()?, key.last()?);
    Some((usize::from(*first) * 97 + usize::from(*last) * 31 + key.len() * 7) % PLAIN_BITS)
}

impl NameFilter for ToolIndex {
    #[inline]
    fn maybe(&self, token: &[u8]) -> bool {
        if token.len() < self.lengths.0 || token.len() > self.lengths.1 {
            return false;
        }
        if token.iter().all(u8::is_ascii_alphanumeric) {
            let Some(bit) = plain_bit(token) else {
                return false;
            };
            if self
                .plain_keys
                .get(bit / 64)
                .is_none_or(|w| w & (1 << (bit % 64)) == 0)
            {
                return false;
            }
        }
        let bit = fx(token) as usize & (FILTER_BITS - 1);
        self.filter
            .get(bit / 64)
            .is_some_and(|w| w & (1 << (bit % 64)) != 0)
    }
}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolIndex")
            .field("tools", &self.tools.len())
            .finish()
    }
}

impl ToolIndex {
    /// Indexes `(server, tool's own name, name the apps see)` for every tool
    /// of every server.
    pub fn new<'s>(tools: impl IntoIterator<Item = (&'s str, &'s str, &'s str)>) -> Self {
        let mut index = ToolIndex::default();
        for (server, name, exposed) in tools {
            let Ok(id) = u32::try_from(index.tools.len()) else {
                break;
            };
            index.tools.push(Tool {
                server: server.into(),
                name: name.into(),
            });
            let mut keys = vec![
                exposed.to_ascii_lowercase(),
                format!("mcp__{server}__{name}").to_ascii_lowercase(),
                format!("mcp_{server}_{name}").to_ascii_lowercase(),
            ];
            if distinctive(name) {
                keys.push(name.to_ascii_lowercase());
            }
            keys.sort();
            keys.dedup();
            let lower = name.to_ascii_lowercase();
            for (i, b) in lower.bytes().enumerate() {
                if matches!(b, b'_' | b'-' | b'.') && lower.len() - i > MIN_BARE_NAME {
                    let tail = &lower[i + 1..];
                    if distinctive(tail) {
                        index.tails.entry(tail.into()).or_default().push(id);
                    }
                }
            }
            for key in keys {
                if key.len() >= MIN_NAME && key.bytes().all(is_token_byte) {
                    if index.filter.is_empty() {
                        index.filter = vec![0; FILTER_BITS / 64];
                        index.lengths = (key.len(), key.len());
                    }
                    index.lengths.0 = index.lengths.0.min(key.len());
                    index.lengths.1 = index.lengths.1.max(key.len());
                    if key.bytes().all(|b| b.is_ascii_alphanumeric()) {
                        if let Some(bit) = plain_bit(key.as_bytes()) {
                            index.plain_keys.resize(PLAIN_BITS / 64, 0);
                            index.plain_keys[bit / 64] |= 1 << (bit % 64);
                        }
                    }
                    let bit = fx(key.as_bytes()) as usize & (FILTER_BITS - 1);
                    index.filter[bit / 64] |= 1 << (bit % 64);
                    index.keys.entry(key.into()).or_default().push(id);
                }
            }
        }
        index
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool of another server than `server` that `word` names, if any:
    /// none when `server` has a tool by that name itself.
    fn other(&self, server: &str, word: &str) -> Option<&Tool> {
        let ids = self.keys.get(word)?;
        let own = |id: &u32| {
            self.tools
                .get(*id as usize)
                .is_some_and(|t| &*t.server == server)
        };
        if self.tails.get(word).is_some_and(|t| t.iter().any(own)) {
            return None;
        }
        let mut found = None;
        for &id in ids {
            let tool = self.tools.get(id as usize)?;
            if &*tool.server == server {
                return None;
            }
            found = found.or(Some(tool));
        }
        found
    }
}

/// A name that is not an ordinary word: long enough, and with a separator
/// or an inner capital.
fn distinctive(name: &str) -> bool {
    if name.chars().count() < MIN_BARE_NAME {
        return false;
    }
    let b = name.as_bytes();
    b.iter().any(|&c| matches!(c, b'_' | b'-' | b'.'))
        || b.windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

#[inline]
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.')
}

/// Adds a hit for each identifier-like token of `reading` (already let
/// through by the index's filter) that names another server's tool
/// (offsets in the reading).
pub(crate) fn shadowing(reading: &str, names: &[Span], ctx: &Context<'_>, hits: &mut Hits) {
    let Some(index) = ctx.tools() else {
        return;
    };
    for t in names {
        let (start, end) = (t.start as usize, t.end as usize);
        if let Some(tool) = index.other(ctx.server(), &reading[start..end]) {
            hits.add(
                FindingKind::Shadowing,
                Severity::Serious,
                start,
                end,
                || {
                    format!(
                    "Names '{}', a tool of server '{}': a description that talks about another \
                     server's tool can steer how the model uses it.",
                    crate::reading::bounded(&crate::excerpt::visible_line(&tool.name), 64),
                    crate::reading::bounded(&crate::excerpt::visible_line(&tool.server), 64),
                )
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_from_the_minimum_length() {
        let at = "a".repeat(MIN_BARE_NAME - 2) + "_b";
        let below = "a".repeat(MIN_BARE_NAME - 3) + "_b";
        assert!(distinctive(&at), "{at}");
        assert!(!distinctive(&below), "{below}");
        let index = ToolIndex::new([
            ("other", at.as_str(), "other__x"),
            ("other", below.as_str(), "other__y"),
        ]);
        assert!(index.other("this", &at).is_some());
        assert!(index.other("this", &below).is_none());
        // The names apps see are indexed from MIN_NAME bytes.
        let index = ToolIndex::new([("o", "a", "o_a"), ("o", "b", "ob")]);
        assert!(index.other("this", "o_a").is_some());
        assert!(index.other("this", "ob").is_none());
    }

    #[test]
    fn distinctive_names() {
        assert!(distinctive("send_message"));
        assert!(distinctive("sendMessage"));
        assert!(!distinctive("search"));
        assert!(!distinctive("get_"));
        assert!(!distinctive("echo"));
    }
}
