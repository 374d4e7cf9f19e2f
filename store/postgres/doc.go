// Package pgstore keeps the state of executors and MCP managers in
// PostgreSQL, shared by every replica of a service: approval tickets, the
// ledger (queryable and tamper-evident), the result cache, definition pins
// and OAuth tokens. It uses github.com/jackc/pgx/v5. For one process, or
// several on one machine, package sqlitestore needs no server.
//
//	db, err := pgstore.Open(ctx, "postgres://app@db/agents", nil)
//	if err != nil { ... }
//	defer db.Close()
//	tickets := &adapter.Deferred{Store: db.Tickets()}
//	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
//		Ledger:   db.Ledger(),
//		Cache:    &adapter.CacheOptions{Store: db.Cache(), Tools: map[string]time.Duration{"search": 0}},
//		Approval: adapter.ApprovalOptions{Port: tickets},
//	})
//	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{PinStore: db.Pins()})
//
// # Replicas
//
// Any number of processes may open the same database. A ticket created
// through one replica may be decided through another and is consumed by
// exactly one caller anywhere: every state change, an approval with
// edited arguments ([Tickets.ApproveEdited]) included, is one conditional
// UPDATE, and ticket caps are checked, holding a row lock, against counts
// of open tickets that a trigger keeps in the transaction of each change
// (two rows read, whatever the number of tickets). Each decision is announced with NOTIFY; [Tickets.Wait] on every
// replica LISTENs and wakes at once (and re-reads the ticket every
// Options.PollInterval, should a notification be lost with a connection).
// Cached results and pins are rows every replica reads: a tool whose
// definition changed is quarantined by every replica, and an Accept
// through one releases it in all.
//
// # The ledger
//
// Records are written in batches (COPY) by a background goroutine: a call
// never waits for the database, and records the buffer cannot take are
// refused and counted by the executor. With Options.Durable, each call's
// record is committed before the call returns (concurrent calls share a
// commit). [Ledger.Query] selects records by run, tool, subject, outcome,
// approval ticket and time, pages with a cursor and streams them
// ([ledger.Query]).
// Options.Retention deletes old records in a background sweep.
// [Ledger.Export] writes JSON lines.
//
// The records form one hash chain through the database, whichever replica
// wrote them: a batch is appended holding the lock of the chain's head
// row, each record's Hash covering its content and the Hash of the record
// before it ([ledger.Hash]). [Ledger.Verify] names the first record
// edited, inserted or deleted behind the store's back. A record links
// approval, call and result: the ticket, who asked for it and who
// approved it, the canonical hash of the arguments that ran, the hash of
// the result. An export of the
// whole ledger keeps the chain, for an auditor to verify offline
// ([ledger.VerifyJSONL]). Someone able to write the database can
// cut the chain's tail and move its head back, wipe it and start again, or
// rewrite it from a tampered record to the end: only a head noted
// elsewhere ([Ledger.Head]) catches those, checked by [Ledger.VerifyHead]
// (or VerifyLedgerJSONL on an export), which fails unless the chain still
// holds that record with that hash at that place.
//
// # Standing decisions
//
// [Store.Standing] keeps the "always approve" and "always deny" decisions
// of an [approval.Standing] (its Store field) in a table of their own, which
// the retention sweep never touches; other replicas pick them up with
// [approval.Standing.Sync]. The ledger's "standing" records stay their
// audit trail, and the migration that made the table seeded it from them.
//
// # Schema
//
// The schema is embedded in the package and versioned (table
// agentadapter_schema). Open applies the migrations the database lacks,
// in one transaction under an advisory lock (replicas starting together
// migrate once), and refuses a database written by a newer version
// ([ErrSchemaTooNew]). Tables live in the connection's search_path.
// There is one table per concern:
//
//	ledger        one row per record, seq (the chain position) as key;
//	              indexed by (run_id, seq), (tool, seq), (subject, seq), time,
//	              and (ticket, seq) where there is a ticket (version 4); its
//	              credential column is version 11
//	ledger_chain  one row: the chain's head and its anchor (where it starts
//	              after retention dropped older records)
//	tickets       approval tickets (with the arguments an approver edited,
//	              version 3); indexed by key (tool, args_hash, scope,
//	              scope_id)
//	ticket_open   open (not consumed) tickets by subject, and in all
//	              (ticket_open_total), kept by triggers, for the caps
//	              (version 5)
//	cache         cached results by key, with their expiry (indexed)
//	pins          accepted definition hashes by pin.Key
//	tokens        OAuth tokens by server, subject, issuer and resource
//	              (secrets, encrypted with Options.Tokens.Keys: restrict
//	              who may read this table all the same)
//	signins       per-user sign-ins in progress by key (a hash of the
//	              state), with their subject, claim and expiry (version 10;
//	              the values sealed by the gateway)
//
// Times are stored as Unix nanoseconds, so that a record reads back
// exactly as it was hashed.
package pgstore
