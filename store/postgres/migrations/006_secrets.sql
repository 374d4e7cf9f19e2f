-- Secrets the replicas sharing this database must agree on, made once by
-- whichever asks first (Store.Secret): the key that signs MCP requestStates.
CREATE TABLE secrets (
	name  TEXT PRIMARY KEY,
	value BYTEA NOT NULL
);
