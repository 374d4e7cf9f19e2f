-- Standing decisions (approval.StandingStore through Store.Standing), one
-- per tool and subject, apart from the ledger so that a retention sweep
-- never drops one. verdict is "approved" or "denied", created Unix
-- nanoseconds. The ledger's "standing" records stay the audit trail; the
-- latest of them per tool and subject seeds the table: an approval or a
-- denial is a row, a revocation none.
CREATE TABLE standing (
	tool     text NOT NULL,
	subject  text NOT NULL,
	verdict  text NOT NULL CHECK (verdict IN ('approved', 'denied')),
	reason   text NOT NULL,
	approver text NOT NULL,
	created  BIGINT NOT NULL,
	ticket   text NOT NULL,
	PRIMARY KEY (tool, subject)
);
INSERT INTO standing (tool, subject, verdict, reason, approver, created, ticket)
SELECT l.tool, l.subject, l.approval, l.message, l.approver, l.time, l.ticket
FROM ledger l
JOIN (SELECT MAX(seq) AS seq FROM ledger WHERE outcome = 'standing' GROUP BY tool, subject) m ON l.seq = m.seq
WHERE l.approval IN ('approved', 'denied');
