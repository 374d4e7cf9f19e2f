-- Arguments an approver edited before approving (adapter.TicketEditor).
ALTER TABLE tickets ADD COLUMN edited bytea;
