-- A client the user paused in Airlock (issue 13): the gateway refuses its
-- calls ("paused in Airlock") until it is resumed; nothing reaches the servers.
ALTER TABLE clients ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
