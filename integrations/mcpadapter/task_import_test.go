package mcpadapter_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// TestImportTaskOnlyTool calls server-everything's simulate-research-query
// (execution.taskSupport "required"; the TypeScript SDK refuses it without
// a task param) through the executor: it runs as an upstream task, polled
// until it completes, its status reported as progress; a caller giving up
// cancels it.
func TestImportTaskOnlyTool(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	e := newImportEnv(t, nil)
	err := e.m.Connect(context.Background(), mcpadapter.Server{
		Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: 60 * time.Second, CallTimeout: 60 * time.Second, Trust: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.reg.Lookup("simulate-research-query"); !ok {
		t.Fatalf("simulate-research-query not imported: %v", regNames(e.reg))
	}

	t.Run("completes", func(t *testing.T) {
		var mu sync.Mutex
		var reports []string
		ctx := adapter.WithProgress(context.Background(), func(p adapter.Progress) {
			mu.Lock()
			reports = append(reports, p.Message)
			mu.Unlock()
		})
		start := time.Now()
		r, aerr := e.call(t, ctx, "simulate-research-query", `{"topic":"golang"}`)
		if aerr != nil {
			t.Fatalf("call: %v (%s)", aerr, aerr.Message)
		}
		if !strings.Contains(r.Text(), "# Research Report: golang") {
			t.Errorf("text = %.200q, want the research report", r.Text())
		}
		if _, ok := r.Meta["io.modelcontextprotocol/related-task"]; ok {
			t.Errorf("the upstream's related-task _meta was relayed: %v", r.Meta)
		}
		if d := time.Since(start); d < 3*time.Second {
			t.Errorf("returned after %v; the task takes four 1s stages", d)
		}
		mu.Lock()
		defer mu.Unlock()
		joined := strings.Join(reports, "\n")
		for _, want := range []string{"task working: Gathering sources...", "task working: Generating report..."} {
			if !strings.Contains(joined, want) {
				t.Errorf("progress %q missing; got:\n%s", want, joined)
			}
		}
	})

	t.Run("caller gives up", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, aerr := e.call(t, ctx, "simulate-research-query", `{"topic":"rust"}`)
		if aerr == nil || aerr.Kind != adapter.KindTimeout {
			t.Fatalf("err = %v, want a timeout", aerr)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("returned after %v; the caller's deadline was 1.5s", d)
		}
	})
}
