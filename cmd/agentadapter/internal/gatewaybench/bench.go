// Package gatewaybench is the load driver of `scripts/bench gateway`: it
// measures tools/call made directly to an MCP server beside the same call
// made through `agentadapter serve` (an HTTP upstream and a stdio one), at
// several session counts, in interleaved rounds, and reports calls/s,
// latency, CPU per call of every process, the gateway's RSS idle and per
// 1,000 sessions and its cold start to a full tools/list.
//
// The driver is the client: its own CPU (getrusage) is the client's, the
// gateway's and upstream's come from /proc/<pid>/stat. It runs on Linux.
package gatewaybench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure [Run]; the zero value of a field is its documented
// default.
type Options struct {
	// Serve is the agentadapter binary; required.
	Serve string
	// TestServer is cmd/agentadapter/internal/testserver built; required.
	TestServer string
	// Dir holds the gateways' configurations and SQLite ledgers; required.
	Dir string
	// Sessions are the client session counts; default 1, 8, 32.
	Sessions []int
	// Window is how long one configuration is loaded per round; default 5s.
	Window time.Duration
	// Rounds is how many interleaved rounds run; default 3.
	Rounds int
	// IdleSessions is how many idle sessions are opened for the RSS per
	// 1,000 sessions figure; default 1000.
	IdleSessions int
	// ColdUpstreams and ColdTools shape the cold-start figure: that many
	// stdio upstreams of that many tools each; default 10 and 100.
	ColdUpstreams, ColdTools int
	// Before, if set, is another agentadapter binary (an earlier build):
	// its two gateways join every round as configurations of their own,
	// named with a " (before)" suffix, for a before/after comparison.
	Before string
	// Progress, if set, gets a line per measurement.
	Progress io.Writer
	// CPUProfile, if set, is where the HTTP-upstream gateway (of Serve)
	// writes its CPU profile when it stops (AGENTADAPTER_CPUPROFILE), and
	// CPUProfile+".stdio" the stdio-upstream one's.
	CPUProfile string
	// MemProfile, if set, is the same for the allocation profile
	// (AGENTADAPTER_MEMPROFILE): MemProfile and MemProfile+".stdio".
	MemProfile string

	env []string // added to serve's environment
}

// The configurations, in the order of a round.
const (
	Direct       = "direct (HTTP)"
	GatewayHTTP  = "serve, HTTP upstream"
	GatewayStdio = "serve, stdio upstream"
	// DirectPaced is Direct held to the calls/s GatewayHTTP made in the
	// same round at the same session count, last in a round. A process's
	// CPU per call rises as its rate falls (fewer calls share each wake-up
	// and each batch), so this is the direct path at the gateway's rate:
	// what "a client plus a server" costs per call at that rate.
	DirectPaced = "direct (HTTP), at serve's rate"
)

// BeforeSuffix ends the names of the Options.Before configurations.
const BeforeSuffix = " (before)"

// Sample is one configuration at one session count in one round.
type Sample struct {
	Config   string  `json:"config"`
	Sessions int     `json:"sessions"`
	Round    int     `json:"round"`
	Calls    int     `json:"calls"`
	Errors   int     `json:"errors"`
	PerSec   float64 `json:"callsPerSec"`
	P50us    float64 `json:"p50us"`
	P99us    float64 `json:"p99us"`
	// CPU per call in µs: the client (this process), the gateway (0 for
	// Direct) and the upstream.
	ClientUS   float64 `json:"clientCPUus"`
	GatewayUS  float64 `json:"gatewayCPUus"`
	UpstreamUS float64 `json:"upstreamCPUus"`
	Load1      float64 `json:"load1"`
}

// Report is what [Run] measured.
type Report struct {
	Samples []Sample `json:"samples"`
	// IdleRSSKB is the HTTP-upstream gateway's RSS with no session;
	// PerThousandKB what 1,000 idle sessions add (scaled from
	// Options.IdleSessions).
	IdleRSSKB     int64 `json:"idleRSSKB"`
	PerThousandKB int64 `json:"perThousandSessionsKB"`
	// ColdStart is from exec to the first tools/list holding every tool
	// of Options.ColdUpstreams upstreams; ColdTools the tools listed and
	// ColdRSSKB the gateway's RSS then.
	ColdStart time.Duration `json:"coldStartNS"`
	ColdTools int           `json:"coldTools"`
	ColdRSSKB int64         `json:"coldRSSKB"`
	Rounds    int           `json:"rounds"`
	Window    time.Duration `json:"windowNS"`
	LoadMin   float64       `json:"loadMin"`
	LoadMax   float64       `json:"loadMax"`
}

func (o *Options) defaults() error {
	if o.Serve == "" || o.TestServer == "" || o.Dir == "" {
		return errors.New("gatewaybench: Serve, TestServer and Dir are required")
	}
	if len(o.Sessions) == 0 {
		o.Sessions = []int{1, 8, 32}
	}
	if o.Window <= 0 {
		o.Window = 5 * time.Second
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.IdleSessions <= 0 {
		o.IdleSessions = 1000
	}
	if o.ColdUpstreams <= 0 {
		o.ColdUpstreams = 10
	}
	if o.ColdTools <= 0 {
		o.ColdTools = 100
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return nil
}

// proc is a child process and where it answers.
type proc struct {
	cmd *exec.Cmd
	url string
	out *lockedBuffer
}

func (p *proc) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// Run measures; it stops every process it started before it returns.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	up, err := startUpstream(ctx, o.TestServer)
	if err != nil {
		return nil, err
	}
	defer up.stop()
	type target struct {
		url               string
		gateway, upstream int
	}
	configs := []string{Direct}
	targets := map[string]target{Direct: {up.url, 0, up.cmd.Process.Pid}}
	binaries := []struct{ bin, suffix string }{{o.Serve, ""}}
	if o.Before != "" {
		binaries = append(binaries, struct{ bin, suffix string }{o.Before, BeforeSuffix})
	}
	for i, b := range binaries {
		ob := o
		ob.Serve = b.bin
		gwHTTP, err := startServe(ctx, ob, fmt.Sprintf("http%d", i), fmt.Sprintf(`"up": {"url": %q}`, up.url), 1)
		if err != nil {
			return nil, err
		}
		defer gwHTTP.stop()
		gwStdio, err := startServe(ctx, ob, fmt.Sprintf("stdio%d", i), fmt.Sprintf(`"up": {"command": %q, "args": ["-bench"]}`, o.TestServer), 1)
		if err != nil {
			return nil, err
		}
		defer gwStdio.stop()
		stdioUp, err := childOf(gwStdio.cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		configs = append(configs, GatewayHTTP+b.suffix, GatewayStdio+b.suffix)
		targets[GatewayHTTP+b.suffix] = target{gwHTTP.url, gwHTTP.cmd.Process.Pid, up.cmd.Process.Pid}
		targets[GatewayStdio+b.suffix] = target{gwStdio.url, gwStdio.cmd.Process.Pid, stdioUp}
	}
	configs = append(configs, DirectPaced)
	targets[DirectPaced] = targets[Direct]
	rep := &Report{Rounds: o.Rounds, Window: o.Window, LoadMin: 1e9}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}
	defer hc.CloseIdleConnections()
	for round := 1; round <= o.Rounds; round++ {
		for _, n := range o.Sessions {
			var gatewayRate float64 // GatewayHTTP's, this round, n sessions
			for _, c := range configs {
				t := targets[c]
				rate := 0.0
				if c == DirectPaced {
					rate = gatewayRate
				}
				s, err := load(ctx, hc, t.url, "bench_echo", n, o.Window, rate, t.gateway, t.upstream)
				if err != nil {
					return nil, fmt.Errorf("%s, %d sessions: %w", c, n, err)
				}
				s.Config, s.Sessions, s.Round = c, n, round
				if c == GatewayHTTP {
					gatewayRate = s.PerSec
				}
				rep.LoadMin, rep.LoadMax = min(rep.LoadMin, s.Load1), max(rep.LoadMax, s.Load1)
				rep.Samples = append(rep.Samples, s)
				fmt.Fprintf(o.Progress, "round %d %-22s %2d sessions: %6.0f calls/s p50 %4.0fµs cpu/call client %4.0f gateway %4.0f upstream %4.0f µs load %.1f errors %d\n",
					round, c, n, s.PerSec, s.P50us, s.ClientUS, s.GatewayUS, s.UpstreamUS, s.Load1, s.Errors)
			}
		}
	}
	if err := idleRSS(ctx, o, hc, up.url, rep); err != nil {
		return nil, err
	}
	if err := coldStart(ctx, o, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

func startUpstream(ctx context.Context, testServer string) (*proc, error) {
	cmd := exec.CommandContext(ctx, testServer, "-bench", "-http", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("testserver: %w", err)
	}
	go io.Copy(io.Discard, stdout)
	p.url = strings.TrimSpace(line)
	return p, nil
}

var urlRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// startServe starts `agentadapter serve` on a configuration of the given
// servers (JSON object members) with a SQLite store, no session caps.
func startServe(ctx context.Context, o Options, name, servers string, n int) (*proc, error) {
	dir := filepath.Join(o.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var trust []string
	for i := range n {
		key, prefix := "up", false
		if n > 1 { // prefixed: the upstreams' tools have the same names
			key, prefix = fmt.Sprintf("up%d", i), true
		}
		trust = append(trust, fmt.Sprintf(`%q: {"trust": "trusted", "prefix": %t}`, key, prefix))
	}
	cfg := fmt.Sprintf(`{"mcpServers": {%s},
  "agentadapter": {"store": "sqlite:%s", "sessions": {"max": -1, "perIdentity": -1}, "servers": {%s}}}`,
		servers, filepath.Join(dir, "state.db"), strings.Join(trust, ", "))
	if err := os.WriteFile(filepath.Join(dir, "gateway.json"), []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.Serve, "--config", "gateway.json", "--accept-launches", "serve", "--listen", "127.0.0.1:0")
	cmd.Dir = dir
	env := o.env
	suffix, profiled := map[string]string{"http0": "", "stdio0": ".stdio"}[name]
	if o.CPUProfile != "" && profiled {
		env = append(slices.Clip(env), "AGENTADAPTER_CPUPROFILE="+o.CPUProfile+suffix)
	}
	if o.MemProfile != "" && profiled {
		env = append(slices.Clip(env), "AGENTADAPTER_MEMPROFILE="+o.MemProfile+suffix)
	}
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, out: out}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		s := out.String()
		if m := urlRE.FindString(s); m != "" && strings.Contains(s, "msg=serving") {
			p.url = m + "/mcp"
			return p, nil
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			p.stop()
			return nil, fmt.Errorf("serve did not start:\n%s", s)
		}
	}
}

// childOf returns the one child of pid (the gateway's stdio upstream).
func childOf(pid int) (int, error) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, t := range tasks {
			b, _ := os.ReadFile(t)
			if f := strings.Fields(string(b)); len(f) > 0 {
				return strconv.Atoi(f[0])
			}
		}
	}
	return 0, fmt.Errorf("no child process of %d", pid)
}

// cpuTime is a process's user + system CPU from /proc/<pid>/stat.
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 on
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func rssKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func load1() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func connect(ctx context.Context, hc *http.Client, url string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "gatewaybench", Version: "v1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
}

// load runs n sessions of sequential calls for window and measures; with
// rate > 0 the sessions together start no more than rate calls a second,
// each on a schedule of its own (staggered), catching up at once when late.
func load(ctx context.Context, hc *http.Client, url, tool string, n int, window time.Duration, rate float64, gw, up int) (Sample, error) {
	sessions := make([]*mcp.ClientSession, n)
	defer func() {
		for _, cs := range sessions {
			if cs != nil {
				cs.Close()
			}
		}
	}()
	// Params per call: go-sdk writes the request's _meta into them.
	params := func() *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "hello"}}
	}
	for i := range sessions {
		cs, err := connect(ctx, hc, url)
		if err != nil {
			return Sample{}, err
		}
		sessions[i] = cs
		for range 20 { // warm-up: connections, compiled schemas
			if res, err := cs.CallTool(ctx, params()); err != nil || res.IsError {
				return Sample{}, fmt.Errorf("warm-up call: %v %v", err, res)
			}
		}
	}
	lat := make([][]time.Duration, n)
	errs := make([]int, n)
	var wg sync.WaitGroup
	c0, g0, u0 := selfCPU(), cpuTime(gw), cpuTime(up)
	start := time.Now()
	end := start.Add(window)
	var every time.Duration // between one session's calls; 0: back to back
	if rate > 0 {
		every = time.Duration(float64(n) / rate * float64(time.Second))
	}
	for i, cs := range sessions {
		wg.Go(func() {
			l := make([]time.Duration, 0, 4096)
			next := start.Add(every * time.Duration(i) / time.Duration(n))
			for t := time.Now(); t.Before(end); {
				if every > 0 {
					if d := next.Sub(t); d > 0 {
						time.Sleep(d)
						if t = time.Now(); !t.Before(end) {
							break
						}
					}
					next = next.Add(every)
				}
				res, err := cs.CallTool(ctx, params())
				t2 := time.Now()
				if err != nil || res.IsError {
					errs[i]++
				}
				l = append(l, t2.Sub(t))
				t = t2
			}
			lat[i] = l
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	c1, g1, u1 := selfCPU(), cpuTime(gw), cpuTime(up)
	all := slices.Concat(lat...)
	slices.Sort(all)
	s := Sample{Calls: len(all), Load1: load1()}
	for _, e := range errs {
		s.Errors += e
	}
	if len(all) == 0 {
		return s, errors.New("no call completed")
	}
	calls := float64(len(all))
	s.PerSec = calls / elapsed.Seconds()
	s.P50us = float64(all[len(all)/2].Microseconds())
	s.P99us = float64(all[len(all)*99/100].Microseconds())
	s.ClientUS = float64((c1 - c0).Microseconds()) / calls
	s.GatewayUS = float64((g1 - g0).Microseconds()) / calls
	s.UpstreamUS = float64((u1 - u0).Microseconds()) / calls
	return s, nil
}

// idleRSS starts a fresh HTTP-upstream gateway (one that has carried load
// holds heap the runtime has not returned yet), opens idle sessions on it
// and measures its RSS.
func idleRSS(ctx context.Context, o Options, hc *http.Client, upURL string, rep *Report) error {
	gw, err := startServe(ctx, o, "idle", fmt.Sprintf(`"up": {"url": %q}`, upURL), 1)
	if err != nil {
		return err
	}
	defer gw.stop()
	n := o.IdleSessions
	time.Sleep(300 * time.Millisecond)
	pid := gw.cmd.Process.Pid
	rep.IdleRSSKB = rssKB(pid)
	var sessions []*mcp.ClientSession
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()
	for range n {
		cs, err := connect(ctx, hc, gw.url)
		if err != nil {
			return fmt.Errorf("idle session %d: %w", len(sessions)+1, err)
		}
		sessions = append(sessions, cs)
	}
	time.Sleep(300 * time.Millisecond)
	rep.PerThousandKB = (rssKB(pid) - rep.IdleRSSKB) * 1000 / int64(n)
	return nil
}

// coldStart starts a gateway on many stdio upstreams of many tools and
// times it to the first full tools/list.
func coldStart(ctx context.Context, o Options, rep *Report) error {
	var servers []string
	for i := range o.ColdUpstreams {
		servers = append(servers, fmt.Sprintf(`"up%d": {"command": %q, "args": ["-tools", "%d"]}`, i, o.TestServer, o.ColdTools))
	}
	start := time.Now()
	gw, err := startServe(ctx, o, "cold", strings.Join(servers, ", "), o.ColdUpstreams)
	if err != nil {
		return err
	}
	defer gw.stop()
	cs, err := connect(ctx, http.DefaultClient, gw.url)
	if err != nil {
		return err
	}
	defer cs.Close()
	want := o.ColdUpstreams * o.ColdTools
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
		n := 0
		for _, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			n++
		}
		if n >= want {
			rep.ColdStart, rep.ColdTools = time.Since(start), n
			rep.ColdRSSKB = rssKB(gw.cmd.Process.Pid)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cold start: %d of %d tools listed after 2 minutes", n, want)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 { // keep the head: the URL and "serving" are there
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
