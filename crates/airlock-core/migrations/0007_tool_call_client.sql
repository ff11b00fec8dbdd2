-- The app that made a tool call through the gateway (`airlock gateway
-- --client NAME`, or the app's own name); NULL for calls made in Airlock
-- itself (the window, the CLI).
ALTER TABLE tool_calls ADD COLUMN client TEXT;
CREATE INDEX tool_calls_client ON tool_calls (client, started_at);
