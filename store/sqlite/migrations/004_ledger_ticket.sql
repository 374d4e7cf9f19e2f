-- LedgerQuery.Ticket: the records of one approval ticket. Most records
-- have none; the index holds only those that do (a query adds
-- ticket <> '' so that the planner may use it).
CREATE INDEX ledger_ticket ON ledger (ticket, seq) WHERE ticket <> '';
