-- History at a million rows (issue 15). Lists are newest first by
-- (time, id), so every filter gets an index in that order (SQLite appends
-- the rowid to each index); text search goes through FTS5 tables with the
-- trigram tokenizer, kept in step with their tables by triggers and filled
-- here for existing rows. `detail=none` (no positions) halves the index:
-- a search asks for rows holding every trigram of the term, then checks
-- the substring itself on those rows (store/queries.rs).

-- 0004 created a second index on elicitations (state); keep one, in list order.
DROP INDEX IF EXISTS elicitations_by_state;
DROP INDEX IF EXISTS elicitations_state;
CREATE INDEX elicitations_state ON elicitations (state, created_at);
CREATE INDEX elicitations_created ON elicitations (created_at);

CREATE INDEX tool_calls_outcome ON tool_calls (outcome, started_at);
CREATE INDEX tool_calls_server_outcome ON tool_calls (server_name, outcome, started_at);
-- An app's calls to one server (the gateway's history by client).
CREATE INDEX tool_calls_client_server ON tool_calls (client, server_name, started_at);

CREATE VIRTUAL TABLE tool_calls_fts USING fts5(
    tool, arguments_json, result_json, error,
    content = 'tool_calls', content_rowid = 'id', tokenize = 'trigram',
    detail = none, columnsize = 0
);
CREATE TRIGGER tool_calls_fts_insert AFTER INSERT ON tool_calls BEGIN
    INSERT INTO tool_calls_fts (rowid, tool, arguments_json, result_json, error)
    VALUES (new.id, new.tool, new.arguments_json, new.result_json, new.error);
END;
CREATE TRIGGER tool_calls_fts_delete AFTER DELETE ON tool_calls BEGIN
    INSERT INTO tool_calls_fts (tool_calls_fts, rowid, tool, arguments_json, result_json, error)
    VALUES ('delete', old.id, old.tool, old.arguments_json, old.result_json, old.error);
END;
CREATE TRIGGER tool_calls_fts_update AFTER UPDATE OF tool, arguments_json, result_json, error ON tool_calls BEGIN
    INSERT INTO tool_calls_fts (tool_calls_fts, rowid, tool, arguments_json, result_json, error)
    VALUES ('delete', old.id, old.tool, old.arguments_json, old.result_json, old.error);
    INSERT INTO tool_calls_fts (rowid, tool, arguments_json, result_json, error)
    VALUES (new.id, new.tool, new.arguments_json, new.result_json, new.error);
END;
INSERT INTO tool_calls_fts (tool_calls_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE elicitations_fts USING fts5(
    server_name, message, url, registrable_domain,
    content = 'elicitations', content_rowid = 'id', tokenize = 'trigram',
    detail = none, columnsize = 0
);
CREATE TRIGGER elicitations_fts_insert AFTER INSERT ON elicitations BEGIN
    INSERT INTO elicitations_fts (rowid, server_name, message, url, registrable_domain)
    VALUES (new.id, new.server_name, new.message, new.url, new.registrable_domain);
END;
CREATE TRIGGER elicitations_fts_delete AFTER DELETE ON elicitations BEGIN
    INSERT INTO elicitations_fts (elicitations_fts, rowid, server_name, message, url, registrable_domain)
    VALUES ('delete', old.id, old.server_name, old.message, old.url, old.registrable_domain);
END;
-- State changes (the common update) leave the index alone.
CREATE TRIGGER elicitations_fts_update AFTER UPDATE OF server_name, message, url, registrable_domain ON elicitations BEGIN
    INSERT INTO elicitations_fts (elicitations_fts, rowid, server_name, message, url, registrable_domain)
    VALUES ('delete', old.id, old.server_name, old.message, old.url, old.registrable_domain);
    INSERT INTO elicitations_fts (rowid, server_name, message, url, registrable_domain)
    VALUES (new.id, new.server_name, new.message, new.url, new.registrable_domain);
END;
INSERT INTO elicitations_fts (elicitations_fts) VALUES ('rebuild');
