package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeSignInPages: with agentadapter.signIn, serve serves the
// per-user sign-in pages (#27) behind its Host and Origin guard: an
// unknown start link and a forged callback get the failure page, which
// escapes what the request brought; a cross-origin POST to the start page
// is refused; config check refuses a base URL over plain http off
// loopback, at its JSON path.
func TestServeSignInPages(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"notes": {"command": "`+testServer+`"}},
  "agentadapter": {"store": "memory:", "signIn": {"baseUrl": "http://127.0.0.1:8931"}}}`)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/oauth/start?state=nope"); code != http.StatusNotFound || !strings.Contains(body, "Sign-in failed") {
		t.Errorf("an unknown start link: %d %.200s", code, body)
	}
	code, body := get("/oauth/callback?state=forged&code=c&error=%3Cscript%3Ex")
	if code != http.StatusBadRequest || !strings.Contains(body, "Sign-in failed") || strings.Contains(body, "<script>") {
		t.Errorf("a forged callback: %d %.300s", code, body)
	}
	req, _ := http.NewRequest(http.MethodPost, s.base+"/oauth/start", strings.NewReader("state=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site POST to the start page: %d, want 403", resp.StatusCode)
	}
	s.stop(t)

	writeFile(t, dir, "bad.json", `{"agentadapter": {
  "signIn": {"baseUrl": "http://gw.example"}}}`)
	r := runBin(t, dir, nil, "config", "check", "bad.json")
	if r.code != exitUsage || !strings.Contains(r.stderr, "agentadapter.signIn.baseUrl") || !strings.Contains(r.stderr, "https") {
		t.Errorf("config check of an http base URL: %d %s", r.code, r.stderr)
	}
}
