package mcpadapter_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

type hostileTaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

type hostileTask struct {
	mcp.ResultBase
	ResultType     string `json:"resultType"`
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	PollIntervalMs int    `json:"pollIntervalMs"`
}

// hostileTaskServer answers every tools/call with a task of the given id
// that never ends (pollIntervalMs 0); tasks/get answers with getID.
type hostileTaskServer struct {
	id, getID string
	gets      atomic.Int32
	cancels   atomic.Int32
}

func (h *hostileTaskServer) connect(t *testing.T) mcp.Transport {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v0"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Extensions: map[string]any{mcpadapter.TasksExtension: map[string]any{}}},
	})
	srv.AddTool(&mcp.Tool{Name: "research", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	get := func(_ context.Context, _ *mcp.ServerSession, p *hostileTaskParams) (*hostileTask, error) {
		h.gets.Add(1)
		return &hostileTask{ResultType: "complete", TaskID: h.getID, Status: "working"}, nil
	}
	if err := mcp.AddReceivingCustomMethod(srv, "tasks/get", get); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddReceivingCustomMethod(srv, "tasks/cancel", func(context.Context, *mcp.ServerSession, *hostileTaskParams) (*hostileTask, error) {
		h.cancels.Add(1)
		return &hostileTask{ResultType: "complete"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				return &hostileTask{ResultType: "task", TaskID: h.id, Status: "working"}, nil
			}
			return next(ctx, method, req)
		}
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(ctx, st)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ct
}

// TestImportHostileTask: an upstream whose task never ends and asks to be
// polled without pause is polled at the floor interval until the
// caller's deadline, then cancelled; a task id past 256 bytes, or a
// tasks/get about another task, is a tool error.
func TestImportHostileTask(t *testing.T) {
	tests := []struct {
		name, id, getID string
		timeout         time.Duration
		want            adapter.Kind
	}{
		{"never ends", "t1", "t1", 500 * time.Millisecond, adapter.KindTimeout},
		{"oversized id", strings.Repeat("x", 10000), "", 5 * time.Second, adapter.KindToolError},
		{"another task", "t1", "t2", 5 * time.Second, adapter.KindToolError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &hostileTaskServer{id: tt.id, getID: tt.getID}
			e := newImportEnv(t, nil)
			if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "hostile", Transport: h.connect(t), Trust: true}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			start := time.Now()
			_, aerr := e.call(t, ctx, "research", `{}`)
			if aerr == nil || aerr.Kind != tt.want {
				t.Fatalf("err = %v, want %s", aerr, tt.want)
			}
			if d := time.Since(start); d > tt.timeout+2*time.Second {
				t.Errorf("returned after %v", d)
			}
			if n := h.gets.Load(); n > int32(tt.timeout/(50*time.Millisecond))+2 {
				t.Errorf("%d tasks/get in %v: the poll interval is not bounded below", n, tt.timeout)
			}
			if tt.want == adapter.KindTimeout && h.cancels.Load() != 1 {
				t.Errorf("tasks/cancel sent %d times, want 1", h.cancels.Load())
			}
		})
	}
}
