-- The audit trail pages through every event (issue 15) and filters by kind:
-- one index range per kind in list order, and the kinds for the filter
-- menu found by skipping through the index (a few lookups, not a scan).
CREATE INDEX audit_events_kind ON audit_events(kind, at);
