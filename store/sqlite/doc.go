// Package sqlitestore keeps the state of executors and MCP managers in a
// SQLite database: approval tickets, the ledger (queryable and
// tamper-evident), the result cache, definition pins and OAuth tokens. It is the
// embedded default: one file, no server, no cgo (the driver is
// github.com/ncruces/go-sqlite3, SQLite compiled to Go). Several
// processes may open the same file; for replicas on several machines use
// package pgstore.
//
//	db, err := sqlitestore.Open(ctx, "state.db", nil)
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
// # The ledger
//
// Records are written in batches by a background goroutine (a call never
// waits for the disk; records the buffer cannot take are refused and
// counted by the executor), or, with Options.Durable, committed and synced
// before the call returns. [Ledger.Query] selects records by run, tool,
// subject, outcome, approval ticket and time, pages with a cursor, and
// streams them ([ledger.Query]). Options.Retention deletes old
// records in a background sweep. [Ledger.Export] writes JSON lines.
//
// The records form one hash chain through the database, whoever wrote
// them: each record's Hash covers its content and the Hash of the record
// before it ([ledger.Hash]), and [Ledger.Verify] names the first
// record edited, inserted or deleted behind the store's back. A record
// links approval, call and result: the ticket, who asked for it and who
// approved it, the canonical hash of the arguments that ran, the hash of
// the result. An export of
// the whole ledger keeps the chain, so an auditor verifies it offline
// ([ledger.VerifyJSONL]). Someone able to write the database can
// cut the chain's tail and move its head back, wipe it and start again, or
// rewrite it from a tampered record to the end: only a head noted
// elsewhere ([Ledger.Head]) catches those, checked by [Ledger.VerifyHead]
// (or VerifyLedgerJSONL on an export), which fails unless the chain still
// holds that record with that hash at that place.
//
// # Approvals across processes
//
// A ticket created through one Store may be decided through another and
// is consumed exactly once: every state change is one conditional UPDATE.
// [Tickets.Wait] blocks until a ticket is decided; a decision made in the
// same process wakes it at once, one made by another process within
// Options.PollInterval.
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
// The schema is embedded in the package and versioned (PRAGMA
// user_version). Open applies the migrations a database lacks, in one
// transaction, and refuses a database written by a newer version
// ([ErrSchemaTooNew]). There is one table per concern:
//
//	ledger        one row per record, seq (the chain position) as key;
//	              indexed by (run_id, seq), (tool, seq), (subject, seq), time,
//	              and (ticket, seq) where there is a ticket (version 4); its
//	              credential column is version 11
//	ledger_chain  one row: the chain's head and its anchor (where it starts
//	              after retention dropped older records)
//	tickets       approval tickets (with the arguments an approver edited,
//	              version 2); indexed by key (tool, args_hash, scope,
//	              scope_id)
//	ticket_open   open (not consumed) tickets by subject, and in all
//	              (ticket_open_total), kept by triggers, for the caps
//	              (version 5)
//	cache         cached results by key, with their expiry (indexed)
//	pins          accepted definition hashes by pin.Key
//	tokens        OAuth tokens by server, subject, issuer and resource
//	              (secrets, encrypted with Options.Tokens.Keys; Open creates
//	              the file readable by its owner only)
//	signins       per-user sign-ins in progress by key (a hash of the
//	              state), with their subject, claim and expiry (version 10;
//	              the values sealed by the gateway)
//
// Times are stored as Unix nanoseconds, so that a record reads back
// exactly as it was hashed. The database runs in WAL mode.
package sqlitestore
