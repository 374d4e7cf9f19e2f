-- Who asked for the approval ticket a call presented (Record.Requester).
ALTER TABLE ledger ADD COLUMN requester TEXT NOT NULL DEFAULT '';
