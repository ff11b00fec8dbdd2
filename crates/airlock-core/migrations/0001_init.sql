-- Server definitions. Secret values are never stored here: `config_json`
-- holds keychain references only.
CREATE TABLE servers (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    transport   TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),
    config_json TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- One row per connection attempt.
CREATE TABLE connections (
    id               INTEGER PRIMARY KEY,
    server_name      TEXT NOT NULL,
    started_at       INTEGER NOT NULL,
    ended_at         INTEGER,
    status           TEXT NOT NULL,
    protocol_version TEXT,
    server_info_json TEXT,
    error            TEXT
);
CREATE INDEX connections_server ON connections (server_name, started_at);

CREATE TABLE tool_calls (
    id             INTEGER PRIMARY KEY,
    server_name    TEXT NOT NULL,
    tool           TEXT NOT NULL,
    arguments_json TEXT NOT NULL,
    result_json    TEXT,
    outcome        TEXT NOT NULL CHECK (outcome IN ('ok', 'tool_error', 'failed')),
    error          TEXT,
    started_at     INTEGER NOT NULL,
    duration_ms    INTEGER NOT NULL
);
CREATE INDEX tool_calls_started ON tool_calls (started_at);
CREATE INDEX tool_calls_server ON tool_calls (server_name, started_at);
