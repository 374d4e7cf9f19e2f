package sqlitestore_test

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
	sqlitestore "github.com/agentadapter/agentadapter/store/sqlite"
)

// The README's durable-state snippet is the code between the "README:
// begin" and "README: end" markers here, as printed there; a line marked
// "README: omit" is left out of the README.

// readmeDurable runs the README's snippet and hands its executor and store
// to use before the snippet's defers close them.
func readmeDurable(ctx context.Context, reg *registry.Registry, use func(*adapter.Executor, *sqlitestore.Store)) {
	// README: begin durable
	db, err := sqlitestore.Open(ctx, "state.db", nil) // or pgstore.Open(ctx, dsn, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Ledger:   db.Ledger(),
		Approval: adapter.ApprovalOptions{Port: &approval.Deferred{Store: db.Tickets()}},
		Cache:    &adapter.CacheOptions{Store: db.Cache(), Tools: map[string]time.Duration{"search": 0}}, // read-only or idempotent tools only
	})
	defer exec.Close()
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{PinStore: db.Pins()})
	defer mgr.Close()
	// README: end durable
	use(exec, db)
}

// TestReadmeDurable: with the README's snippet, a read-only search is
// cached in the file, a destructive call is held with a ticket the file
// keeps, and every call has its record in the file's ledger, all still
// there when the file is opened again.
func TestReadmeDurable(t *testing.T) {
	t.Chdir(t.TempDir())
	ctx := context.Background()
	var searched atomic.Int32
	reg := registry.New()
	reg.MustRegister(
		adapter.MustTool("search", "Search the docs.",
			func(_ context.Context, in struct {
				Q string `json:"q"`
			}) (string, error) {
				searched.Add(1)
				return "found " + in.Q, nil
			}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: new(bool)}}),
		adapter.MustTool("delete_report", "Delete a report.",
			func(_ context.Context, in struct {
				Name string `json:"name"`
			}) (string, error) {
				return "deleted " + in.Name, nil
			}, nil),
	)

	var ticket string
	readmeDurable(ctx, reg, func(exec *adapter.Executor, db *sqlitestore.Store) {
		for range 2 {
			res, err := exec.Call(ctx, "search", json.RawMessage(`{"q":"ledger"}`))
			if err != nil || res.Text() != "found ledger" {
				t.Fatalf("search: %v %v, want found ledger", res, err)
			}
		}
		if got := searched.Load(); got != 1 {
			t.Errorf("search ran %d times for two equal calls, want 1 (the second from the cache)", got)
		}
		_, err := exec.Call(ctx, "delete_report", json.RawMessage(`{"name":"q3.txt"}`))
		var e *adapter.Error
		if !errors.As(err, &e) || e.Kind != adapter.KindApprovalPending || e.Ticket == "" {
			t.Fatalf("delete_report: %v, want approval_pending with a ticket", err)
		}
		ticket = e.Ticket
		if err := exec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	})

	db, err := sqlitestore.Open(ctx, "state.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if tk, err := db.Tickets().Get(ctx, ticket); err != nil || tk.State != approval.TicketPending || tk.Tool != "delete_report" {
		t.Errorf("reopened file: ticket %s = %+v %v, want pending for delete_report", ticket, tk, err)
	}
	var outcomes []string
	for r, err := range db.Ledger().Query(ctx, ledger.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		outcomes = append(outcomes, r.Tool+":"+r.Outcome)
	}
	want := []string{"search:ok", "search:ok", "delete_report:approval_pending"}
	if len(outcomes) != len(want) {
		t.Fatalf("reopened file: ledger %q, want %q", outcomes, want)
	}
	for i := range want {
		if outcomes[i] != want[i] {
			t.Errorf("reopened file: ledger %q, want %q", outcomes, want)
			break
		}
	}
	if err := db.Ledger().Verify(ctx); err != nil {
		t.Errorf("reopened file: chain: %v", err)
	}
}
