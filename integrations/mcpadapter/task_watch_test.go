package mcpadapter_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestImportTaskWatchAbandoned: calls the upstream never answers, given up
// by their callers, are no longer watched for an answer; past a thousand
// of them on one connection a task-only tool still runs as a task (the
// connection still rewrites its answer); past 1024 outstanding ones the
// oldest is no longer watched.
func TestImportTaskWatchAbandoned(t *testing.T) {
	up := newTaskEnv(t, &mcpadapter.TaskOptions{PollInterval: 20 * time.Millisecond,
		Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
			if spec.Name == "slow" {
				return mcpadapter.TaskRequired
			}
			return mcpadapter.TaskForbidden
		}})
	// The upstream never answers a call of quick, whatever its client says.
	never := make(chan struct{})
	var received atomic.Int32
	up.ex.MCPServer().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if cr, ok := req.(*mcp.CallToolRequest); ok && cr.Params != nil && cr.Params.Name == "quick" {
				received.Add(1)
				<-never
				return nil, context.Canceled
			}
			return next(ctx, method, req)
		}
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- up.ex.Serve(ctx, st) }()
	e := newImportEnv(t, nil)
	t.Cleanup(func() {
		close(never)
		cancel()
		<-served
	})
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Transport: ct, Trust: true}); err != nil {
		t.Fatal(err)
	}

	const abandoned = 1100
	var wg sync.WaitGroup
	sem := make(chan struct{}, 100)
	for range abandoned {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer ccancel()
			_, _ = e.exec.Call(cctx, "quick", []byte(`{}`))
		}()
	}
	wg.Wait()
	taskCall := func(t *testing.T) {
		t.Helper()
		go func() {
			for up.started.Load() < 1 {
				time.Sleep(5 * time.Millisecond)
			}
			up.release <- struct{}{}
		}()
		up.started.Store(0)
		cctx, ccancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer ccancel()
		r, aerr := e.call(t, cctx, "slow", `{}`)
		if aerr != nil || r.Text() != "slow done" {
			t.Fatalf("task-only call = %v, %v; want its task's result", r, aerr)
		}
	}
	taskCall(t)

	t.Run("past the bound the oldest is evicted", func(t *testing.T) {
		// Calls outstanding, not given up: the watch keeps the newest.
		received.Store(0)
		octx, ocancel := context.WithCancel(context.Background())
		var owg sync.WaitGroup
		for range abandoned {
			owg.Add(1)
			go func() {
				defer owg.Done()
				_, _ = e.exec.Call(octx, "quick", []byte(`{}`))
			}()
		}
		defer func() {
			ocancel()
			owg.Wait()
		}()
		for deadline := time.Now().Add(20 * time.Second); received.Load() < abandoned; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the upstream received %d of %d calls", received.Load(), abandoned)
			}
		}
		taskCall(t)
	})
}
