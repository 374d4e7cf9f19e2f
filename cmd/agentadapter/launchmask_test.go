package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// A secret in a stdio server's arguments ("--api-key X") is masked
// wherever the command shows or records the launch: servers diff, the
// console's servers page and the ledger record of its accept. The hash the
// operator accepts still covers the real arguments.
func TestLaunchArgsMasked(t *testing.T) {
	dir := t.TempDir()
	const op = "alice-token-5f2c9a1e7b3d8f4a6c0e"
	first, second := "planted-launch-key-one-7f3a9c", "planted-launch-key-two-2b8e4d"
	config := func(key string) {
		writeFile(t, dir, "gateway.json", fmt.Sprintf(`{"mcpServers": {"notes": {"command": "sh", "args": ["-c", %q, "sh", "--api-key", %q, "--token=%s"]}},
  "agentadapter": {"store": "sqlite:%s/state.db", "policy": {"approval": {"default": "never"}},
  "console": {"operators": [{"subject": "alice", "token": %q}]}}}`, "exec "+testServer, key, key, dir, op))
	}
	leaks := func(where, out string) {
		t.Helper()
		for _, k := range []string{first, second} {
			if strings.Contains(out, k) {
				t.Errorf("%s shows a secret argument:\n%s", where, out)
			}
		}
	}
	config(first)
	s := startServeReview(t, dir, nil, "--config", "gateway.json", "--accept-launches")
	waitFor(t, s, "notes to start", func() bool { return readyz(t, s)["notes"].Connected })
	config(second)
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "the changed launch to wait", func() bool { return strings.Contains(readyz(t, s)["notes"].Error, "launch pending review") })

	r := runBinReview(t, dir, nil, "--config", "gateway.json", "servers", "diff", "notes")
	if r.code != 0 || !strings.Contains(r.stdout, `"--api-key"`) {
		t.Errorf("servers diff: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	leaks("servers diff", r.stdout+r.stderr)

	req, _ := http.NewRequest("GET", s.base+"/console/servers", nil)
	req.Header.Set("Authorization", "Bearer "+op)
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "--api-key") {
		t.Errorf("the servers page: %d\n%s", res.StatusCode, page)
	}
	leaks("the console's servers page", string(page))

	r = runBinReview(t, dir, nil, "--config", "gateway.json", "ledger", "query", "--json")
	if !strings.Contains(r.stdout, "launch_accepted") {
		t.Errorf("no record of the accept:\n%s%s", r.stdout, r.stderr)
	}
	leaks("the ledger", r.stdout)
	leaks("the log", s.out.String())
	s.stop(t)
}
