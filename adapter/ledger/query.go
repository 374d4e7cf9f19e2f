package ledger

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/agentadapter/agentadapter/adapter/canonical"
)

// Query selects ledger records; each set field narrows the
// selection, and the zero value selects every record, oldest first.
type Query struct {
	// Run, Tool, Subject and Outcome select records with exactly that
	// RunID, Tool, Subject and Outcome.
	Run, Tool, Subject, Outcome string
	// Ticket selects the records of calls that presented or consumed the
	// approval ticket with exactly this id (Record.Ticket): the chain of
	// one approval, from the call that asked to the call that ran. The
	// database stores index it.
	Ticket string
	// Since and Until select records with Since <= Time < Until.
	Since, Until time.Time
	// Limit caps the number of records yielded; zero means no cap.
	Limit int
	// After is a cursor: only records past the one with this Seq are
	// yielded (in the order of the listing). Zero means from the start.
	After int64
	// Newest lists newest first instead of oldest first.
	Newest bool
}

// Match reports whether q selects r, ignoring Limit.
func (q *Query) Match(r *Record) bool {
	switch {
	case q.Run != "" && r.RunID != q.Run,
		q.Tool != "" && r.Tool != q.Tool,
		q.Subject != "" && r.Subject != q.Subject,
		q.Outcome != "" && r.Outcome != q.Outcome,
		q.Ticket != "" && r.Ticket != q.Ticket,
		!q.Since.IsZero() && r.Time.Before(q.Since),
		!q.Until.IsZero() && !r.Time.Before(q.Until),
		q.After != 0 && !q.Newest && r.Seq <= q.After,
		q.After != 0 && q.Newest && r.Seq >= q.After:
		return false
	}
	return true
}

// A Reader is a ledger that can be queried. Records come back with
// their Seq set, in Seq order (reversed with Newest); a query is a
// snapshot only as far as the implementation documents. The adaptertest
// package checks an implementation.
type Reader interface {
	Query(ctx context.Context, q Query) iter.Seq2[Record, error]
}

// A Durable ledger is a [Ledger] that may ask the executor to write each
// record synchronously, on the call's path, so that a call has returned
// only once its record is committed (for audits that must not lose a
// record in a crash). Such a Write is called from many goroutines at once.
type Durable interface {
	Ledger
	// Durable reports whether records are to be written synchronously.
	Durable() bool
}

// A Verifier is a ledger whose records form a hash chain
// ([Hash]). Verify walks the chain and returns nil, a [*ChainError]
// naming the first edited, inserted or deleted record, or an error that
// stopped the walk.
type Verifier interface {
	Verify(ctx context.Context) error
}

// Head is a point in a ledger's hash chain: the Seq and Hash of a
// record (the zero value is the start of a chain). A ledger that drops
// old records keeps the point it now starts from as its anchor.
type Head struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// Problem says how a chain was found broken.
type Problem string

const (
	// Edited: the record's content does not match its hash.
	Edited Problem = "edited"
	// Inserted: the record does not belong to the chain where it is.
	Inserted Problem = "inserted"
	// Deleted: the record is missing.
	Deleted Problem = "deleted"
)

// ErrChainBroken is the sentinel a [*ChainError] matches with errors.Is.
var ErrChainBroken = errors.New("adapter: ledger hash chain broken")

// ChainError names the first record at which a ledger's hash chain breaks.
type ChainError struct {
	// Seq is the position of the broken record.
	Seq int64
	// CallID is the broken record's call id, when the record is there.
	CallID  string
	Problem Problem
	// Kept is the head noted earlier that the chain no longer holds
	// ([VerifyHead]); zero when the chain broke in itself.
	Kept Head
}

func (e *ChainError) Error() string {
	msg := fmt.Sprintf("adapter: ledger hash chain broken: record %d %s", e.Seq, e.Problem)
	if e.CallID != "" {
		msg = fmt.Sprintf("adapter: ledger hash chain broken: record %d (call %s) %s", e.Seq, e.CallID, e.Problem)
	}
	if e.Kept != (Head{}) {
		msg += fmt.Sprintf(": the chain no longer holds the kept head %s (its tail was cut, or the ledger reset)", e.Kept)
	}
	return msg
}

// Is makes errors.Is(err, ErrChainBroken) true.
func (e *ChainError) Is(target error) bool { return target == ErrChainBroken }

// Hash returns the hash of a record's canonical form, its link in a
// ledger's hash chain: a hex SHA-256 over every field but Seq (its place,
// checked by the chain's links instead, so that an inserted record shows
// as one) and Hash itself, Prev (the Hash of the record before, "" for
// the first) included, with Time at nanosecond precision and Args in
// canonical JSON. A ledger sets r.Hash = Hash(r) after setting r.Prev.
func Hash(r *Record) string {
	args := r.Args
	if len(args) > 0 {
		if c, err := canonical.JSON(args); err == nil {
			args = c
		} else {
			args, _ = json.Marshal(string(args))
		}
	}
	if args != nil && len(args) == 0 {
		// json.Marshal refuses an empty json.RawMessage: chains have always
		// hashed the form's Go syntax then.
		if r.Credential != "" {
			return sha256Hex(fmt.Appendf(nil, "%#v", credentialForm{newChainForm(r, args), r.Credential}))
		}
		return sha256Hex(fmt.Appendf(nil, "%#v", newChainForm(r, args)))
	}
	return hashEncoded(func(b []byte) []byte { return appendChainForm(b, r, args) })
}

// Verify walks records in Seq order from the chain point from (the
// zero Head for a chain's start, or a ledger's anchor after old
// records were dropped) and returns the last point reached, or a
// [*ChainError] naming the first broken record. Compare the returned point
// with a head recorded elsewhere to detect records removed from, or added
// to, the end.
func Verify(records iter.Seq2[Record, error], from Head) (Head, error) {
	last := from
	var beforeLast string // Hash of the record before last
	for r, err := range records {
		if err != nil {
			return last, err
		}
		switch {
		case Hash(&r) != r.Hash:
			return last, &ChainError{Seq: r.Seq, CallID: r.CallID, Problem: Edited}
		case r.Seq > last.Seq+1:
			return last, &ChainError{Seq: last.Seq + 1, Problem: Deleted}
		case r.Seq <= last.Seq:
			return last, &ChainError{Seq: r.Seq, CallID: r.CallID, Problem: Inserted}
		case r.Prev != last.Hash:
			if last.Seq > from.Seq && r.Prev == beforeLast {
				// r links past the record before it: that one was inserted.
				return last, &ChainError{Seq: last.Seq, Problem: Inserted}
			}
			// r links to a record that is not there any more.
			return last, &ChainError{Seq: r.Seq, CallID: r.CallID, Problem: Deleted}
		}
		beforeLast = last.Hash
		last = Head{Seq: r.Seq, Hash: r.Hash}
	}
	return last, nil
}

// CheckHead compares where a walk of the chain ended ([Verify]) with
// the head the ledger recorded, and names the first record removed from or
// added to the end.
func CheckHead(last, head Head) error {
	switch {
	case last.Seq < head.Seq:
		return &ChainError{Seq: last.Seq + 1, Problem: Deleted}
	case last.Seq > head.Seq:
		return &ChainError{Seq: head.Seq + 1, Problem: Inserted}
	case last.Hash != head.Hash:
		return &ChainError{Seq: last.Seq, Problem: Edited}
	}
	return nil
}

// WriteJSONL writes records as JSON lines, chain fields included, so
// that [ReadJSONL] and [Verify] can check them offline.
func WriteJSONL(w io.Writer, records iter.Seq2[Record, error]) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for r, err := range records {
		if err != nil {
			return err
		}
		if err := enc.Encode(&r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// MaxLine bounds one line of [ReadJSONL].
const MaxLine = 16 << 20

// ReadJSONL reads records written by [WriteJSONL] (or a
// [JSONL]). A malformed line ends the sequence with an error naming
// its line number.
func ReadJSONL(r io.Reader) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
		for line := 1; sc.Scan(); line++ {
			if len(sc.Bytes()) == 0 {
				continue
			}
			var rec Record
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				yield(Record{}, fmt.Errorf("adapter: ledger line %d: %w", line, err))
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(Record{}, fmt.Errorf("adapter: reading ledger: %w", err))
		}
	}
}
