-- Open (not consumed) tickets per subject and in all, kept by a trigger in
-- the transaction that changes a ticket: a capped Create locks and reads
-- two rows instead of counting the open tickets under an advisory lock.
CREATE TABLE ticket_open (
	subject text PRIMARY KEY,
	n       bigint NOT NULL
);
CREATE TABLE ticket_open_total (
	id int PRIMARY KEY CHECK (id = 1),
	n  bigint NOT NULL
);
INSERT INTO ticket_open SELECT subject, count(*) FROM tickets WHERE state <> 4 GROUP BY subject;
INSERT INTO ticket_open_total SELECT 1, count(*) FROM tickets WHERE state <> 4;

-- Locks are taken in one order: the ticket rows a statement changes (row
-- triggers fire at its end), the total's row, a subject's row. Whoever
-- holds a subject's row holds the total's: no two transactions wait for
-- each other.
CREATE FUNCTION ticket_open_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.state <> 4 THEN
		UPDATE ticket_open_total SET n = n - 1;
		UPDATE ticket_open SET n = n - 1 WHERE subject = OLD.subject;
	END IF;
	IF TG_OP <> 'DELETE' AND NEW.state <> 4 THEN
		UPDATE ticket_open_total SET n = n + 1;
		INSERT INTO ticket_open VALUES (NEW.subject, 1) ON CONFLICT (subject) DO UPDATE SET n = ticket_open.n + 1;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER ticket_opened AFTER INSERT ON tickets FOR EACH ROW WHEN (NEW.state <> 4) EXECUTE FUNCTION ticket_open_count();
CREATE TRIGGER ticket_closed AFTER DELETE ON tickets FOR EACH ROW WHEN (OLD.state <> 4) EXECUTE FUNCTION ticket_open_count();
-- Only a change into or out of consumed moves the counts.
CREATE TRIGGER ticket_consumed AFTER UPDATE OF state ON tickets FOR EACH ROW
	WHEN ((OLD.state = 4) <> (NEW.state = 4)) EXECUTE FUNCTION ticket_open_count();

-- The caps counted open tickets through this index; the counts replace it.
DROP INDEX tickets_open;
