-- Console login sessions (console.KVSessions through Store.Sessions), kept
-- apart from cached results: key is the SHA-256 hex of the cookie, value
-- the session, expires its end in Unix nanoseconds (the sweep deletes
-- past ones; Get never returns them).
CREATE TABLE console_sessions (
	key     TEXT PRIMARY KEY,
	value   BLOB NOT NULL,
	expires INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_expires ON console_sessions (expires);
