package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// strong is a token config check accepts.
const strong = "3f9c2a7d1e8b4f60a5c9d2e7b1f4a8c3"

// load writes files into a fresh directory and loads gateway.json.
func load(t *testing.T, files map[string]string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(content, "DIR", dir)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Load(filepath.Join(dir, "gateway.json"), nil)
}

// Tokens that decide who calls and who approves are refused when weak, or
// when an operator's is also a client's; the error names the path and
// never the token.
func TestCheckTokens(t *testing.T) {
	for _, tt := range []struct {
		name   string
		files  map[string]string
		want   string // in the error; "" for none
		secret string // never in the error
	}{
		{"one-character client token", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokens": [{"subject": "a", "token": "x"}]}}}`},
			`agentadapter.auth.tokens: token 0 (subject "a"): too short: 1 characters, want at least 32`, ""},
		{"31 characters", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokens": [{"subject": "a", "token": "` + strong[:31] + `"}]}}}`},
			"too short: 31 characters", strong[:31]},
		{"32 characters", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokens": [{"subject": "a", "token": "` + strong + `"}]}}}`}, "", ""},
		{"repetitive", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokens": [{"subject": "a", "token": "` + strings.Repeat("ab", 20) + `"}]}}}`},
			"too repetitive", strings.Repeat("ab", 20)},
		{"one-character operator token", map[string]string{"gateway.json": `{"agentadapter": {"console": {"operators": [{"subject": "op", "token": "y"}]}}}`},
			`agentadapter.console.operators: operator 0 (subject "op"): too short`, ""},
		{"short JWT secret", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"jwt": {"secret": "hunter2", "audience": "gw"}}}}`},
			"agentadapter.auth.jwt.secret: secret: too short", "hunter2"},
		{"weak token in tokensFile", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}}}`,
			"tokens.txt": "# subject token\nbob " + strong + "\ncarol c4rol\n"},
			`tokens.txt:3: token of "carol": too short`, "c4rol"},
		{"operator token in tokensFile", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"},
  "console": {"operators": [{"subject": "op", "token": "` + strong + `"}]}}}`, "tokens.txt": "bob " + strong + " read\n"},
			`operator "op" has a client's token: a client could approve its own calls`, strong},
		{"operator token in tokens", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokens": [{"subject": "a", "token": "` + strong + `"}]},
  "console": {"operators": [{"subject": "op", "token": "` + strong + `"}]}}}`},
			`operator "op" has a client's token`, strong},
		{"missing tokensFile", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokensFile": "nope.txt"}}}`},
			"agentadapter.auth.tokensFile: DIR/nope.txt: no such file", ""},
		{"one token, two clients", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokens": [{"subject": "a", "token": "` + strong + `"}], "tokensFile": "tokens.txt"}}}`,
			"tokens.txt": "b " + strong + "\n"}, `the token of "b" is also "a"'s: one token names one caller`, strong},
		{"one token, two operators", map[string]string{"gateway.json": `{"agentadapter": {"console": {"operators": [{"subject": "o1", "token": "` + strong + `"}, {"subject": "o2", "token": "` + strong + `"}]}}}`},
			`operator 1 (subject "o2") has "o1"'s token`, strong},
		{"JWT with neither audience nor issuer", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"jwt": {"secret": "` + strong + `"}}}}`},
			"agentadapter.auth.jwt: jwt sets neither audience nor issuer", strong},
		{"anonymous subject", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokens": [{"subject": "anonymous:abc", "token": "` + strong + `"}]}}}`},
			`agentadapter.auth.tokens: token 0: subjects starting "anonymous:" name anonymous sessions`, strong},
		{"anonymous subject in tokensFile", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}}}`,
			"tokens.txt": "anonymous:x " + strong + "\n"}, `subjects starting "anonymous:" name anonymous sessions`, strong},
		{"JWT with anyAudience", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"jwt": {"secret": "` + strong + `", "anyAudience": true}}}}`}, "", ""},
		{"JWT with an issuer", map[string]string{"gateway.json": `{"agentadapter": {"auth": {"jwt": {"secret": "` + strong + `", "issuer": "https://idp"}}}}`}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.files)
			checkErr(t, err, tt.want, tt.secret)
		})
	}
}

func checkErr(t *testing.T, err error, want, secret string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want a *config.Error containing %q", err, err, want)
	}
	msg := err.Error()
	if _, tail, ok := strings.Cut(want, "DIR"); ok {
		want = tail // the test's directory
	}
	if !strings.Contains(msg, want) {
		t.Errorf("error\n  %s\nwant it to contain\n  %s", msg, want)
	}
	if secret != "" && strings.Contains(msg, secret) {
		t.Errorf("the error quotes the secret: %s", msg)
	}
}

// A file holding tokens or the key that verifies them, or where OAuth
// tokens are kept, is refused when another user could write it.
func TestCheckPrivateFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes say nothing of who may write on Windows")
	}
	for _, tt := range []struct {
		name, config, file string
		mode               os.FileMode
		other              bool // owned by another user (needs root)
		want               string
	}{
		{"world-writable tokensFile", `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}}}`, "tokens.txt", 0o666, false, "tokens.txt is writable by others (mode 0666): run chmod go-w"},
		{"group-writable tokensFile", `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}}}`, "tokens.txt", 0o620, false, "writable by others (mode 0620)"},
		{"private tokensFile", `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}}}`, "tokens.txt", 0o600, false, ""},
		{"tokensFile of another user", `{"agentadapter": {"auth": {"tokensFile": "tokens.txt"}}}`, "tokens.txt", 0o600, true, "is owned by user 65534"},
		{"world-writable OAuth token store", `{"mcpServers": {"r": {"url": "https://r.example/mcp"}}, "agentadapter": {"servers": {"r": {"oauth": {"tokens": "tokens.json"}}}}}`,
			"tokens.json", 0o646, false, "agentadapter.servers.r.oauth.tokens: DIR/tokens.json is writable by others"},
		{"world-writable JWT public key", `{"agentadapter": {"auth": {"jwt": {"publicKeyFile": "key.pem", "audience": "gw"}}}}`, "key.pem", 0o666, false, "agentadapter.auth.jwt.publicKeyFile: DIR/key.pem is writable by others"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.other && os.Getuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "gateway.json"), []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, tt.file)
			if err := os.WriteFile(p, []byte("bob "+strong+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tt.mode); err != nil {
				t.Fatal(err)
			}
			if tt.other {
				if err := os.Chown(p, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(filepath.Join(dir, "gateway.json"), nil)
			checkErr(t, err, strings.ReplaceAll(tt.want, "DIR", dir), strong)
		})
	}
}

// An include of a file that is not JSON (a secrets file, say) is refused
// without quoting what the file holds.
func TestIncludeNotJSON(t *testing.T) {
	for _, content := range []string{"hunter2 and more\n", "root:x:0:0:root:/root:/bin/bash\n", `{"a": hunter2}`, "SECRET=hunter2\n"} {
		_, err := load(t, map[string]string{"gateway.json": `{"agentadapter": {"include": "secrets.txt"}}`, "secrets.txt": content})
		checkErr(t, err, "secrets.txt:1: not valid JSON", "")
		for _, w := range []string{"hunter2", "root", "SECRET"} {
			if strings.Contains(err.Error(), w) {
				t.Errorf("the error quotes the file's %q: %v", w, err)
			}
		}
	}
}

// A stdio command that cannot be started is an error naming the server
// and the path; disabled servers and http servers are not looked for.
func TestCheckCommands(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, server, want string }{
		{"on PATH", `{"command": "sh"}`, ""},
		{"absolute", `{"command": "` + exe + `"}`, ""},
		{"relative to cwd", `{"command": "./server", "cwd": "` + filepath.Dir(exe) + `"}`, ""},
		{"not on PATH", `{"command": "agentadapter-no-such-server"}`, `gateway.json:1: command: server "a": command "agentadapter-no-such-server" is not found on PATH`},
		{"missing path", `{"command": "/nonexistent/server"}`, `server "a": command /nonexistent/server does not exist`},
		{"not executable", `{"command": "` + plain + `"}`, `command ` + plain + ` is not executable`},
		{"a directory", `{"command": "` + filepath.Dir(exe) + `/"}`, `is a directory`},
		{"disabled", `{"command": "agentadapter-no-such-server", "disabled": true}`, ""},
		{"http", `{"url": "https://example.com/mcp"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && strings.Contains(tt.name, "executable") {
				t.Skip("no execute bit on Windows")
			}
			cfg, err := load(t, map[string]string{"gateway.json": `{"mcpServers": {"a": ` + tt.server + `}}`})
			if err != nil {
				t.Fatal(err)
			}
			checkErr(t, cfg.CheckCommands(), tt.want, "")
		})
	}
}

func TestAnonymousPrefixIsTheExports(t *testing.T) {
	if anonymousPrefix != export.AnonymousPrefix {
		t.Fatalf("anonymousPrefix %q, export.AnonymousPrefix %q", anonymousPrefix, export.AnonymousPrefix)
	}
}

// alwaysLoaded is for a search virtual server: without search it is an
// error naming its section, as is a bad pattern.
func TestCheckSearch(t *testing.T) {
	for _, tt := range []struct{ name, doc, want string }{
		{"search with alwaysLoaded", `{"agentadapter": {"virtualServers": {"v": {"search": true, "alwaysLoaded": ["echo*"]}}}}`, ""},
		{"search alone", `{"agentadapter": {"virtualServers": {"v": {"search": true}}}}`, ""},
		{"alwaysLoaded without search", `{"agentadapter": {"virtualServers": {"v": {"alwaysLoaded": ["echo"]}}}}`, `agentadapter.virtualServers.v.alwaysLoaded: alwaysLoaded needs "search": true`},
		{"bad pattern", `{"agentadapter": {"virtualServers": {"v": {"search": true, "alwaysLoaded": ["[x"]}}}}`, `agentadapter.virtualServers.v.alwaysLoaded: bad pattern "[x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := load(t, map[string]string{"gateway.json": tt.doc})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Load: %v", err)
			case tt.want == "":
				if v := cfg.Gateway.Virtual["v"]; !v.Search {
					t.Errorf("search not read: %+v", v)
				}
			case err == nil || !strings.Contains(err.Error(), tt.want):
				t.Errorf("Load error %v, want one with %q", err, tt.want)
			}
		})
	}
}
