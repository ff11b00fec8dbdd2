//! Search by words over the tools the apps see (issue 26:
//! `airlock__find_tools`), through an SQLite FTS5 index the catalog keeps in
//! step with its [`View`]: one row per served tool (its exposed name, its
//! parameters' names, its title and description), updated with each view
//! (only the rows that changed), ranked by BM25 with the name weighing most.
//!
//! The index is an in-memory SQLite database of its own, not a table of
//! Airlock's file: the view it mirrors lives in memory and is built again
//! from the servers at every start, so a file would hold only stale rows,
//! and writing it at each list change would queue behind the history
//! writer on the shared file for nothing. The engine, tokenizer and ranking
//! are SQLite's own FTS5, as the history search's are.
//!
//! What a hostile server could try, and what stops it:
//! - Stuff a description with words to win every search: each word counts
//!   once per column (the indexed text is its distinct words), so repeating
//!   one gains nothing, and a longer text ranks lower per word (BM25's
//!   length normalisation); a description is indexed up to
//!   [`MAX_INDEXED_CHARS`] characters.
//! - Crowd other servers out of the answer: while other servers' tools
//!   match, one server gets at most [`MAX_SERVER_SHARE`] of the results.
//! - Break the query: the app's words are reduced to letters and digits
//!   (each a quoted FTS5 string), [`MAX_QUERY_CHARS`] and
//!   [`MAX_QUERY_WORDS`] bound it.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use rmcp::model::Tool;
use rusqlite::{params, Connection};

use crate::catalog::View;

/// Longest query an app may send, in characters.
pub const MAX_QUERY_CHARS: usize = 500;
/// Most words of a query searched (the first ones).
pub const MAX_QUERY_WORDS: usize = 16;
/// Longest word searched, in characters (a longer one is cut).
pub const MAX_WORD_CHARS: usize = 64;
/// Of a tool's title and description, the characters indexed.
pub const MAX_INDEXED_CHARS: usize = 4096;
/// Of a tool's parameters, the names indexed.
pub const MAX_INDEXED_PARAMS: usize = 64;
/// One server's share of an answer while others' tools match: at most
/// `limit / MAX_SERVER_SHARE` (rounded up) of the results.
pub const MAX_SERVER_SHARE: usize = 2;

/// BM25 weights of the columns: the name, the parameters' names, the title
/// and description.
const WEIGHTS: (f64, f64, f64) = (10.0, 4.0, 1.0);

/// An app's search, its words parsed and bounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    words: Vec<String>,
}

impl Query {
    /// The words of `text` (letters and digits; lower case), or why there
    /// are none to search.
    pub fn parse(text: &str) -> Result<Self, String> {
        let n = text.chars().count();
        if n > MAX_QUERY_CHARS {
            return Err(format!(
                "the query is {n} characters long; at most {MAX_QUERY_CHARS}: search with a few words"
            ));
        }
        let mut seen = HashSet::new();
        let words: Vec<String> = words_of(text)
            .map(|w| w.chars().take(MAX_WORD_CHARS).collect::<String>())
            .filter(|w| seen.insert(w.clone()))
            .take(MAX_QUERY_WORDS)
            .collect();
        if words.is_empty() {
            return Err("the query has no words (letters or digits) to search".to_owned());
        }
        Ok(Self { words })
    }

    /// The words searched.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// As an FTS5 query: any of the words, each also as a prefix.
    fn to_match(&self) -> String {
        self.words
            .iter()
            .map(|w| format!("\"{w}\"*"))
            .collect::<Vec<_>>()
            .join(" OR ")
    }
}

/// The lower-case runs of letters and digits of `text`.
fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The distinct words of `text`, with the parts of camelCase words too
/// (`createIssue`: `createissue create issue`).
fn distinct_words(text: &str, out: &mut Vec<String>, seen: &mut HashSet<String>) {
    for raw in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut parts = vec![raw.to_lowercase()];
        parts.extend(camel_parts(raw));
        for p in parts {
            if seen.insert(p.clone()) {
                out.push(p);
            }
        }
    }
}

/// The parts of a camelCase word (none when it has one part).
fn camel_parts(word: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in word.chars() {
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            parts.push(std::mem::take(&mut current).to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.push(c);
    }
    if !current.is_empty() {
        parts.push(current.to_lowercase());
    }
    if parts.len() < 2 {
        parts.clear();
    }
    parts
}

/// The three indexed columns of a tool.
fn columns(tool: &Tool) -> [String; 3] {
    let (mut name, mut seen) = (Vec::new(), HashSet::new());
    distinct_words(&tool.name, &mut name, &mut seen);
    let (mut params, mut seen) = (Vec::new(), HashSet::new());
    if let Some(props) = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
    {
        for key in props.keys().take(MAX_INDEXED_PARAMS) {
            distinct_words(key, &mut params, &mut seen);
        }
    }
    let text: String = [
        tool.title.as_deref(),
        tool.annotations.as_ref().and_then(|a| a.title.as_deref()),
        tool.description.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
    .chars()
    .take(MAX_INDEXED_CHARS)
    .collect();
    let (mut about, mut seen) = (Vec::new(), HashSet::new());
    distinct_words(&text, &mut about, &mut seen);
    [name.join(" "), params.join(" "), about.join(" ")]
}

fn fingerprint(cols: &[String; 3]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    cols.hash(&mut h);
    h.finish()
}

/// The index could not be made or read (the message says why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchError(pub String);

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the tool search is not available: {}", self.0)
    }
}

struct Index {
    conn: Connection,
    /// The view generation the rows are of.
    generation: Option<u64>,
    /// Exposed name -> (rowid, fingerprint of its columns).
    rows: HashMap<String, (i64, u64)>,
    names: HashMap<i64, String>,
    next_rowid: i64,
}

impl Index {
    fn open() -> rusqlite::Result<Self> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(
            "CREATE VIRTUAL TABLE tools USING fts5(
                 name, params, about,
                 tokenize = 'porter unicode61 remove_diacritics 2'
             );",
        )?;
        Ok(Self {
            conn,
            generation: None,
            rows: HashMap::new(),
            names: HashMap::new(),
            next_rowid: 1,
        })
    }

    /// Bring the rows in step with `view`: only what changed is written.
    fn sync(&mut self, view: &View) -> rusqlite::Result<()> {
        if self.generation.is_some_and(|g| g >= view.generation) {
            return Ok(());
        }
        let tx = self.conn.transaction()?;
        let mut keep: HashSet<&str> = HashSet::with_capacity(view.tools.len());
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO tools (rowid, name, params, about) VALUES (?1, ?2, ?3, ?4)",
            )?;
            let mut delete = tx.prepare_cached("DELETE FROM tools WHERE rowid = ?1")?;
            for tool in &view.tools {
                keep.insert(tool.name.as_ref());
                let cols = columns(tool);
                let print = fingerprint(&cols);
                match self.rows.get(tool.name.as_ref()) {
                    Some((_, p)) if *p == print => continue,
                    Some((rowid, _)) => {
                        delete.execute(params![rowid])?;
                        self.names.remove(rowid);
                    }
                    None => {}
                }
                let rowid = self.next_rowid;
                self.next_rowid += 1;
                insert.execute(params![rowid, cols[0], cols[1], cols[2]])?;
                self.rows.insert(tool.name.to_string(), (rowid, print));
                self.names.insert(rowid, tool.name.to_string());
            }
            let gone: Vec<(String, i64)> = self
                .rows
                .iter()
                .filter(|(name, _)| !keep.contains(name.as_str()))
                .map(|(name, (rowid, _))| (name.clone(), *rowid))
                .collect();
            for (name, rowid) in gone {
                delete.execute(params![rowid])?;
                self.rows.remove(&name);
                self.names.remove(&rowid);
            }
        }
        tx.commit()?;
        self.generation = Some(view.generation);
        Ok(())
    }

    /// Every matching exposed name, best first.
    fn matches(&self, query: &Query) -> rusqlite::Result<Vec<String>> {
        let (a, b, c) = WEIGHTS;
        let mut stmt = self.conn.prepare_cached(
            "SELECT rowid FROM tools WHERE tools MATCH ?1
             ORDER BY bm25(tools, ?2, ?3, ?4), rowid",
        )?;
        let rows = stmt.query_map(params![query.to_match(), a, b, c], |r| r.get::<_, i64>(0))?;
        let mut out = Vec::new();
        for rowid in rows {
            if let Some(name) = self.names.get(&rowid?) {
                out.push(name.clone());
            }
        }
        Ok(out)
    }
}

/// The catalog's tool search (see the module docs).
pub struct ToolSearch {
    index: Mutex<Result<Index, SearchError>>,
}

impl Default for ToolSearch {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolSearch {
    pub fn new() -> Self {
        let index = Index::open().map_err(|e| SearchError(e.to_string()));
        Self {
            index: Mutex::new(index),
        }
    }

    /// Bring the index in step with `view` (nothing when it is already of
    /// that view or a newer one).
    pub fn sync(&self, view: &View) -> Result<(), SearchError> {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let index = index.as_mut().map_err(|e| e.clone())?;
        index.sync(view).map_err(|e| SearchError(e.to_string()))
    }

    /// The exposed names of at most `limit` tools of `view` that match
    /// `query` and that `allowed` lets through, best first, with no server
    /// taking more than its share while others' tools match.
    pub fn find(
        &self,
        view: &View,
        query: &Query,
        limit: usize,
        allowed: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, SearchError> {
        let matched = {
            let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
            let index = index.as_mut().map_err(|e| e.clone())?;
            index.sync(view).map_err(|e| SearchError(e.to_string()))?;
            index
                .matches(query)
                .map_err(|e| SearchError(e.to_string()))?
        };
        let server_of = |name: &str| view.tool(name).map(|r| r.server.clone());
        let candidates: Vec<(String, String)> = matched
            .into_iter()
            .filter(|name| allowed(name))
            .filter_map(|name| server_of(&name).map(|s| (name, s)))
            .collect();
        Ok(fair_share(candidates, limit))
    }
}

/// At most `limit` of `ranked` (`(name, server)`, best first), in rank
/// order: first with each server's share bounded, then the rest of the
/// room filled in rank order.
fn fair_share(ranked: Vec<(String, String)>, limit: usize) -> Vec<String> {
    let share = limit.div_ceil(MAX_SERVER_SHARE).max(1);
    let mut taken: HashMap<&str, usize> = HashMap::new();
    let mut picked = vec![false; ranked.len()];
    let mut n = 0;
    for (i, (_, server)) in ranked.iter().enumerate() {
        if n == limit {
            break;
        }
        let count = taken.entry(server.as_str()).or_default();
        if *count < share {
            *count += 1;
            picked[i] = true;
            n += 1;
        }
    }
    for p in picked.iter_mut() {
        if n == limit {
            break;
        }
        if !*p {
            *p = true;
            n += 1;
        }
    }
    ranked
        .into_iter()
        .zip(picked)
        .filter_map(|((name, _), p)| p.then_some(name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_words_within_their_bounds() {
        let q = Query::parse("Create an ISSUE; create it \"now\" OR NEAR(x)").unwrap();
        assert_eq!(
            q.words(),
            ["create", "an", "issue", "it", "now", "or", "near", "x"]
        );
        assert_eq!(
            Query::parse(&"a".repeat(MAX_QUERY_CHARS))
                .unwrap()
                .words()
                .len(),
            1
        );
        assert!(Query::parse(&"a".repeat(MAX_QUERY_CHARS + 1)).is_err());
        assert!(Query::parse(" -- \"\" * ").is_err());
        let many: String = (0..MAX_QUERY_WORDS + 5).map(|i| format!("w{i} ")).collect();
        assert_eq!(Query::parse(&many).unwrap().words().len(), MAX_QUERY_WORDS);
        let long = Query::parse(&"b".repeat(MAX_WORD_CHARS + 10)).unwrap();
        assert_eq!(long.words()[0].chars().count(), MAX_WORD_CHARS);
    }

    #[test]
    fn camel_case_names_are_searchable_by_their_parts() {
        let (mut out, mut seen) = (Vec::new(), HashSet::new());
        distinct_words("gh__createIssue issue ISSUE", &mut out, &mut seen);
        assert_eq!(out, ["gh", "createissue", "create", "issue"]);
        assert_eq!(
            camel_parts("listPullRequests"),
            ["list", "pull", "requests"]
        );
        assert!(camel_parts("HTTPSERVER").is_empty());
    }

    #[test]
    fn one_server_takes_at_most_its_share_while_others_match() {
        let ranked: Vec<(String, String)> = (0..10)
            .map(|i| (format!("flood{i}"), "flood".to_owned()))
            .chain([("quiet".to_owned(), "quiet".to_owned())])
            .collect();
        let got = fair_share(ranked.clone(), 4);
        assert_eq!(got, ["flood0", "flood1", "flood2", "quiet"]);
        // Alone, a server fills the answer.
        let alone: Vec<_> = ranked.into_iter().take(10).collect();
        assert_eq!(fair_share(alone, 4).len(), 4);
    }
}
