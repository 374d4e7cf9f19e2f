-- Version 1: ledger with its hash chain, approval tickets, cache, pins,
-- OAuth tokens.
CREATE TABLE ledger (
	seq          bigint PRIMARY KEY,
	time         bigint NOT NULL, -- unix nanoseconds
	call_id      text NOT NULL,
	run_id       text NOT NULL,
	tool         text NOT NULL,
	source       text NOT NULL,
	integration  text NOT NULL,
	subject      text NOT NULL,
	args         bytea,
	outcome      text NOT NULL,
	message      text NOT NULL,
	approval     text NOT NULL,
	approver     text NOT NULL,
	ticket       text NOT NULL,
	cache_hit    boolean NOT NULL,
	duration_ns  bigint NOT NULL,
	result_bytes bigint NOT NULL,
	args_hash    text NOT NULL,
	result_hash  text NOT NULL,
	prev         text NOT NULL,
	hash         text NOT NULL
);
CREATE INDEX ledger_run ON ledger (run_id, seq);
CREATE INDEX ledger_tool ON ledger (tool, seq);
CREATE INDEX ledger_subject ON ledger (subject, seq);
CREATE INDEX ledger_time ON ledger (time);

-- One row: the chain's last record (head) and the point it starts from
-- once retention dropped older records (anchor). Writers lock it.
CREATE TABLE ledger_chain (
	id          int PRIMARY KEY CHECK (id = 1),
	head_seq    bigint NOT NULL,
	head_hash   text NOT NULL,
	anchor_seq  bigint NOT NULL,
	anchor_hash text NOT NULL
);
INSERT INTO ledger_chain VALUES (1, 0, '', 0, '');

CREATE TABLE tickets (
	n         bigserial PRIMARY KEY, -- creation order
	id        text NOT NULL UNIQUE,
	tool      text NOT NULL,
	args_hash text NOT NULL,
	args      bytea,
	args_size bigint NOT NULL,
	scope     text NOT NULL,
	scope_id  text NOT NULL,
	call_id   text NOT NULL,
	run_id    text NOT NULL,
	session   text NOT NULL,
	subject   text NOT NULL,
	state     int NOT NULL,
	reason    text NOT NULL,
	approver  text NOT NULL,
	created   bigint NOT NULL,
	expires   bigint NOT NULL, -- 0: never
	updated   bigint NOT NULL
);
CREATE INDEX tickets_key ON tickets (tool, args_hash, scope, scope_id, n) WHERE state <> 4;
CREATE INDEX tickets_open ON tickets (subject, expires) WHERE state <> 4;
CREATE INDEX tickets_state ON tickets (state, n);
CREATE INDEX tickets_expires ON tickets (expires);

CREATE TABLE cache (
	key     bytea PRIMARY KEY,
	value   bytea NOT NULL,
	expires bigint NOT NULL
);
CREATE INDEX cache_expires ON cache (expires);

CREATE TABLE pins (
	key     text PRIMARY KEY,
	hash    text NOT NULL,
	updated bigint NOT NULL
);

CREATE TABLE tokens (
	server   text NOT NULL,
	resource text NOT NULL,
	token    bytea NOT NULL,
	updated  bigint NOT NULL,
	PRIMARY KEY (server, resource)
);
