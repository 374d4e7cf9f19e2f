-- Secrets the processes sharing this database must agree on, made once by
-- whichever asks first (Store.Secret): the key that signs MCP requestStates.
CREATE TABLE secrets (
	name  TEXT PRIMARY KEY,
	value BLOB NOT NULL
) WITHOUT ROWID;
