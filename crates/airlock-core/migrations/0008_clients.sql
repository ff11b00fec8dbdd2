-- The apps that attach to Airlock's gateway (issue 12): a name, whether it
-- has an HTTP bearer token (the token itself is in the OS keychain, never
-- here), and its profile: which servers (and optionally which tools) it
-- sees. profile_json NULL: every enabled server, every tool.
CREATE TABLE clients (
    name         TEXT PRIMARY KEY,
    token_set_at INTEGER,
    profile_json TEXT,
    created_at   INTEGER NOT NULL
);
