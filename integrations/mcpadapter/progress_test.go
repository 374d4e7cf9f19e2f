package mcpadapter_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// progressLog collects a call's progress reports and counts those that
// arrive after the call returned.
type progressLog struct {
	mu       sync.Mutex
	reports  []adapter.Progress
	last     time.Time
	returned bool
	late     int
}

func (l *progressLog) ctx(ctx context.Context) context.Context {
	return adapter.WithProgress(ctx, func(p adapter.Progress) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.returned {
			l.late++
			return
		}
		l.reports = append(l.reports, p)
		l.last = time.Now()
	})
}

// done marks the call returned and says how many reports it had.
func (l *progressLog) done() (n int, sinceLast time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.returned = true
	if len(l.reports) > 0 {
		sinceLast = time.Since(l.last)
	}
	return len(l.reports), sinceLast
}

func (l *progressLog) lateReports() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.late
}

// everythingHTTP runs server-everything over streamable HTTP on a free
// loopback port until the test ends.
func everythingHTTP(t *testing.T) mcpadapter.Upstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := testpeers.Command(t, "mcp-server-everything", "streamableHttp")
	cmd.Env = append(cmd.Env, "PORT="+port)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-drained
		_ = cmd.Wait()
	})
	ready := make(chan bool, 1)
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("server-everything exited before listening")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("server-everything did not start listening in 60s")
	}
	return mcpadapter.Upstream{Name: "everything", URL: "http://127.0.0.1:" + port + "/mcp", Trust: true,
		ConnectTimeout: 60 * time.Second, CallTimeout: 60 * time.Second}
}

func everythingStdio(t *testing.T) mcpadapter.Upstream {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	return mcpadapter.Upstream{Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env, Trust: true,
		ConnectTimeout: 60 * time.Second, CallTimeout: 60 * time.Second}
}

// TestProgressBeforeResult: every progress report server-everything's
// long-running tool sends reaches the caller before Executor.Call returns,
// 20 runs in a row over stdio and over streamable HTTP, and none after.
func TestProgressBeforeResult(t *testing.T) {
	const runs, steps = 20, 4
	for name, server := range map[string]func(*testing.T) mcpadapter.Upstream{"stdio": everythingStdio, "http": everythingHTTP} {
		t.Run(name, func(t *testing.T) {
			e := newImportEnv(t, nil)
			if err := e.m.Connect(context.Background(), server(t)); err != nil {
				t.Fatal(err)
			}
			var logs []*progressLog
			complete, maxWait := 0, time.Duration(0)
			for i := range runs {
				l := &progressLog{}
				logs = append(logs, l)
				_, aerr := e.call(t, l.ctx(context.Background()), "trigger-long-running-operation", `{"duration":0.1,"steps":4}`)
				n, wait := l.done()
				if aerr != nil {
					t.Fatalf("run %d: %v", i, aerr)
				}
				maxWait = max(maxWait, wait)
				if n == steps {
					complete++
				} else {
					t.Errorf("run %d: %d of %d reports at return: %+v", i, n, steps, l.reports)
				}
				if n > 0 && l.reports[n-1].Progress != steps {
					t.Errorf("run %d: last report %+v, want %d of %d", i, l.reports[n-1], steps, steps)
				}
			}
			time.Sleep(50 * time.Millisecond)
			for i, l := range logs {
				if n := l.lateReports(); n > 0 {
					t.Errorf("run %d: %d reports after the call returned", i, n)
				}
			}
			t.Logf("%s: %d of %d runs had every report at return; the longest from the last report to the return: %v", name, complete, runs, maxWait)
		})
	}
}

// floodServer is a hostile upstream: its tool reports progress, answers,
// and then keeps sending progress with the call's token (and with tokens
// of no call) until stop is closed.
func floodServer(stop <-chan struct{}, wg *sync.WaitGroup) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "flood", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "flood", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			ss := req.Session
			for i := range 3 {
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i + 1)})
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					tok := token
					switch i % 3 {
					case 1:
						tok = 12345.0
					case 2:
						tok = "aa-" + strconv.Itoa(i)
					}
					if err := ss.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 4)}); err != nil {
						return
					}
				}
			}()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return srv
}

// clientGoroutines counts the goroutines but those of go-sdk's streamable
// server sessions, which httpTo's handler keeps until they time out.
func clientGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "streamableServerConn") {
			count++
		}
	}
	return count
}

// TestProgressFloodAfterResult: an upstream that floods progress after its
// result neither holds the call past the settle bound nor reaches the
// caller after the call returned, and leaves no goroutine behind.
func TestProgressFloodAfterResult(t *testing.T) {
	for _, transport := range []string{"in-memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			base := clientGoroutines()
			stop := make(chan struct{})
			var flooders sync.WaitGroup
			t.Cleanup(func() { // registered first, so it runs after every other cleanup
				close(stop)
				flooders.Wait()
				deadline := time.Now().Add(5 * time.Second)
				for clientGoroutines() > base && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if n := clientGoroutines(); n > base {
					buf := make([]byte, 1<<20)
					t.Errorf("%d goroutines left (%d before):\n%s", n, base, buf[:runtime.Stack(buf, true)])
				}
			})
			srv := floodServer(stop, &flooders)
			e := newImportEnv(t, nil)
			s := mcpadapter.Upstream{Name: "flood", Trust: true}
			if transport == "http" {
				s.URL = httpTo(t, srv)
			} else {
				s.Transport = inMemoryTo(t, srv)
			}
			if err := e.m.Connect(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			var logs []*progressLog
			var slowest time.Duration
			for range 5 {
				l := &progressLog{}
				logs = append(logs, l)
				start := time.Now()
				res, aerr := e.call(t, l.ctx(context.Background()), "flood", `{}`)
				d := time.Since(start)
				l.done()
				if aerr != nil {
					t.Fatal(aerr)
				}
				if len(res.Content) != 1 {
					t.Fatalf("result %+v", res)
				}
				// A flooding server's own reports may be cut by the bound (they
				// queue behind the flood, which also starves this process's CPU):
				// it only hurts itself. TestProgressFirstCall checks delivery.
				slowest = max(slowest, d)
			}
			if slowest > 2*time.Second {
				t.Errorf("a call took %v under the flood; the settle bound is 100ms", slowest)
			}
			time.Sleep(100 * time.Millisecond) // the flood goes on
			for i, l := range logs {
				if n := l.lateReports(); n > 0 {
					t.Errorf("call %d: %d reports reached the caller after it returned", i, n)
				}
			}
			t.Logf("%s: slowest call under the flood %v", transport, slowest)
		})
	}
}

// quickReporter is an upstream whose tool reports progress three times and
// answers at once, so the result is likely to overtake the reports.
func quickReporter() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "quick", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "quick", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 3 {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1)})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return srv
}

// TestProgressFirstCall: the first call of a tool on a fresh connection,
// which reports three times without a total and answers at once, has all
// three reports at return, in memory and over streamable HTTP, 20 times.
func TestProgressFirstCall(t *testing.T) {
	for _, transport := range []string{"in-memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			complete := 0
			for i := range 20 {
				srv := quickReporter()
				e := newImportEnv(t, nil)
				s := mcpadapter.Upstream{Name: "quick", Trust: true}
				if transport == "http" {
					s.URL = httpTo(t, srv)
				} else {
					s.Transport = inMemoryTo(t, srv)
				}
				if err := e.m.Connect(context.Background(), s); err != nil {
					t.Fatal(err)
				}
				l := &progressLog{}
				if _, aerr := e.call(t, l.ctx(context.Background()), "quick", `{}`); aerr != nil {
					t.Fatal(aerr)
				}
				if n, _ := l.done(); n == 3 {
					complete++
				} else {
					t.Errorf("run %d: %d of 3 reports at return", i, n)
				}
				e.m.Close()
			}
			t.Logf("%s: %d of 20 first calls had every report at return", transport, complete)
		})
	}
}
