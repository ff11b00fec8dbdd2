#!/usr/bin/env python3
# A quick 1M-row database for `airlock-bench activity --db PATH` (the
# activity overview, issue 13) in about 30 s, where the bench's own fill
# (the history generator through the store) takes about 15 min in a debug
# build. Schema from the real migrations 0001-0009 (the store applies the
# rest when it opens the file); the FTS insert triggers are dropped for the
# fill (the overview never reads FTS), so do not use the file for search.
#
#   python3 scripts/activity-db.py /tmp/a.sqlite3 1000000
#   $CARGO_TARGET_DIR/debug/airlock-bench activity --db /tmp/a.sqlite3
import sqlite3, random, time, sys, os
path = sys.argv[1]; rows = int(sys.argv[2])
if os.path.exists(path): os.remove(path)
c = sqlite3.connect(path)
c.execute("PRAGMA journal_mode=WAL")
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates/airlock-core/migrations")
for f in sorted(f for f in os.listdir(root) if f[:4] <= "0009"):
    c.executescript(open(os.path.join(root, f)).read())
c.execute("PRAGMA user_version = 9")
# Throwaway DB: FTS triggers off for the fill (the overview never reads FTS).
for t in ["tool_calls_fts_insert", "elicitations_fts_insert"]:
    c.execute(f"DROP TRIGGER {t}")
now = int(time.time() * 1000); span = 90 * 86400000
rnd = random.Random(7)
clients = [None, None, "cursor", "claude-code", "zed", "vscode", "goose"]
servers = ["github", "slack", "py", "everything", "linear", "notion", "stripe", "jira"]
outcomes = ["ok"] * 8 + ["tool_error", "failed"]
states = ["opened", "completed", "declined", "cancelled", "blocked", "rate_limited", "expired", "requested", "accepted", "continued"]
t0 = time.time()
def calls():
    for i in range(rows):
        at = now - span + i * span // rows
        yield (rnd.choice(servers), "tool", "{}", rnd.choice(outcomes), at, 5, rnd.choice(clients))
c.executemany("INSERT INTO tool_calls (server_name, tool, arguments_json, outcome, started_at, duration_ms, client) VALUES (?,?,?,?,?,?,?)", calls())
n = rows // 10
def els():
    for i in range(n):
        at = now - span + i * span // n
        yield (rnd.choice(servers), "url", "server", "Connect", rnd.choice(states), at, at)
c.executemany("INSERT INTO elicitations (server_name, mode, origin, message, state, created_at, updated_at) VALUES (?,?,?,?,?,?,?)", els())
c.executemany("INSERT OR IGNORE INTO opened_domains VALUES (?,?,?,?,?)",
    [(s, f"d{i}.example.com", rnd.randint(1, 500), now - span, now) for s in servers for i in range(50)])
c.commit()
print(f"filled {rows} calls, {n} elicitations in {time.time()-t0:.1f} s; sqlite {sqlite3.sqlite_version}")
