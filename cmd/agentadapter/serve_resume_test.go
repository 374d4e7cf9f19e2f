package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sseEvent is one event of an event stream: its id and data.
type sseEvent struct{ id, data string }

// sseRequest sends a raw MCP request to url and reads the event stream it
// answers with (bounded), event by event.
func sseRequest(t *testing.T, method, url, body string, header map[string]string) (*http.Response, []sseEvent) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []sseEvent
	var ev sseEvent
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 1<<20))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev != (sseEvent{}) {
				events = append(events, ev)
				if strings.Contains(ev.data, `"result"`) || strings.Contains(ev.data, `"error"`) {
					return resp, events // the response ends what a GET replays too
				}
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id:"):
			ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			ev.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
	return resp, events
}

// TestServeSessionStreamResumable: a 2025-11-25 session's call through
// serve opens its event stream with a priming event that has an id, and a
// client whose stream broke after it gets the call's response by a GET
// with that Last-Event-ID. Before, serve's export had no event store:
// no priming event, and the GET found nothing to resume (the suite's
// server-sse-polling warned).
func TestServeSessionStreamResumable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "servers": {"notes": {"trust": "trusted"}}, "policy": {"approval": {"default": "never"}}}}`, testServer))
	s := startServe(t, dir, nil, "--config", "gateway.json")
	url := s.base + "/mcp"

	resp, _ := sseRequest(t, "POST", url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: no session (HTTP %d)", resp.StatusCode)
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	sseRequest(t, "POST", url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)

	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_notes","arguments":{}}}`
	_, events := sseRequest(t, "POST", url, call, h)
	if len(events) < 2 || events[0].id == "" || events[0].data != "" {
		t.Fatalf("the call's stream does not open with a priming event (an id, no data): %+v", events)
	}
	if last := events[len(events)-1]; !strings.Contains(last.data, `"id":2`) || last.id == "" {
		t.Fatalf("the call's response has no event id: %+v", events)
	}

	// The stream broke after the priming event: resume it.
	gh := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "Last-Event-ID": events[0].id}
	resp, replay := sseRequest(t, "GET", url, "", gh)
	// 409 while go-sdk has not yet released the POST's stream.
	for deadline := time.Now().Add(5 * time.Second); resp.StatusCode == http.StatusConflict && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		resp, replay = sseRequest(t, "GET", url, "", gh)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resume after %q: HTTP %d", events[0].id, resp.StatusCode)
	}
	if len(replay) == 0 || !strings.Contains(replay[len(replay)-1].data, `"id":2`) {
		t.Fatalf("resume after %q replayed %+v, want the call's response", events[0].id, replay)
	}

	// Another session cannot resume this one's stream.
	resp, _ = sseRequest(t, "POST", url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"other","version":"1"}}}`, nil)
	other := resp.Header.Get("Mcp-Session-Id")
	gh["Mcp-Session-Id"] = other
	resp, replay = sseRequest(t, "GET", url, "", gh)
	for _, e := range replay {
		if strings.Contains(e.data, `"id":2`) {
			t.Fatalf("session %s replayed session %s's response: HTTP %d %+v", other, sid, resp.StatusCode, replay)
		}
	}
}
