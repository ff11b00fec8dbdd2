-- What Airlock read of MCP registries (the latest version of each server),
-- so the catalog searches offline and at once. `entry` is the checked entry
-- (airlock-catalog's CatalogEntry) as JSON.
CREATE TABLE catalog (
    registry    TEXT NOT NULL,
    name        TEXT NOT NULL,
    version     TEXT NOT NULL,
    status      TEXT NOT NULL,
    description TEXT NOT NULL,
    entry       TEXT NOT NULL,
    fetched_at  INTEGER NOT NULL,
    PRIMARY KEY (registry, name)
);
CREATE INDEX catalog_name ON catalog (name);
