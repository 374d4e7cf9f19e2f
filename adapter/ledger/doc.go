// Package ledger records every call an executor runs, one [Record] per
// call whatever its outcome, and chains the records with hashes so that an
// edit, an insertion or a deletion shows.
//
//	l := ledger.NewMemory(0)
//	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: l})
//	defer exec.Close()
//	exec.Call(ctx, "add", json.RawMessage(`{"a":2,"b":3}`))
//	exec.Flush(ctx) // the executor writes records from a goroutine of its own
//
//	for r := range l.Query(ctx, ledger.Query{Tool: "add"}) {
//		fmt.Println(r.Seq, r.Tool, r.Outcome) // 1 add ok
//	}
//	if err := l.Verify(ctx); err != nil { // a *ChainError names the first broken record
//		log.Fatal(err)
//	}
//
// The package's Example runs this code.
//
// A [Ledger] only writes; the executor fills each record (with the
// arguments redacted, see adapter.ExecutorOptions.Redact) and hands it over
// off the call's path, unless the ledger is a [Durable] one that asks to be
// written before the call returns. A [Reader] can be queried, a
// [Verifier] checks its chain, a [HeadVerifier] also checks a head kept
// elsewhere. [Memory] (a ring) and [JSONL] (a file of JSON lines) are the
// ledgers here; the store/sqlite and store/postgres modules keep records in
// a database, and adaptertest checks any implementation.
//
// The package knows nothing of tools or executors: it imports only the
// standard library, adapter/canonical and the masking rules it exports
// ([RedactKeys]).
//
// # The hash chain
//
// A chained ledger numbers each record it writes (Seq, from 1), sets its
// Prev to the Hash of the record before ("" for the first), then sets its
// Hash to [Hash] of the record: a hex SHA-256 over every field but Seq and
// Hash, with Time at nanosecond precision and Args in canonical JSON. The
// bytes hashed are fixed: chains written by earlier versions still verify,
// and a record whose text is not UTF-8 is chained with U+FFFD in its place
// ([Record.ValidUTF8]) so that a database or a JSON export keeps it as
// hashed. A ledger that drops old records (a ring, a retention) keeps the
// point it now starts from as its anchor, a [Head].
//
// # Verifying
//
// [Verify] walks records in Seq order from a point of the chain and returns
// the last point reached, or a [*ChainError] (matching [ErrChainBroken])
// that names the first record [Edited], [Inserted] or [Deleted]. A
// ledger's own head is no defence against whoever can write its storage:
// cut the tail and move the head back, and the chain is whole again. So
// note a head ([Head.String], SEQ:HASH) somewhere those writers cannot
// reach, and check it later with [VerifyHead] or [HeadVerifier.VerifyHead]:
// they fail, [Replaced] or [Deleted], unless the chain still holds that
// record with that hash at that place. [WriteJSONL] exports records,
// [VerifyJSONL] checks an export offline, and [ParseHead] reads a head back.
package ledger
