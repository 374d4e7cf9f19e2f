package sqlledger

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// counter is a CommitFunc that keeps the size of every batch.
type counter struct {
	mu      sync.Mutex
	batches []int
}

func (c *counter) commit(_ context.Context, batch []ledger.Record) error {
	c.mu.Lock()
	c.batches = append(c.batches, len(batch))
	c.mu.Unlock()
	return nil
}

func (c *counter) sizes() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.batches...)
}

func newWriter(c *counter, linger time.Duration, durable bool) *Writer {
	return New(c.commit, Options{Buffer: 64, BatchSize: 8, Durable: durable, Linger: linger,
		Backoff: time.Millisecond, Full: errors.New("full"), Closed: errors.New("closed"), Name: "test"})
}

// TestLingerBatches: records arriving within the linger of a batch's first
// record share its commit (up to BatchSize); without a linger each record
// written to an idle writer is committed alone. Every record is committed
// exactly once either way.
func TestLingerBatches(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		linger     time.Duration
		maxCommits int
		minCommits int
	}{{time.Second, 2, 2}, {0, 16, 16}} {
		c := &counter{}
		w := newWriter(c, tc.linger, false)
		for range 16 {
			if err := w.Write(ctx, &ledger.Record{Tool: "t"}); err != nil {
				t.Fatal(err)
			}
			if tc.linger == 0 {
				if err := w.Flush(ctx); err != nil { // idle again before the next record
					t.Fatal(err)
				}
			}
		}
		start := time.Now()
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if tc.linger > 0 && time.Since(start) > 5*time.Second {
			t.Errorf("Flush took %v with a full batch pending", time.Since(start))
		}
		w.Close()
		sizes := c.sizes()
		total := 0
		for _, n := range sizes {
			if n > 8 {
				t.Errorf("a batch of %d, BatchSize 8", n)
			}
			total += n
		}
		if total != 16 || len(sizes) > tc.maxCommits || len(sizes) < tc.minCommits {
			t.Errorf("linger %v: batches %v, want 16 records in %d..%d commits", tc.linger, sizes, tc.minCommits, tc.maxCommits)
		}
		if st := w.Stats(); st.Written != 16 || st.Failed != 0 || st.Refused != 0 {
			t.Errorf("stats %+v", st)
		}
	}
}

// TestLingerEndsAtClose: Close does not wait out a linger: the pending
// record is committed at once and Close returns.
func TestLingerEndsAtClose(t *testing.T) {
	c := &counter{}
	w := newWriter(c, time.Hour, false)
	if err := w.Write(context.Background(), &ledger.Record{Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { w.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the linger")
	}
	if sizes := c.sizes(); len(sizes) != 1 || sizes[0] != 1 {
		t.Errorf("batches %v, want [1]", sizes)
	}
}

// TestLingerBounded: a lone record is committed once the linger ends, not
// held for more records.
func TestLingerBounded(t *testing.T) {
	c := &counter{}
	w := newWriter(c, 20*time.Millisecond, false)
	defer w.Close()
	start := time.Now()
	if err := w.Write(context.Background(), &ledger.Record{Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Flush(ctx); err != nil {
		t.Fatalf("the lone record was not committed: %v", err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("committed after %v, before the 20ms linger ended", d)
	}
}

// TestLingerEndsWhenFull: a batch that fills during its linger is
// committed at once, not when the linger ends, and so is each full batch
// after it.
func TestLingerEndsWhenFull(t *testing.T) {
	for _, n := range []int{8, 16, 24} {
		c := &counter{}
		w := newWriter(c, time.Hour, false)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		for i := range n {
			if err := w.Write(ctx, &ledger.Record{Tool: "t"}); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				time.Sleep(10 * time.Millisecond) // the writer is in its linger
			}
		}
		if err := w.Flush(ctx); err != nil {
			t.Fatalf("%d records: full batches waited for the linger: %v (batches %v)", n, err, c.sizes())
		}
		cancel()
		if sizes := c.sizes(); len(sizes) != n/8 {
			t.Errorf("%d records: batches %v, want %d of 8", n, sizes, n/8)
		}
		w.Close()
	}
}
