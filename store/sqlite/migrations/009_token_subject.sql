-- Per-user tokens (#27): a token is keyed by server, caller subject,
-- authorization server issuer and resource. Existing rows are the shared
-- identity's (subject '') with their issuer not recorded (issuer ''), and
-- are read as before. SQLite cannot change a primary key: the table is
-- rebuilt.
CREATE TABLE tokens_new (
	server   TEXT NOT NULL,
	subject  TEXT NOT NULL DEFAULT '',
	issuer   TEXT NOT NULL DEFAULT '',
	resource TEXT NOT NULL,
	token    BLOB NOT NULL,
	updated  INTEGER NOT NULL,
	PRIMARY KEY (server, subject, issuer, resource)
) WITHOUT ROWID;
INSERT INTO tokens_new (server, subject, issuer, resource, token, updated)
SELECT server, '', '', resource, token, updated FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_new RENAME TO tokens;
