-- Per-user tokens (#27): a token is keyed by server, caller subject,
-- authorization server issuer and resource. Existing rows are the shared
-- identity's (subject '') with their issuer not recorded (issuer ''), and
-- are read as before.
ALTER TABLE tokens ADD COLUMN subject text NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN issuer text NOT NULL DEFAULT '';
ALTER TABLE tokens DROP CONSTRAINT tokens_pkey;
ALTER TABLE tokens ADD PRIMARY KEY (server, subject, issuer, resource);
