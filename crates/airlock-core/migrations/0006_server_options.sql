-- Per-server options the user sets (protocol revision, environment a stdio
-- server inherits, plain-http opt-in) as JSON, and what Airlock learned or
-- was told about the server: the protocol revision automatic mode settled
-- on, and whether the user paused it.
ALTER TABLE servers ADD COLUMN options_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE servers ADD COLUMN protocol_learned TEXT;
ALTER TABLE servers ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
