package mcpadapter_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// TestTaskCancelledWhileCreating: a caller that gives up while the call
// creating an upstream task is still in flight (the server made the task,
// its answer is on the way) still has that task cancelled upstream: the
// import learns its id from the late answer. A proxy holds each tools/call
// answer back for 300 ms to open that window.
func TestTaskCancelledWhileCreating(t *testing.T) {
	up := newTaskEnv(t, &mcpadapter.TaskOptions{PollInterval: 20 * time.Millisecond,
		Support: func(*adapter.Spec, *mcp.CallToolRequest) mcpadapter.TaskSupport { return mcpadapter.TaskRequired }})
	target, err := url.Parse(up.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			rec := httptest.NewRecorder()
			proxy.ServeHTTP(rec, r)
			time.Sleep(300 * time.Millisecond)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		proxy.ServeHTTP(w, r)
	})
	front := httptest.NewServer(slow)
	t.Cleanup(front.Close)

	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Trust: true, URL: front.URL, BearerToken: "alice"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *adapter.Error, 1)
	go func() {
		_, aerr := e.call(t, ctx, "slow", `{}`)
		done <- aerr
	}()
	deadline := time.Now().Add(10 * time.Second)
	for up.started.Load() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the upstream task did not start")
		}
		time.Sleep(2 * time.Millisecond)
	}
	cancel() // the creating call's answer is still held by the proxy
	select {
	case aerr := <-done:
		if aerr == nil {
			t.Fatal("the cancelled call succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	select {
	case err := <-up.ended:
		if err == nil {
			t.Errorf("the upstream task ran to its end")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling while the task was being created left the upstream task running")
	}
}
