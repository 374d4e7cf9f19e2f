package mcpadapter_test

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestExportSDKSessionLogs: a 2026-07-28 call (a go-sdk session of its
// own) writes none of go-sdk's session lines to an export logger at the
// default info level, and writes them at debug to a logger at debug.
func TestExportSDKSessionLogs(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		buf := &lockedBuffer{}
		log := slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: level}))
		srv := exServeHTTP(t, newExporter(t, exTools(t), nil, &mcpadapter.ExportOptions{Logger: log}), nil)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil || res.IsError {
				t.Fatal(err, res)
			}
		}
		cs.Close()
		out := buf.String()
		n := strings.Count(out, "server session connected")
		if level == slog.LevelInfo && n != 0 {
			t.Errorf("at info: %d go-sdk session lines:\n%s", n, out)
		}
		if level == slog.LevelDebug && (n < 3 || !strings.Contains(out, `level=DEBUG msg="server session connected"`)) {
			t.Errorf("at debug: %d go-sdk session lines, want one per call at debug:\n%s", n, out)
		}
	}
}

// BenchmarkExportSDKLog is a 2026-07-28 call to an export whose logger is
// at info level and writes to a file (as serve's is, to stderr; here
// os.DevNull), with go-sdk's session lines demoted to
// debug (sdk=demoted, the export's default) and, as before #30, written at
// info (sdk=raw: Configure hands go-sdk the logger itself).
func BenchmarkExportSDKLog(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	log := slog.New(slog.NewTextHandler(null, nil))
	for _, raw := range []bool{true, false} {
		b.Run(map[bool]string{true: "sdk=raw", false: "sdk=demoted"}[raw], func(b *testing.B) {
			opts := &mcpadapter.ExportOptions{Logger: log}
			if raw {
				opts.Configure = func(o *mcp.ServerOptions) { o.Logger = log }
			}
			srv := exServeHTTP(b, newExporter(b, exTools(b), nil, opts), nil)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(context.Background(),
				&mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			if used := processCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
