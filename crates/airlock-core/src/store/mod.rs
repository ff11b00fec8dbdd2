//! SQLite store: migrations, server definitions, history, audit trail, logs.
//!
//! One file per data dir, WAL mode, numbered migrations embedded in the binary.
//! Nothing secret is ever written here: server configs hold keychain references.

pub mod apps;
pub mod catalog;
mod domains;
mod history;
pub mod installs;
mod migrate;
pub mod owners;
pub mod pins;
mod queries;
mod search;
mod switches;
pub use switches::{ServerGlance, GLANCE_APPS, GLANCE_DAYS};
mod usage;
mod where_clause;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

pub use domains::MAX_KNOWN_DOMAINS;
pub use history::{
    AuditEvent, ElicitationRecord, HistoryPage, HistoryQuery, LogLine, NewElicitation, NewToolCall,
    ToolCallOutcome, ToolCallRecord,
};
pub use migrate::{create_at_version, LATEST_VERSION, MIGRATIONS};
pub use queries::{
    AuditPage, AuditQuery, ElicitationPage, ElicitationQuery, MAX_AUDIT_KINDS,
    MIN_INDEXED_SEARCH_CHARS,
};
pub use usage::{ToolUse, MOST_USED_WINDOW};
pub use writer::{HistoryWriter, HISTORY_BATCH, HISTORY_GATHER, HISTORY_QUEUE};

/// Register the SQL functions the history's triggers call (the text its
/// search indexes hold) on a connection of Airlock's own: any connection
/// that writes tool calls or audit events needs them ([`Store`] does it).
pub fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    search::register(conn)
}

/// Name of the database file inside the data dir.
pub const DB_FILE: &str = "airlock.sqlite3";
/// Newest log lines kept per server; older ones are trimmed on insert.
pub const MAX_LOG_LINES_PER_SERVER: i64 = 2000;
/// Longest single log line kept, in bytes (longer lines are cut at a char boundary).
pub const MAX_LOG_LINE_BYTES: usize = 4096;
/// Connection attempts kept per server (older rows are pruned on insert).
pub const MAX_CONNECTIONS_PER_SERVER: i64 = 200;
/// Largest server info (name, version, capabilities, instructions) kept per
/// connection, in bytes of JSON.
pub const MAX_SERVER_INFO_BYTES: usize = 32 * 1024;
/// Largest page a history query returns.
pub const MAX_PAGE: u32 = 1000;
/// Rows deleted per statement when history is pruned: the store is free
/// for other work between batches, so pruning a million rows never holds
/// it for long.
pub const PRUNE_BATCH: usize = 500;
/// Pause between prune batches: the store's mutex is not fair, so a
/// reader waiting for it gets its turn here.
pub const PRUNE_PAUSE: std::time::Duration = std::time::Duration::from_millis(2);
/// Pages of a search index merged per statement by [`Store::tidy_search`].
pub const TIDY_PAGES: i64 = 256;
/// Most merge statements per index and tidy (a bound, not a target).
const MAX_TIDY_STEPS: usize = 100_000;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database at {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("the database at {path} was written by a newer Airlock (schema {found}, this build knows {known}); upgrade Airlock or use another --data-dir")]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("migration {version} failed: {source}")]
    Migration {
        version: i64,
        source: rusqlite::Error,
    },
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("{0}")]
    Unsafe(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A stored server row: the definition as JSON (secret values replaced by references).
#[derive(Debug, Clone, Serialize)]
pub struct ServerRow {
    pub name: String,
    pub transport: String,
    pub config_json: String,
    pub options_json: String,
    pub protocol_learned: Option<String>,
    pub paused: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A server definition to store: name, transport kind, config and options (JSON).
#[derive(Debug, Clone)]
pub struct NewServerRow {
    pub name: String,
    pub transport: String,
    pub config_json: String,
    pub options_json: String,
}

pub struct Store {
    conn: Mutex<Connection>,
    path: PathBuf,
    /// The run (process) that records elicitations through this store.
    run_id: std::sync::OnceLock<String>,
    /// Writes to `clients` through this connection (see
    /// [`Store::apps_stamp`]).
    app_writes: std::sync::atomic::AtomicU64,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Cut `text` to at most `max` bytes on a char boundary, marking the cut.
pub fn truncate_text(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} bytes cut]", &text[..end], text.len() - end)
}

/// Create `dir` (and its parents) if missing; a folder Airlock creates is
/// readable by this user only (0700; on Windows an access list of this user
/// alone: airlock_platform::private_files).
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    airlock_platform::private_files::create_dir(dir)
}

/// Create the database file private (0600) before SQLite does, or tighten
/// an existing one (and its -wal / -shm files).
fn make_private_file(path: &Path) -> std::io::Result<()> {
    airlock_platform::private_files::open(
        path,
        std::fs::OpenOptions::new().create(true).append(true),
    )?;
    for suffix in ["", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", path.display()));
        if p.exists() {
            airlock_platform::private_files::restrict(&p)?;
        }
    }
    Ok(())
}

impl Store {
    /// Open (creating if needed) the database file and bring it to the latest schema.
    pub fn open(path: &Path) -> StoreResult<Store> {
        Self::open_checked(path, false)
    }

    /// [`Store::open`]; with `data_dir`, the folder holding the database is
    /// Airlock's data dir and is checked again at every start: made 0700 if
    /// someone opened it up, refused if another user owns it. (Only then: a
    /// database given by path, a benchmark's say, may sit in any folder.)
    fn open_checked(path: &Path, data_dir: bool) -> StoreResult<Store> {
        let mut made_private = None;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            // A missing parent shows up as an Open error below, with the path.
            let _ = create_private_dir(parent);
            let checked = if data_dir {
                airlock_platform::private_files::make_dir_private(parent)
            } else {
                Ok(false)
            };
            match checked {
                Ok(true) => made_private = Some(parent.to_owned()),
                Ok(false) => {}
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                    return Err(StoreError::Unsafe(format!(
                        "the data folder {e}: Airlock keeps its database only in a folder of yours (use another --data-dir)"
                    )));
                }
                Err(_) => {}
            }
        }
        // Only this user may read the database; SQLite gives its -wal and
        // -shm files the same mode.
        let _ = make_private_file(path);
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_owned(),
            source,
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        search::register(&conn)?;
        migrate::migrate(&conn, path, LATEST_VERSION)?;
        let store = Store {
            conn: Mutex::new(conn),
            path: path.to_owned(),
            run_id: std::sync::OnceLock::new(),
            app_writes: std::sync::atomic::AtomicU64::new(0),
        };
        if let Some(dir) = made_private {
            eprintln!(
                "airlock: the data folder {} could be read by other users: made private again (0700)",
                dir.display()
            );
            let _ = store.audit(
                None,
                "data_dir_made_private",
                &serde_json::json!({"path": dir.display().to_string()}),
            );
        }
        Ok(store)
    }

    /// Open the database in a data dir (`<dir>/airlock.sqlite3`).
    pub fn open_in(data_dir: &Path) -> StoreResult<Store> {
        Self::open_checked(&data_dir.join(DB_FILE), true)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Tag the elicitations recorded from now on with this run's id.
    pub fn set_run_id(&self, id: &str) {
        let _ = self.run_id.set(id.to_owned());
    }

    pub(crate) fn run_id(&self) -> Option<&str> {
        self.run_id.get().map(String::as_str)
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written
        // (transactions roll back), so a poisoned lock is still usable.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn schema_version(&self) -> StoreResult<i64> {
        Ok(self
            .lock()
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// Unique id of this database (and so of this data dir).
    pub fn instance_id(&self) -> StoreResult<String> {
        Ok(self.lock().query_row(
            "SELECT value FROM meta WHERE key = 'instance_id'",
            [],
            |r| r.get(0),
        )?)
    }

    /// Delete tool calls, elicitations and audit events older than
    /// `before_ms`, [`PRUNE_BATCH`] rows per statement, letting go of the
    /// store between batches. Returns the rows removed.
    pub fn prune_history(&self, before_ms: i64) -> StoreResult<usize> {
        let mut total = 0;
        for (table, time) in [
            ("tool_calls", "started_at"),
            ("elicitations", "created_at"),
            ("audit_events", "at"),
        ] {
            let sql = format!(
                "DELETE FROM {table} WHERE id IN
                   (SELECT id FROM {table} WHERE {time} < ?1 ORDER BY {time} LIMIT ?2)"
            );
            loop {
                let n = self.prune_batch(&sql, before_ms)?;
                total += n;
                if n < PRUNE_BATCH {
                    break;
                }
                std::thread::sleep(PRUNE_PAUSE);
            }
        }
        self.tidy_search()?;
        Ok(total)
    }

    /// Merge the segments of the search indexes, [`TIDY_PAGES`] pages per
    /// statement, letting go of the store between them: each token a
    /// search asks costs a look in every segment (a million calls inserted
    /// leave about 20; merged, one or two). Returns the statements that
    /// did work. Run after pruning; cheap when there is nothing to merge.
    pub fn tidy_search(&self) -> StoreResult<usize> {
        let mut steps = 0;
        for fts in ["tool_calls_search", "audit_events_search"] {
            let sql = format!("INSERT INTO {fts} ({fts}, rank) VALUES ('merge', ?1)");
            for _ in 0..MAX_TIDY_STEPS {
                let conn = self.lock();
                let before = conn.total_changes();
                conn.prepare_cached(&sql)?.execute([TIDY_PAGES])?;
                // The statement itself counts one: more is merge work.
                let worked = conn.total_changes() - before > 1;
                drop(conn);
                if !worked {
                    break;
                }
                steps += 1;
                std::thread::sleep(PRUNE_PAUSE);
            }
        }
        Ok(steps)
    }

    fn prune_batch(&self, sql: &str, before_ms: i64) -> StoreResult<usize> {
        let limit = i64::try_from(PRUNE_BATCH).unwrap_or(i64::MAX);
        Ok(self
            .lock()
            .prepare_cached(sql)?
            .execute(params![before_ms, limit])?)
    }

    // ----- servers -----

    /// Insert several servers in one transaction: all land or none does.
    pub fn insert_servers(&self, rows: &[NewServerRow]) -> StoreResult<()> {
        let now = now_ms();
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        for r in rows {
            tx.execute(
                "INSERT INTO servers (name, transport, config_json, options_json, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![r.name, r.transport, r.config_json, r.options_json, now],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Replace a server's definition; a changed protocol choice forgets
    /// what automatic mode had learned.
    pub fn update_server(&self, row: &NewServerRow) -> StoreResult<bool> {
        let n = self.lock().execute(
            "UPDATE servers SET transport = ?2, config_json = ?3,
               protocol_learned = CASE WHEN options_json = ?4 THEN protocol_learned ELSE NULL END,
               options_json = ?4, updated_at = ?5
             WHERE name = ?1",
            params![
                row.name,
                row.transport,
                row.config_json,
                row.options_json,
                now_ms()
            ],
        )?;
        Ok(n > 0)
    }

    /// Replace a server's options alone (its room's settings), keeping
    /// what automatic mode learned.
    pub fn set_server_options(&self, name: &str, options_json: &str) -> StoreResult<bool> {
        let n = self.lock().execute(
            "UPDATE servers SET options_json = ?2, updated_at = ?3 WHERE name = ?1",
            params![name, options_json, now_ms()],
        )?;
        Ok(n > 0)
    }

    /// Remember the protocol revision automatic mode settled on (`None`: forget).
    pub fn set_protocol_learned(&self, name: &str, version: Option<&str>) -> StoreResult<()> {
        self.lock().execute(
            "UPDATE servers SET protocol_learned = ?2 WHERE name = ?1",
            params![name, version],
        )?;
        Ok(())
    }

    /// Pause (or resume) a server: a paused server is not connected.
    pub fn set_paused(&self, name: &str, paused: bool) -> StoreResult<bool> {
        let n = self.lock().execute(
            "UPDATE servers SET paused = ?2 WHERE name = ?1",
            params![name, paused],
        )?;
        Ok(n > 0)
    }

    pub fn delete_server(&self, name: &str) -> StoreResult<bool> {
        let n = self
            .lock()
            .execute("DELETE FROM servers WHERE name = ?1", params![name])?;
        Ok(n > 0)
    }

    pub fn get_server(&self, name: &str) -> StoreResult<Option<ServerRow>> {
        Ok(self
            .lock()
            .query_row(
                "SELECT name, transport, config_json, options_json, protocol_learned, paused, created_at, updated_at
                 FROM servers WHERE name = ?1",
                params![name],
                server_row,
            )
            .optional()?)
    }

    pub fn list_servers(&self) -> StoreResult<Vec<ServerRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT name, transport, config_json, options_json, protocol_learned, paused, created_at, updated_at
             FROM servers ORDER BY name",
        )?;
        let rows = stmt.query_map([], server_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    // ----- connections -----

    /// Record a connection attempt; only the newest
    /// [`MAX_CONNECTIONS_PER_SERVER`] attempts of a server are kept.
    pub fn connection_started(&self, server: &str) -> StoreResult<i64> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO connections (server_name, started_at, status) VALUES (?1, ?2, 'connecting')",
            params![server, now_ms()],
        )?;
        let id = conn.last_insert_rowid();
        conn.execute(
            "DELETE FROM connections WHERE server_name = ?1 AND id NOT IN
               (SELECT id FROM connections WHERE server_name = ?1 ORDER BY id DESC LIMIT ?2)",
            params![server, MAX_CONNECTIONS_PER_SERVER],
        )?;
        Ok(id)
    }

    pub fn connection_updated(
        &self,
        id: i64,
        status: &str,
        protocol_version: Option<&str>,
        server_info_json: Option<&str>,
        error: Option<&str>,
    ) -> StoreResult<()> {
        let ended = matches!(status, "failed" | "disconnected").then(now_ms);
        // A server chooses what it says about itself: keep a bounded part.
        let info = server_info_json.map(|j| {
            if j.len() <= MAX_SERVER_INFO_BYTES {
                j.to_owned()
            } else {
                serde_json::json!({"truncated": truncate_text(j, MAX_SERVER_INFO_BYTES)})
                    .to_string()
            }
        });
        let error = error.map(|e| truncate_text(e, MAX_LOG_LINE_BYTES));
        self.lock().execute(
            "UPDATE connections SET status = ?2, protocol_version = COALESCE(?3, protocol_version),
             server_info_json = COALESCE(?4, server_info_json), error = ?5, ended_at = ?6 WHERE id = ?1",
            params![id, status, protocol_version, info, error, ended],
        )?;
        Ok(())
    }

    // ----- logs -----

    pub fn append_log(
        &self,
        server: &str,
        source: &str,
        level: &str,
        text: &str,
    ) -> StoreResult<()> {
        let text = truncate_text(text, MAX_LOG_LINE_BYTES);
        let conn = self.lock();
        conn.execute(
            "INSERT INTO server_logs (server_name, at, source, level, text) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![server, now_ms(), source, level, text],
        )?;
        let id = conn.last_insert_rowid();
        // Keep the newest MAX_LOG_LINES_PER_SERVER rows; cheap with the (server, id) index.
        conn.execute(
            "DELETE FROM server_logs WHERE server_name = ?1 AND id <= ?2 - ?3",
            params![server, id, MAX_LOG_LINES_PER_SERVER],
        )?;
        Ok(())
    }

    /// The newest `limit` log lines of a server, oldest first.
    pub fn logs(&self, server: &str, limit: u32) -> StoreResult<Vec<LogLine>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT at, source, level, text FROM (
               SELECT id, at, source, level, text FROM server_logs WHERE server_name = ?1 ORDER BY id DESC LIMIT ?2
             ) ORDER BY id ASC",
        )?;
        let rows = stmt.query_map(params![server, limit.min(MAX_PAGE)], |r| {
            Ok(LogLine {
                at: r.get(0)?,
                source: r.get(1)?,
                level: r.get(2)?,
                text: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    // ----- audit -----

    pub fn audit(
        &self,
        server: Option<&str>,
        kind: &str,
        detail: &serde_json::Value,
    ) -> StoreResult<()> {
        self.lock().execute(
            "INSERT INTO audit_events (at, server_name, kind, detail_json) VALUES (?1, ?2, ?3, ?4)",
            params![now_ms(), server, kind, detail.to_string()],
        )?;
        Ok(())
    }
}

fn server_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ServerRow> {
    Ok(ServerRow {
        name: r.get(0)?,
        transport: r.get(1)?,
        config_json: r.get(2)?,
        options_json: r.get(3)?,
        protocol_learned: r.get(4)?,
        paused: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
    })
}
