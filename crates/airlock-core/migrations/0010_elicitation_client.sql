-- The app whose tool call through the gateway raised an elicitation (its
-- client name, or "one of: a, b" when the server asked on a connection
-- that carried several apps' calls); NULL for Airlock itself (the window,
-- the CLI) and for records made before this migration.
ALTER TABLE elicitations ADD COLUMN client TEXT;
