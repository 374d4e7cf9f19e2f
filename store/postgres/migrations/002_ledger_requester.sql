-- Who asked for the approval ticket a call presented (Record.Requester).
ALTER TABLE ledger ADD COLUMN requester text NOT NULL DEFAULT '';
