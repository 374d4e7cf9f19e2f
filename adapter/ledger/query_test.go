package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

func TestVerifyChainHead(t *testing.T) {
	l := ledger.NewMemory(3) // the ring drops records: the anchor moves
	for i := range 5 {
		r := ledger.Record{CallID: string(rune('a' + i)), Outcome: "ok"}
		if err := l.Write(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Verify(context.Background()); err != nil {
		t.Fatalf("Verify after the ring wrapped: %v", err)
	}
	recs := l.Records()
	last, err := ledger.Verify(func(yield func(ledger.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}, ledger.Head{Seq: recs[0].Seq - 1, Hash: recs[0].Prev})
	if err != nil || last.Seq != 5 {
		t.Fatalf("VerifyChain = %+v, %v", last, err)
	}
	for _, tt := range []struct {
		head    ledger.Head
		seq     int64
		problem ledger.Problem
	}{
		{ledger.Head{Seq: 6, Hash: "x"}, 6, ledger.Deleted},
		{ledger.Head{Seq: 4, Hash: recs[1].Hash}, 5, ledger.Inserted},
		{ledger.Head{Seq: 5, Hash: "other"}, 5, ledger.Edited},
	} {
		var ce *ledger.ChainError
		if err := ledger.CheckHead(last, tt.head); !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem {
			t.Errorf("CheckHead(%+v) = %v, want record %d %s", tt.head, err, tt.seq, tt.problem)
		}
	}
	if err := ledger.CheckHead(last, last); err != nil {
		t.Errorf("CheckHead(same) = %v", err)
	}
}
