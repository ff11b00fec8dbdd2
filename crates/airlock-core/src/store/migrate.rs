//! Numbered schema migrations, embedded in the binary, tracked in `PRAGMA user_version`.

use std::path::Path;

use rusqlite::Connection;

use super::{StoreError, StoreResult};

/// `(version, sql)`: applying migration N brings the schema to version N.
pub const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../../migrations/0001_init.sql")),
    (
        2,
        include_str!("../../migrations/0002_elicitations_audit_logs.sql"),
    ),
    (3, include_str!("../../migrations/0003_meta.sql")),
    (4, include_str!("../../migrations/0004_runs.sql")),
    (5, include_str!("../../migrations/0005_opened_domains.sql")),
    (6, include_str!("../../migrations/0006_server_options.sql")),
    (
        7,
        include_str!("../../migrations/0007_tool_call_client.sql"),
    ),
    (8, include_str!("../../migrations/0008_clients.sql")),
    (
        9,
        include_str!("../../migrations/0009_history_at_scale.sql"),
    ),
    (
        10,
        include_str!("../../migrations/0010_elicitation_client.sql"),
    ),
    (11, include_str!("../../migrations/0011_client_paused.sql")),
    (
        12,
        include_str!("../../migrations/0012_elicitation_client_index.sql"),
    ),
    (
        13,
        include_str!("../../migrations/0013_audit_kind_index.sql"),
    ),
    (
        14,
        include_str!("../../migrations/0014_tool_call_search.sql"),
    ),
    (15, include_str!("../../migrations/0015_audit_search.sql")),
    (16, include_str!("../../migrations/0016_trust.sql")),
    (
        17,
        include_str!("../../migrations/0017_tool_calls_most_used.sql"),
    ),
    (18, include_str!("../../migrations/0018_tools_off.sql")),
    (19, include_str!("../../migrations/0019_catalog.sql")),
    (20, include_str!("../../migrations/0020_installs.sql")),
];

pub const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

/// Bring `conn` up to `target` (each step in its own transaction).
/// Exposed for tests that build databases of earlier versions.
pub fn migrate(conn: &Connection, path: &Path, target: i64) -> StoreResult<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > LATEST_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_owned(),
            found: current,
            known: LATEST_VERSION,
        });
    }
    for (version, sql) in MIGRATIONS {
        if *version <= current || *version > target {
            continue;
        }
        let step = || -> rusqlite::Result<()> {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            conn.execute_batch(sql)?;
            conn.pragma_update(None, "user_version", version)?;
            conn.execute_batch("COMMIT")
        };
        if let Err(source) = step() {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(StoreError::Migration {
                version: *version,
                source,
            });
        }
    }
    Ok(())
}

/// Create a database at an earlier schema version (for upgrade tests).
pub fn create_at_version(path: &Path, version: i64) -> StoreResult<Connection> {
    let conn = Connection::open(path).map_err(|source| StoreError::Open {
        path: path.to_owned(),
        source,
    })?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    super::search::register(&conn)?;
    migrate(&conn, path, version)?;
    Ok(conn)
}
