-- Single tools the person turned off for a server: no app sees them, and
-- nobody can call them, until they are turned on again.
CREATE TABLE tools_off (
    server TEXT NOT NULL,
    name   TEXT NOT NULL,
    off_at INTEGER NOT NULL,
    PRIMARY KEY (server, name)
);
