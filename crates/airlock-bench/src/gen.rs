//! Generated history shaped like real use: tool calls of a handful of servers
//! (skewed), some through gateway clients, JSON arguments and results with
//! words from a Zipf-like vocabulary; URL elicitations with real-looking
//! domains, URLs and messages; audit events. Deterministic (fixed seed).

use std::time::Instant;

use airlock_core::store::{NewToolCall, Store, ToolCallOutcome};
use rusqlite::{params, Connection};

/// Generated time span, ending now.
pub const SPAN_MS: i64 = 90 * 86_400_000;
/// A word in no generated row.
pub const NO_MATCH: &str = "zyzzogeton";
const VOCAB: usize = 4000;
const SYLLABLES: [&str; 16] = [
    "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "po", "qu", "re", "li", "da", "fo", "gu",
];
const SERVERS: [(&str, u32, &[&str]); 8] = [
    (
        "git",
        30,
        &["git_log", "git_diff", "git_status", "git_commit"],
    ),
    ("github", 20, &["create_issue", "list_pulls", "get_file"]),
    ("filesystem", 20, &["read_file", "write_file", "list_dir"]),
    ("postgres", 10, &["query"]),
    ("slack", 8, &["post_message", "search_messages"]),
    ("browser", 7, &["navigate", "screenshot"]),
    ("stripe", 3, &["create_invoice", "refund"]),
    ("everything", 2, &["echo"]),
];
const CLIENTS: [(Option<&str>, u32); 4] = [
    (None, 60),
    (Some("claude-desktop"), 25),
    (Some("cursor"), 10),
    (Some("vscode"), 5),
];
const HOSTS: [(&str, &str); 7] = [
    ("github.com", "github.com"),
    ("accounts.google.com", "google.com"),
    ("login.microsoftonline.com", "microsoftonline.com"),
    ("checkout.stripe.com", "stripe.com"),
    ("auth.atlassian.com", "atlassian.com"),
    ("slack.com", "slack.com"),
    ("www.notion.so", "notion.so"),
];
const STATES: [(&str, u32); 6] = [
    ("completed", 50),
    ("declined", 15),
    ("expired", 10),
    ("opened", 10),
    ("cancelled", 10),
    ("blocked", 5),
];

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn weighted<T: Copy>(&mut self, items: &[(T, u32)]) -> T {
        let total: u32 = items.iter().map(|(_, w)| w).sum();
        let mut pick = self.below(total as usize) as u32;
        for (item, w) in items {
            if pick < *w {
                return *item;
            }
            pick -= w;
        }
        items[0].0
    }
}

/// The i-th word of the vocabulary: three syllables, deterministic.
pub fn word(i: usize) -> String {
    let n = i.wrapping_mul(2_654_435_761) ^ i;
    (0..3)
        .map(|k| SYLLABLES[(n >> (k * 4)) & 15])
        .chain(std::iter::once(["", "x", "ly", "on"][i % 4]))
        .collect::<String>()
        + &(i / 64).to_string()
}

/// A word drawn Zipf-like: low indices are common, high ones rare.
fn draw(rng: &mut Rng) -> String {
    word((rng.unit().powi(4) * VOCAB as f64) as usize)
}

fn words(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| draw(rng)).collect::<Vec<_>>().join(" ")
}

fn tool_call(rng: &mut Rng, at: i64) -> NewToolCall {
    let (server, tools) = {
        let list: Vec<((&str, &[&str]), u32)> =
            SERVERS.iter().map(|(s, w, t)| ((*s, *t), *w)).collect();
        rng.weighted(&list)
    };
    let tool = tools[rng.below(tools.len())];
    let roll = rng.below(100);
    let outcome = match roll {
        0..=92 => ToolCallOutcome::Ok,
        93..=97 => ToolCallOutcome::ToolError,
        _ => ToolCallOutcome::Failed,
    };
    let n = 20 + rng.below(40);
    let text = words(rng, n);
    let args = serde_json::json!({
        "path": format!("/home/dev/proj-{}/src/{}.rs", rng.below(50), draw(rng)),
        "query": words(rng, 3),
    });
    let (result, error) = match outcome {
        ToolCallOutcome::Ok => (
            Some(
                serde_json::json!({"content": [{"type": "text", "text": text}], "isError": false}),
            ),
            None,
        ),
        ToolCallOutcome::ToolError => (
            Some(
                serde_json::json!({"content": [{"type": "text", "text": format!("error: {} not found", draw(rng))}], "isError": true}),
            ),
            None,
        ),
        ToolCallOutcome::Failed => (
            None,
            Some(
                [
                    "connection closed".to_owned(),
                    "timed out after 60 s".to_owned(),
                    format!("server returned -32603: internal error in {}", draw(rng)),
                ][rng.below(3)]
                .clone(),
            ),
        ),
    };
    NewToolCall {
        app: rng.weighted(&CLIENTS).map(str::to_owned),
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments_json: args.to_string(),
        result_json: result.map(|r| r.to_string()),
        outcome,
        error,
        started_at: at,
        duration_ms: rng.below(2000) as i64,
    }
}

/// Spread `i` of `n` over the span ending at `now`, with up to 2 s of
/// jitter so list order by time and by id differ a little, as with calls
/// that overlap.
fn time_of(rng: &mut Rng, now: i64, i: usize, n: usize) -> i64 {
    now - SPAN_MS + (i as i64 * SPAN_MS) / n.max(1) as i64 + rng.below(2000) as i64 - 2000
}

/// Insert `rows` tool calls through the store (batches of 5,000, one
/// transaction each), `rows / 10` elicitations and `rows / 5` audit events.
/// Returns seconds spent on each kind.
pub fn fill(store: &Store, conn: &Connection, rows: usize, now: i64) -> Result<[f64; 3], String> {
    // The audit events go in through `conn`: their index's triggers call these.
    airlock_core::store::register_functions(conn).map_err(|e| e.to_string())?;
    let mut rng = Rng::new(0x5eed);
    let t = Instant::now();
    let mut batch = Vec::with_capacity(5000);
    for i in 0..rows {
        let at = time_of(&mut rng, now, i, rows);
        batch.push(tool_call(&mut rng, at));
        if batch.len() == 5000 || i + 1 == rows {
            store.record_tool_calls(&batch).map_err(|e| e.to_string())?;
            batch.clear();
        }
    }
    let calls = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let n = rows / 10;
    in_batches(conn, n, |tx, i| {
        let (host, domain) = HOSTS[rng.below(HOSTS.len())];
        let (host, domain) = if rng.below(10) == 0 {
            let d = format!("{}.com", draw(&mut rng));
            (format!("login.{d}"), d)
        } else {
            (host.to_owned(), domain.to_owned())
        };
        let url = format!(
            "https://{host}/oauth/authorize?client_id={:x}&state={:x}",
            rng.next() >> 16,
            rng.next()
        );
        let message = if domain == "stripe.com" {
            format!("Pay invoice {} for {}", rng.below(100_000), draw(&mut rng))
        } else {
            format!(
                "Sign in to {domain} so the server can {}",
                words(&mut rng, 3)
            )
        };
        let server = SERVERS[rng.below(SERVERS.len())].0;
        let at = time_of(&mut rng, now, i, n);
        tx.execute(
            "INSERT INTO elicitations (server_name, mode, origin, message, url, registrable_domain,
               verdict, state, created_at, updated_at)
             VALUES (?1, 'url', 'request', ?2, ?3, ?4, 'ok', ?5, ?6, ?6)",
            params![server, message, url, domain, rng.weighted(&STATES), at],
        )
        .map(drop)
    })?;
    let elicitations = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let n = rows / 5;
    in_batches(conn, n, |tx, i| {
        let server = SERVERS[rng.below(SERVERS.len())].0;
        let kind = ["elicitation", "consent", "opened", "connect"][rng.below(4)];
        let mut detail =
            serde_json::json!({"record_id": i, "state": "completed", "reason": words(&mut rng, 4)});
        if let Some(client) = rng.weighted(&CLIENTS) {
            detail["client"] = client.into();
        }
        tx.execute(
            "INSERT INTO audit_events (at, server_name, kind, detail_json) VALUES (?1, ?2, ?3, ?4)",
            params![
                time_of(&mut rng, now, i, n),
                server,
                kind,
                detail.to_string()
            ],
        )
        .map(drop)
    })?;
    Ok([calls, elicitations, t.elapsed().as_secs_f64()])
}

fn in_batches(
    conn: &Connection,
    n: usize,
    mut row: impl FnMut(&Connection, usize) -> rusqlite::Result<()>,
) -> Result<(), String> {
    let e = |e: rusqlite::Error| e.to_string();
    for start in (0..n).step_by(10_000) {
        conn.execute_batch("BEGIN").map_err(e)?;
        for i in start..(start + 10_000).min(n) {
            row(conn, i).map_err(e)?;
        }
        conn.execute_batch("COMMIT").map_err(e)?;
    }
    Ok(())
}
