package adapter_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
)

func TestParseChainHead(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	for _, tt := range []struct {
		in   string
		want adapter.ChainHead
		ok   bool
	}{
		{"42:" + hash, adapter.ChainHead{Seq: 42, Hash: hash}, true},
		{" 42:" + hash + "\n", adapter.ChainHead{Seq: 42, Hash: hash}, true},
		{`{"seq":42,"hash":"` + hash + `"}`, adapter.ChainHead{Seq: 42, Hash: hash}, true},
		{"0:", adapter.ChainHead{}, true},
		{"42", adapter.ChainHead{}, false},
		{"x:" + hash, adapter.ChainHead{}, false},
		{"-1:" + hash, adapter.ChainHead{}, false},
		{"0:" + hash, adapter.ChainHead{}, false},
		{"42:" + strings.ToUpper(hash), adapter.ChainHead{}, false},
		{"42:" + hash[:63], adapter.ChainHead{}, false},
		{"42:", adapter.ChainHead{}, false},
		{`{"seq":"42"}`, adapter.ChainHead{}, false},
		{strings.Repeat("9", 10000) + ":" + hash, adapter.ChainHead{}, false},
	} {
		got, err := adapter.ParseChainHead(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseChainHead(%.40q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil {
			if !errors.Is(err, adapter.ErrHeadSyntax) || len(err.Error()) > 200 {
				t.Errorf("ParseChainHead(%.40q) error %q: want ErrHeadSyntax, short", tt.in, err)
			}
		}
	}
	h := adapter.ChainHead{Seq: 7, Hash: hash}
	if got, err := adapter.ParseChainHead(h.String()); err != nil || got != h {
		t.Errorf("ParseChainHead(%q) = %v, %v; want the head back", h.String(), got, err)
	}
}

func TestMemoryLedgerVerifyHead(t *testing.T) {
	ctx := context.Background()
	var _ adapter.HeadVerifier = (*adapter.MemoryLedger)(nil)
	l := adapter.NewMemoryLedger(3)
	write := func(n int) {
		for i := range n {
			if err := l.Write(ctx, &adapter.Record{CallID: string(rune('a' + i)), Outcome: "ok"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(2)
	kept, _ := l.Head(ctx)
	if kept.Seq != 2 {
		t.Fatalf("Head = %v; want seq 2", kept)
	}
	write(1)
	if err := l.VerifyHead(ctx, kept); err != nil {
		t.Errorf("VerifyHead(record 2 of 3) = %v", err)
	}
	write(3) // the ring drops records 1-3: the anchor is record 3
	var ce *adapter.ChainError
	if err := l.VerifyHead(ctx, kept); !errors.As(err, &ce) || ce.Seq != 2 || ce.Problem != adapter.ChainDeleted || ce.Kept != kept {
		t.Errorf("VerifyHead(a dropped record) = %v; want record 2 deleted, naming the kept head", err)
	}
	if err := l.Verify(ctx); err != nil {
		t.Errorf("Verify = %v", err)
	}
}

func TestVerifyChainHeadProblems(t *testing.T) {
	l := adapter.NewMemoryLedger(0)
	for i := range 5 {
		if err := l.Write(context.Background(), &adapter.Record{CallID: string(rune('a' + i)), Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	recs := l.Records()
	seq := func(recs []adapter.Record) func(func(adapter.Record, error) bool) {
		return func(yield func(adapter.Record, error) bool) {
			for _, r := range recs {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
	h := func(i int) adapter.ChainHead { return adapter.ChainHead{Seq: recs[i].Seq, Hash: recs[i].Hash} }
	other := adapter.ChainHead{Seq: 3, Hash: strings.Repeat("0", 64)}
	for _, tt := range []struct {
		name    string
		recs    []adapter.Record
		from    adapter.ChainHead
		kept    adapter.ChainHead
		seq     int64
		problem adapter.ChainProblem
	}{
		{"Whole", recs, adapter.ChainHead{}, h(4), 0, ""},
		{"Older", recs, adapter.ChainHead{}, h(1), 0, ""},
		{"Zero", recs, adapter.ChainHead{}, adapter.ChainHead{}, 0, ""},
		{"AtAnchor", recs[2:], h(1), h(1), 0, ""},
		{"TailCut", recs[:3], adapter.ChainHead{}, h(4), 4, adapter.ChainDeleted},
		{"Empty", nil, adapter.ChainHead{}, h(0), 1, adapter.ChainDeleted},
		{"Replaced", recs, adapter.ChainHead{}, other, 3, adapter.ChainReplaced},
		{"BeforeAnchor", recs[2:], h(1), h(0), 1, adapter.ChainDeleted},
		{"AnchorReplaced", recs[2:], h(1), adapter.ChainHead{Seq: 2, Hash: other.Hash}, 2, adapter.ChainReplaced},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adapter.VerifyChainHead(seq(tt.recs), tt.from, tt.kept)
			if tt.problem == "" {
				if err != nil {
					t.Errorf("VerifyChainHead = %v; want nil", err)
				}
				return
			}
			var ce *adapter.ChainError
			if !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem || ce.Kept != tt.kept {
				t.Errorf("VerifyChainHead = %v; want record %d %s naming %v", err, tt.seq, tt.problem, tt.kept)
			}
		})
	}
}

// A record whose text is not UTF-8 is chained with U+FFFD in its place, so
// that its export verifies.
func TestMemoryLedgerInvalidUTF8(t *testing.T) {
	ctx := context.Background()
	l := adapter.NewMemoryLedger(0)
	r := adapter.Record{CallID: "c\xff", Subject: "s\xfe", Message: "m\xc3", Outcome: "ok", Args: []byte("{\"a\":\"\xff\"}")}
	if err := l.Write(ctx, &r); err != nil {
		t.Fatal(err)
	}
	if r.CallID != "c\xff" {
		t.Errorf("Write changed the caller's record: %q", r.CallID)
	}
	var buf strings.Builder
	if err := adapter.WriteLedgerJSONL(&buf, l.Query(ctx, adapter.LedgerQuery{})); err != nil {
		t.Fatal(err)
	}
	head, _ := l.Head(ctx)
	if _, err := adapter.VerifyLedgerJSONL(strings.NewReader(buf.String()), head); err != nil {
		t.Errorf("the export does not verify: %v\n%s", err, buf.String())
	}
	if got := l.Records()[0]; got.Message != "m\uFFFD" || string(got.Args) != "{\"a\":\"\uFFFD\"}" {
		t.Errorf("record = %+v; want U+FFFD for the invalid bytes", got)
	}
}
