-- Open (not consumed) tickets per subject and in all, kept by triggers in
-- the transaction that changes a ticket: a capped Create reads two rows
-- instead of counting the open tickets.
CREATE TABLE ticket_open (
	subject TEXT PRIMARY KEY,
	n       INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE ticket_open_total (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
);
INSERT INTO ticket_open SELECT subject, count(*) FROM tickets WHERE state <> 4 GROUP BY subject;
INSERT INTO ticket_open_total SELECT 1, count(*) FROM tickets WHERE state <> 4;

CREATE TRIGGER ticket_opened AFTER INSERT ON tickets WHEN NEW.state <> 4 BEGIN
	INSERT INTO ticket_open VALUES (NEW.subject, 1) ON CONFLICT (subject) DO UPDATE SET n = n + 1;
	UPDATE ticket_open_total SET n = n + 1;
END;
CREATE TRIGGER ticket_closed AFTER DELETE ON tickets WHEN OLD.state <> 4 BEGIN
	UPDATE ticket_open SET n = n - 1 WHERE subject = OLD.subject;
	UPDATE ticket_open_total SET n = n - 1;
END;
CREATE TRIGGER ticket_consumed AFTER UPDATE OF state ON tickets WHEN OLD.state <> 4 AND NEW.state = 4 BEGIN
	UPDATE ticket_open SET n = n - 1 WHERE subject = OLD.subject;
	UPDATE ticket_open_total SET n = n - 1;
END;
CREATE TRIGGER ticket_reopened AFTER UPDATE OF state ON tickets WHEN OLD.state = 4 AND NEW.state <> 4 BEGIN
	INSERT INTO ticket_open VALUES (NEW.subject, 1) ON CONFLICT (subject) DO UPDATE SET n = n + 1;
	UPDATE ticket_open_total SET n = n + 1;
END;

-- The caps counted open tickets through this index; the counts replace it.
DROP INDEX tickets_open;
