-- Servers installed from a registry (the catalog): what was installed, to
-- the byte. `lock` is airlock-install's Lock as JSON (every file's hash,
-- the package manager's own lockfile); it is kept here, outside the
-- server's folder it is checked against at every start. `first_sight`
-- is 1 until the person has seen the server's first tools: until then
-- every tool it lists waits for review, none is pinned unseen.
CREATE TABLE installs (
    server       TEXT PRIMARY KEY,
    registry     TEXT NOT NULL,
    entry_name   TEXT NOT NULL,
    version      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    identifier   TEXT NOT NULL,
    dir          TEXT NOT NULL,
    digest       TEXT NOT NULL,
    lock         TEXT NOT NULL,
    first_sight  INTEGER NOT NULL DEFAULT 1,
    installed_at INTEGER NOT NULL
);
