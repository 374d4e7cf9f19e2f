package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
)

// A ledger's own head says where its chain ends, and whoever can write the
// ledger's storage can move it: delete the last records and move the head
// back, or wipe everything and start again, and [Verifier.Verify]
// still finds a whole chain. A head copied somewhere the storage's writers
// cannot reach (a remote log, a ticket) closes that hole: a later
// [VerifyHead] (or a store's VerifyHead) fails unless the chain still
// holds that record with that hash at that place.

// A HeadVerifier is a [Verifier] whose head can be kept elsewhere and
// checked against later. The database stores and [Memory] implement
// it.
type HeadVerifier interface {
	Verifier
	// Head returns the chain's last point (the zero Head for an
	// empty ledger).
	Head(ctx context.Context) (Head, error)
	// VerifyHead is Verify that also fails, with a [*ChainError] whose
	// Kept is kept, when the chain no longer holds kept: its tail was cut
	// or the ledger was reset. The zero kept checks nothing more than
	// Verify.
	VerifyHead(ctx context.Context, kept Head) error
}

// String formats h as SEQ:HASH, short enough to paste into a ticket or a
// log line; [ParseHead] reads it back.
func (h Head) String() string { return strconv.FormatInt(h.Seq, 10) + ":" + h.Hash }

// maxHeadText bounds the text ParseHead reads: a head is about 90
// bytes in either form.
const maxHeadText = 512

// ErrHeadSyntax is the sentinel of a head [ParseHead] cannot read.
var ErrHeadSyntax = errors.New("adapter: malformed chain head")

// ParseHead reads a head written by [Head.String] (SEQ:HASH) or
// as JSON ({"seq":N,"hash":"…"}, what `agentadapter ledger head --json`
// prints). The hash is a hex SHA-256, as [Hash] makes; the zero head
// is "0:". Errors match [ErrHeadSyntax] and quote at most a few bytes of s.
func ParseHead(s string) (Head, error) {
	s = strings.TrimSpace(s)
	bad := func(why string) (Head, error) {
		return Head{}, fmt.Errorf("%w: %s (want SEQ:HASH or {\"seq\":N,\"hash\":\"…\"})", ErrHeadSyntax, why)
	}
	if len(s) > maxHeadText {
		return bad(fmt.Sprintf("%d bytes", len(s)))
	}
	var h Head
	if strings.HasPrefix(s, "{") {
		if err := json.Unmarshal([]byte(s), &h); err != nil {
			return bad("not a JSON head")
		}
	} else {
		seq, hash, ok := strings.Cut(s, ":")
		if !ok {
			return bad("no ':'")
		}
		n, err := strconv.ParseInt(seq, 10, 64)
		if err != nil {
			return bad("the sequence number is not a number")
		}
		h = Head{Seq: n, Hash: hash}
	}
	switch {
	case h.Seq < 0:
		return bad("negative sequence number")
	case h.Seq == 0 && h.Hash != "":
		return bad("sequence 0 is the empty chain, with no hash")
	case h.Seq > 0 && !isSHA256Hex(h.Hash):
		return bad("the hash is not 64 lower-case hex digits")
	}
	return h, nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Replaced: the record at a kept head's place has another hash; the
// chain from there on was rewritten, or the ledger reset and refilled.
const Replaced Problem = "replaced"

// VerifyHead is [Verify] that also checks the chain still holds
// kept, a head noted earlier (a zero kept checks nothing more). It fails
// with a [*ChainError] whose Kept is kept when the walk ends before
// kept.Seq (the tail was cut: Deleted, at the first record missing),
// when the record at kept.Seq has another hash (Replaced), or when
// kept.Seq is before from, the point the walk starts at (the records up to
// from were dropped, by retention or otherwise: Deleted at kept.Seq;
// keep a head newer than the retention).
func VerifyHead(records iter.Seq2[Record, error], from, kept Head) (Head, error) {
	switch {
	case kept == Head{}:
		return Verify(records, from)
	case kept.Seq < from.Seq:
		return from, &ChainError{Seq: kept.Seq, Problem: Deleted, Kept: kept}
	case kept.Seq == from.Seq && kept.Hash != from.Hash:
		return from, &ChainError{Seq: kept.Seq, Problem: Replaced, Kept: kept}
	}
	var found *Record
	last, err := Verify(func(yield func(Record, error) bool) {
		for r, err := range records {
			if err == nil && r.Seq == kept.Seq && kept.Seq > from.Seq {
				c := r
				found = &c
			}
			if !yield(r, err) {
				return
			}
		}
	}, from)
	if err != nil {
		return last, err
	}
	switch {
	case kept.Seq <= from.Seq:
	case last.Seq < kept.Seq:
		return last, &ChainError{Seq: last.Seq + 1, Problem: Deleted, Kept: kept}
	case found == nil: // unreachable: a whole chain past kept.Seq holds it
		return last, &ChainError{Seq: kept.Seq, Problem: Deleted, Kept: kept}
	case found.Hash != kept.Hash:
		return last, &ChainError{Seq: kept.Seq, CallID: found.CallID, Problem: Replaced, Kept: kept}
	}
	return last, nil
}

// VerifyJSONL checks an exported ledger (JSON lines, as
// [WriteJSONL] and `agentadapter ledger export` write them) offline:
// the chain from its first record (which it takes on trust, from Seq-1 and
// Prev) to its last, and, unless kept is zero, that it holds kept (see
// [VerifyHead]). Only an export of every record keeps the chain; a
// filtered one fails as deleted records. It returns the last point of the
// file's chain, to compare with the ledger's head or keep.
func VerifyJSONL(r io.Reader, kept Head) (Head, error) {
	next, stop := iter.Pull2(ReadJSONL(r))
	defer stop()
	first, err, ok := next()
	if !ok {
		return VerifyHead(func(func(Record, error) bool) {}, Head{}, kept)
	}
	if err != nil {
		return Head{}, err
	}
	if first.Seq < 1 {
		return Head{}, &ChainError{Seq: first.Seq, CallID: first.CallID, Problem: Inserted}
	}
	from := Head{Seq: first.Seq - 1, Hash: first.Prev}
	return VerifyHead(func(yield func(Record, error) bool) {
		if !yield(first, nil) {
			return
		}
		for {
			r, err, ok := next()
			if !ok || !yield(r, err) {
				return
			}
		}
	}, from, kept)
}

// VerifyBetween is what a chained ledger's VerifyHead does: it walks
// records (the ledger's, in Seq order) from anchor, the point the ledger
// starts from, and checks that the chain is whole, that it ends at head,
// the ledger's own head ([CheckHead]), and that it holds kept
// ([VerifyHead]; the zero kept checks nothing more).
func VerifyBetween(records iter.Seq2[Record, error], anchor, head, kept Head) error {
	last, err := VerifyHead(records, anchor, kept)
	if err != nil {
		return err
	}
	return CheckHead(last, head)
}
