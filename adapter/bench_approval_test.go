package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
)

// BenchmarkGatedCallTicketFlood measures an approval-gated call (it finds
// its pending ticket and returns approval_pending) with a store holding
// none or 100,000 open tickets from 1,000 callers: with an indexed store
// the two cost the same. It reports the heap the flood holds per ticket.
func BenchmarkGatedCallTicketFlood(b *testing.B) {
	for _, n := range []int{0, 100_000} {
		b.Run(fmt.Sprintf("tickets=%d", n), func(b *testing.B) {
			ctx := context.Background()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			store := approval.NewMemoryStore()
			now := time.Now()
			for i := range n {
				subject := fmt.Sprintf("u%d", i%1000)
				err := store.Create(ctx, &approval.Ticket{
					ID: fmt.Sprintf("t%d", i), Tool: "rm", ArgsHash: fmt.Sprintf("%064x", i), Args: json.RawMessage(fmt.Sprintf(`{"x":%d}`, i)),
					Scope: approval.ScopeSubject, ScopeID: subject, Subject: subject,
					State: approval.TicketPending, Created: now, Expires: now.Add(time.Hour),
				}, approval.Caps{})
				if err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			d := &approval.Deferred{Store: store, Caps: approval.Caps{PerSubject: -1, Total: -1}}
			spec := adapter.MustRawTool("rm", "", echoSchema(), echo, &adapter.ToolOptions{})
			e := adapter.NewExecutor(catalog{spec}, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: d}, Logger: slog.New(slog.DiscardHandler)})
			b.Cleanup(func() { e.Close() })
			actx := as("alice")
			args := json.RawMessage(`{"x":-1}`)
			if _, err := e.Call(actx, "rm", args); adapter.KindOf(err) != adapter.KindApprovalPending {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Call(actx, "rm", args); adapter.KindOf(err) != adapter.KindApprovalPending {
					b.Fatal(err)
				}
			}
			if n > 0 {
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "heapB/ticket")
			}
		})
	}
}
