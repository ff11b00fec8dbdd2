-- Tool-call search at a million rows, any term length, with filters
-- (issue 15). One contentless FTS5 table replaces tool_calls_fts (0009);
-- each row's indexed text is made by airlock_search_text() (Rust,
-- store/search.rs, registered on every connection Airlock opens) from:
--   * the searched columns as they are: their trigrams answer terms of 3+
--     characters;
--   * the same text with U+0001 after each character ("\1a\1b\1c\1"): its
--     trigrams "\1a\1" and "a\1b" are the characters and pairs of
--     characters, so 1- and 2-character terms have an index too;
--   * "facets": U+0002 + o/s/c + a code of the outcome, server, app, so a
--     filter can narrow the index walk when it is selective.
-- The index only proposes rows: each is checked with LIKE and the filters
-- (store/search.rs), so the answer is exactly what a scan would give.
-- A row is removed from the index with the text it was indexed with
-- (made again from the row): airlock_search_text() must not change
-- without a migration that indexes every row again. (contentless_delete,
-- removal by id, cost more: pruning 65,000 of 100,000 calls took 71 s
-- instead of 7, with reads waiting up to 10 s.)
DROP TRIGGER IF EXISTS tool_calls_fts_insert;
DROP TRIGGER IF EXISTS tool_calls_fts_delete;
DROP TRIGGER IF EXISTS tool_calls_fts_update;
DROP TABLE IF EXISTS tool_calls_fts;

CREATE VIRTUAL TABLE tool_calls_search USING fts5(
    body, content = '', tokenize = 'trigram', detail = none, columnsize = 0
);
CREATE TRIGGER tool_calls_search_insert AFTER INSERT ON tool_calls BEGIN
    INSERT INTO tool_calls_search (rowid, body) VALUES (new.id, airlock_search_text(
        new.tool, new.arguments_json, new.result_json, new.error, new.outcome, new.server_name, new.client));
END;
CREATE TRIGGER tool_calls_search_delete AFTER DELETE ON tool_calls BEGIN
    INSERT INTO tool_calls_search (tool_calls_search, rowid, body) VALUES ('delete', old.id, airlock_search_text(
        old.tool, old.arguments_json, old.result_json, old.error, old.outcome, old.server_name, old.client));
END;
CREATE TRIGGER tool_calls_search_update AFTER UPDATE OF
    tool, arguments_json, result_json, error, outcome, server_name, client ON tool_calls BEGIN
    INSERT INTO tool_calls_search (tool_calls_search, rowid, body) VALUES ('delete', old.id, airlock_search_text(
        old.tool, old.arguments_json, old.result_json, old.error, old.outcome, old.server_name, old.client));
    INSERT INTO tool_calls_search (rowid, body) VALUES (new.id, airlock_search_text(
        new.tool, new.arguments_json, new.result_json, new.error, new.outcome, new.server_name, new.client));
END;
INSERT INTO tool_calls_search (rowid, body)
    SELECT id, airlock_search_text(tool, arguments_json, result_json, error, outcome, server_name, client)
    FROM tool_calls;
-- Each index token asked costs a look in every segment of the index:
-- Store::tidy_search merges any two on a level (usermerge 2), a few pages
-- at a time, after pruning.
INSERT INTO tool_calls_search (tool_calls_search, rank) VALUES ('usermerge', 2);

-- Ids and start times: the index walks ids, the lists are in start-time
-- order, and the two differ (a call is recorded when it ends). Kept here:
--   * hw: the latest start time recorded so far; lateness: how far before
--     hw a call's start time has ever been (the longest overlap). Neither
--     decreases.
--   * a mark every 64 ids: the id and hw when it was recorded.
-- So every call with id <= a mark started at or before the mark's hw, and
-- every call with id > a mark started at or after (mark's hw - lateness):
-- a time range, or the end of a page, bounds the ids to walk.
CREATE TABLE tool_calls_order (
    only     INTEGER PRIMARY KEY CHECK (only = 1),
    hw       INTEGER NOT NULL,
    lateness INTEGER NOT NULL
);
CREATE TABLE tool_calls_marks (
    id INTEGER PRIMARY KEY,
    hw INTEGER NOT NULL
);
CREATE INDEX tool_calls_marks_hw ON tool_calls_marks (hw);
INSERT INTO tool_calls_order (only, hw, lateness)
    SELECT 1, IFNULL(max(started_at), -9223372036854775808), IFNULL(max(hw - started_at), 0)
    FROM (SELECT started_at, max(started_at) OVER (ORDER BY id) AS hw FROM tool_calls);
INSERT INTO tool_calls_marks (id, hw)
    SELECT id, hw FROM (SELECT id, max(started_at) OVER (ORDER BY id) AS hw FROM tool_calls)
    WHERE id % 64 = 0;
CREATE TRIGGER tool_calls_order_insert AFTER INSERT ON tool_calls BEGIN
    UPDATE tool_calls_order SET
        lateness = max(lateness, max(hw, new.started_at) - new.started_at),
        hw = max(hw, new.started_at);
    -- An id used again (the newest rows were deleted): later marks no longer hold.
    DELETE FROM tool_calls_marks WHERE id >= new.id;
    INSERT INTO tool_calls_marks (id, hw) SELECT new.id, hw FROM tool_calls_order WHERE new.id % 64 = 0;
END;
CREATE TRIGGER tool_calls_order_update AFTER UPDATE OF started_at ON tool_calls BEGIN
    UPDATE tool_calls_order SET
        lateness = max(lateness, max(hw, new.started_at) - new.started_at),
        hw = max(hw, new.started_at);
    DELETE FROM tool_calls_marks WHERE id >= new.id;
END;
