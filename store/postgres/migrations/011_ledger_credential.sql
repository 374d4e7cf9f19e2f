-- What the call reached its MCP server with (Record.Credential: shared,
-- caller, exchanged; '' for none), #27.
ALTER TABLE ledger ADD COLUMN credential text NOT NULL DEFAULT '';
