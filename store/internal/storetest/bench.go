package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

func benchRecord(i int) ledger.Record {
	return ledger.Record{
		Time: time.Now(), CallID: fmt.Sprintf("call-%d", i), RunID: fmt.Sprintf("run-%d", i%100), Tool: "search",
		Source: "mcp:web", Integration: "eino", Subject: "alice", Args: json.RawMessage(`{"q":"weather in Oslo","n":5}`),
		Outcome: "ok", Duration: time.Millisecond, ResultBytes: 512, ArgsHash: "3f2a", ResultHash: "9c1e",
	}
}

// BenchmarkLedgerBatched measures the default mode: records queued by
// Write and committed in batches by the store's goroutine.
//
// It writes as fast as the ledger takes records (a refused record is
// written again after a pause) and reports records/s of wall time and of
// the process's CPU time (the figure that holds on a machine shared with
// other work).
func BenchmarkLedgerBatched(b *testing.B, k *Kit) {
	s := k.Opener(b, Options{})()
	l := s.Ledger
	ctx := context.Background()
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	for i := range b.N {
		r := benchRecord(i)
		for {
			err := l.Write(ctx, &r)
			if err == nil {
				break
			}
			if !errors.Is(err, k.ErrLedgerFull) {
				b.Fatal(err)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	if err := l.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	reportPerCPU(b, cpu)
	if s := s.LedgerStats(); s.Failed != 0 || s.Written != int64(b.N) {
		b.Fatalf("stats %+v", s)
	}
}

// BenchmarkLedgerDurable measures Durable mode with 16 concurrent callers
// (their records share commits):
// each Write returns once its record is committed and synced.
func BenchmarkLedgerDurable(b *testing.B, k *Kit) {
	l := k.Opener(b, Options{Durable: true})().Ledger
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(8) // GOMAXPROCS × 8 callers
	b.ResetTimer()
	start := time.Now()
	cpu := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r := benchRecord(int(n.Add(1)))
			if err := l.Write(ctx, &r); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	reportPerCPU(b, cpu)
}

// BenchmarkApprovalRoundTrip measures a deferred approval through the
// executor: the call gets a ticket, the ticket is approved, the retried
// call consumes it and runs.
func BenchmarkApprovalRoundTrip(b *testing.B, k *Kit) {
	approvalRoundTrip(b, k.Opener(b, Options{})().Tickets)
}

// BenchmarkApprovalRoundTripBusy is BenchmarkApprovalRoundTrip while
// 5,000 tickets of 100 other callers wait for a decision: the caps
// (adapter.Deferred's defaults) must not cost more with them.
func BenchmarkApprovalRoundTripBusy(b *testing.B, k *Kit) {
	s := k.Opener(b, Options{})().Tickets
	ctx := context.Background()
	now := time.Now()
	for i := range 5000 {
		subject := fmt.Sprintf("user-%d", i%100)
		if err := s.Create(ctx, &approval.Ticket{ID: fmt.Sprintf("busy-%d", i), Tool: "rm", ArgsHash: fmt.Sprint(i),
			Scope: approval.ScopeSubject, ScopeID: subject, Subject: subject, State: approval.TicketPending,
			Created: now, Expires: now.Add(time.Hour)}, approval.Caps{}); err != nil {
			b.Fatal(err)
		}
	}
	approvalRoundTrip(b, s)
}

func approvalRoundTrip(b *testing.B, s approval.Store) {
	d := &approval.Deferred{Store: s}
	spec := adapter.MustRawTool("rm", "", &jsonschema.Schema{Type: "object"}, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult("ok"), nil
	}, nil)
	e := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}})
	defer e.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		args := json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))
		_, err := e.Do(ctx, &adapter.Request{Spec: spec, Args: args})
		ae, _ := err.(*adapter.Error)
		if ae == nil || ae.Kind != adapter.KindApprovalPending {
			b.Fatalf("first call: %v", err)
		}
		if err := d.Approve(ctx, ae.Ticket, "op"); err != nil {
			b.Fatal(err)
		}
		if _, err := e.Do(ctx, &adapter.Request{Spec: spec, Args: args}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCacheHit measures a hit of the shared cache (read and decode).
func BenchmarkCacheHit(b *testing.B, k *Kit) {
	c := k.Opener(b, Options{})().Cache
	ctx := context.Background()
	c.Add(ctx, "alice\x00search\x00{\"q\":\"x\"}", &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: "a result of a few hundred bytes " + fmt.Sprint(make([]int, 60))}}}, time.Hour)
	b.ResetTimer()
	for range b.N {
		if _, ok := c.Get(ctx, "alice\x00search\x00{\"q\":\"x\"}"); !ok {
			b.Fatal("miss")
		}
	}
}

// BenchmarkQueryRun1M queries the records of one run (100 records) in a
// ledger of 1,000,000 records of 10,000 runs, which the store's fill
// function generates in SQL (their chain fields are not real hashes: this
// measures the query).
func BenchmarkQueryRun1M(b *testing.B, k *Kit, fill func(ctx context.Context, s *Store) error) {
	s := k.Opener(b, Options{})()
	ctx := context.Background()
	if err := fill(ctx, s); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		n := 0
		for _, err := range s.Ledger.Query(ctx, ledger.Query{Run: fmt.Sprintf("run-%d", i%10000)}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 100 {
			b.Fatalf("%d records", n)
		}
	}
}

// reportPerCPU reports records per CPU-second of the process since cpu,
// where the platform measures it.
func reportPerCPU(b *testing.B, cpu time.Duration) {
	if d := cpuTime() - cpu; d > 0 {
		b.ReportMetric(float64(b.N)/d.Seconds(), "records/cpu-s")
	}
}
