-- Which Airlock process (run) recorded an elicitation. When that process is
-- gone (killed, crashed, or quit while waiting), the next start marks the
-- records it left open as `interrupted` instead of leaving them "waiting".
ALTER TABLE elicitations ADD COLUMN run_id TEXT;
CREATE INDEX elicitations_by_state ON elicitations (state);
