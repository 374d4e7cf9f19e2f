package mcpadapter_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// fromAddr is an HTTP client whose connections come from ip (another
// loopback address: another anonymous client, as the server sees it).
func fromAddr(t *testing.T, ip string) *http.Client {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// openSession makes c a 2025-11-25 session client (initialize, then
// notifications/initialized).
func openSession(t *testing.T, c *rawClient) {
	t.Helper()
	if _, err := c.rpc("initialize", nil); err != nil || c.sid == "" {
		t.Fatalf("initialize: %+v, session %q", err, c.sid)
	}
	body := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	req, _ := http.NewRequest("POST", c.url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Mcp-Session-Id", c.sid)
	hc := c.hc
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func isTask(r map[string]any) bool { return r["resultType"] == "task" && r["taskId"] != nil }

// TestExportTasksAnonymousApart: without authentication, each anonymous
// caller has its own task cap: a session its own, a stateless (2026-07-28)
// client that of its address. One client filling its cap neither refuses
// another's tasks nor reaches them; and a TaskOptional call past the cap
// runs synchronously instead of failing with run_limit_exceeded.
func TestExportTasksAnonymousApart(t *testing.T) {
	e := newTaskEnvHTTP(t, &mcpadapter.TaskOptions{MaxPerCaller: 2}, nil)
	one := &rawClient{t: t, url: e.url, tasks: true, hc: fromAddr(t, "127.0.0.1")}
	var held []string
	for range 2 {
		r := one.call("guarded", nil) // held for approval: no slow call takes a release
		if !isTask(r) {
			t.Fatalf("task refused under the cap: %v", r)
		}
		held = append(held, r["taskId"].(string))
	}

	t.Run("past the cap an optional task runs synchronously", func(t *testing.T) {
		go func() { e.release <- struct{}{} }()
		r := one.call("slow", nil)
		if isTask(r) || r["isError"] == true || fmt.Sprint(r["content"]) != "[map[text:slow done type:text]]" {
			t.Errorf("a call past the cap = %v, want the synchronous result", r)
		}
		<-e.ended
	})

	t.Run("another address has its own cap", func(t *testing.T) {
		two := &rawClient{t: t, url: e.url, tasks: true, hc: fromAddr(t, "127.0.0.2")}
		r := two.call("guarded", nil)
		if !isTask(r) {
			t.Fatalf("another client's task refused: %v", r)
		}
		if _, err := two.rpc("tasks/get", map[string]any{"taskId": held[0]}); err == nil || err.Code != -32602 {
			t.Errorf("another address's tasks/get of the first's task = %+v, want not found", err)
		}
		if _, err := two.rpc("tasks/cancel", map[string]any{"taskId": r["taskId"]}); err != nil {
			t.Error(err)
		}
	})

	t.Run("sessions are callers of their own", func(t *testing.T) {
		s1 := &rawClient{t: t, url: e.url, tasks: true}
		s2 := &rawClient{t: t, url: e.url, tasks: true}
		openSession(t, s1)
		openSession(t, s2)
		var mine []string
		for range 2 {
			r := s1.call("guarded", nil)
			if !isTask(r) {
				t.Fatalf("session task refused (the address's cap is not the session's): %v", r)
			}
			mine = append(mine, r["taskId"].(string))
		}
		r := s2.call("guarded", nil)
		if !isTask(r) {
			t.Fatalf("another session's task refused: %v", r)
		}
		for _, m := range []string{"tasks/get", "tasks/cancel"} {
			if _, err := s2.rpc(m, map[string]any{"taskId": mine[0]}); err == nil || err.Code != -32602 {
				t.Errorf("another session's %s = %+v, want not found", m, err)
			}
			if _, err := one.rpc(m, map[string]any{"taskId": mine[0]}); err == nil || err.Code != -32602 {
				t.Errorf("a stateless client's %s of a session's task = %+v, want not found", m, err)
			}
		}
		if g, err := s1.rpc("tasks/get", map[string]any{"taskId": mine[0]}); err != nil || g["taskId"] != mine[0] {
			t.Errorf("the session's own tasks/get = %v, %+v", g, err)
		}
		for _, id := range append(mine, r["taskId"].(string)) {
			c := s1
			if !strings.EqualFold(id, mine[0]) && !strings.EqualFold(id, mine[1]) {
				c = s2
			}
			_, _ = c.rpc("tasks/cancel", map[string]any{"taskId": id})
		}
	})
	for _, id := range held {
		_, _ = one.rpc("tasks/cancel", map[string]any{"taskId": id})
	}
}
