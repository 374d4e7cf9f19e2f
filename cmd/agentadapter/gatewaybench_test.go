package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/gatewaybench"
)

// TestGatewayBenchQuick runs the driver of `scripts/bench gateway` in quick
// mode (one short round) and checks that the table has every row with sane
// figures: every call answered, throughput and CPU per call positive, the
// gateway's own CPU counted, the cold start listing every tool.
//
// With BENCH_GATEWAY_OUT=DIR it is the full run instead (scripts/bench
// gateway): 3 rounds of 5 s (BENCH_ROUNDS, BENCH_WINDOW), 1,000 idle
// sessions, writing DIR/gateway.md and DIR/gateway.json. BENCH_SESSIONS
// ("8", "1 8 32") picks the session counts; BENCH_SERVE_CPUPROFILE=FILE has
// the HTTP-upstream gateway write its CPU profile there (the stdio-upstream
// one FILE.stdio), BENCH_SERVE_MEMPROFILE=FILE the same for allocations.
func TestGatewayBenchQuick(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the driver reads /proc")
	}
	out := os.Getenv("BENCH_GATEWAY_OUT")
	o := gatewaybench.Options{Serve: bin, TestServer: testServer, Dir: t.TempDir()}
	if out == "" {
		if testing.Short() {
			t.Skip("short")
		}
		o.Sessions, o.Window, o.Rounds, o.IdleSessions, o.ColdUpstreams, o.ColdTools = []int{1, 8}, 400*time.Millisecond, 1, 200, 3, 20
	} else {
		o.Progress = os.Stderr
		if d, err := time.ParseDuration(os.Getenv("BENCH_WINDOW")); err == nil {
			o.Window = d
		}
		if n, err := json.Number(os.Getenv("BENCH_ROUNDS")).Int64(); err == nil {
			o.Rounds = int(n)
		}
		o.Before = os.Getenv("BENCH_GATEWAY_BEFORE")       // an earlier build, for before/after
		o.CPUProfile = os.Getenv("BENCH_SERVE_CPUPROFILE") // the HTTP-upstream gateway's (FILE.stdio the stdio one's)
		o.MemProfile = os.Getenv("BENCH_SERVE_MEMPROFILE")
		for _, f := range strings.Fields(os.Getenv("BENCH_SESSIONS")) {
			if n, err := json.Number(f).Int64(); err == nil {
				o.Sessions = append(o.Sessions, int(n))
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	rep, err := gatewaybench.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown()
	t.Log("\n" + md)
	if out != "" {
		j, _ := json.MarshalIndent(rep, "", " ")
		if err := os.WriteFile(filepath.Join(out, "gateway.json"), j, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "gateway.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows := rep.Rows()
	configs := 4 // direct, two gateways, direct at the HTTP gateway's rate
	if o.Before != "" {
		configs = 6
	}
	sessions := len(o.Sessions)
	if sessions == 0 {
		sessions = 3 // 1, 8, 32
	}
	if want := sessions * configs; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	for _, r := range rows {
		if r.Errors != 0 || r.Calls == 0 || r.PerSec <= 0 || r.P50us <= 0 || r.P99us < r.P50us ||
			r.ClientUS <= 0 || r.UpstreamUS <= 0 || strings.HasPrefix(r.Config, "direct") == (r.GatewayUS > 0) {
			t.Errorf("row %+v: not sane", r)
		}
		if !strings.Contains(md, "| "+r.Config+" |") {
			t.Errorf("table lacks %q", r.Config)
		}
	}
	// The paced direct run kept to the HTTP gateway's rate of its round.
	rate := map[[2]int]float64{}
	for _, s := range rep.Samples {
		if s.Config == gatewaybench.GatewayHTTP {
			rate[[2]int{s.Round, s.Sessions}] = s.PerSec
		}
	}
	for _, s := range rep.Samples {
		if r := rate[[2]int{s.Round, s.Sessions}]; s.Config == gatewaybench.DirectPaced && (s.PerSec > 1.1*r || s.PerSec < 0.5*r) {
			t.Errorf("round %d, %d sessions: direct paced to %.0f calls/s made %.0f", s.Round, s.Sessions, r, s.PerSec)
		}
	}
	if rep.IdleRSSKB <= 0 || rep.PerThousandKB <= 0 || rep.ColdTools < 3*20 || rep.ColdStart <= 0 {
		t.Errorf("RSS %d KB, +%d KB per 1,000 sessions, cold start %v with %d tools: not sane", rep.IdleRSSKB, rep.PerThousandKB, rep.ColdStart, rep.ColdTools)
	}
}

// TestGatewaySoak is the soak of `scripts/bench soak`, run only with
// AGENTADAPTER_SOAK=1: SOAK_CALLS calls (default 500,000) per upstream kind
// (HTTP, stdio) through serve at 32 sessions, each with a unique argument
// and a 10 s deadline; it fails on any failed or hung call, and unless
// every successful call has exactly one ok ledger record and no argument
// two. Without the variable it runs 2,000 calls per kind (unless -short).
// The table goes to SOAK_OUT/soak.md (and .json) when set.
func TestGatewaySoak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the driver reads /proc")
	}
	o := gatewaybench.SoakOptions{Serve: bin, TestServer: testServer, Dir: t.TempDir(), Calls: 2000}
	if os.Getenv("AGENTADAPTER_SOAK") == "1" {
		o.Calls, o.Progress = 500_000, os.Stderr
		if n, err := json.Number(os.Getenv("SOAK_CALLS")).Int64(); err == nil {
			o.Calls = int(n)
		}
		if k := os.Getenv("SOAK_KINDS"); k != "" {
			o.Kinds = strings.Fields(k)
		}
		if d := os.Getenv("SOAK_DIR"); d != "" {
			o.Dir = d // keeps the dumps and ledgers
		}
	} else if testing.Short() {
		t.Skip("short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
	defer cancel()
	rs, err := gatewaybench.Soak(ctx, o)
	md := gatewaybench.SoakMarkdown(rs)
	t.Log("\n" + md)
	if out := os.Getenv("SOAK_OUT"); out != "" {
		j, _ := json.MarshalIndent(rs, "", " ")
		os.WriteFile(filepath.Join(out, "soak.json"), j, 0o644)
		os.WriteFile(filepath.Join(out, "soak.md"), []byte(md), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.OK != r.Calls || r.Hangs != 0 || len(r.Failures) != 0 {
			t.Errorf("%s: %d of %d calls ok, %d hung, failures %v, dumps %v", r.Kind, r.OK, r.Calls, r.Hangs, r.Failures, r.Dumps)
		}
		if r.RecordsOK != r.OK || r.Missing != 0 || r.Duplicates != 0 || r.Unmatched != 0 || r.Records != r.Calls {
			t.Errorf("%s: ledger %d records (%d ok) for %d calls (%d ok): %d missing, %d duplicated, %d unmatched",
				r.Kind, r.Records, r.RecordsOK, r.Calls, r.OK, r.Missing, r.Duplicates, r.Unmatched)
		}
	}
}
