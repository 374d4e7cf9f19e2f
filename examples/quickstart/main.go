// Command quickstart is the README's first command: it defines tools once,
// registers them, runs them through one governed executor and prints what
// the model and the program each receive. It runs offline.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

type WeatherIn struct {
	City string `json:"city" jsonschema:"the city to report on"`
}

type WeatherOut struct {
	City     string  `json:"city"`
	TempC    float64 `json:"temp_c"`
	Humidity int     `json:"humidity"`
}

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	closedWorld := false
	weather := adapter.MustTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, in WeatherIn) (WeatherOut, error) {
			if in.City == "Atlantis" {
				return WeatherOut{}, errors.New("no weather station in Atlantis")
			}
			return WeatherOut{City: in.City, TempC: 21.5, Humidity: 48}, nil
		}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closedWorld}})
	deleteFile := adapter.MustTool("delete_file", "Delete a file.",
		func(ctx context.Context, in struct {
			Path string `json:"path"`
		}) (string, error) {
			return "deleted " + in.Path, nil
		}, nil) // no annotations: destructive by MCP's defaults

	reg := registry.New()
	reg.MustRegister(weather, deleteFile)

	dir, err := os.MkdirTemp("", "agentadapter-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ledgerPath := filepath.Join(dir, "ledger.jsonl")
	ledger, err := adapter.OpenJSONLLedger(ledgerPath)
	if err != nil {
		return err
	}
	defer ledger.Close()
	approvals := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: approvals}, // destructive and open-world tools wait for approval
		Cache:    &adapter.CacheOptions{Tools: map[string]time.Duration{"get_weather": 0}},
		Ledger:   ledger,
	})
	defer exec.Close()
	fmt.Println("executor: approval by annotations (deferred tickets), cache for get_weather, JSONL ledger at", ledgerPath)

	call := func(name, args string) {
		res, err := exec.Call(ctx, name, json.RawMessage(args))
		if err != nil {
			payload, ok := adapter.ModelPayload(err)
			if !ok {
				payload = "Go error: " + err.Error()
			}
			fmt.Printf("  %s %s\n    model sees: %s\n", name, args, payload)
			return
		}
		sj, _ := res.StructuredJSON()
		fmt.Printf("  %s %s\n    model sees: %s\n    program gets: %s\n", name, args, res.Text(), sj)
	}
	fmt.Println("\ncalls:")
	call("get_weather", `{"city":"Paris"}`)
	call("get_weather", `{"city":"Paris"}`) // served from the cache
	call("get_weather", `{"city":"Atlantis"}`)
	call("get_weather", `{"town":"Paris"}`)
	call("delete_file", `{"path":"/tmp/report.txt"}`)

	for t, err := range approvals.Pending(ctx) {
		if err != nil {
			return err
		}
		fmt.Printf("\napproving ticket %s for %s %s\n", t.ID, t.Tool, t.Args)
		if err := approvals.Approve(ctx, t.ID, "quickstart-operator"); err != nil {
			return err
		}
	}
	call("delete_file", `{ "path": "/tmp/report.txt" }`) // same arguments, other spacing: runs once

	if err := exec.Flush(ctx); err != nil {
		return err
	}
	b, err := os.ReadFile(ledgerPath)
	if err != nil {
		return err
	}
	fmt.Println("\nledger:")
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r adapter.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return err
		}
		counts[r.Outcome]++
		fmt.Printf("  %-12s %-20s cache_hit=%-5v approval=%s\n", r.Tool, r.Outcome, r.CacheHit, r.Approval)
	}
	fmt.Printf("summary: %d calls, %v\n", exec.Calls(), counts)
	return nil
}
