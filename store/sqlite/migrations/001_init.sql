-- Version 1: ledger with its hash chain, approval tickets, cache, pins.
CREATE TABLE ledger (
	seq          INTEGER PRIMARY KEY,
	time         INTEGER NOT NULL, -- unix nanoseconds
	call_id      TEXT NOT NULL,
	run_id       TEXT NOT NULL,
	tool         TEXT NOT NULL,
	source       TEXT NOT NULL,
	integration  TEXT NOT NULL,
	subject      TEXT NOT NULL,
	args         BLOB,
	outcome      TEXT NOT NULL,
	message      TEXT NOT NULL,
	approval     TEXT NOT NULL,
	approver     TEXT NOT NULL,
	ticket       TEXT NOT NULL,
	cache_hit    INTEGER NOT NULL,
	duration_ns  INTEGER NOT NULL,
	result_bytes INTEGER NOT NULL,
	args_hash    TEXT NOT NULL,
	result_hash  TEXT NOT NULL,
	prev         TEXT NOT NULL,
	hash         TEXT NOT NULL
);
CREATE INDEX ledger_run ON ledger (run_id, seq);
CREATE INDEX ledger_tool ON ledger (tool, seq);
CREATE INDEX ledger_subject ON ledger (subject, seq);
CREATE INDEX ledger_time ON ledger (time);

-- One row: the chain's last record (head) and the point it starts from
-- once retention dropped older records (anchor).
CREATE TABLE ledger_chain (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	head_seq    INTEGER NOT NULL,
	head_hash   TEXT NOT NULL,
	anchor_seq  INTEGER NOT NULL,
	anchor_hash TEXT NOT NULL
);
INSERT INTO ledger_chain VALUES (1, 0, '', 0, '');

CREATE TABLE tickets (
	n         INTEGER PRIMARY KEY, -- creation order
	id        TEXT NOT NULL UNIQUE,
	tool      TEXT NOT NULL,
	args_hash TEXT NOT NULL,
	args      BLOB,
	args_size INTEGER NOT NULL,
	scope     TEXT NOT NULL,
	scope_id  TEXT NOT NULL,
	call_id   TEXT NOT NULL,
	run_id    TEXT NOT NULL,
	session   TEXT NOT NULL,
	subject   TEXT NOT NULL,
	state     INTEGER NOT NULL,
	reason    TEXT NOT NULL,
	approver  TEXT NOT NULL,
	created   INTEGER NOT NULL,
	expires   INTEGER NOT NULL, -- 0: never
	updated   INTEGER NOT NULL
);
-- Find: by key, newest first. Caps: open tickets per subject and in all.
CREATE INDEX tickets_key ON tickets (tool, args_hash, scope, scope_id, n) WHERE state <> 4;
CREATE INDEX tickets_open ON tickets (subject, expires) WHERE state <> 4;
CREATE INDEX tickets_state ON tickets (state, n);
CREATE INDEX tickets_expires ON tickets (expires);

CREATE TABLE cache (
	key     BLOB PRIMARY KEY,
	value   BLOB NOT NULL,
	expires INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX cache_expires ON cache (expires);

CREATE TABLE pins (
	key     TEXT PRIMARY KEY,
	hash    TEXT NOT NULL,
	updated INTEGER NOT NULL
) WITHOUT ROWID;

-- OAuth tokens (mcpadapter.TokenStore), JSON-encoded: secrets, keep the
-- file private.
CREATE TABLE tokens (
	server   TEXT NOT NULL,
	resource TEXT NOT NULL,
	token    BLOB NOT NULL,
	updated  INTEGER NOT NULL,
	PRIMARY KEY (server, resource)
) WITHOUT ROWID;
