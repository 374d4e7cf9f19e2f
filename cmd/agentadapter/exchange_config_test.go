package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigPerCaller: oauth.perCaller and oauth.tokenExchange are checked
// by config check, each bad combination one line at its JSON path; a good
// one prints with the exchange's secret masked.
func TestConfigPerCaller(t *testing.T) {
	const up = `{"mcpServers": {"up": {"type": "http", "url": "https://up.example/mcp"}},
  "agentadapter": {`
	const jwtAuth = `"auth": {"jwt": {"secret": "0123456789abcdef0123456789abcdef-jwt", "audience": "gw"}}, `
	const tokAuth = `"auth": {"tokens": [{"subject": "alice", "token": "alice-token-0123456789abcdefghijklmnop"}]}, `
	for _, tt := range []struct{ name, config, want string }{
		{"perCaller without inbound auth", up + `"servers": {"up": {
  "oauth": {"perCaller": true}}}}}`, `bad.json:3: agentadapter.servers.up.oauth.perCaller: perCaller needs agentadapter.auth`},
		{"perCaller with clientCredentials alone", up + tokAuth + `"servers": {"up": {
  "oauth": {"perCaller": true, "clientCredentials": {"clientId": "a", "clientSecret": "b"}}}}}}`, `agentadapter.servers.up.oauth.perCaller: perCaller is for users' own tokens`},
		{"tokenExchange without perCaller", up + jwtAuth + `"servers": {"up": {
  "oauth": {"tokenExchange": {}}}}}}`, `bad.json:3: agentadapter.servers.up.oauth.tokenExchange: tokenExchange needs perCaller: true`},
		{"tokenExchange without auth.jwt", up + tokAuth + `"servers": {"up": {
  "oauth": {"perCaller": true, "tokenExchange": {}}}}}}`, `agentadapter.servers.up.oauth.tokenExchange: tokenExchange needs agentadapter.auth.jwt`},
		{"tokenExchange secret without id", up + jwtAuth + `"servers": {"up": {"oauth": {"perCaller": true, "tokenExchange": {
  "clientSecret": "s3cret-exchange"}}}}}}`, `bad.json:3: agentadapter.servers.up.oauth.tokenExchange.clientSecret: a clientSecret needs a clientId`},
		{"tokenExchange bad auth method", up + jwtAuth + `"servers": {"up": {"oauth": {"perCaller": true, "tokenExchange": {
  "authMethod": "private_key_jwt"}}}}}}`, `agentadapter.servers.up.oauth.tokenExchange.authMethod: authMethod "private_key_jwt"`},
		{"tokenExchange bad subject type", up + jwtAuth + `"servers": {"up": {"oauth": {"perCaller": true, "tokenExchange": {
  "subjectTokenType": "saml2"}}}}}}`, `agentadapter.servers.up.oauth.tokenExchange.subjectTokenType: subjectTokenType "saml2"`},
		{"tokenExchange bad token URL", up + jwtAuth + `"servers": {"up": {"oauth": {"perCaller": true, "tokenExchange": {
  "tokenUrl": "ftp://as.example/token"}}}}}}`, `agentadapter.servers.up.oauth.tokenExchange.tokenUrl: bad url`},
		{"tokenExchange unknown key", up + jwtAuth + `"servers": {"up": {"oauth": {"perCaller": true, "tokenExchange": {
  "clientSecrte": "x"}}}}}}`, `unknown key "clientSecrte"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "bad.json", tt.config)
			r := runBin(t, dir, []string{"XDG_STATE_HOME=" + dir + "/state"}, "config", "check", "bad.json")
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if r.code != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and one line with %q", r.code, r.stderr, exitUsage, tt.want)
			}
			if strings.Contains(r.stderr, "s3cret") {
				t.Errorf("the error carries the secret: %s", r.stderr)
			}
		})
	}

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "state"), 0o700)
	writeFile(t, dir, "gateway.json", up+jwtAuth+`"servers": {"up": {"oauth": {"perCaller": true, "issuer": "https://as.example",
  "clientCredentials": {"clientId": "gw", "clientSecret": "${GW_SECRET}"},
  "tokenExchange": {"clientId": "gw", "clientSecret": "${GW_SECRET}", "tokenUrl": "https://as.example/token?api_key=s3cret-in-url", "audience": "up", "skew": "10s"}}}}}}`)
	r := runBin(t, dir, []string{"GW_SECRET=gw-s3cret", "XDG_STATE_HOME=" + dir + "/state"}, "config", "check", "gateway.json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "s3cret") {
		t.Errorf("a secret leaked:\n%s", r.stdout)
	}
	for _, w := range []string{`"perCaller": true`, `"tokenExchange": {`, `"audience": "up"`, `"clientId": "gw"`} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("output lacks %s:\n%s", w, r.stdout)
		}
	}
}
