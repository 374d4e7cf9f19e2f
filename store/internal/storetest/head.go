package storetest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// TestTamperKeptHead cuts the ledger's tail and moves its head back, and
// wipes and resets it, behind the store's back: the ledger's own Verify
// finds a whole chain, VerifyHead against a head noted before the
// tampering does not, and names the record missing or replaced. The
// tamperings Verify catches, VerifyHead catches too.
func TestTamperKeptHead(t *testing.T, k *Kit) {
	ctx := context.Background()
	now := time.Now()
	at := func(i int) time.Time { return now.Add(time.Duration(i) * time.Second) }
	reset := `UPDATE ledger_chain SET head_seq = 0, head_hash = '', anchor_seq = 0, anchor_hash = ''`
	tests := []struct {
		name string
		sql  []string
		more int // records written after the tampering
		// wantVerify is whether the ledger's own Verify still passes
		// (the hole the kept head closes).
		wantVerify bool
		seq        int64
		problem    ledger.Problem
		kept       bool // the error names the kept head
	}{
		{"TailCutHeadMoved", []string{`DELETE FROM ledger WHERE seq > 7`,
			`UPDATE ledger_chain SET head_seq = 7, head_hash = (SELECT hash FROM ledger WHERE seq = 7)`}, 0, true, 8, ledger.Deleted, true},
		{"WipeAndReset", []string{`DELETE FROM ledger`, reset}, 0, true, 1, ledger.Deleted, true},
		{"WipeResetAndRefill", []string{`DELETE FROM ledger`, reset}, 12, true, 10, ledger.Replaced, true},
		{"TailCutHeadMovedAndRefilled", []string{`DELETE FROM ledger WHERE seq > 7`,
			`UPDATE ledger_chain SET head_seq = 7, head_hash = (SELECT hash FROM ledger WHERE seq = 7)`}, 5, true, 10, ledger.Replaced, true},
		{"Edit", []string{`UPDATE ledger SET outcome = 'tool_error' WHERE seq = 4`}, 0, false, 4, ledger.Edited, false},
		{"Delete", []string{`DELETE FROM ledger WHERE seq = 5`}, 0, false, 5, ledger.Deleted, false},
		{"DeleteLast", []string{`DELETE FROM ledger WHERE seq = 10`}, 0, false, 10, ledger.Deleted, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := k.Opener(t, Options{})()
			write(t, s.Ledger, 10, at)
			kept, err := s.Ledger.Head(ctx)
			if err != nil || kept.Seq != 10 {
				t.Fatalf("Head = %v, %v; want seq 10", kept, err)
			}
			if err := s.Ledger.VerifyHead(ctx, kept); err != nil {
				t.Fatalf("VerifyHead before tampering: %v", err)
			}
			for _, q := range tt.sql {
				if err := s.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if tt.more > 0 {
				write(t, s.Ledger, tt.more, func(i int) time.Time { return at(100 + i) })
			}
			if err := s.Ledger.Verify(ctx); (err == nil) != tt.wantVerify {
				t.Errorf("Verify without the kept head = %v; want passing %v", err, tt.wantVerify)
			}
			err = s.Ledger.VerifyHead(ctx, kept)
			var ce *ledger.ChainError
			if !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem || (ce.Kept == kept) != tt.kept {
				t.Fatalf("VerifyHead(%v) = %v; want record %d %s (naming the kept head: %v)", kept, err, tt.seq, tt.problem, tt.kept)
			}
			if tt.kept && !strings.Contains(err.Error(), kept.String()) {
				t.Errorf("VerifyHead's error %q does not name the kept head %s", err, kept)
			}
		})
	}
	t.Run("OlderHeadAndLaterRecords", func(t *testing.T) {
		s := k.Opener(t, Options{})()
		write(t, s.Ledger, 4, at)
		kept, err := s.Ledger.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		write(t, s.Ledger, 6, func(i int) time.Time { return at(10 + i) })
		if err := s.Ledger.VerifyHead(ctx, kept); err != nil {
			t.Errorf("VerifyHead(an older head) = %v; want nil", err)
		}
		if err := s.Ledger.VerifyHead(ctx, ledger.Head{}); err != nil {
			t.Errorf("VerifyHead(zero) = %v; want nil", err)
		}
		forged := kept
		forged.Hash = strings.Repeat("0", 64)
		var ce *ledger.ChainError
		if err := s.Ledger.VerifyHead(ctx, forged); !errors.As(err, &ce) || ce.Seq != 4 || ce.Problem != ledger.Replaced {
			t.Errorf("VerifyHead(a head with another hash) = %v; want record 4 replaced", err)
		}
	})
	t.Run("HeadBeforeRetention", func(t *testing.T) {
		now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		s := k.Opener(t, Options{Retention: time.Hour, Now: func() time.Time { return now }})()
		write(t, s.Ledger, 5, func(i int) time.Time { return now.Add(-time.Duration(10-i) * time.Hour) })
		old, err := s.Ledger.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		write(t, s.Ledger, 5, func(i int) time.Time { return now.Add(-time.Duration(10-i) * time.Minute) })
		if err := s.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		// The anchor is record 5 itself: its hash is still known.
		if err := s.Ledger.VerifyHead(ctx, old); err != nil {
			t.Errorf("VerifyHead(the anchor's head) = %v; want nil", err)
		}
		var h ledger.Head
		if err := s.QueryRow(ctx, "SELECT seq, hash FROM ledger WHERE seq = 5").Scan(&h.Seq, &h.Hash); err == nil {
			t.Fatalf("record 5 survived the sweep")
		}
		var ce *ledger.ChainError
		if err := s.Ledger.VerifyHead(ctx, ledger.Head{Seq: 3, Hash: strings.Repeat("a", 64)}); !errors.As(err, &ce) || ce.Seq != 3 || ce.Problem != ledger.Deleted {
			t.Errorf("VerifyHead(a head the retention dropped) = %v; want record 3 deleted", err)
		}
	})
}

// TestExportVerify exports the whole ledger and verifies the file offline,
// against the head and without one; an edited line, a cut tail and a
// filtered export fail, naming the record.
func TestExportVerify(t *testing.T, k *Kit) {
	ctx := context.Background()
	now := time.Now()
	s := k.Opener(t, Options{})()
	write(t, s.Ledger, 10, func(i int) time.Time { return now.Add(time.Duration(i) * time.Second) })
	head, err := s.Ledger.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Ledger.Export(ctx, &buf, ledger.Query{}); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	for _, kept := range []ledger.Head{{}, head} {
		last, err := ledger.VerifyJSONL(strings.NewReader(file), kept)
		if err != nil || last != head {
			t.Errorf("VerifyLedgerJSONL(the export, %v) = %v, %v; want %v, nil", kept, last, err, head)
		}
	}
	lines := strings.SplitAfter(file, "\n")
	edited := strings.Replace(lines[5], `"outcome":"ok"`, `"outcome":"tool_error"`, 1)
	if edited == lines[5] {
		t.Fatalf("line 6 has no outcome to edit: %s", lines[5])
	}
	cut := strings.Join(lines[:8], "")
	tests := []struct {
		name    string
		file    string
		kept    ledger.Head
		seq     int64
		problem ledger.Problem
	}{
		{"Edited", strings.Join(lines[:5], "") + edited + strings.Join(lines[6:], ""), ledger.Head{}, 6, ledger.Edited},
		{"LineDeleted", strings.Join(lines[:3], "") + strings.Join(lines[4:], ""), ledger.Head{}, 4, ledger.Deleted},
		{"TailCut", cut, head, 9, ledger.Deleted},
		{"Empty", "", head, 1, ledger.Deleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ledger.VerifyJSONL(strings.NewReader(tt.file), tt.kept)
			var ce *ledger.ChainError
			if !errors.As(err, &ce) || ce.Seq != tt.seq || ce.Problem != tt.problem {
				t.Errorf("VerifyLedgerJSONL = %v; want record %d %s", err, tt.seq, tt.problem)
			}
		})
	}
	t.Run("Filtered", func(t *testing.T) {
		var buf bytes.Buffer
		if err := s.Ledger.Export(ctx, &buf, ledger.Query{After: 2, Limit: 3}); err != nil {
			t.Fatal(err)
		}
		var ce *ledger.ChainError
		if _, err := ledger.VerifyJSONL(&buf, head); !errors.As(err, &ce) || ce.Seq != 6 || ce.Problem != ledger.Deleted {
			t.Errorf("VerifyLedgerJSONL(records 3-5, head 10) = %v; want record 6 deleted", err)
		}
	})
}

// TestLedgerInvalidUTF8 writes records whose text is not UTF-8 (a model's,
// a client's or a tool's text may be anything): every record of the batch
// is committed (PostgreSQL refused the whole batch), with the bytes
// replaced by U+FFFD, and the chain verifies, in the database and exported.
func TestLedgerInvalidUTF8(t *testing.T, k *Kit) {
	ctx := context.Background()
	s := k.Opener(t, Options{})()
	for i, r := range []ledger.Record{
		{CallID: "c1", Tool: "t", Outcome: "ok"},
		{CallID: "c2\xff", Tool: "t\xfe", Subject: "s\xc3", Outcome: "tool_error", Message: "bad \xff byte", Args: []byte("{\"q\":\"\xff\"}")},
		{CallID: "c3", Tool: "t", Outcome: "ok"},
	} {
		r.Time = time.Now().Add(time.Duration(i) * time.Second)
		if err := s.Ledger.Write(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Ledger.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var got []ledger.Record
	for r, err := range s.Ledger.Query(ctx, ledger.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 3 {
		t.Fatalf("%d records committed, want 3 (the batch was refused?)", len(got))
	}
	if r := got[1]; r.Message != "bad \uFFFD byte" || r.Tool != "t\uFFFD" || !strings.Contains(string(r.Args), "\uFFFD") {
		t.Errorf("record 2 = %+v; want the invalid bytes as U+FFFD", r)
	}
	if err := s.Ledger.Verify(ctx); err != nil {
		t.Errorf("Verify: %v", err)
	}
	var buf bytes.Buffer
	if err := s.Ledger.Export(ctx, &buf, ledger.Query{}); err != nil {
		t.Fatal(err)
	}
	if last, err := ledger.VerifyJSONL(&buf, ledger.Head{Seq: got[2].Seq, Hash: got[2].Hash}); err != nil || last.Seq != 3 {
		t.Errorf("VerifyLedgerJSONL(the export) = %v, %v; want record 3, nil", last, err)
	}
}
