package mcpadapter_test

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// helperMode, when set, makes the test binary a stdio MCP server (see
// TestHelperStdioServer): "tools" serves pid, sleep, slow_idem and add;
// "silent" reads and never answers.
const helperMode = "MCPADAPTER_IMPORT_HELPER"

// TestHelperStdioServer is not a test: run by stdioHelper as a child
// process, it serves MCP over stdio until stdin closes.
func TestHelperStdioServer(t *testing.T) {
	switch os.Getenv(helperMode) {
	case "":
		t.Skip("run as a child process only")
	case "silent":
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "v1"}, nil)
	obj := &jsonschema.Schema{Type: "object"}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "pid", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(strconv.Itoa(os.Getpid())), nil
		})
	// sleep is neither read-only nor idempotent: never retried.
	s.AddTool(&mcp.Tool{Name: "sleep", InputSchema: obj},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second):
			}
			return text("slept"), nil
		})
	// slow_idem is idempotent: retried once after a lost connection.
	s.AddTool(&mcp.Tool{Name: "slow_idem", InputSchema: obj, Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(time.Second)
			return text("done by " + strconv.Itoa(os.Getpid())), nil
		})
	// huge answers 32 MiB, past the default result limit and go-sdk's own
	// 16 MiB frame limit.
	s.AddTool(&mcp.Tool{Name: "huge", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(strings.Repeat("a", 32<<20)), nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds"},
		func(ctx context.Context, req *mcp.CallToolRequest, in impAddIn) (*mcp.CallToolResult, impAddOut, error) {
			return nil, impAddOut{Sum: in.A + in.B}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// stdioHelper describes the test binary run as a stdio server.
func stdioHelper(mode string) mcpadapter.Upstream {
	return mcpadapter.Upstream{
		Name:    "child",
		Command: os.Args[0],
		Args:    []string{"-test.run=^TestHelperStdioServer$"},
		Env:     append(os.Environ(), helperMode+"="+mode),
	}
}

func pidOf(t *testing.T, e *importEnv) int {
	t.Helper()
	res, err := e.call(t, context.Background(), "pid", `{}`)
	if err != nil {
		t.Fatalf("pid: %v", err)
	}
	pid, perr := strconv.Atoi(res.Text())
	if perr != nil {
		t.Fatal(perr)
	}
	return pid
}

// Over stdio the result limit is the frame limit: a 32 MiB answer is cut
// while read past MaxResultBytes (a tool_error, not a broken connection),
// and the next call gets a new child.
func TestStdioFrameLimit(t *testing.T) {
	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), stdioHelper("tools")); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, e)
	if _, err := e.call(t, context.Background(), "huge", `{}`); err == nil || err.Kind != adapter.KindToolError || !strings.Contains(err.Message, "larger than") {
		t.Fatalf("32 MiB over stdio: %v, want a tool_error naming the limit", err)
	}
	if pid2 := pidOf(t, e); pid2 == pid {
		t.Errorf("the session that read a cut frame was kept (pid %d)", pid)
	}
}

func TestConnectNeverAnswers(t *testing.T) {
	e := newImportEnv(t, nil)
	s := stdioHelper("silent")
	s.ConnectTimeout = 500 * time.Millisecond
	start := time.Now()
	err := e.m.Connect(context.Background(), s)
	var se *mcpadapter.UpstreamError
	if !errors.As(err, &se) || se.Server != "child" {
		t.Fatalf("err = %v, want a ServerError", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Connect returned after %v; the connect timeout is 500ms", d)
	}
	if len(e.m.Servers()) != 0 || e.reg.Len() != 0 {
		t.Errorf("a failed server stayed: %+v", e.m.Servers())
	}
}

// TestServerEverything imports the reference server from npm over stdio.
func TestServerEverything(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	e := newImportEnv(t, nil)
	err := e.m.Connect(context.Background(), mcpadapter.Upstream{
		Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: 60 * time.Second, CallTimeout: 60 * time.Second, Trust: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := regNames(e.reg)
	for _, want := range []string{"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation", "get-structured-content"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s not imported; got %v", want, got)
		}
	}
	echo, _ := e.reg.Lookup("echo")
	if echo.Title != "Echo Tool" || !echo.Annotations.ReadOnly || echo.Annotations.IsDestructive() || echo.Source.Server != "everything" {
		t.Errorf("echo spec = %+v", echo)
	}
	ctx := context.Background()
	tests := []struct {
		tool, args string
		check      func(t *testing.T, r *adapter.Result)
	}{
		{"echo", `{"message":"hi"}`, func(t *testing.T, r *adapter.Result) {
			if r.Text() != "Echo: hi" {
				t.Errorf("text = %q", r.Text())
			}
		}},
		{"get-sum", `{"a":2,"b":40}`, func(t *testing.T, r *adapter.Result) {
			if r.Text() != "The sum of 2 and 40 is 42." {
				t.Errorf("text = %q", r.Text())
			}
		}},
		{"get-tiny-image", `{}`, func(t *testing.T, r *adapter.Result) {
			var types []string
			for _, c := range r.Content {
				types = append(types, c.ContentType())
			}
			if diff := cmp.Diff([]string{"text", "image", "text"}, types); diff != "" {
				t.Fatalf("types (-want +got):\n%s", diff)
			}
			img := r.Content[1].(*adapter.ImageContent)
			if img.MIMEType != "image/png" || !strings.HasPrefix(string(img.Data), "\x89PNG") {
				t.Errorf("image %q %q", img.MIMEType, img.Data[:8])
			}
		}},
		{"get-structured-content", `{"location":"Chicago"}`, func(t *testing.T, r *adapter.Result) {
			want := map[string]any{"temperature": float64(36), "conditions": "Light rain / drizzle", "humidity": float64(82)}
			if diff := cmp.Diff(want, r.Structured); diff != "" {
				t.Errorf("structured (-want +got):\n%s", diff)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r, err := e.call(t, ctx, tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
		})
	}
	t.Run("args invalid", func(t *testing.T) {
		if _, err := e.call(t, ctx, "get-sum", `{"a":"x"}`); err == nil || err.Kind != adapter.KindArgsInvalid {
			t.Errorf("err = %v, want args_invalid", err)
		}
	})
	t.Run("progress", func(t *testing.T) {
		var mu sync.Mutex
		var got []adapter.Progress
		pctx := adapter.WithProgress(ctx, func(p adapter.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		})
		r, err := e.call(t, pctx, "trigger-long-running-operation", `{"duration":1,"steps":4}`)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.Text(), "Long running operation completed. Duration: 1 seconds, Steps: 4") {
			t.Errorf("text = %q", r.Text())
		}
		waitUntil(t, "4 progress reports", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= 4 })
		mu.Lock()
		defer mu.Unlock()
		for i, p := range got {
			if p.Progress != float64(i+1) || p.Total != 4 {
				t.Errorf("progress %d = %+v", i, p)
			}
		}
	})
	t.Run("resources and prompts", func(t *testing.T) {
		rs, err := e.m.Resources(ctx, "everything")
		if err != nil || len(rs) == 0 {
			t.Fatalf("Resources = %d, %v", len(rs), err)
		}
		rr, err := e.m.ReadResource(ctx, "everything", rs[0].URI)
		if err != nil || len(rr.Contents) == 0 {
			t.Fatalf("ReadResource(%s) = %v, %v", rs[0].URI, rr, err)
		}
		ps, err := e.m.Prompts(ctx, "everything")
		if err != nil || len(ps) == 0 {
			t.Fatalf("Prompts = %v, %v", ps, err)
		}
	})
}
