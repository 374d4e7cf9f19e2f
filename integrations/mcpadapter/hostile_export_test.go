package mcpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`

// flood opens n sessions with raw initialize requests from 8 goroutines and
// counts the answers by status; it returns the session ids it got.
func flood(t *testing.T, url string, n int) (map[int]int, []string) {
	t.Helper()
	var mu sync.Mutex
	codes := map[int]int{}
	var ids []string
	var next atomic.Int32
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for int(next.Add(1)) <= n {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				if resp.StatusCode != http.StatusOK {
					if resp.Header.Get("Retry-After") == "" {
						t.Errorf("a %d without Retry-After", resp.StatusCode)
					}
				} else {
					ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return codes, ids
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A flood of 20k new sessions from one client: past the per-client cap the
// server answers 429 with Retry-After, the heap stays bounded, and a closed
// session frees its place.
func TestSessionFlood(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	ts := exServeHTTP(t, ex, nil)
	before := heapNow()
	codes, ids := flood(t, ts.URL, 20_000)
	grew := int64(heapNow()) - int64(before)
	if codes[http.StatusOK] != mcpadapter.DefaultMaxSessionsPerIdentity || codes[http.StatusTooManyRequests] != 20_000-mcpadapter.DefaultMaxSessionsPerIdentity {
		t.Errorf("answers by status = %v; want %d sessions, the rest 429", codes, mcpadapter.DefaultMaxSessionsPerIdentity)
	}
	if grew > 16<<20 {
		t.Errorf("the heap grew by %d MiB for a 20k-session flood", grew>>20)
	} else {
		t.Logf("heap grew by %.1f MiB for a 20k-session flood", float64(grew)/(1<<20))
	}
	// Closing a session frees its place.
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	waitUntil(t, "the closed session's place to be free", func() bool {
		codes, _ := flood(t, ts.URL, 1)
		return codes[http.StatusOK] == 1
	})
}

// MaxSessions caps the whole server (503), whoever asks.
func TestMaxSessions(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	ts := exServeHTTP(t, ex, &mcpadapter.HTTPOptions{MaxSessions: 50, MaxSessionsPerIdentity: -1})
	codes, _ := flood(t, ts.URL, 2_000)
	if codes[http.StatusOK] != 50 || codes[http.StatusServiceUnavailable] != 1_950 {
		t.Errorf("answers by status = %v; want 50 sessions, the rest 503", codes)
	}
	// A real session client is refused too, with an error, not a hang (a
	// 2026-07-28 client opens no session and is served).
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "late", Version: "v1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		cs.Close()
		t.Error("a client connected past MaxSessions")
	}
}

// The server ServeListener runs has a read timeout: a client that sends
// headers and never its body is cut off.
func TestServerReadTimeout(t *testing.T) {
	ex := newExporter(t, exTools(t), nil, nil)
	ln, err := mcpadapter.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ex.ServeListener(ctx, ln, &mcpadapter.HTTPOptions{ReadTimeout: 200 * time.Millisecond})
	}()
	defer func() { cancel(); <-done }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept a stalled request open past its read timeout (read %q)", b)
	}
}

// Approval questions are per session: one session's unanswered questions
// are capped without stopping another's, and a session cannot answer a
// question put to another.
func TestApprovalQuestionsPerSession(t *testing.T) {
	runs := new(atomic.Int32)
	reg := registry.New()
	reg.MustRegister(adapter.MustRawTool("delete_file", "Deletes a file.", exObject(nil),
		func(context.Context, json.RawMessage) (*adapter.Result, error) {
			runs.Add(1)
			return adapter.TextResult("deleted"), nil
		}, nil))
	deferred := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: deferred, Policy: adapter.ApproveAlways}})
	t.Cleanup(func() { exec.Close() })
	ex := newExporter(t, reg, exec, &mcpadapter.ExportOptions{Approver: deferred})

	// A never answers: it declares elicitation, takes the questions and
	// does not retry.
	silent := &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, fmt.Errorf("never") },
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	}
	a := exConnect(t, ex, silent, "")
	asked, tickets := 0, 0
	var firstQuestion string
	for i := range 40 {
		res, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"n": i}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.InputRequests) > 0 {
			asked++
			for id := range res.InputRequests {
				if firstQuestion == "" {
					firstQuestion = id
				}
			}
		} else if exPayload(t, res).Kind == adapter.KindApprovalPending {
			tickets++
		}
	}
	if asked != 32 || tickets != 8 {
		t.Errorf("a silent session was asked %d questions and got %d plain tickets; want 32 and 8", asked, tickets)
	}

	// B is still asked, and its answer runs its call.
	el := &elicitor{answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}
	b := exConnect(t, ex, &mcp.ClientOptions{ElicitationHandler: el.handle}, "")
	res, err := b.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"n": "b"}})
	if err != nil || res.IsError || el.asked.Load() != 1 || runs.Load() != 1 {
		t.Fatalf("B after A's flood: %+v, %v (asked %d, runs %d)", res, err, el.asked.Load(), runs.Load())
	}

	// C answers the question put to A, for A's arguments: ignored.
	c := exConnect(t, ex, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, fmt.Errorf("never") },
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	}, "")
	forged := &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"n": 0}, InputResponses: mcp.InputResponseMap{
		firstQuestion: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}},
	}}
	if _, err := c.CallTool(context.Background(), forged); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 {
		t.Errorf("another session's answer to A's question ran the call (runs %d)", runs.Load())
	}
	ticket := strings.TrimPrefix(firstQuestion, "agentadapter/approval/")
	if tk, err := deferred.Ticket(context.Background(), ticket); err != nil || tk.State != adapter.TicketPending {
		t.Errorf("A's ticket after C's answer: %+v, %v; want pending", tk, err)
	}
}
