-- One row per elicitation; `state` follows the broker's state machine.
CREATE TABLE elicitations (
    id                 INTEGER PRIMARY KEY,
    server_name        TEXT NOT NULL,
    connection_id      INTEGER,
    elicitation_id     TEXT,
    mode               TEXT NOT NULL CHECK (mode IN ('url', 'form')),
    origin             TEXT NOT NULL,
    message            TEXT NOT NULL,
    url                TEXT,
    registrable_domain TEXT,
    verdict            TEXT,
    warnings_json      TEXT NOT NULL DEFAULT '[]',
    state              TEXT NOT NULL,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);
CREATE INDEX elicitations_server ON elicitations (server_name, created_at);
CREATE INDEX elicitations_state ON elicitations (state);

-- Append-only trail of security-relevant events.
CREATE TABLE audit_events (
    id          INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    server_name TEXT,
    kind        TEXT NOT NULL,
    detail_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_at ON audit_events (at);
CREATE INDEX audit_events_server ON audit_events (server_name, at);

-- Bounded per-server log: stderr of stdio servers, notifications/message,
-- connection events. Trimmed to the newest rows per server on insert.
CREATE TABLE server_logs (
    id          INTEGER PRIMARY KEY,
    server_name TEXT NOT NULL,
    at          INTEGER NOT NULL,
    source      TEXT NOT NULL,
    level       TEXT NOT NULL,
    text        TEXT NOT NULL
);
CREATE INDEX server_logs_server ON server_logs (server_name, id);
