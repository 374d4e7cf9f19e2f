package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// frontReq is one request to a served gateway, as a browser or a script
// would send it.
type frontReq struct {
	method, path string
	host         string            // Host header; "" is the address dialled
	form         url.Values        // a form body, for POST
	body         string            // a raw body, for POST
	header       map[string]string // more headers
	cookie       string
	local        string // the client's own address ("127.0.0.2"); "" any
}

func (s *served) do(t *testing.T, r frontReq) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	switch {
	case r.form != nil:
		rd = strings.NewReader(r.form.Encode())
	case r.body != "":
		rd = strings.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, s.base+r.path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if r.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if r.host != "" {
		req.Host = r.host
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if r.cookie != "" {
		req.Header.Set("Cookie", r.cookie)
	}
	tr := &http.Transport{DisableKeepAlives: true}
	if r.local != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(r.local)}}
		tr.DialContext = d.DialContext
	}
	defer tr.CloseIdleConnections()
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	return res, string(b)
}

// sessionCookie is the console's cookie of a sign-in answer.
func sessionCookie(t *testing.T, res *http.Response) string {
	t.Helper()
	for _, c := range res.Cookies() {
		if c.Name == "agentadapter_console" && c.Value != "" {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("no session cookie in %d %v", res.StatusCode, res.Header)
	return ""
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`

// A page on another origin that resolves its name to 127.0.0.1 (DNS
// rebinding) reaches no route of serve: every one answers 403 to its Host,
// the console with anonymous loopback access on included, and the call
// held for approval stays held. The same requests naming a loopback host
// (or a configured allowedHosts name) work; a cross-origin form is still
// refused.
func TestServeRebinding(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "allowedHosts": ["gateway.test"],
    "console": {"anonymousLocal": true},
    "policy": {"approval": {"default": "annotations"}}}}`, testServer))
	s := startServe(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	port := s.base[strings.LastIndex(s.base, ":")+1:]
	// In a session (2025-11-25), so that the approved retry is the same
	// anonymous caller (TestServeApprovalFromCLIStateless is 2026-07-28's).
	cs := connectAt(t, s.base+"/mcp", "2025-11-25", nil)
	res := callTool(t, cs, "add_note", map[string]any{"text": "held"})
	tk := regexp.MustCompile(`tkt_[A-Za-z0-9_-]+`).FindString(text(res))
	if !res.IsError || tk == "" {
		t.Fatalf("add_note was not held: %q", text(res))
	}

	evil := "rebind.evil.example:" + port
	sameOrigin := map[string]string{"Origin": "http://" + evil, "Sec-Fetch-Site": "same-origin"}
	mcpHeaders := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for _, r := range []frontReq{
		{method: "POST", path: "/console/login", form: url.Values{}, header: sameOrigin},
		{method: "GET", path: "/console/approvals"},
		{method: "GET", path: "/console/pending"},
		{method: "POST", path: "/console/decide", form: url.Values{"ticket": {tk}, "action": {"approve"}}, header: sameOrigin},
		{method: "GET", path: "/metrics"},
		{method: "GET", path: "/readyz"},
		{method: "GET", path: "/healthz"},
		{method: "POST", path: "/mcp", body: initializeBody, header: mcpHeaders},
		{method: "GET", path: "/no-such-route"},
	} {
		r.host = evil
		res, body := s.do(t, r)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with Host %s: %d, want 403\n%.300s", r.method, r.path, evil, res.StatusCode, body)
		}
		if len(res.Cookies()) != 0 {
			t.Errorf("%s %s with Host %s set a cookie", r.method, r.path, evil)
		}
	}

	// From loopback names the same routes serve, and the ticket is still
	// pending: nothing above decided it.
	for _, host := range []string{"", "localhost:" + port, "[::1]:" + port, "gateway.test:" + port} {
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			if res, body := s.do(t, frontReq{method: "GET", path: path, host: host}); res.StatusCode != http.StatusOK {
				t.Errorf("GET %s with Host %q: %d\n%.300s", path, host, res.StatusCode, body)
			}
		}
	}
	res2, _ := s.do(t, frontReq{method: "POST", path: "/mcp", body: initializeBody, header: mcpHeaders, host: "gateway.test:" + port})
	if res2.StatusCode != http.StatusOK {
		t.Errorf("initialize with an allowed Host: %d", res2.StatusCode)
	}
	login, _ := s.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{}})
	if login.StatusCode != http.StatusSeeOther {
		t.Fatalf("anonymous sign-in from loopback: %d", login.StatusCode)
	}
	cookie := sessionCookie(t, login)
	_, page := s.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie})
	if !strings.Contains(page, tk) {
		t.Fatalf("the held ticket %s is no longer pending:\n%.2000s", tk, page)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if csrf == nil {
		t.Fatal("no CSRF token on the page")
	}
	// A page of another origin posting the operator's form (with the
	// cookie, as a browser would) is refused by the origin check.
	cross := map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
	if res, _ := s.do(t, frontReq{method: "POST", path: "/console/decide", cookie: cookie, header: cross,
		form: url.Values{"ticket": {tk}, "action": {"approve"}, "csrf": {csrf[1]}}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin decision: %d, want 403", res.StatusCode)
	}
	if res, _ := s.do(t, frontReq{method: "POST", path: "/mcp", body: initializeBody, header: map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin MCP request: %d, want 403", res.StatusCode)
	}
	if _, page := s.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie}); !strings.Contains(page, tk) {
		t.Errorf("the ticket was decided by a refused request")
	}
	// The operator on loopback decides; the call runs.
	if res, _ := s.do(t, frontReq{method: "POST", path: "/console/decide", cookie: cookie,
		form: url.Values{"ticket": {tk}, "action": {"approve"}, "csrf": {csrf[1]}}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("loopback decision: %d", res.StatusCode)
	}
	if res := callTool(t, cs, "add_note", map[string]any{"text": "held"}); res.IsError {
		t.Errorf("approved retry: %q", text(res))
	}
}

// serve's server has the library's timeouts: 20 clients trickling a
// request body one byte every 2 s are cut by the read timeout instead of
// holding their connections (and goroutines) forever.
func TestServeSlowClients(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:"}}`)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	addr := strings.TrimPrefix(s.base, "http://")
	const clients = 20
	start := time.Now()
	bound := 30*time.Second + 15*time.Second // the read timeout, and slack for a loaded machine
	var wg sync.WaitGroup
	held := make(chan int, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{", addr)
			closed := make(chan struct{})
			go func() {
				io.Copy(io.Discard, c) // returns when the server closes
				close(closed)
			}()
			tick := time.NewTicker(2 * time.Second)
			defer tick.Stop()
			deadline := time.After(bound)
			for {
				select {
				case <-closed:
					return
				case <-deadline:
					held <- i
					return
				case <-tick.C:
					c.Write([]byte(" "))
				}
			}
		}()
	}
	wg.Wait()
	close(held)
	n := 0
	for range held {
		n++
	}
	if n > 0 {
		t.Errorf("%d of %d trickling connections still open after %s", n, clients, time.Since(start).Round(time.Second))
	}
}

// Sign-in is throttled per client address: of 300 wrong tokens from one
// address, only the first few are checked, the rest get 429 with
// Retry-After (a right token from that address too), while the operator
// on another address signs in at once.
func TestServeSignInThrottled(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:",
  "console": {"operators": [{"subject": "ops", "token": "ops-token-5f2c9a1e7b3d8f4a6c0e9d"}]}}}`)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	refused := 0
	for i := range 300 {
		res, _ := s.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {fmt.Sprintf("guess-%d", i)}}, local: "127.0.0.1"})
		switch res.StatusCode {
		case http.StatusTooManyRequests:
			refused++
			if res.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		case http.StatusUnauthorized:
		default:
			t.Fatalf("wrong token %d: %d", i, res.StatusCode)
		}
	}
	if refused < 290 {
		t.Errorf("%d of 300 wrong tokens refused unchecked, want at least 290", refused)
	}
	if res, _ := s.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {"ops-token-5f2c9a1e7b3d8f4a6c0e9d"}}, local: "127.0.0.1"}); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the guessing address signed in: %d", res.StatusCode)
	}
	res, _ := s.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {"ops-token-5f2c9a1e7b3d8f4a6c0e9d"}}, local: "127.0.0.2"})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the operator on another address: %d", res.StatusCode)
	}
	sessionCookie(t, res)

	// Lengthen the guesser's wait past what a reload on a loaded machine
	// takes: each wrong token after the wait ends doubles the next (2 s,
	// 4 s, 8 s).
	guess := func() (*http.Response, time.Time) {
		res, _ := s.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {"guess"}}, local: "127.0.0.1"})
		return res, time.Now()
	}
	var until time.Time
	for wait, tries := 0, 0; wait < 8; tries++ {
		res, at := guess()
		switch {
		case tries > 10:
			t.Fatalf("the guesser's wait does not grow: %d tries", tries)
		case res.StatusCode == http.StatusUnauthorized:
			continue // the wait ended: that wrong token doubled the next
		case res.StatusCode != http.StatusTooManyRequests:
			t.Fatalf("a wrong token: %d", res.StatusCode)
		}
		wait, _ = strconv.Atoi(res.Header.Get("Retry-After"))
		// Retry-After rounds up: the wait ends at most this late.
		until = at.Add(time.Duration(wait-1) * time.Second)
		if wait < 8 {
			time.Sleep(time.Duration(wait) * time.Second)
		}
	}

	// A reload adding an operator lets it in at once, and does not reset
	// the guesser's wait.
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:",
  "console": {"operators": [{"subject": "ops", "token": "ops-token-5f2c9a1e7b3d8f4a6c0e9d"}, {"subject": "ops2", "token": "ops2-token-9e1d7c3b5a2f4e6d8c0b1a"}]}}}`)
	s.cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		// Each try from an address of its own: tries before the reload
		// count as wrong tokens.
		res, _ := s.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {"ops2-token-9e1d7c3b5a2f4e6d8c0b1a"}}, local: fmt.Sprintf("127.0.%d.%d", 1+i/250, 3+i%250)})
		if res.StatusCode == http.StatusSeeOther {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the operator added by a reload cannot sign in: %d\n%s", res.StatusCode, s.out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	res, at := guess()
	if !at.Before(until) {
		t.Fatalf("inconclusive: the reload took past the guesser's wait (%s late)", at.Sub(until))
	}
	if res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a reload reset the guessing address's wait (%s left): %d", until.Sub(at), res.StatusCode)
	}
}

// An operator's console session dies with its credential: rename the
// operator and rotate its token in the file, SIGHUP, and the old cookie
// is sent to sign in (and cannot decide) at once, on the replica that
// reloaded, on a replica sharing the store that has not, on a replica
// started afterwards and after a restart. The new operator signs in.
func TestServeOperatorRevoked(t *testing.T) {
	dir := t.TempDir()
	write := func(name, token string) {
		writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"agentadapter": {"store": "sqlite:%s/state.db",
  "console": {"operators": [{"subject": %q, "token": %q}]}}}`, dir, name, token))
	}
	const oldTok, newTok = "ops-token-5f2c9a1e7b3d8f4a6c0e9d", "ops2-token-9e1d7c3b5a2f4e6d8c0b1a"
	write("ops", oldTok)
	a := startServe(t, dir, nil, "--config", "gateway.json")
	b := startServe(t, dir, nil, "--config", "gateway.json")
	login, _ := a.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {oldTok}}})
	cookie := sessionCookie(t, login)
	_, page := a.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie})
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if csrf == nil || !strings.Contains(page, "ops") {
		t.Fatalf("signed in as ops: no page\n%.1000s", page)
	}
	if res, _ := b.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie}); res.StatusCode != http.StatusOK {
		t.Fatalf("the replica does not share the session: %d", res.StatusCode)
	}

	write("ops2", newTok)
	a.cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, _ := a.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie})
		if res.StatusCode == http.StatusSeeOther && res.Header.Get("Location") == "login" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the reload the old cookie still opens the console: %d\n%s", res.StatusCode, a.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	decide := frontReq{method: "POST", path: "/console/decide", cookie: cookie, form: url.Values{"ticket": {"tkt_x"}, "action": {"approve"}, "csrf": {csrf[1]}}}
	if res, _ := a.do(t, decide); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the old cookie can still decide: %d", res.StatusCode)
	}
	if res, _ := a.do(t, frontReq{method: "GET", path: "/console/approvals", header: map[string]string{"Authorization": "Bearer " + oldTok}}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the old token as a bearer header: %d, want 401", res.StatusCode)
	}
	// b still runs the old file, but the session is ended in the store.
	if res, _ := b.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the replica that did not reload still honours the old cookie: %d", res.StatusCode)
	}
	c := startServe(t, dir, nil, "--config", "gateway.json")
	if res, _ := c.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a replica started afterwards honours the old cookie: %d", res.StatusCode)
	}
	if res, _ := c.do(t, decide); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a replica started afterwards lets the old cookie decide: %d", res.StatusCode)
	}
	res, _ := a.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{"token": {newTok}}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the new operator cannot sign in after the reload: %d", res.StatusCode)
	}
	if _, page := a.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: sessionCookie(t, res)}); !strings.Contains(page, "ops2") {
		t.Errorf("the new operator's page does not name ops2")
	}
	a.stop(t)
	a = startServe(t, dir, nil, "--config", "gateway.json")
	if res, _ := a.do(t, frontReq{method: "GET", path: "/console/approvals", cookie: cookie}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("after a restart the old cookie opens the console: %d", res.StatusCode)
	}
}

// The console follows the configuration in force: added by a reload it
// answers at once, removed by one it is gone (404).
func TestServeConsoleFollowsReload(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:"}}`)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	if res, _ := s.do(t, frontReq{method: "GET", path: "/console/login"}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("no console configured: %d, want 404", res.StatusCode)
	}
	waitStatus := func(what string, want int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, _ := s.do(t, frontReq{method: "GET", path: "/console/login"})
			if res.StatusCode == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: /console/login %d, want %d\n%s", what, res.StatusCode, want, s.out.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:", "console": {"anonymousLocal": true}}}`)
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitStatus("console added", http.StatusOK)
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:"}}`)
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitStatus("console removed", http.StatusNotFound)
}

// The ticket's card says why the call was held: the rule of the policy
// in force that matched (or the default), per endpoint serving the tool.
func TestServeCardSaysWhy(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "console": {"anonymousLocal": true},
    "policy": {"approval": {"default": "never", "rules": [
      {"tool": "list_*", "approve": "none"},
      {"tool": "add_note", "args": {"text": "secret*"}, "approve": "required"}]}}}}`, testServer))
	s := startServe(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	cs := connect(t, s.base+"/mcp", nil)
	if res := callTool(t, cs, "add_note", map[string]any{"text": "plain"}); res.IsError {
		t.Fatalf("a call no rule holds was held: %q", text(res))
	}
	res := callTool(t, cs, "add_note", map[string]any{"text": "secret plans"})
	tk := regexp.MustCompile(`tkt_[A-Za-z0-9_-]+`).FindString(text(res))
	if !res.IsError || tk == "" {
		t.Fatalf("add_note was not held: %q", text(res))
	}
	login, _ := s.do(t, frontReq{method: "POST", path: "/console/login", form: url.Values{}})
	_, page := s.do(t, frontReq{method: "GET", path: "/console/pending", cookie: sessionCookie(t, login)})
	m := regexp.MustCompile(`id="why-` + tk + `"[^>]*>(.*?)</p>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the card of %s does not say why it was held:\n%.3000s", tk, page)
	}
	if want := `/mcp: rule 2 (tool &#34;add_note&#34;, text=&#34;secret*&#34;) requires approval`; !strings.Contains(m[1], want) {
		t.Errorf("why: %s\nwant it to contain %s", m[1], want)
	}
}

// allowedHosts names hosts, trustedProxies addresses or networks; config
// check says which entry is neither.
func TestFrontDoorConfig(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct{ config, want string }{
		"host with a port":      {`{"agentadapter": {"allowedHosts": ["gateway.test:8931"]}}`, `"gateway.test:8931" is not a host name`},
		"host with a scheme":    {`{"agentadapter": {"allowedHosts": ["https://gateway.test"]}}`, "is not a host name"},
		"empty host":            {`{"agentadapter": {"allowedHosts": [""]}}`, "is not a host name"},
		"proxy not an address":  {`{"agentadapter": {"trustedProxies": ["proxy.internal"]}}`, `"proxy.internal" is not an address or network`},
		"proxy with a bad mask": {`{"agentadapter": {"trustedProxies": ["10.0.0.0/33"]}}`, "is not an address or network"},
		"negative idle conns":   {`{"agentadapter": {"idleConnsPerHost": -1}}`, "idleConnsPerHost"},
		"huge idle conns":       {`{"agentadapter": {"idleConnsPerHost": 1000000}}`, "is not a number of connections"},
	} {
		writeFile(t, dir, "bad.json", tt.config)
		if r := runBin(t, dir, nil, "config", "check", "bad.json"); r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: exit %d %q, want %d and %q", name, r.code, r.stderr, exitUsage, tt.want)
		}
	}
	writeFile(t, dir, "good.json", `{"agentadapter": {"store": "memory:", "allowedHosts": ["gateway.test", "::1"], "trustedProxies": ["10.0.0.5", "10.1.0.0/16", "fd00::/8"], "idleConnsPerHost": 128}}`)
	if r := runBin(t, dir, nil, "config", "check", "good.json"); r.code != 0 {
		t.Errorf("a good front-door config: exit %d %s", r.code, r.stderr)
	}
}
