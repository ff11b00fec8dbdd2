-- Trust between servers (issue 25). Tools and prompts pinned until the user reviews a change.
-- `pins`: the definition of each tool or prompt the apps may see, as the
-- user approved it (or as Airlock first saw it, when nothing about it was
-- serious), canonical JSON and its SHA-256. `pin_changes`: what a server
-- changed since (a definition changed, added, removed, or held at first
-- sight for a serious finding), the scanner's findings on the new one, and
-- what the user decided. `pin_sights`: the servers (and kinds) Airlock has
-- listed once, so that a later addition is a change and not a first sight.
-- `pin_generation`: bumped on each decision, so a running host (another
-- process) notices one without reading every pin.
CREATE TABLE pins (
    server      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    definition  TEXT NOT NULL,
    hash        TEXT NOT NULL,
    findings    TEXT NOT NULL DEFAULT '[]',
    pinned_at   INTEGER NOT NULL,
    PRIMARY KEY (server, kind, name)
);

CREATE TABLE pin_changes (
    id              INTEGER PRIMARY KEY,
    server          TEXT NOT NULL,
    kind            TEXT NOT NULL,
    name            TEXT NOT NULL,
    change          TEXT NOT NULL,
    old_definition  TEXT,
    new_definition  TEXT,
    new_hash        TEXT NOT NULL,
    findings        TEXT NOT NULL DEFAULT '[]',
    state           TEXT NOT NULL,
    seen_at         INTEGER NOT NULL,
    decided_at      INTEGER
);
CREATE INDEX pin_changes_open ON pin_changes (server, kind, name, state);
CREATE INDEX pin_changes_seen ON pin_changes (seen_at);

CREATE TABLE pin_sights (
    server     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    first_at   INTEGER NOT NULL,
    PRIMARY KEY (server, kind)
);

INSERT OR IGNORE INTO meta (key, value) VALUES ('pin_generation', '0');

-- Who owns a resource URI or a resource template pattern that apps see
-- through the gateway: the first server to list it, kept across restarts,
-- unless the user chose another (`chosen`). A server's rows follow its
-- list (replaced when the list changes); the user's choices stay.
-- `uri_conflicts`: another server that lists the same URI (or an
-- overlapping template), and is not served it.
CREATE TABLE uri_owners (
    uri         TEXT NOT NULL,
    kind        TEXT NOT NULL,
    server      TEXT NOT NULL,
    claimed_at  INTEGER NOT NULL,
    chosen      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (uri, kind)
);
CREATE INDEX uri_owners_server ON uri_owners (server);

CREATE TABLE uri_conflicts (
    uri       TEXT NOT NULL,
    kind      TEXT NOT NULL,
    server    TEXT NOT NULL,
    owner     TEXT NOT NULL,
    seen_at   INTEGER NOT NULL,
    PRIMARY KEY (uri, kind, server)
);
CREATE INDEX uri_conflicts_server ON uri_conflicts (server);
