package gatewaybench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The upstream kinds of [Soak].
const (
	KindHTTP  = "http"
	KindStdio = "stdio"
)

// SoakOptions configure [Soak]; the zero value of a field is its
// documented default.
type SoakOptions struct {
	// Serve is the agentadapter binary; required.
	Serve string
	// TestServer is cmd/agentadapter/internal/testserver built; required.
	TestServer string
	// Dir holds the gateways' configurations, SQLite ledgers and goroutine
	// dumps; required.
	Dir string
	// Calls is how many calls go through serve per upstream kind; default
	// 500,000.
	Calls int
	// Sessions is how many client sessions share them; default 32.
	Sessions int
	// CallTimeout is each call's deadline, well under serve's 60 s default
	// so that a hung call shows as one; default 10s.
	CallTimeout time.Duration
	// Kinds are the upstream kinds, in order; default KindHTTP, KindStdio.
	Kinds []string
	// Progress, if set, gets a line every 10 s and one per hang.
	Progress io.Writer
}

// SoakResult is what [Soak] counted for one upstream kind.
type SoakResult struct {
	Kind  string `json:"kind"`
	Calls int    `json:"calls"`
	// OK calls answered with their own argument echoed back.
	OK int `json:"ok"`
	// Failures are the calls that answered otherwise, by kind (a tool
	// error's text, a transport error's class); Hangs the calls still
	// unanswered at their deadline.
	Failures map[string]int `json:"failures"`
	Hangs    int            `json:"hangs"`
	// Records are the ledger's records of this run's calls (tool
	// bench_echo); RecordsOK those with outcome ok. Missing counts the
	// OK calls without an ok record, Duplicates the arguments with more
	// than one record, Unmatched the ok records of calls not seen to
	// succeed.
	Records    int     `json:"records"`
	RecordsOK  int     `json:"recordsOK"`
	Missing    int     `json:"missing"`
	Duplicates int     `json:"duplicates"`
	Unmatched  int     `json:"unmatched"`
	Elapsed    float64 `json:"elapsedSec"`
	PerSec     float64 `json:"callsPerSec"`
	LoadMin    float64 `json:"loadMin"`
	LoadMax    float64 `json:"loadMax"`
	// Dumps are the goroutine dumps of serve taken at hangs.
	Dumps []string `json:"dumps,omitempty"`
}

func (o *SoakOptions) defaults() error {
	if o.Serve == "" || o.TestServer == "" || o.Dir == "" {
		return errors.New("gatewaybench: Serve, TestServer and Dir are required")
	}
	if o.Calls <= 0 {
		o.Calls = 500_000
	}
	if o.Sessions <= 0 {
		o.Sessions = 32
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 10 * time.Second
	}
	if len(o.Kinds) == 0 {
		o.Kinds = []string{KindHTTP, KindStdio}
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return nil
}

// maxDumps bounds the goroutine dumps taken per kind.
const maxDumps = 3

// Soak runs SoakOptions.Calls calls through `serve` per upstream kind, each
// with a unique argument and its own deadline, then stops the gateway and
// reads its ledger back: one ok record per successful call, none twice.
// serve runs with AGENTADAPTER_GOROUTINES set: at a hung call the driver
// sends it SIGUSR1 and it writes its goroutines to a file (Dumps). Soak
// stops every process it started before it returns.
func Soak(ctx context.Context, o SoakOptions) ([]SoakResult, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	var out []SoakResult
	for _, kind := range o.Kinds {
		r, err := soakKind(ctx, o, kind)
		if err != nil {
			return out, fmt.Errorf("soak %s: %w", kind, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func soakKind(ctx context.Context, o SoakOptions, kind string) (SoakResult, error) {
	res := SoakResult{Kind: kind, Calls: o.Calls, Failures: map[string]int{}, LoadMin: 1e9}
	var servers string
	switch kind {
	case KindHTTP:
		up, err := startUpstream(ctx, o.TestServer)
		if err != nil {
			return res, err
		}
		defer up.stop()
		servers = fmt.Sprintf(`"up": {"url": %q}`, up.url)
	case KindStdio:
		servers = fmt.Sprintf(`"up": {"command": %q, "args": ["-bench"]}`, o.TestServer)
	default:
		return res, fmt.Errorf("unknown upstream kind %q", kind)
	}
	name := "soak-" + kind
	dumpBase := filepath.Join(o.Dir, name, "goroutines")
	gw, err := startServe(ctx, Options{Serve: o.Serve, Dir: o.Dir, env: []string{"AGENTADAPTER_GOROUTINES=" + dumpBase}}, name, servers, 1)
	if err != nil {
		return res, err
	}
	stopped := false
	defer func() {
		if !stopped {
			gw.stop()
		}
	}()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}
	defer hc.CloseIdleConnections()

	// status[i] is call i's outcome: 0 not run, 1 ok, 2 failed, 3 hung.
	status := make([]atomic.Uint32, o.Calls)
	var next atomic.Int64
	var mu sync.Mutex // guards res.Failures, res.Hangs, res.Dumps
	var okN, doneN atomic.Int64
	fail := func(what string) {
		mu.Lock()
		res.Failures[what]++
		mu.Unlock()
	}
	hang := func(i int) {
		mu.Lock()
		defer mu.Unlock()
		res.Hangs++
		fmt.Fprintf(o.Progress, "soak %s: call %d unanswered after %v\n", kind, i, o.CallTimeout)
		if len(res.Dumps) >= maxDumps {
			return
		}
		gw.cmd.Process.Signal(syscall.SIGUSR1)
		time.Sleep(500 * time.Millisecond) // the dump is written
		if m, _ := filepath.Glob(dumpBase + ".*"); len(m) > len(res.Dumps) {
			res.Dumps = m
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	start := time.Now()
	for range o.Sessions {
		wg.Go(func() {
			var cs *mcp.ClientSession
			defer func() {
				if cs != nil {
					cs.Close()
				}
			}()
			for {
				i := int(next.Add(1) - 1)
				if i >= o.Calls || runCtx.Err() != nil {
					return
				}
				if cs == nil {
					var err error
					if cs, err = connect(runCtx, hc, gw.url); err != nil {
						errOnce.Do(func() { firstErr = fmt.Errorf("connect: %w", err) })
						cancel()
						return
					}
				}
				text := fmt.Sprintf("soak-%s-%d", kind, i)
				cctx, ccancel := context.WithTimeout(runCtx, o.CallTimeout)
				r, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "bench_echo", Arguments: map[string]any{"text": text}})
				deadline := cctx.Err() != nil
				ccancel()
				doneN.Add(1)
				switch {
				case runCtx.Err() != nil:
					return
				case err == nil && !r.IsError && echoed(r) == text:
					status[i].Store(1)
					okN.Add(1)
					continue
				case err == nil && r.IsError:
					fail("tool error: " + firstLine(r))
				case err == nil:
					fail("wrong answer")
				case deadline:
					status[i].Store(3)
					hang(i)
					continue
				default:
					fail("transport: " + errClass(err))
					// The session may be gone: the next call opens another.
					cs.Close()
					cs = nil
				}
				status[i].Store(2)
			}
		})
	}
	tick := time.NewTicker(10 * time.Second)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			l := load1()
			res.LoadMin, res.LoadMax = min(res.LoadMin, l), max(res.LoadMax, l)
			mu.Lock()
			fmt.Fprintf(o.Progress, "soak %s: %d/%d calls, %d ok, %d hung, %.0f calls/s, load %.1f\n",
				kind, doneN.Load(), o.Calls, okN.Load(), res.Hangs, float64(doneN.Load())/time.Since(start).Seconds(), l)
			mu.Unlock()
		}
	}
	tick.Stop()
	res.Elapsed = time.Since(start).Seconds()
	l := load1()
	res.LoadMin, res.LoadMax = min(res.LoadMin, l), max(res.LoadMax, l)
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	res.OK = int(okN.Load())
	res.PerSec = float64(doneN.Load()) / res.Elapsed
	// The ledger is read after serve has drained and stopped: every
	// record is committed by then.
	gw.stop()
	stopped = true
	if err := checkLedger(ctx, o, name, kind, status, &res); err != nil {
		return res, err
	}
	return res, nil
}

// checkLedger exports serve's ledger and matches its bench_echo records to
// the calls by their argument.
func checkLedger(ctx context.Context, o SoakOptions, name, kind string, status []atomic.Uint32, res *SoakResult) error {
	dir := filepath.Join(o.Dir, name)
	file := filepath.Join(dir, "ledger.jsonl")
	cmd := exec.CommandContext(ctx, o.Serve, "--config", "gateway.json", "ledger", "export", "--tool", "bench_echo", "--out", file)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ledger export: %v: %s", err, b)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	prefix := "soak-" + kind + "-"
	seen := make([]uint8, len(status))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var r struct {
			Outcome string
			Args    struct{ Text string }
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("ledger record: %w", err)
		}
		var i int
		if n, err := fmt.Sscanf(r.Args.Text, prefix+"%d", &i); err != nil || n != 1 || i < 0 || i >= len(status) {
			continue // a warm-up or another run's call
		}
		res.Records++
		if seen[i]++; seen[i] == 2 {
			res.Duplicates++
		}
		if r.Outcome == "ok" {
			res.RecordsOK++
			if status[i].Load() != 1 {
				res.Unmatched++
			}
		} else {
			res.Failures["ledger: "+r.Outcome]++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for i := range status {
		if status[i].Load() == 1 && seen[i] == 0 {
			res.Missing++
		}
	}
	return nil
}

func echoed(r *mcp.CallToolResult) string {
	if m, ok := r.StructuredContent.(map[string]any); ok {
		if s, ok := m["text"].(string); ok {
			return s
		}
	}
	return ""
}

func firstLine(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s, _, _ := strings.Cut(t.Text, "\n")
			return truncate(s, 80)
		}
	}
	return "(no text)"
}

// errClass is an error's text without the numbers that vary per call.
func errClass(err error) string {
	s := err.Error()
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			r = 'N'
		}
		b.WriteRune(r)
	}
	return truncate(b.String(), 80)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// SoakMarkdown is a table of results.
func SoakMarkdown(rs []SoakResult) string {
	var b strings.Builder
	b.WriteString("| upstream | calls | ok | failures by kind | hangs | ledger records (ok) | missing | duplicates | calls/s | load 1-min |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		var f []string
		for k, v := range r.Failures {
			f = append(f, fmt.Sprintf("%s: %d", k, v))
		}
		fs := strings.Join(f, "; ")
		if fs == "" {
			fs = "0"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d | %d (%d) | %d | %d | %.0f | %.1f–%.1f |\n",
			r.Kind, r.Calls, r.OK, fs, r.Hangs, r.Records, r.RecordsOK, r.Missing, r.Duplicates, r.PerSec, r.LoadMin, r.LoadMax)
	}
	return b.String()
}
