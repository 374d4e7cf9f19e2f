package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A reload adds and removes servers while a client stays connected: the
// client is told (tools/list_changed) and its session goes on. A bad
// reload keeps the configuration in force and says why. (serve --watch:
// the file's changes reload it.)
func TestReload(t *testing.T) {
	dir := t.TempDir()
	ev, path := everything(t)
	notes := fmt.Sprintf(`"notes": {"command": %q}`, testServer)
	evs := fmt.Sprintf(`"everything": {"command": %q, "args": ["stdio"], "env": {"PATH": %q}}`, ev, path)
	virtual := `"virtualServers": {"ev": {"tools": ["everything_*"]}, "nt": {"tools": ["add_note", "list_notes"]}}`
	write := func(servers ...string) {
		writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {%s},
  "agentadapter": {"store": "memory:", "servers": {"everything": {"prefix": true, "trust": "trusted"}}, "policy": {"approval": {"default": "never"}}, %s}}`, strings.Join(servers, ","), virtual))
	}
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {%s}, "agentadapter": {"store": "memory:", "policy": {"approval": {"default": "never"}}, %s}}`, notes, virtual))
	s := startServe(t, dir, nil, "--config", "gateway.json", "--accept-launches", "--watch")

	changed := make(chan struct{}, 16)
	cs := connect(t, s.base+"/mcp", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	waitTools := func(what string, ok func([]string) bool) []string {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			names := toolNames(t, cs)
			if ok(names) {
				return names
			}
			select {
			case <-changed:
			case <-time.After(200 * time.Millisecond):
			case <-deadline:
				t.Fatalf("%s: tools are %v\n%s", what, names, s.out.String())
			}
		}
	}
	waitTools("start", func(n []string) bool { return slices.Contains(n, "add_note") })
	// Clients of two virtual servers: only the one that exports a new tool
	// is told of it.
	evChanged, ntChanged := make(chan struct{}, 16), make(chan struct{}, 16)
	evc := connect(t, s.base+"/mcp/ev", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { evChanged <- struct{}{} }})
	nt := connect(t, s.base+"/mcp/nt", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ntChanged <- struct{}{} }})
	if n := toolNames(t, evc); len(n) != 0 {
		t.Errorf("/mcp/ev before everything is added: %v", n)
	}

	write(notes, evs)
	select {
	case <-changed:
	case <-time.After(60 * time.Second):
		t.Fatalf("no tools/list_changed after adding a server\n%s", s.out.String())
	}
	waitTools("after adding everything", func(n []string) bool { return slices.Contains(n, "everything_echo") && slices.Contains(n, "add_note") })
	select {
	case <-evChanged:
	case <-time.After(30 * time.Second):
		t.Errorf("the client of /mcp/ev was not told of everything's tools")
	}
	if n := toolNames(t, evc); !slices.Contains(n, "everything_echo") || slices.Contains(n, "add_note") {
		t.Errorf("/mcp/ev after reload: %v", n)
	}
	select {
	case <-ntChanged:
		t.Errorf("the client of /mcp/nt was told of tools it does not export")
	default:
	}
	if n := toolNames(t, nt); !slices.Contains(n, "add_note") || slices.Contains(n, "everything_echo") {
		t.Errorf("/mcp/nt after reload: %v", n)
	}
	if res := callTool(t, cs, "everything_echo", map[string]any{"message": "after reload"}); res.IsError || text(res) != "Echo: after reload" {
		t.Errorf("everything_echo after reload: %q", text(res))
	}

	write(evs)
	waitTools("after removing notes", func(n []string) bool { return !slices.Contains(n, "add_note") && slices.Contains(n, "everything_echo") })
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"text": "x"}}); err == nil && !res.IsError {
		t.Errorf("add_note ran after its server was removed")
	}

	// A bad configuration is refused; the one in force keeps serving.
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"everything": {"comand": "x"}}}`)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.out.String(), "reload refused") {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal logged:\n%s", s.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(s.out.String(), `unknown key \"comand\"`) {
		t.Errorf("the refusal does not say why:\n%s", s.out.String())
	}
	if res := callTool(t, cs, "everything_echo", map[string]any{"message": "still here"}); res.IsError || text(res) != "Echo: still here" {
		t.Errorf("everything_echo after a bad reload: %q", text(res))
	}

	// SIGHUP reloads too.
	write(evs, notes)
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitTools("after SIGHUP", func(n []string) bool { return slices.Contains(n, "add_note") })
	s.stop(t)
}

// A tool an upstream server adds at run time (tools/list_changed) reaches
// the clients of every endpoint that exports it, and only those.
func TestUpstreamListChanged(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "memory:", "servers": {"notes": {"trust": "trusted"}}, "policy": {"approval": {"default": "never"}},
    "virtualServers": {"extras": {"tools": ["extra_*", "grow"]}, "plain": {"tools": ["list_notes"]}}}}`, testServer))
	s := startServe(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	notify := func() (chan struct{}, *mcp.ClientOptions) {
		ch := make(chan struct{}, 16)
		return ch, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} }}
	}
	allCh, allOpts := notify()
	exCh, exOpts := notify()
	plCh, plOpts := notify()
	all := connect(t, s.base+"/mcp", allOpts)
	extras := connect(t, s.base+"/mcp/extras", exOpts)
	plain := connect(t, s.base+"/mcp/plain", plOpts)
	if res := callTool(t, extras, "grow", map[string]any{}); res.IsError {
		t.Fatalf("grow: %q", text(res))
	}
	for name, ch := range map[string]chan struct{}{"/mcp": allCh, "/mcp/extras": exCh} {
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Errorf("the client of %s was not told of extra_1\n%s", name, s.out.String())
		}
	}
	if n := toolNames(t, extras); !slices.Contains(n, "extra_1") {
		t.Errorf("/mcp/extras after grow: %v", n)
	}
	if res := callTool(t, all, "extra_1", map[string]any{}); res.IsError || !strings.Contains(text(res), "extra_1") {
		t.Errorf("extra_1 through /mcp: %q", text(res))
	}
	select {
	case <-plCh:
		t.Errorf("the client of /mcp/plain was told of a tool it does not export")
	default:
	}
	if n := toolNames(t, plain); len(n) != 1 {
		t.Errorf("/mcp/plain: %v", n)
	}
	s.stop(t)
}

// Tokens of the reload tests: long enough for config check's rule.
const (
	aliceToken = "alice-token-0123456789abcdef0123456789"
	alice2     = "alice-token-rotated-0123456789abcdef01"
	bobToken   = "bob-token-0123456789abcdef0123456789ab"
	carolToken = "carol-token-0123456789abcdef0123456789"
	daveToken  = "dave-token-0123456789abcdef0123456789a"
	op1Token   = "op1-token-0123456789abcdef0123456789ab"
	op2Token   = "op2-token-0123456789abcdef0123456789ab"
)

// reloadConfig writes gateway.json: the notes server, listen and store as
// given, the auth and console sections (JSON, or "" for none), and more
// members of the agentadapter section.
func reloadConfig(t *testing.T, dir, listen, store, auth, console string, more ...string) {
	t.Helper()
	extra := ""
	for _, m := range more {
		extra += ", " + m
	}
	if auth != "" {
		extra += `, "auth": ` + auth
	}
	if console != "" {
		extra += `, "console": ` + console
	}
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"listen": %q, "store": %q, "policy": {"approval": {"default": "never"}}%s}}`, testServer, listen, store, extra))
}

func tokens(subjectTokens ...string) string {
	var list []string
	for i := 0; i < len(subjectTokens); i += 2 {
		list = append(list, fmt.Sprintf(`{"subject": %q, "token": %q}`, subjectTokens[i], subjectTokens[i+1]))
	}
	return "[" + strings.Join(list, ", ") + "]"
}

// status is the HTTP status of a request to the gateway: an MCP
// initialize for /mcp paths, a GET otherwise.
func status(t *testing.T, s *served, path, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+path, nil)
	if strings.HasPrefix(path, "/mcp") {
		req, _ = http.NewRequest("POST", s.base+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	if id := res.Header.Get("Mcp-Session-Id"); id != "" {
		del, _ := http.NewRequest("DELETE", s.base+path, nil)
		del.Header.Set("Mcp-Session-Id", id)
		del.Header.Set("Authorization", "Bearer "+token)
		if r, err := http.DefaultTransport.RoundTrip(del); err == nil {
			r.Body.Close()
		}
	}
	return res.StatusCode
}

// waitLog waits until the log holds want at least n times.
func waitLog(t *testing.T, s *served, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(s.out.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not hold %q %d times:\n%s", want, n, s.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const (
	logReloaded = "msg=reloaded"
	logRefused  = `msg="reload refused`
)

// A reload applies every section, auth and console included, for the next
// request; a reload that changes what only a restart applies, or a broken
// file, is refused whole, naming the section, and the configuration in
// force stays, tokens included. The file's changes alone reload nothing
// (no --watch); SIGHUP and agentadapter reload do.
func TestReloadAppliesOrRefuses(t *testing.T) {
	dir := t.TempDir()
	const listen, store = "127.0.0.1:0", "memory:"
	reloadConfig(t, dir, listen, store, "", "")
	// The address comes from the file, so that a change of it is one.
	s := startServe(t, dir, nil, "--config", "gateway.json", "--accept-launches", "--listen", "")
	reloads, refusals := 0, 0
	hup := func(wantLog string) {
		t.Helper()
		s.cmd.Process.Signal(syscall.SIGHUP)
		if wantLog == logReloaded {
			reloads++
			waitLog(t, s, logReloaded, reloads)
		} else {
			refusals++
			waitLog(t, s, logRefused, refusals)
		}
	}
	expect := func(step string, want map[string]int) {
		t.Helper()
		for _, path := range []string{"/mcp", "/metrics"} {
			for who, code := range want {
				tok := map[string]string{"anonymous": "", "alice": aliceToken, "alice2": alice2, "bob": bobToken, "carol": carolToken, "dave": daveToken}[who]
				if got := status(t, s, path, tok); got != code {
					t.Errorf("%s: %s %s: %d, want %d", step, who, path, got, code)
				}
			}
		}
	}
	expect("start, no auth", map[string]int{"anonymous": 200})
	anon := connect(t, s.base+"/mcp", nil)
	if code := status(t, s, "/console/", ""); code != http.StatusNotFound {
		t.Errorf("/console/ without a console section: %d, want 404", code)
	}

	// auth added: the next unauthenticated request is refused, and the
	// session opened without a token is closed.
	reloadConfig(t, dir, listen, store, `{"tokens": `+tokens("alice", aliceToken)+`}`, "")
	hup(logReloaded)
	expect("auth added", map[string]int{"anonymous": 401, "alice": 200, "bob": 401})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	if res, err := anon.CallTool(ctx, &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Errorf("a session opened without a token still calls tools after auth was turned on: %q", text(res))
	}
	cancel()

	// A rotated token: the old one is refused, the new one accepted.
	reloadConfig(t, dir, listen, store, `{"tokens": `+tokens("alice", alice2)+`}`, "")
	hup(logReloaded)
	expect("alice's token rotated", map[string]int{"anonymous": 401, "alice": 401, "alice2": 200})

	// alice removed, bob added; a console section added with op1.
	// A virtual server added: it serves its tools under its policy.
	virtual := func(approval string) string {
		return `"virtualServers": {"nt": {"tools": ["list_notes"], "policy": {"approval": {"default": "` + approval + `"}}}}`
	}
	reloadConfig(t, dir, listen, store, `{"tokens": `+tokens("bob", bobToken)+`}`, `{"operators": `+tokens("op1", op1Token)+`}`, virtual("never"))
	hup(logReloaded)
	expect("alice removed, bob added", map[string]int{"alice2": 401, "bob": 200})
	if code := status(t, s, "/console/approvals", op1Token); code != http.StatusOK {
		t.Errorf("/console/approvals with op1's token after the console section was added: %d, want 200", code)
	}
	bob := connectAs(t, s.base+"/mcp/nt", bobToken)
	if n := toolNames(t, bob); !slices.Equal(n, []string{"list_notes"}) {
		t.Errorf("/mcp/nt, added by the reload, lists %v, want [list_notes]", n)
	}
	if res := callTool(t, bob, "list_notes", map[string]any{}); res.IsError {
		t.Errorf("list_notes through /mcp/nt: %q", text(res))
	}

	// op1 removed, op2 added, and /mcp/nt's policy now holds every call.
	reloadConfig(t, dir, listen, store, `{"tokens": `+tokens("bob", bobToken)+`}`, `{"operators": `+tokens("op2", op2Token)+`}`, virtual("always"))
	hup(logReloaded)
	bob = connectAs(t, s.base+"/mcp/nt", bobToken)
	if res := callTool(t, bob, "list_notes", map[string]any{}); !res.IsError || !strings.Contains(text(res), "tkt_") {
		t.Errorf("list_notes under the reloaded policy (approval always) was not held: %q", text(res))
	}
	if code := status(t, s, "/console/approvals", op1Token); code != http.StatusUnauthorized {
		t.Errorf("/console/approvals with removed op1's token: %d, want 401", code)
	}
	if code := status(t, s, "/console/approvals", op2Token); code != http.StatusOK {
		t.Errorf("/console/approvals with op2's token: %d, want 200", code)
	}

	// A console section the console refuses (neither operators nor
	// anonymousLocal) refuses the reload: the console in force stays.
	reloadConfig(t, dir, listen, store, `{"tokens": `+tokens("dave", daveToken)+`}`, `{}`)
	hup(logRefused)
	if !regexp.MustCompile(`section=agentadapter\.console\b`).MatchString(s.out.String()) {
		t.Errorf("the refusal does not name agentadapter.console:\n%s", s.out.String())
	}
	expect("console refused", map[string]int{"bob": 200, "dave": 401})
	if code := status(t, s, "/console/approvals", op2Token); code != http.StatusOK {
		t.Errorf("console refused: op2's console is gone: %d", code)
	}

	// The store, the address, or the sign-in pages' address change only
	// on restart: the reload is refused whole (dave's token, in the same
	// edit, is not in force), and the log names the section.
	for _, c := range []struct{ section, listen, store, more string }{
		{"agentadapter.store", listen, "sqlite:" + filepath.Join(dir, "other.db"), ""},
		{"agentadapter.listen", "127.0.0.1:1", store, ""},
		{"agentadapter.signIn", listen, store, `"signIn": {"baseUrl": "http://127.0.0.1:9"}`},
	} {
		var more []string
		if c.more != "" {
			more = append(more, c.more)
		}
		reloadConfig(t, dir, c.listen, c.store, `{"tokens": `+tokens("dave", daveToken)+`}`, "", more...)
		hup(logRefused)
		if !strings.Contains(s.out.String(), "section="+c.section) {
			t.Errorf("the refusal does not name %s:\n%s", c.section, s.out.String())
		}
		expect(c.section+" changed", map[string]int{"bob": 200, "dave": 401})
		if code := status(t, s, "/console/approvals", op2Token); code != http.StatusOK {
			t.Errorf("%s changed: the console of the configuration in force is gone: %d", c.section, code)
		}
	}
	if n := strings.Count(s.out.String(), logReloaded); n != reloads {
		t.Errorf("%d reloads logged \"reloaded\", want %d:\n%s", n, reloads, s.out.String())
	}

	// A broken file: refused, nothing changes.
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"notes": {"command": "x"}}, "agentadapter": {"auth": {"tokenz": []}}}`)
	hup(logRefused)
	expect("broken file", map[string]int{"anonymous": 401, "bob": 200})

	// Without --watch, an edit reloads nothing by itself...
	reloadConfig(t, dir, listen, store, `{"tokens": `+tokens("carol", carolToken)+`}`, "")
	time.Sleep(3 * time.Second) // serve --watch looks every second
	if n := strings.Count(s.out.String(), logReloaded); n != reloads {
		t.Errorf("an edit reloaded without --watch:\n%s", s.out.String())
	}
	expect("edited, not reloaded", map[string]int{"bob": 200, "carol": 401})

	// ... agentadapter reload does, and says so.
	r := runBin(t, dir, nil, "reload", "--config", "gateway.json")
	if r.code != exitOK || !strings.Contains(r.stdout, "applied") {
		t.Fatalf("agentadapter reload: exit %d\nstdout: %s\nstderr: %s\nserve: %s", r.code, r.stdout, r.stderr, s.out.String())
	}
	reloads++
	expect("agentadapter reload", map[string]int{"bob": 401, "carol": 200})

	// A refusal is reported with the section and exit code 2.
	reloadConfig(t, dir, listen, "sqlite:"+filepath.Join(dir, "other.db"), `{"tokens": `+tokens("dave", daveToken)+`}`, "")
	r = runBin(t, dir, nil, "--json", "reload", "--config", "gateway.json")
	var outs []reloadOutcome
	if err := json.Unmarshal([]byte(r.stdout), &outs); err != nil {
		t.Fatalf("agentadapter --json reload: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	if r.code != exitUsage || len(outs) != 1 || outs[0].Outcome != "refused" || outs[0].Section != "agentadapter.store" || outs[0].PID != s.cmd.Process.Pid {
		t.Errorf("agentadapter reload of a store change: exit %d, %+v; want exit 2, refused by agentadapter.store from pid %d", r.code, outs, s.cmd.Process.Pid)
	}
	expect("refused by agentadapter reload", map[string]int{"carol": 200, "dave": 401})
	s.stop(t)

	// With no gateway running, reload says so.
	if r := runBin(t, dir, nil, "reload", "--config", "gateway.json"); r.code != exitFailure || !strings.Contains(r.stderr, "no agentadapter serve") {
		t.Errorf("reload with no gateway: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A reload reads auth.tokensFile and the JWT settings again: a token
// struck from the file, or a JWT signed with a rotated secret, is refused
// from the next request.
func TestReloadTokenSources(t *testing.T) {
	dir := t.TempDir()
	const erin, frank = "erin-token-0123456789abcdef0123456789a", "frank-token-0123456789abcdef012345678"
	tokensFile := func(subject, token string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "tokens.txt"), []byte("# subject token\n"+subject+" "+token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	secret1, secret2 := "jwt-secret-one-0123456789abcdef0123456", "jwt-secret-two-0123456789abcdef0123456"
	jwtSection := func(secret string) string {
		return `, "jwt": {"secret": "` + secret + `", "issuer": "https://idp.example", "audience": "gateway"}`
	}
	tokensFile("erin", erin)
	reloadConfig(t, dir, "127.0.0.1:0", "memory:", `{"tokensFile": "tokens.txt"}`, "")
	s := startServe(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	reloads := 0
	hup := func() {
		t.Helper()
		reloads++
		s.cmd.Process.Signal(syscall.SIGHUP)
		waitLog(t, s, logReloaded, reloads)
	}
	sign := func(secret string) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "gina", "iss": "https://idp.example", "aud": "gateway", "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	check := func(step string, want map[string]int) {
		t.Helper()
		for tok, code := range want {
			if got := status(t, s, "/mcp", tok); got != code {
				t.Errorf("%s: token %.12s...: %d, want %d", step, tok, got, code)
			}
		}
	}
	check("start", map[string]int{erin: 200, frank: 401})

	tokensFile("frank", frank)
	hup()
	check("tokens file rewritten", map[string]int{erin: 401, frank: 200})

	reloadConfig(t, dir, "127.0.0.1:0", "memory:", `{"tokensFile": "tokens.txt"`+jwtSection(secret1)+`}`, "")
	hup()
	old := sign(secret1)
	check("jwt added", map[string]int{old: 200, frank: 200})

	reloadConfig(t, dir, "127.0.0.1:0", "memory:", `{"tokensFile": "tokens.txt"`+jwtSection(secret2)+`}`, "")
	hup()
	check("jwt secret rotated", map[string]int{old: 401, sign(secret2): 200})

	// A tokens file the gateway cannot read refuses the reload: the
	// tokens in force stay.
	tokensFile("erin", "")
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, logRefused, 1)
	if !regexp.MustCompile(`section=(agentadapter\.)?auth`).MatchString(s.out.String()) {
		t.Errorf("the refusal does not name auth:\n%s", s.out.String())
	}
	check("tokens file gone", map[string]int{frank: 200})
	s.stop(t)
}

// The reload sockets live in a directory only the user can enter: one that
// others can enter (or replace) is refused by agentadapter reload and by
// serve, which still reloads on SIGHUP; a connection that does not ask
// "reload" reloads nothing.
func TestReloadSocketDir(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.MkdirAll(filepath.Join(open, "agentadapter"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(open, "agentadapter"), 0o777); err != nil {
		t.Fatal(err)
	}
	reloadConfig(t, dir, "127.0.0.1:0", "memory:", "", "")
	s := startServe(t, dir, []string{"XDG_RUNTIME_DIR=" + open}, "--config", "gateway.json", "--accept-launches")
	if !strings.Contains(s.out.String(), "not a directory private to this user") {
		t.Errorf("serve did not refuse a socket directory others can enter:\n%s", s.out.String())
	}
	entries, _ := os.ReadDir(filepath.Join(open, "agentadapter"))
	if len(entries) != 0 {
		t.Errorf("serve listens in a directory others can enter: %v", entries)
	}
	r := runBin(t, dir, []string{"XDG_RUNTIME_DIR=" + open}, "reload", "--config", "gateway.json")
	if r.code != exitFailure || !strings.Contains(r.stderr, "not a directory private to this user") {
		t.Errorf("reload with a socket directory others can enter: exit %d, stderr %q", r.code, r.stderr)
	}
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, logReloaded, 1)
	s.stop(t)

	// A private directory: a stray connection is answered with nothing.
	private := filepath.Join(dir, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	s = startServe(t, dir, []string{"XDG_RUNTIME_DIR=" + private}, "--config", "gateway.json", "--accept-launches")
	socks, _ := filepath.Glob(filepath.Join(private, "agentadapter", "*.sock"))
	if len(socks) != 1 {
		t.Fatalf("sockets: %v", socks)
	}
	fi, err := os.Stat(filepath.Join(private, "agentadapter"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	conn, err := net.Dial("unix", socks[0])
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(conn, strings.Repeat("x", 1<<16)+"\n")
	if b, _ := io.ReadAll(conn); len(b) != 0 {
		t.Errorf("a stray request was answered: %q", b)
	}
	conn.Close()
	if r := runBin(t, dir, []string{"XDG_RUNTIME_DIR=" + private}, "reload", "--config", "gateway.json"); r.code != exitOK || !strings.Contains(r.stdout, fmt.Sprintf("pid %d: applied", s.cmd.Process.Pid)) {
		t.Errorf("reload: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(s.out.String(), logReloaded); n != 1 {
		t.Errorf("%d reloads, want 1 (the stray connection must reload nothing):\n%s", n, s.out.String())
	}

	// Two gateways of the file: both are asked and answer; one killed
	// (its socket left behind) is passed over and its socket removed.
	s2 := startServe(t, dir, []string{"XDG_RUNTIME_DIR=" + private}, "--config", "gateway.json", "--accept-launches")
	r = runBin(t, dir, []string{"XDG_RUNTIME_DIR=" + private}, "reload", "--config", "gateway.json")
	for _, pid := range []int{s.cmd.Process.Pid, s2.cmd.Process.Pid} {
		if !strings.Contains(r.stdout, fmt.Sprintf("pid %d: applied", pid)) {
			t.Errorf("reload of two gateways: pid %d did not answer: exit %d, stdout %q, stderr %q", pid, r.code, r.stdout, r.stderr)
		}
	}
	s2.cmd.Process.Kill()
	<-s2.done
	if socks, _ := filepath.Glob(filepath.Join(private, "agentadapter", "*.sock")); len(socks) != 2 {
		t.Fatalf("sockets after a kill: %v, want the live one and the dead one's", socks)
	}
	r = runBin(t, dir, []string{"XDG_RUNTIME_DIR=" + private}, "reload", "--config", "gateway.json")
	if r.code != exitOK || strings.Count(r.stdout, "applied") != 1 || !strings.Contains(r.stdout, fmt.Sprintf("pid %d: applied", s.cmd.Process.Pid)) {
		t.Errorf("reload with a dead gateway's socket: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if socks, _ := filepath.Glob(filepath.Join(private, "agentadapter", "*.sock")); len(socks) != 1 {
		t.Errorf("the dead gateway's socket was not removed: %v", socks)
	}
	s.stop(t)
	if socks, _ := filepath.Glob(filepath.Join(private, "agentadapter", "*.sock")); len(socks) != 0 {
		t.Errorf("serve left its socket behind: %v", socks)
	}
}

// openStream opens an MCP session presenting token ("" for none) and its
// event stream (GET); ended is closed when the stream ends. call posts one
// request on the session and returns the status.
func openStream(t *testing.T, s *served, token string) (call func(body string) int, ended chan struct{}) {
	t.Helper()
	id := ""
	post := func(body string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", s.base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if id == "" {
			id = res.Header.Get("Mcp-Session-Id")
		}
		return res.StatusCode
	}
	if code := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`); code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", code, id)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req, _ := http.NewRequest("GET", s.base+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	stream, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Body.Close() })
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %d", stream.StatusCode)
	}
	ended = make(chan struct{})
	go func() {
		defer close(ended)
		io.Copy(io.Discard, stream.Body)
	}()
	return post, ended
}

// Turning auth on ends the sessions opened without a token, their open
// event streams included: a client that never showed a token hears no
// more once one is required. Likewise a session whose token a reload
// revokes ends at once; the others go on.
func TestReloadEndsRevokedSessions(t *testing.T) {
	dir := t.TempDir()
	reloadConfig(t, dir, "127.0.0.1:0", "memory:", "", "")
	s := startServe(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	_, anonEnded := openStream(t, s, "")

	reloadConfig(t, dir, "127.0.0.1:0", "memory:", `{"tokens": `+tokens("alice", aliceToken, "bob", bobToken)+`}`, "")
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, logReloaded, 1)
	select {
	case <-anonEnded:
	case <-time.After(30 * time.Second):
		t.Errorf("the event stream of a session opened without a token is still open after auth was turned on")
	}

	_, aliceEnded := openStream(t, s, aliceToken)
	bobCall, bobEnded := openStream(t, s, bobToken)
	reloadConfig(t, dir, "127.0.0.1:0", "memory:", `{"tokens": `+tokens("bob", bobToken)+`}`, "")
	s.cmd.Process.Signal(syscall.SIGHUP)
	waitLog(t, s, logReloaded, 2)
	select {
	case <-aliceEnded:
	case <-time.After(30 * time.Second):
		t.Errorf("the event stream of alice's session is still open after her token was removed")
	}
	if code := bobCall(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); code != http.StatusOK {
		t.Errorf("bob's session after alice's token was removed: %d, want 200", code)
	}
	select {
	case <-bobEnded:
		t.Errorf("bob's event stream ended when alice's token was removed")
	default:
	}
	s.stop(t)
}
