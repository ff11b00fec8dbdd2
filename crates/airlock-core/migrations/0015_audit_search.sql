-- The audit trail at scale (issue 15): its search through the same kind of
-- index as the tool calls' (0014; text by airlock_audit_text(): server,
-- kind and detail, their characters and pairs, and filter tokens), and
-- the app filter through an index instead of reading each event's JSON.

-- The app an event is about: the detail's `client` when it is a string
-- (computed, not stored: no rewrite of the table; the index holds it).
ALTER TABLE audit_events ADD COLUMN client TEXT GENERATED ALWAYS AS (
    CASE WHEN json_valid(detail_json) THEN
        CASE json_type(detail_json, '$.client') WHEN 'text' THEN json_extract(detail_json, '$.client') END
    END
) VIRTUAL;
CREATE INDEX audit_events_client ON audit_events (client, at) WHERE client IS NOT NULL;

CREATE VIRTUAL TABLE audit_events_search USING fts5(
    body, content = '', tokenize = 'trigram', detail = none, columnsize = 0
);
CREATE TRIGGER audit_events_search_insert AFTER INSERT ON audit_events BEGIN
    INSERT INTO audit_events_search (rowid, body)
    VALUES (new.id, airlock_audit_text(new.server_name, new.kind, new.detail_json, new.client));
END;
CREATE TRIGGER audit_events_search_delete AFTER DELETE ON audit_events BEGIN
    INSERT INTO audit_events_search (audit_events_search, rowid, body)
    VALUES ('delete', old.id, airlock_audit_text(old.server_name, old.kind, old.detail_json, old.client));
END;
CREATE TRIGGER audit_events_search_update AFTER UPDATE OF server_name, kind, detail_json ON audit_events BEGIN
    INSERT INTO audit_events_search (audit_events_search, rowid, body)
    VALUES ('delete', old.id, airlock_audit_text(old.server_name, old.kind, old.detail_json, old.client));
    INSERT INTO audit_events_search (rowid, body)
    VALUES (new.id, airlock_audit_text(new.server_name, new.kind, new.detail_json, new.client));
END;
INSERT INTO audit_events_search (rowid, body)
    SELECT id, airlock_audit_text(server_name, kind, detail_json, client) FROM audit_events;
INSERT INTO audit_events_search (audit_events_search, rank) VALUES ('usermerge', 2);

-- Ids and times, as tool_calls_order and tool_calls_marks (0014).
CREATE TABLE audit_events_order (
    only     INTEGER PRIMARY KEY CHECK (only = 1),
    hw       INTEGER NOT NULL,
    lateness INTEGER NOT NULL
);
CREATE TABLE audit_events_marks (
    id INTEGER PRIMARY KEY,
    hw INTEGER NOT NULL
);
CREATE INDEX audit_events_marks_hw ON audit_events_marks (hw);
INSERT INTO audit_events_order (only, hw, lateness)
    SELECT 1, IFNULL(max(at), -9223372036854775808), IFNULL(max(hw - at), 0)
    FROM (SELECT at, max(at) OVER (ORDER BY id) AS hw FROM audit_events);
INSERT INTO audit_events_marks (id, hw)
    SELECT id, hw FROM (SELECT id, max(at) OVER (ORDER BY id) AS hw FROM audit_events)
    WHERE id % 64 = 0;
CREATE TRIGGER audit_events_order_insert AFTER INSERT ON audit_events BEGIN
    UPDATE audit_events_order SET
        lateness = max(lateness, max(hw, new.at) - new.at),
        hw = max(hw, new.at);
    DELETE FROM audit_events_marks WHERE id >= new.id;
    INSERT INTO audit_events_marks (id, hw) SELECT new.id, hw FROM audit_events_order WHERE new.id % 64 = 0;
END;
CREATE TRIGGER audit_events_order_update AFTER UPDATE OF at ON audit_events BEGIN
    UPDATE audit_events_order SET
        lateness = max(lateness, max(hw, new.at) - new.at),
        hw = max(hw, new.at);
    DELETE FROM audit_events_marks WHERE id >= new.id;
END;
