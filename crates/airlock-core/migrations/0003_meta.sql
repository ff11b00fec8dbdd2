-- Facts about this database. `instance_id` is unique per data dir; keychain
-- entries are filed under it, so two data dirs never share a secret.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('instance_id', lower(hex(randomblob(16))));
