package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

func TestParseChainHead(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	for _, tt := range []struct {
		in   string
		want ledger.Head
		ok   bool
	}{
		{"42:" + hash, ledger.Head{Seq: 42, Hash: hash}, true},
		{" 42:" + hash + "\n", ledger.Head{Seq: 42, Hash: hash}, true},
		{`{"seq":42,"hash":"` + hash + `"}`, ledger.Head{Seq: 42, Hash: hash}, true},
		{"0:", ledger.Head{}, true},
		{"42", ledger.Head{}, false},
		{"x:" + hash, ledger.Head{}, false},
		{"-1:" + hash, ledger.Head{}, false},
		{"0:" + hash, ledger.Head{}, false},
		{"42:" + strings.ToUpper(hash), ledger.Head{}, false},
		{"42:" + hash[:63], ledger.Head{}, false},
		{"42:", ledger.Head{}, false},
		{`{"seq":"42"}`, ledger.Head{}, false},
		{strings.Repeat("9", 10000) + ":" + hash, ledger.Head{}, false},
	} {
		got, err := ledger.ParseHead(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseHead(%.40q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil {
			if !errors.Is(err, ledger.ErrHeadSyntax) || len(err.Error()) > 200 {
				t.Errorf("ParseHead(%.40q) error %q: want ErrHeadSyntax, short", tt.in, err)
			}
		}
	}
	h := ledger.Head{Seq: 7, Hash: hash}
	if got, err := ledger.ParseHead(h.String()); err != nil || got != h {
		t.Errorf("ParseHead(%q) = %v, %v; want the head back", h.String(), got, err)
	}
}

func TestMemoryLedgerVerifyHead(t *testing.T) {
	ctx := context.Background()
	var _ ledger.HeadVerifier = (*ledger.Memory)(nil)
	l := ledger.NewMemory(3)
	write := func(n int) {
		for i := range n {
			if err := l.Write(ctx, &ledger.Record{CallID: string(rune('a' + i)), Outcome: "ok"}); err != nil {
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
	var ce *ledger.ChainError
	if err := l.VerifyHead(ctx, kept); !errors.As(err, &ce) || ce.Seq != 2 || ce.Problem != ledger.Deleted || ce.Kept != kept {
		t.Errorf("VerifyHead(a dropped record) = %v; want record 2 deleted, naming the kept head", err)
	}
	if err := l.Verify(ctx); err != nil {
		t.Errorf("Verify = %v", err)
	}
}

func TestVerifyChainHeadProblems(t *testing.T) {
	l := ledger.NewMemory(0)
	for i := range 5 {
		if err := l.Write(context.Background(), &ledger.Record{CallID: string(rune('a' + i)), Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	recs := l.Records()
	seq := func(recs []ledger.Record) func(func(ledger.Record, error) bool) {
		return func(yield func(ledger.Record, error) bool) {
			for _, r := range recs {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
	h := func(i int) ledger.Head { return ledger.Head{Seq: recs[i].Seq, Hash: recs[i].Hash} }
	other := ledger.Head{Seq: 3, Hash: strings.Repeat("0", 64)}
	for _, tt := range []struct {
		name    string
		recs    []ledger.Record
		from    ledger.Head
		kept    ledger.Head
		seq     int64
		problem ledger.Problem
	}{
		{"Whole", recs, ledger.Head{}, h(4), 0, ""},
		{"Older", recs, ledger.Head{}, h(1), 0, ""},
		{"Zero", recs, ledger.Head{}, ledger.Head{}, 0, ""},
		{"AtAnchor", recs[2:], h(1), h(1), 0, ""},
		{"TailCut", recs[:3], ledger.Head{}, h(4), 4, ledger.Deleted},
		{"Empty", nil, ledger.Head{}, h(0), 1, ledger.Deleted},
		{"Replaced", recs, ledger.Head{}, other, 3, ledger.Replaced},
		{"BeforeAnchor", recs[2:], h(1), h(0), 1, ledger.Deleted},
		{"AnchorReplaced", recs[2:], h(1), ledger.Head{Seq: 2, Hash: other.Hash}, 2, ledger.Replaced},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ledger.VerifyHead(seq(tt.recs), tt.from, tt.kept)
			if tt.problem == "" {
				if err != nil {
					t.Errorf("VerifyHead = %v; want nil", err)
				}
				return
			}
			var ce *ledger.ChainError
			if !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem || ce.Kept != tt.kept {
				t.Errorf("VerifyHead = %v; want record %d %s naming %v", err, tt.seq, tt.problem, tt.kept)
			}
		})
	}
}

// A record whose text is not UTF-8 is chained with U+FFFD in its place, so
// that its export verifies.
func TestMemoryLedgerInvalidUTF8(t *testing.T) {
	ctx := context.Background()
	l := ledger.NewMemory(0)
	r := ledger.Record{CallID: "c\xff", Subject: "s\xfe", Message: "m\xc3", Outcome: "ok", Args: []byte("{\"a\":\"\xff\"}")}
	if err := l.Write(ctx, &r); err != nil {
		t.Fatal(err)
	}
	if r.CallID != "c\xff" {
		t.Errorf("Write changed the caller's record: %q", r.CallID)
	}
	var buf strings.Builder
	if err := ledger.WriteJSONL(&buf, l.Query(ctx, ledger.Query{})); err != nil {
		t.Fatal(err)
	}
	head, _ := l.Head(ctx)
	if _, err := ledger.VerifyJSONL(strings.NewReader(buf.String()), head); err != nil {
		t.Errorf("the export does not verify: %v\n%s", err, buf.String())
	}
	if got := l.Records()[0]; got.Message != "m\uFFFD" || string(got.Args) != "{\"a\":\"\uFFFD\"}" {
		t.Errorf("record = %+v; want U+FFFD for the invalid bytes", got)
	}
}
