-- Per-user sign-ins in progress (#27), shared by the replicas on the
-- store: key is the SHA-256 hex of the sign-in's state, subject the caller
-- it is for (the per-subject bound), value the sign-in as the gateway
-- sealed it, claim the browser that confirmed it ('' until then; set once),
-- created and expires Unix nanoseconds (past ones are never returned and
-- the sweep deletes them).
CREATE TABLE signins (
	key     TEXT PRIMARY KEY,
	subject TEXT NOT NULL,
	value   BYTEA NOT NULL,
	claim   TEXT NOT NULL DEFAULT '',
	created BIGINT NOT NULL,
	expires BIGINT NOT NULL
);
CREATE INDEX signins_subject ON signins (subject, created);
CREATE INDEX signins_expires ON signins (expires);
