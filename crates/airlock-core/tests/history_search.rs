//! Search in the tool-call history gives what a plain scan gives (issue
//! 15): every page of every search, with every filter, holds the same calls
//! in the same order as reading the whole table would: the term a
//! case-insensitive (ASCII, as SQLite's LIKE) substring of the tool,
//! arguments, result or error, `%`, `_` and `\` plain text; newest start
//! time first, then highest id. Terms of 1, 2 and more characters,
//! non-ASCII and CJK, over calls whose ids and start times disagree (a
//! call is recorded when it ends).

use airlock_core::store::{create_at_version, HistoryQuery, NewToolCall, Store, ToolCallOutcome};

const DAY: i64 = 86_400_000;
const T0: i64 = 1_767_225_600_000;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

const WORDS: [&str; 16] = [
    "alpha",
    "Beta",
    "été",
    "ÉTÉ",
    "中文",
    "文件",
    "100%",
    "a_b",
    "back\\slash",
    "qz",
    "zq",
    "Kangaroo",
    "x",
    "é",
    "naïve",
    "%_",
];
const SERVERS: [&str; 4] = ["git", "github", "stripe", "everything"];
const CLIENTS: [Option<&str>; 3] = [None, Some("cursor"), Some("vscode")];

/// `n` calls: a few words each, in arguments, result or error; start times
/// one minute apart with most calls recorded up to 3 minutes late, a few
/// `latest` late, some sharing a start time.
fn calls(n: usize, seed: u64) -> Vec<NewToolCall> {
    calls_late(n, seed, DAY)
}

fn calls_late(n: usize, seed: u64, latest: i64) -> Vec<NewToolCall> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| {
            let mut words = |k: usize| {
                (0..k)
                    .map(|_| WORDS[rng.below(WORDS.len())])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let args = serde_json::json!({"q": words(2)}).to_string();
            let text = words(3);
            let outcome = [
                ToolCallOutcome::Ok,
                ToolCallOutcome::ToolError,
                ToolCallOutcome::Failed,
            ][rng.below(3)];
            let (result, error) = match outcome {
                ToolCallOutcome::Failed => (None, Some(text)),
                _ => (Some(serde_json::json!({"text": text}).to_string()), None),
            };
            let late = match rng.below(20) {
                0 => latest,
                1..=9 => rng.below(180_000) as i64,
                _ => 0,
            };
            let started_at = T0 + (i as i64) * 60_000 - late - if i % 7 == 0 { 60_000 } else { 0 };
            NewToolCall {
                app: CLIENTS[rng.below(CLIENTS.len())].map(str::to_owned),
                server: SERVERS[rng.below(SERVERS.len())].to_owned(),
                tool: ["echo", "Read_File", "list_dir"][rng.below(3)].to_owned(),
                arguments_json: args,
                result_json: result,
                outcome,
                error,
                started_at,
                duration_ms: 1,
            }
        })
        .collect()
}

/// SQLite's LIKE with every wildcard escaped: ASCII letters fold, nothing else.
fn holds(text: &str, term: &str) -> bool {
    text.to_ascii_lowercase()
        .contains(&term.to_ascii_lowercase())
}

/// Every id matching `q`, in list order, read from the calls themselves.
fn scan(all: &[NewToolCall], q: &HistoryQuery) -> Vec<i64> {
    let term = q.search.as_deref().unwrap_or("");
    let mut hits: Vec<(i64, i64)> = all
        .iter()
        .zip(1..)
        .filter(|(c, _)| {
            [
                Some(&c.tool),
                Some(&c.arguments_json),
                c.result_json.as_ref(),
                c.error.as_ref(),
            ]
            .into_iter()
            .flatten()
            .any(|t| holds(t, term))
                && q.server.as_ref().is_none_or(|s| *s == c.server)
                && q.app
                    .as_ref()
                    .is_none_or(|s| c.app.as_deref() == Some(s.as_str()))
                && q.outcome.is_none_or(|o| o == c.outcome)
                && q.since_ms.is_none_or(|t| c.started_at >= t)
                && q.until_ms.is_none_or(|t| c.started_at < t)
        })
        .map(|(c, id)| (c.started_at, id))
        .collect();
    hits.sort_by(|a, b| b.cmp(a));
    hits.into_iter().map(|(_, id)| id).collect()
}

/// Every id the store gives for `q`, page after page.
fn paged(store: &Store, q: &HistoryQuery, limit: u32) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut before = None;
    loop {
        let page = store
            .history(&HistoryQuery {
                limit,
                before_id: before,
                ..q.clone()
            })
            .unwrap();
        assert!(page.calls.len() <= limit as usize);
        ids.extend(page.calls.iter().map(|c| c.id));
        match page.next_before_id {
            Some(id) => {
                assert_eq!(page.calls.len(), limit as usize, "a short page has no next");
                before = Some(id);
            }
            None => return ids,
        }
    }
}

const TERMS: [&str; 22] = [
    "e",
    "E",
    "é",
    "É",
    "中",
    "%",
    "_",
    "\\",
    "z",
    "q",
    "qz",
    "ZQ",
    "中文",
    "%_",
    "a_",
    "ï",
    "été",
    "ÉTÉ",
    "100%",
    "a_b",
    "kangaroo",
    "\"q\": \"x",
];

fn filters(n: usize) -> Vec<HistoryQuery> {
    let s = |t: &str| Some(t.to_owned());
    let mid = T0 + (n as i64) * 30_000;
    vec![
        HistoryQuery::default(),
        HistoryQuery {
            server: s("git"),
            ..Default::default()
        },
        HistoryQuery {
            app: s("vscode"),
            ..Default::default()
        },
        HistoryQuery {
            outcome: Some(ToolCallOutcome::Failed),
            ..Default::default()
        },
        HistoryQuery {
            since_ms: Some(mid),
            ..Default::default()
        },
        HistoryQuery {
            until_ms: Some(mid),
            ..Default::default()
        },
        HistoryQuery {
            since_ms: Some(mid - 100 * 60_000),
            until_ms: Some(mid + 50 * 60_000),
            ..Default::default()
        },
        HistoryQuery {
            server: s("stripe"),
            outcome: Some(ToolCallOutcome::ToolError),
            app: s("cursor"),
            ..Default::default()
        },
    ]
}

fn check_every_search(store: &Store, all: &[NewToolCall], terms: &[&str], limits: &[u32]) {
    let mut nonempty = 0;
    for filter in filters(all.len()) {
        for term in terms {
            let q = HistoryQuery {
                search: Some((*term).to_owned()),
                ..filter.clone()
            };
            let want = scan(all, &q);
            nonempty += usize::from(!want.is_empty());
            for &limit in limits {
                let got = paged(store, &q, limit);
                if got != want {
                    let at = got.iter().zip(&want).take_while(|(a, b)| a == b).count();
                    panic!(
                        "{term:?} {filter:?}, pages of {limit}: {} calls instead of {}, first difference at {at}: {:?} instead of {:?}",
                        got.len(),
                        want.len(),
                        got.get(at),
                        want.get(at)
                    );
                }
            }
        }
    }
    assert!(nonempty > terms.len() * 4, "the searches find calls");
}

#[test]
fn every_search_with_every_filter_gives_what_a_scan_gives_page_by_page() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let all = calls(1500, 0x5eed);
    for chunk in all.chunks(100) {
        store.record_tool_calls(chunk).unwrap();
    }
    check_every_search(&store, &all, &TERMS, &[3, 50]);
}

/// Calls at most 3 minutes late: the ids walked for a time range or a page
/// are bounded closely (and must still hold every match).
#[test]
fn close_bounds_on_ids_still_hold_every_match() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let all = calls_late(1500, 0x1a7e, 180_000);
    for chunk in all.chunks(10) {
        store.record_tool_calls(chunk).unwrap();
    }
    // 150 writes left segments to merge; searches give the same after.
    check_every_search(&store, &all, &["qz"], &[9]);
    assert!(store.tidy_search().unwrap() > 0);
    check_every_search(&store, &all, &["e", "qz", "a_b", "中"], &[2, 9]);
}

/// A database of schema 13 (searched through tool_calls_fts) is indexed
/// again by the upgrade, with the order of ids and start times taken from
/// its rows.
#[test]
fn searches_after_the_upgrade_from_schema_13_give_what_a_scan_gives() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.sqlite3");
    let all = calls(700, 0xfeed);
    {
        let conn = create_at_version(&path, 13).unwrap();
        let mut stmt = conn
            .prepare(
                "INSERT INTO tool_calls (server_name, tool, arguments_json, result_json, outcome, error, started_at, duration_ms, client)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .unwrap();
        for c in &all {
            stmt.execute(rusqlite::params![
                c.server,
                c.tool,
                c.arguments_json,
                c.result_json,
                c.outcome.as_str(),
                c.error,
                c.started_at,
                c.duration_ms,
                c.app
            ])
            .unwrap();
        }
    }
    let store = Store::open(&path).unwrap();
    check_every_search(&store, &all, &["é", "qz", "100%", "kangaroo"], &[4]);
    // Calls recorded after the upgrade are found too.
    let more = calls(300, 0xbeef);
    store.record_tool_calls(&more).unwrap();
    let every: Vec<NewToolCall> = all.into_iter().chain(more).collect();
    check_every_search(&store, &every, &["é", "a_", "中文"], &[7]);
}

/// Pruning removes calls from the index.
#[test]
fn pruned_calls_are_no_longer_found() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let all = calls(600, 0xabc);
    store.record_tool_calls(&all).unwrap();
    let cut = T0 + 300 * 60_000;
    store.prune_history(cut).unwrap();
    // Pruning merged the index's segments: nothing left to merge.
    assert_eq!(store.tidy_search().unwrap(), 0);
    let kept: Vec<NewToolCall> = all
        .iter()
        .map(|c| NewToolCall {
            // Pruned calls can match nothing.
            tool: if c.started_at < cut {
                String::new()
            } else {
                c.tool.clone()
            },
            arguments_json: if c.started_at < cut {
                String::new()
            } else {
                c.arguments_json.clone()
            },
            result_json: c.result_json.clone().filter(|_| c.started_at >= cut),
            error: c.error.clone().filter(|_| c.started_at >= cut),
            ..c.clone()
        })
        .collect();
    check_every_search(&store, &kept, &["é", "qz", "kangaroo"], &[5]);
}
