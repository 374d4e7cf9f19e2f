package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// Each kind of bad configuration gives one line naming the file, the line
// and what is wrong, and exit code 2.
func TestConfigCheckBad(t *testing.T) {
	tests := []struct {
		name, config string
		want         string // in the one line
	}{
		{"unknown key", `{"mcpServers": {"a": {
  "comand": "x"}}}`, `bad.json:2: mcpServers.a.comand: unknown key "comand" (did you mean "command"?)`},
		{"unknown key in our section", `{"agentadapter": {"listen": "127.0.0.1:0",
  "polcy": {}}}`, `bad.json:2: agentadapter.polcy: unknown key "polcy" (did you mean "policy"?)`},
		{"unknown key deep in a rule", `{"mcpServers": {"a": {"command": "x"}}, "agentadapter": {"policy": {"approval": {"rules": [
  {"tool": "x", "approve": "none", "argz": {}}]}}}}`, `bad.json:2: agentadapter.policy.approval.rules[0].argz: unknown key "argz"`},
		{"missing command", `{"mcpServers": {
  "a": {"args": ["x"], "type": "stdio"}}}`, `bad.json:2: mcpServers.a: stdio server "a" is missing its command`},
		{"neither command nor url", `{"servers": {
  "a": {"env": {}}}}`, `bad.json:2: servers.a: server "a" has neither a command`},
		{"bad URL", `{"mcpServers": {"a": {
  "url": "ftp://example.com/mcp"}}}`, `bad.json:2: mcpServers.a.url: bad url "ftp://example.com/mcp"`},
		{"URL without host", `{"mcpServers": {"a": {"type": "http",
  "url": "http:///mcp"}}}`, `bad.json:2: mcpServers.a.url: bad url`},
		{"undefined variable", `{"mcpServers": {"a": {"command": "x",
  "env": {"TOKEN": "${AGENTADAPTER_TEST_UNSET}"}}}}`, `bad.json:2: mcpServers.a.env.TOKEN: undefined variable ${AGENTADAPTER_TEST_UNSET}`},
		{"undefined env: variable", `{"mcpServers": {"a": {"command": "x",
  "args": ["${env:AGENTADAPTER_TEST_UNSET}"]}}}`, `bad.json:2: mcpServers.a.args[0]: undefined variable ${env:AGENTADAPTER_TEST_UNSET}`},
		{"undefined input", `{"servers": {"a": {"command": "x",
  "env": {"K": "${input:nope}"}}}}`, `bad.json:2: servers.a.env.K: undefined variable ${input:nope}`},
		{"duplicate server in one object", `{"mcpServers": {"a": {"command": "x"},
  "a": {"command": "y"}}}`, `bad.json:2: mcpServers.a: duplicate key "a" (first at line 1)`},
		{"duplicate server across formats", `{"mcpServers": {"a": {"command": "x"}},
  "servers": {"a": {"command": "y"}}}`, `bad.json:2: servers.a: duplicate server "a" (also defined at bad.json:1)`},
		{"policy for an unknown server", `{"mcpServers": {"a": {"command": "x"}}, "agentadapter": {"servers": {
  "b": {"trust": "trusted"}}}}`, `bad.json:2: agentadapter.servers.b: no server named "b" is defined`},
		{"wrong type", `{"mcpServers": {"a": {"command": "x",
  "args": "not a list"}}}`, `bad.json:2: mcpServers.a.args: want a list, got string`},
		{"bad duration", `{"agentadapter": {"policy": {
  "timeout": "soon"}}}`, `bad.json:2: agentadapter.policy.timeout: not a duration: "soon"`},
		{"not JSON", `{"mcpServers": {"a": {"command": "x"}
  "b": 1}}`, `bad.json:2: not valid JSON`},
		{"bad server name", `{"mcpServers": {
  "a b": {"command": "x"}}}`, `bad.json:2: mcpServers["a b"]: server name "a b"`},
		{"bad store", `{"agentadapter": {
  "store": "redis://x"}}`, `bad.json:2: agentadapter.store: store "redis://x"`},
		{"oauth on a stdio server", `{"mcpServers": {"a": {"command": "x"}}, "agentadapter": {"servers": {"a": {
  "oauth": {"clientId": "c"}}}}}`, `bad.json:2: agentadapter.servers.a.oauth: oauth is for http servers; "a" is stdio`},
		{"bad limit", `{"agentadapter": {"policy": {
  "limits": {"perIdentity": {"calls": 0, "window": "1m"}}}}}`, `bad.json:2: agentadapter.policy.limits: perIdentity: a limit needs calls > 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "bad.json", tt.config)
			r := runBin(t, dir, nil, "config", "check", "bad.json")
			if r.code != exitUsage {
				t.Fatalf("exit code %d, want %d; stderr: %s", r.code, exitUsage, r.stderr)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("want one line of error, got %d:\n%s", len(lines), r.stderr)
			}
			if !strings.Contains(lines[0], tt.want) {
				t.Errorf("error line\n  %s\nwant it to contain\n  %s", lines[0], tt.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout should be empty on error, got %q", r.stdout)
			}
		})
	}
}

// The formats users already have, each read to the same effective servers.
func TestConfigCheckFormats(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "project/.vscode/notes.env", "# comment\nexport NOTES_SECRET=\"from-env-file\"\nPLAIN=1\n")
	if err := os.Chmod(writeFile(t, dir, "project/bin/notes", "#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, config string
		env                []string
		check              func(t *testing.T, s map[string]any)
	}{
		{"claude desktop mcpServers", "claude_desktop_config.json", `{
  "mcpServers": {
    "notes": {"command": "sh", "args": ["--db", "${HOME_DIR:-/tmp}/notes.db"], "env": {"API_TOKEN": "${NOTES_TOKEN}"}}
  }
}`, []string{"NOTES_TOKEN=s3cret"}, func(t *testing.T, s map[string]any) {
			want(t, s, "kind", "stdio")
			want(t, s, "command", "sh")
			want(t, s, "args", []any{"--db", "/tmp/notes.db"})
			want(t, s, "env", map[string]any{"API_TOKEN": "[REDACTED]"})
		}},
		{"claude code remote http", ".mcp.json", `{
  "mcpServers": {
    "notes": {"type": "http", "url": "https://mcp.example.com/mcp?api_key=${env:NOTES_TOKEN}", "headers": {"Authorization": "Bearer ${NOTES_TOKEN}", "X-Tenant": "acme"}}
  }
}`, []string{"NOTES_TOKEN=s3cret"}, func(t *testing.T, s map[string]any) {
			want(t, s, "kind", "http")
			want(t, s, "url", "https://mcp.example.com/mcp?api_key=xxxxx")
			want(t, s, "headers", map[string]any{"Authorization": "[REDACTED]", "X-Tenant": "acme"})
		}},
		{"cursor sse", "mcp.json", `{"mcpServers": {"notes": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}`, nil, func(t *testing.T, s map[string]any) {
			want(t, s, "kind", "sse")
		}},
		{"vscode servers and inputs", "project/.vscode/mcp.json", `{
  // VS Code allows comments and trailing commas
  "inputs": [{"type": "promptString", "id": "notes-key", "description": "Notes API key", "password": true}],
  "servers": {
    "notes": {
      "type": "stdio",
      "command": "${workspaceFolder}/bin/notes",
      "envFile": "${workspaceFolder}/.vscode/notes.env",
      "env": {"NOTES_KEY": "${input:notes-key}", "PLAIN": "2"},
      "cwd": "${workspaceFolder}/data",
    },
  },
}`, []string{"AGENTADAPTER_INPUT_NOTES_KEY=k3y"}, func(t *testing.T, s map[string]any) {
			ws := filepath.Join(dir, "project")
			want(t, s, "command", ws+"/bin/notes")
			want(t, s, "cwd", ws+"/data")
			want(t, s, "env", map[string]any{"NOTES_KEY": "[REDACTED]", "NOTES_SECRET": "[REDACTED]", "PLAIN": "2"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeFile(t, dir, tt.file, tt.config)
			r := runBin(t, dir, tt.env, "config", "check", tt.file)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var out struct {
				Servers []map[string]any `json:"servers"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
			}
			if len(out.Servers) != 1 || out.Servers[0]["name"] != "notes" {
				t.Fatalf("servers: %v", out.Servers)
			}
			tt.check(t, out.Servers[0])
			if strings.Contains(r.stdout, "s3cret") || strings.Contains(r.stdout, "k3y") || strings.Contains(r.stdout, "from-env-file") {
				t.Errorf("a secret leaked into the output:\n%s", r.stdout)
			}
		})
	}
}

// A separate file of our own includes the client's file untouched.
func TestConfigInclude(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "client/mcp.json", `{"mcpServers": {"notes": {"command": "sh"}}}`)
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"include": "client/mcp.json", "store": "memory:",
  "servers": {"notes": {"trust": "trusted", "prefix": true}},
  "auth": {"tokens": [{"subject": "alice", "token": "${TOK}"}]}}}`)
	r := runBin(t, dir, []string{"TOK=tok-secret-5f2c9a1e7b3d8f4a6c0e9"}, "config", "check", "gateway.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, s := range []string{`"name": "notes"`, `"trust": "trusted"`, `"subject": "alice"`} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("output lacks %s:\n%s", s, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "tok-secret") {
		t.Errorf("the token leaked:\n%s", r.stdout)
	}
	// The included file's own mistakes are reported in its name.
	writeFile(t, dir, "client/mcp.json", `{"mcpServers": {"notes": {"command": "notes", "bogus": 1}}}`)
	r = runBin(t, dir, []string{"TOK=x"}, "config", "check", "gateway.json")
	if r.code != exitUsage || !strings.Contains(r.stderr, "client/mcp.json:1: mcpServers.notes.bogus: unknown key") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// OAuth settings for a remote server: secrets masked, tokens file resolved.
func TestConfigOAuth(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"docs": {"type": "http", "url": "https://docs.example.com/mcp"},
    "m2m": {"type": "http", "url": "https://m2m.example.com/mcp"}},
  "agentadapter": {"servers": {
    "docs": {"oauth": {"clientId": "gw", "clientSecret": "${DOCS_SECRET}", "scopes": ["read"], "tokens": "tokens.json"}},
    "m2m": {"oauth": {"clientCredentials": {"clientId": "svc", "clientSecret": "${M2M_SECRET}"}}}}}}`)
	r := runBin(t, dir, []string{"DOCS_SECRET=docs-s3cret", "M2M_SECRET=m2m-s3cret", "XDG_STATE_HOME=" + dir + "/state"}, "config", "check", "gateway.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "s3cret") {
		t.Errorf("an OAuth secret leaked:\n%s", r.stdout)
	}
	for _, w := range []string{`"clientId": "gw"`, `"tokens": "` + dir + `/tokens.json"`, `"tokens": "` + dir + `/state/agentadapter/tokens.json"`, `"store": "sqlite:` + dir + `/state/agentadapter/state.db"`} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("output lacks %s:\n%s", w, r.stdout)
		}
	}
}

func want(t *testing.T, m map[string]any, key string, v any) {
	t.Helper()
	got, _ := json.Marshal(m[key])
	exp, _ := json.Marshal(v)
	if string(got) != string(exp) {
		t.Errorf("%s = %s, want %s", key, got, exp)
	}
}

// config check refuses a stdio command that cannot be started, naming the
// server and the path (it used to print the config and exit 0, and serve
// then retried the launch forever).
func TestConfigCheckCommand(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ command, want string }{
		{"agentadapter-no-such-server", `mcp.json:2: command: server "a": command "agentadapter-no-such-server" is not found on PATH`},
		{"./bin/server", `server "a": command ./bin/server does not exist`},
		{"/nonexistent/server", `server "a": command /nonexistent/server does not exist`},
	} {
		writeFile(t, dir, "mcp.json", `{"mcpServers": {
  "a": {"command": "`+tt.command+`"}, "off": {"command": "agentadapter-no-such-server", "disabled": true}}}`)
		r := runBin(t, dir, nil, "config", "check", "mcp.json")
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("command %s: exit %d, stderr %q; want %d and %q", tt.command, r.code, r.stderr, exitUsage, tt.want)
		}
	}
}

// A client file found in the working directory (a repository's .mcp.json,
// say) is used with a notice naming it; --config says nothing.
func TestConfigDiscoveryNotice(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".mcp.json", `{"mcpServers": {"repo": {"command": "sh"}}}`)
	r := runBin(t, dir, nil, "config", "check")
	if r.code != 0 || !strings.Contains(r.stdout, `"name": "repo"`) {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if want := "agentadapter: using .mcp.json found in the working directory (pass --config to choose)\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if r := runBin(t, dir, nil, "config", "check", "--config", ".mcp.json"); r.stderr != "" {
		t.Errorf("with --config: stderr %q, want none", r.stderr)
	}
}

// Tokens too weak to guard the gateway stop config check and serve alike.
func TestConfigCheckWeakToken(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:",
  "auth": {"tokens": [{"subject": "alice", "token": "a"}]}}}`)
	want := `gateway.json:2: agentadapter.auth.tokens: token 0 (subject "alice"): too short: 1 characters, want at least 32`
	for _, args := range [][]string{{"config", "check", "gateway.json"}, {"--config", "gateway.json", "serve", "--listen", "127.0.0.1:0"}} {
		r := runBin(t, dir, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", args, r.code, r.stderr, exitUsage, want)
		}
	}
}

// The secured example loads with its tokens from the environment, prints
// none of them, and refuses to start without them.
func TestExampleSecured(t *testing.T) {
	cfg := filepath.Join(testpeers.Root(t), "examples", "gateway", "secured.json")
	agent, operator := "3f9c2a7d1e8b4f60a5c9d2e7b1f4a8c3", "8e1b7c4a2f9d3e6b0a5c8f1d7e2b4a9c"
	r := runBin(t, t.TempDir(), []string{"AGENTADAPTER_AGENT_TOKEN=" + agent, "AGENTADAPTER_OPERATOR_TOKEN=" + operator}, "config", "check", cfg)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, agent) || strings.Contains(r.stdout, operator) {
		t.Errorf("a token is printed:\n%s", r.stdout)
	}
	for _, w := range []string{`"subject": "agent"`, `"subject": "operator"`} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("output lacks %s", w)
		}
	}
	r = runBin(t, t.TempDir(), nil, "config", "check", cfg)
	if r.code != exitUsage || !strings.Contains(r.stderr, "undefined variable ${AGENTADAPTER_AGENT_TOKEN}") {
		t.Errorf("without the tokens: exit %d %q", r.code, r.stderr)
	}
}

// config check prints none of the 28 secrets planted in the config
// package's testdata/planted.json (it printed 9: flag values, URL-valued
// env, a DSN password, a signature query parameter).
func TestConfigCheckPlanted(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("internal", "config", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	r := runBin(t, dir, []string{"AGENTADAPTER_INPUT_DB_PASS=pl18q7Vb3Nw9Xc5Lm2Kp8Rt4Hy6Jd1Fg0"}, "config", "check", "planted.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for i := 1; i <= 28; i++ {
		if strings.Contains(r.stdout+r.stderr, fmt.Sprintf("pl%02dq7Vb3N", i)) {
			t.Errorf("planted secret %d is printed", i)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", r.stdout)
	}
}

// serve says which configuration file it runs: named with --config, and
// found in the working directory (with the notice).
func TestServeNamesConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "gateway.json", `{"agentadapter": {"store": "memory:"}}`)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	if want := "config=" + filepath.Join(dir, "gateway.json"); !strings.Contains(s.out.String(), want) {
		t.Errorf("the serving line lacks %s:\n%s", want, s.out.String())
	}
	s.stop(t)
	writeFile(t, dir, ".mcp.json", `{"agentadapter": {"store": "memory:"}}`)
	s = startServe(t, dir, nil)
	for _, want := range []string{"agentadapter: using .mcp.json found in the working directory", "config=" + filepath.Join(dir, ".mcp.json")} {
		if !strings.Contains(s.out.String(), want) {
			t.Errorf("serve's output lacks %s:\n%s", want, s.out.String())
		}
	}
	s.stop(t)
}

// #24.11's configuration items, each refused by config check (exit 2) with
// a line naming the key; the release before accepted every one (exit 0),
// and quoted the first word of a non-JSON include.
func TestConfigCheckRefuses(t *testing.T) {
	const tok = "3f9c2a7d1e8b4f60a5c9d2e7b1f4a8c3"
	for _, tt := range []struct {
		name, config, file, content string
		mode                        os.FileMode
		want                        string
	}{
		{"operator token in tokensFile", `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}, "console": {"operators": [{"subject": "op", "token": "` + tok + `"}]}}}`,
			"tokens.txt", "agent " + tok + "\n", 0o600, `agentadapter.console.operators: operator "op" has a client's token: a client could approve its own calls`},
		{"JWT bound to nothing", `{"agentadapter": {"auth": {"jwt": {"secret": "` + tok + `"}}}}`, "", "", 0, "agentadapter.auth.jwt: jwt sets neither audience nor issuer"},
		{"world-writable tokensFile", `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}}}`, "tokens.txt", "agent " + tok + "\n", 0o666, "tokens.txt is writable by others (mode 0666)"},
		{"include of a secrets file", `{"agentadapter": {"include": "secrets.env"}}`, "secrets.env", "hunter2-s3cret\n", 0o600, "secrets.env:1: not valid JSON: a bare word at column 1"},
		{"one-character token", `{"agentadapter": {"console": {"operators": [{"subject": "op", "token": "x"}]}}}`, "", "", 0, "operator 0 (subject \"op\"): too short: 1 characters, want at least 32"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "gateway.json", tt.config)
			if tt.file != "" {
				p := writeFile(t, dir, tt.file, tt.content)
				if err := os.Chmod(p, tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			r := runBin(t, dir, nil, "config", "check", "gateway.json")
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want %d and one line with %q", r.code, r.stderr, exitUsage, tt.want)
			}
			for _, s := range []string{tok, "hunter2"} {
				if strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("the output quotes a secret: %s%s", r.stdout, r.stderr)
				}
			}
		})
	}
}

// config check's output is safe on a terminal: a C1 control or a bidi
// override in a value (a repository's .mcp.json may hold one) is printed
// as a JSON escape, and the output still decodes to the same value.
func TestConfigCheckTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "mcp.json", `{"mcpServers": {"a": {"command": "sh", "args": ["\u202eevil\u009b[2J", "plain"]}}}`)
	r := runBin(t, dir, nil, "config", "check", "mcp.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stdout, "\u202e\u009b\x1b") {
		t.Errorf("raw control or bidi rune in the output:\n%q", r.stdout)
	}
	var out struct {
		Servers []struct{ Args []string } `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Servers) != 1 || len(out.Servers[0].Args) != 2 || out.Servers[0].Args[0] != "\u202eevil\u009b[2J" {
		t.Errorf("the output does not decode to the value: %v %+v", err, out)
	}
}

// A remote server's URL with a key in its query (or a password) is
// masked in serve's log: its connect error quotes the URL (it printed the
// key on every retry). So is the error call prints.
func TestServeLogMasked(t *testing.T) {
	dir := t.TempDir()
	const key = "planted-query-key-5f2c9a1e7b3d"
	writeFile(t, dir, "gateway.json", `{"mcpServers": {"r": {"url": "http://127.0.0.1:1/mcp?api_key=`+key+`&region=eu"},
    "p": {"url": "http://user:`+key+`@127.0.0.1:1/mcp"}},
  "agentadapter": {"store": "memory:"}}`)
	s := startServe(t, dir, nil, "--config", "gateway.json")
	waitFor(t, s, "a failed connect in the log", func() bool { return strings.Count(s.out.String(), "failed to connect") >= 2 })
	if strings.Contains(s.out.String(), key) {
		t.Errorf("serve's log prints the key:\n%s", s.out.String())
	}
	if !strings.Contains(s.out.String(), "api_key=xxxxx") {
		t.Errorf("the log does not show the masked URL:\n%s", s.out.String())
	}
	s.stop(t)
	r := runBin(t, dir, nil, "--config", "gateway.json", "call", "r_anything", "{}")
	if r.code == 0 || strings.Contains(r.stdout+r.stderr, key) {
		t.Errorf("call: exit %d, prints the key:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
