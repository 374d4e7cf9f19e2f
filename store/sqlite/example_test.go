package sqlitestore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/registry"
	sqlitestore "github.com/agentadapter/agentadapter/store/sqlite"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	db, err := sqlitestore.Open(ctx, filepath.Join(dir, "state.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	reg := registry.New()
	type In struct {
		City string `json:"city"`
	}
	reg.Register(adapter.MustTool("weather", "Weather in a city", func(_ context.Context, in In) (string, error) {
		return "sunny in " + in.City, nil
	}, nil))
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: db.Ledger()})
	defer exec.Close()

	runCtx, _ := adapter.WithRun(ctx, &adapter.RunOptions{ID: "run-1"})
	res, _ := exec.Call(runCtx, "weather", json.RawMessage(`{"city":"Oslo"}`))
	fmt.Println(res.Text())

	exec.Flush(ctx) // wait for the batched ledger
	for r, err := range db.Ledger().Query(ctx, ledger.Query{Run: "run-1"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.Seq, r.Tool, r.Outcome)
	}
	fmt.Println("verify:", db.Ledger().Verify(ctx))
	// Output:
	// sunny in Oslo
	// 1 weather ok
	// verify: <nil>
}
