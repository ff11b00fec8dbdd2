-- The tools an app used most (issue 26, the gateway's tool budget): its
-- newest calls, newest first, with their server and tool, read from the
-- index alone. It also serves everything tool_calls_client (0007) did (the
-- same first two columns), so that one goes: one index to write per call.
CREATE INDEX tool_calls_client_tool ON tool_calls (client, started_at, server_name, tool);
DROP INDEX IF EXISTS tool_calls_client;
