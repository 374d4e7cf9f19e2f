package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readyServer is one server of /readyz.
type readyServer struct {
	Name      string `json:"name"`
	Connected bool   `json:"connected"`
	Error     string `json:"error"`
}

func readyz(t *testing.T, s *served) map[string]readyServer {
	t.Helper()
	res, err := http.Get(s.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	var body struct{ Servers []readyServer }
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("/readyz: %v: %s", err, b)
	}
	out := map[string]readyServer{}
	for _, x := range body.Servers {
		out[x.Name] = x
	}
	return out
}

// waitFor polls cond for up to 60 s.
func waitFor(t *testing.T, s *served, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\n%s", what, s.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// stillAbsent fails if marker appears within d.
func stillAbsent(t *testing.T, marker string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if exists(marker) {
			t.Fatalf("%s was created: the launch ran without an accept", filepath.Base(marker))
		}
	}
}

var acceptHashRE = regexp.MustCompile(`servers accept (\S+) --hash (sha256:[0-9a-f]{64})`)

// #23.1: a server added to the included client file while serve runs is
// not started (its sh -c would touch a marker) until an operator accepts
// the hash of the launch they reviewed; a changed launch waits again;
// "trust" counts only in the gateway's own file.
func TestLaunchReview(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	client := func(entries ...string) {
		writeFile(t, dir, "mcp.json", `{"mcpServers": {`+strings.Join(entries, ",")+`}}`)
	}
	gatewayFile := func(servers string) {
		writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"agentadapter": {"include": "mcp.json", "store": "sqlite:%s/state.db",
  "servers": {%s}, "policy": {"approval": {"default": "never"}}}}`, dir, servers))
	}
	shEntry := func(name, touch string, extra string) string {
		return fmt.Sprintf(`%q: {"command": "sh", "args": ["-c", %q]%s}`, name, "touch "+touch+"; exec "+testServer, extra)
	}
	client()
	gatewayFile("")
	s := startServeReview(t, dir, nil, "--config", "gateway.json")
	aa := func(args ...string) result {
		return runBinReview(t, dir, nil, append([]string{"--config", "gateway.json"}, args...)...)
	}
	hup := func() {
		t.Helper()
		reloads := func() int {
			return strings.Count(s.out.String(), "reloaded") + strings.Count(s.out.String(), "refused")
		}
		n := reloads()
		if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitFor(t, s, "the reload", func() bool {
			return reloads() > n
		})
	}

	// An IDE agent adds a server to the client's file.
	client(shEntry("evil", marker, ""))
	hup()
	waitFor(t, s, "evil pending in /readyz", func() bool { return strings.Contains(readyz(t, s)["evil"].Error, "launch pending review") })
	stillAbsent(t, marker, 10*time.Second)
	if !strings.Contains(s.out.String(), "launch pending review") {
		t.Errorf("the log does not say the launch waits:\n%s", s.out.String())
	}
	r := aa("servers", "list")
	if r.code != 0 || !regexp.MustCompile(`evil\s+stdio\s+pending review \(new\)`).MatchString(r.stdout) || !strings.Contains(r.stdout, "SHELL WRAPPER sh -c") {
		t.Errorf("servers list: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = aa("servers", "diff", "evil")
	m := acceptHashRE.FindStringSubmatch(r.stdout)
	if m == nil || !strings.Contains(r.stdout, "SHELL WRAPPER") || !strings.Contains(r.stdout, "touch "+marker) {
		t.Fatalf("servers diff: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	hash := m[2]
	// A hash that is not the launch's is refused; nothing starts.
	if r := aa("servers", "accept", "evil", "--hash", "sha256:"+strings.Repeat("0", 64)); r.code == 0 || !strings.Contains(r.stderr, "changed since you reviewed it") {
		t.Errorf("accept with a stale hash: %d %s", r.code, r.stderr)
	}
	if r := aa("servers", "accept", "evil"); r.code != 2 {
		t.Errorf("accept without --hash: %d %s", r.code, r.stderr)
	}
	stillAbsent(t, marker, 2*time.Second)

	if r := aa("servers", "accept", "evil", "--hash", hash, "--as", "alice"); r.code != 0 {
		t.Fatalf("accept: %d %s", r.code, r.stderr)
	}
	waitFor(t, s, "the accepted launch to run", func() bool { return exists(marker) && readyz(t, s)["evil"].Connected })
	r = aa("ledger", "query", "--json")
	if n := strings.Count(r.stdout, `"outcome": "launch_accepted"`) + strings.Count(r.stdout, `"outcome":"launch_accepted"`); n != 1 || !strings.Contains(r.stdout, hash) || !strings.Contains(r.stdout, "alice") {
		t.Errorf("want one launch_accepted record by alice for %s:\n%s%s", hash, r.stdout, r.stderr)
	}

	// The accepted launch changes (its arguments): it is stopped and waits.
	marker2 := filepath.Join(dir, "marker2")
	client(shEntry("evil", marker2, ""))
	hup()
	waitFor(t, s, "the changed launch pending", func() bool { return strings.Contains(readyz(t, s)["evil"].Error, "launch pending review (changed)") })
	stillAbsent(t, marker2, 3*time.Second)
	r = aa("servers", "diff", "evil")
	if !strings.Contains(r.stdout, "- args:") || !strings.Contains(r.stdout, "+ args:") || !strings.Contains(r.stdout, "changed launch (accepted: "+short(hash)) {
		t.Errorf("servers diff of a changed launch:\n%s%s", r.stdout, r.stderr)
	}
	// An environment value changed is a changed launch too, shown without
	// the value.
	client(shEntry("evil", marker2, `, "env": {"API_TOKEN": "s3cret-value"}`))
	hup()
	waitFor(t, s, "the env change seen", func() bool {
		return strings.Contains(aa("servers", "diff", "evil").stdout, "API_TOKEN=<")
	})
	if r := aa("servers", "diff", "evil"); strings.Contains(r.stdout, "s3cret-value") {
		t.Errorf("servers diff shows an environment value:\n%s", r.stdout)
	}
	stillAbsent(t, marker2, time.Second)

	// "trust" in the client's file: not a key the gateway reads there. The
	// reload is refused or the trust ignored; either way nothing runs.
	marker3 := filepath.Join(dir, "marker3")
	client(shEntry("evil3", marker3, `, "trust": "trusted"`))
	hup()
	stillAbsent(t, marker3, 3*time.Second)
	writeFile(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {%s}, "agentadapter": {"servers": {"evil3": {"trust": "trusted"}}}}`, shEntry("evil3", marker3, "")))
	hup()
	stillAbsent(t, marker3, 3*time.Second)

	// In the gateway's own file, trust accepts the launch, with a record.
	client(shEntry("evil3", marker3, ""))
	gatewayFile(`"evil3": {"trust": "trusted"}`)
	hup()
	waitFor(t, s, "the trusted launch to run", func() bool { return exists(marker3) })
	if r := aa("ledger", "query", "--json"); !strings.Contains(r.stdout, "config:"+filepath.Join(dir, "gateway.json")) {
		t.Errorf("no record of the launch accepted by the gateway's file:\n%s", r.stdout)
	}
	s.stop(t)
}

// A fresh gateway asks too: without --accept-launches no stdio server of
// the file starts, in serve, call or inspect, and each says what to do;
// with it they start and a record says so.
func TestLaunchFreshStore(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": "sh", "args": ["-c", %q]}},
  "agentadapter": {"store": "sqlite:%s/state.db", "policy": {"approval": {"default": "never"}}}}`, "touch "+marker+"; exec "+testServer, dir))
	for _, args := range [][]string{{"call", "list_notes"}, {"inspect"}} {
		r := runBinReview(t, dir, nil, append([]string{"--config", "gateway.json"}, args...)...)
		if r.code == 0 && args[0] == "call" || !strings.Contains(r.stdout+r.stderr, "servers accept notes --hash") {
			t.Errorf("%s on a fresh store: %d\n%s%s", args[0], r.code, r.stdout, r.stderr)
		}
	}
	s := startServeReview(t, dir, nil, "--config", "gateway.json")
	if got := readyz(t, s)["notes"]; got.Connected || got.Error != "launch pending review (new)" {
		t.Errorf("/readyz on a fresh store: %+v", got)
	}
	stillAbsent(t, marker, 2*time.Second)
	s.stop(t)

	s = startServeReview(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	waitFor(t, s, "the launch accepted by the flag", func() bool { return exists(marker) && readyz(t, s)["notes"].Connected })
	s.stop(t)
	r := runBinReview(t, dir, nil, "--config", "gateway.json", "ledger", "query", "--json")
	if !strings.Contains(r.stdout, "serve --accept-launches") || !strings.Contains(r.stdout, "launch_accepted") {
		t.Errorf("no record of the flag's accept:\n%s%s", r.stdout, r.stderr)
	}
	// Accepted now: a later run starts it without the flag.
	os.Remove(marker)
	if r := runBinReview(t, dir, nil, "--config", "gateway.json", "call", "list_notes"); r.code != 0 || !exists(marker) {
		t.Errorf("call after the accept: %d %s", r.code, r.stderr)
	}
}

// The console's servers page reviews a pending launch (command, resolved
// path, file hash, arguments, environment names, the shell wrapper
// flagged) and accepts the hash shown, never another.
func TestLaunchConsole(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	const op = "alice-token-5f2c9a1e7b3d8f4a6c0e"
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": "sh", "args": ["-c", %q], "env": {"NOTES_TOKEN": "s3cret-value"}}},
  "agentadapter": {"store": "sqlite:%s/state.db", "policy": {"approval": {"default": "never"}},
  "console": {"operators": [{"subject": "alice", "token": %q}]}}}`, "touch "+marker+"; exec "+testServer, dir, op))
	s := startServeReview(t, dir, nil, "--config", "gateway.json")
	do := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, s.base+"/console/"+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.Header.Set("Authorization", "Bearer "+op)
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	_, page := do("GET", "servers", nil)
	for _, want := range []string{`id="launch-notes"`, `id="wrapper-notes"`, "Shell wrapper: <code>sh -c</code>", "NOTES_TOKEN", "Resolved path", marker, "launch pending review (new)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the servers page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "s3cret-value") {
		t.Error("the servers page shows an environment value")
	}
	m := regexp.MustCompile(`name="hash" value="(sha256:[0-9a-f]{64})"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no accept form with the launch hash:\n%s", page)
	}
	if code, page := do("POST", "servers", url.Values{"server": {"notes"}, "hash": {"sha256:" + strings.Repeat("0", 64)}, "action": {"accept-launch"}}); code != http.StatusConflict || !strings.Contains(page, "changed since you reviewed it; review again") {
		t.Errorf("accept with a stale hash: %d", code)
	}
	stillAbsent(t, marker, 2*time.Second)
	if code, page := do("POST", "servers", url.Values{"server": {"notes"}, "hash": {m[1]}, "action": {"accept-launch"}}); code != http.StatusSeeOther {
		t.Fatalf("accept: %d\n%s", code, page)
	}
	waitFor(t, s, "the accepted launch to run", func() bool { return exists(marker) && readyz(t, s)["notes"].Connected })
	r := runBinReview(t, dir, nil, "--config", "gateway.json", "ledger", "query", "--json")
	if !strings.Contains(r.stdout, "launch_accepted") || !regexp.MustCompile(`"approver": ?"alice"`).MatchString(r.stdout) || !strings.Contains(r.stdout, m[1]) {
		t.Errorf("no record of alice's accept:\n%s%s", r.stdout, r.stderr)
	}
	s.stop(t)
}

// An accepted launch whose program changes on disk is not restarted: when
// the process exits, the restart waits for review like a config edit.
func TestLaunchFileChanged(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "server.sh")
	pidFile, marker2 := filepath.Join(dir, "pid"), filepath.Join(dir, "marker2")
	writeFile(t, dir, "server.sh", "#!/bin/sh\necho $$ > "+pidFile+"\nexec "+testServer+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q}},
  "agentadapter": {"store": "sqlite:%s/state.db", "policy": {"approval": {"default": "never"}}}}`, script, dir))
	s := startServeReview(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	waitFor(t, s, "notes to connect", func() bool { return readyz(t, s)["notes"].Connected })
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The program is rewritten, then its process ends (a crash, an update).
	writeFile(t, dir, "server.sh", "#!/bin/sh\ntouch "+marker2+"\necho $$ > "+pidFile+"\nexec "+testServer+"\n")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "the changed program to wait for review", func() bool {
		return strings.Contains(readyz(t, s)["notes"].Error, "launch pending review (changed)")
	})
	stillAbsent(t, marker2, 3*time.Second)
	r := runBinReview(t, dir, nil, "--config", "gateway.json", "servers", "diff", "notes")
	m := acceptHashRE.FindStringSubmatch(r.stdout)
	if m == nil || !strings.Contains(r.stdout, "- sha256:") || !strings.Contains(r.stdout, "+ sha256:") {
		t.Fatalf("servers diff does not show the file's hash change:\n%s%s", r.stdout, r.stderr)
	}
	if r := runBinReview(t, dir, nil, "--config", "gateway.json", "servers", "accept", "notes", "--hash", m[2]); r.code != 0 {
		t.Fatalf("accept: %d %s", r.code, r.stderr)
	}
	waitFor(t, s, "the accepted program to run", func() bool { return exists(marker2) && readyz(t, s)["notes"].Connected })
	s.stop(t)
}

// A launch is text from a file others write: its review on a terminal
// shows controls, C1 and bidi overrides escaped.
func TestLaunchTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": %q, "args": ["\u001b]0;pwned\u0007", "a\u202eexe.txt", "\u009b31m"], "env": {"X\u001b[2J": "v"}, "cwd": %q}},
  "agentadapter": {"store": "sqlite:%s/state.db"}}`, testServer, dir, dir))
	for _, args := range [][]string{{"servers", "diff"}, {"servers", "list"}} {
		r := runBinReview(t, dir, nil, append([]string{"--config", "gateway.json"}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "notes") {
			t.Fatalf("%v: %d %s %s", args, r.code, r.stdout, r.stderr)
		}
		if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\u202e\u009b") {
			t.Errorf("%v prints raw control or bidi characters: %q", args, r.stdout)
		}
	}
}
