//! The names an app sees: `<server><separator><item>` for tools and
//! prompts, with every collision resolved (a numbered suffix) and reported,
//! never an item silently dropped.

use std::collections::{HashMap, HashSet};

/// The separator between a server's prefix and its item's own name.
pub const DEFAULT_SEPARATOR: &str = "__";

/// Names that start so (in any case) are Airlock's own tools'
/// ([`crate::session::budget`]): a server's item never gets one.
pub const RESERVED_PREFIX: &str = "airlock__";
/// What goes before a server's item name that would start with
/// [`RESERVED_PREFIX`].
pub const RESERVED_RENAME: &str = "server-";

/// `name` starts with [`RESERVED_PREFIX`], in any case.
pub fn is_reserved(name: &str) -> bool {
    name.as_bytes()
        .get(..RESERVED_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(RESERVED_PREFIX.as_bytes()))
}

/// Longest prefix taken from a server name, in characters.
pub const MAX_PREFIX_CHARS: usize = 64;

/// A server name as a prefix: the characters MCP allows in tool names
/// (`A-Z a-z 0-9 _ - .`) kept, anything else (spaces, other scripts) made `_`.
pub fn prefix(server: &str) -> String {
    let p: String = server
        .chars()
        .take(MAX_PREFIX_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if p.is_empty() {
        "_".to_owned()
    } else {
        p
    }
}

/// One name that had to change because another item already had it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    pub server: String,
    pub item: String,
    /// The name the item would have had.
    pub wanted: String,
    /// The name it got.
    pub given: String,
    /// The name it would have had is Airlock's ([`RESERVED_PREFIX`]).
    pub reserved: bool,
}

/// Exposed names for a list of `(server, item)` pairs, in order: the first
/// to want a name gets it, later ones get `<name>_2`, `<name>_3`, ...
/// Returns the names (same order) and the collisions, for the log.
pub fn assign(pairs: &[(&str, &str)], separator: &str) -> (Vec<String>, Vec<Collision>) {
    let mut taken: HashSet<String> = HashSet::with_capacity(pairs.len());
    let mut next_suffix: HashMap<String, usize> = HashMap::new();
    let mut names = Vec::with_capacity(pairs.len());
    let mut collisions = Vec::new();
    for (server, item) in pairs {
        let natural = format!("{}{separator}{item}", prefix(server));
        let reserved = is_reserved(&natural);
        let wanted = if reserved {
            format!("{RESERVED_RENAME}{natural}")
        } else {
            natural.clone()
        };
        let given = if taken.contains(&wanted) {
            let n = next_suffix.entry(wanted.clone()).or_insert(1);
            loop {
                *n += 1;
                let candidate = format!("{wanted}_{n}");
                if !taken.contains(&candidate) {
                    break candidate;
                }
            }
        } else {
            wanted.clone()
        };
        if given != natural {
            collisions.push(Collision {
                server: (*server).to_owned(),
                item: (*item).to_owned(),
                wanted: natural,
                given: given.clone(),
                reserved,
            });
        }
        taken.insert(given.clone());
        names.push(given);
    }
    (names, collisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_keep_what_tool_names_allow() {
        assert_eq!(prefix("everything"), "everything");
        assert_eq!(prefix("My server.v2"), "My_server.v2");
        assert_eq!(prefix("café"), "caf_");
        assert_eq!(prefix(""), "_");
        assert_eq!(prefix(&"x".repeat(200)).len(), MAX_PREFIX_CHARS);
    }

    #[test]
    fn collisions_are_resolved_in_order_and_reported() {
        let pairs = [
            ("a", "b__c"),
            ("a__b", "c"),
            ("a b", "x"),
            ("a_b", "x"),
            ("a_b", "x_2"),
            ("z", "echo"),
        ];
        let (names, collisions) = assign(&pairs, DEFAULT_SEPARATOR);
        assert_eq!(
            names,
            [
                "a__b__c",
                "a__b__c_2",
                "a_b__x",
                "a_b__x_2",
                "a_b__x_2_2",
                "z__echo"
            ]
        );
        assert_eq!(collisions.len(), 3);
        assert_eq!(collisions[0].server, "a__b");
        assert_eq!(collisions[0].wanted, "a__b__c");
        assert_eq!(collisions[0].given, "a__b__c_2");
        // Every name unique: nothing dropped, nothing shadowed.
        let unique: HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
    }

    /// A server cannot serve a tool under a name of Airlock's own, in any
    /// case or with any separator that makes one.
    #[test]
    fn airlocks_own_names_are_reserved() {
        let pairs = [
            ("airlock", "find_tools"),
            ("AirLock", "call_tool"),
            ("airlock_", "_x"),
            ("airlock__find", "tools"),
            ("server-airlock", "find_tools"),
            ("airlocks", "find_tools"),
        ];
        let (names, collisions) = assign(&pairs, DEFAULT_SEPARATOR);
        assert_eq!(
            names,
            [
                "server-airlock__find_tools",
                "server-AirLock__call_tool",
                "server-airlock____x",
                "server-airlock__find__tools",
                "server-airlock__find_tools_2",
                "airlocks__find_tools",
            ]
        );
        assert!(names.iter().all(|n| !is_reserved(n)));
        assert_eq!(collisions.iter().filter(|c| c.reserved).count(), 4);
        let (names, _) = assign(&[("airlock", "_x")], "_");
        assert_eq!(names, ["server-airlock__x"]);
        assert!(is_reserved("AIRLOCK__find_tools") && !is_reserved("airlock_"));
    }

    #[test]
    fn the_separator_is_a_parameter() {
        let (names, _) = assign(&[("s", "t")], ".");
        assert_eq!(names, ["s.t"]);
    }
}
