-- Where servers have sent the user before: one row per server and
-- registrable domain, written when a page is opened (URL elicitation or
-- sign-in). The consent shows "never / N times, first seen when" and warns
-- when a first-time domain looks like one the user opened before. Kept when
-- history is pruned: it is what makes a look-alike stand out.
CREATE TABLE opened_domains (
    server_name TEXT NOT NULL,
    domain      TEXT NOT NULL,
    times       INTEGER NOT NULL,
    first_at    INTEGER NOT NULL,
    last_at     INTEGER NOT NULL,
    PRIMARY KEY (server_name, domain)
);
CREATE INDEX opened_domains_by_domain ON opened_domains (domain);
