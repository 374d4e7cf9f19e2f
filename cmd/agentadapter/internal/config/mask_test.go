package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secret returns the i-th planted secret: long enough for a token, and
// unlike anything else in the output.
func secret(i int) string { return fmt.Sprintf("pl%02dq7Vb3Nw9Xc5Lm2Kp8Rt4Hy6Jd1Fg0", i) }

// Every secret a configuration can hold is masked in what config check
// prints, by name or by structure: the 19 the name rules caught before and
// the 9 only structure finds (flag values, URL-valued env, DSN passwords,
// signature query parameters).
func TestMaskedPlanted(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.env", "NOTES_SECRET="+secret(17)+"\n", 0o600)
	write("gateway.json", fmt.Sprintf(`{
  "inputs": [{"type": "promptString", "id": "db-pass", "password": true}],
  "mcpServers": {
    "byname": {"command": "x", "envFile": "notes.env", "env": {
      "API_KEY": %[1]q, "GITHUB_TOKEN": %[2]q, "DB_PASSWORD": %[3]q,
      "AWS_SECRET_ACCESS_KEY": %[4]q, "SESSION_ID": %[5]q, "MY_PASSWORD": "${input:db-pass}"}},
    "remote": {"type": "http", "url": "https://u:%[8]s@mcp.example.com/mcp?api_key=%[9]s&access_token=%[10]s",
      "headers": {"Authorization": "Bearer %[6]s", "X-Api-Key": %[7]q, "Cookie": "session=%[19]s"}},
    "bystructure": {"command": "x", "args": [
      "postgres://app:%[11]s@db/app", "--api-key", %[20]q, "--token=%[21]s", "-password", %[22]q,
      "--blob=https://acct.blob.core.windows.net/c/b?sv=2024&sig=%[27]s"],
      "env": {"DATABASE_URL": "postgres://app:%[23]s@db:5432/app", "REDIS_URL": "redis://:%[24]s@cache:6379/0",
        "SENTRY_DSN": "https://%[25]s@o1.ingest.sentry.io/1", "DSN": "app:%[26]s@tcp(db:3306)/app"}}
  },
  "agentadapter": {
    "store": "postgres:host=db user=app password=%[28]s dbname=gw",
    "auth": {"tokens": [{"subject": "alice", "token": %[12]q}],
      "jwt": {"secret": %[14]q, "audience": "gateway"}},
    "console": {"operators": [{"subject": "op", "token": %[13]q}]},
    "servers": {"remote": {"oauth": {"clientId": "gw", "clientSecret": %[15]q, "tokens": "tokens.json",
      "clientCredentials": {"clientId": "svc", "clientSecret": %[16]q}}}}
  }
}`, secret(1), secret(2), secret(3), secret(4), secret(5), secret(6), secret(7), secret(8), secret(9), secret(10),
		secret(11), secret(12), secret(13), secret(14), secret(15), secret(16), secret(17), secret(18), secret(19), secret(20),
		secret(21), secret(22), secret(23), secret(24), secret(25), secret(26), secret(27), secret(28)), 0o600)
	cfg, err := Load(filepath.Join(dir, "gateway.json"), &Options{LookupEnv: func(k string) (string, bool) {
		if k == InputEnv("db-pass") {
			return secret(18), true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := cfg.Masked()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 28; i++ {
		if strings.Contains(string(out), secret(i)[:12]) {
			t.Errorf("secret %d is printed", i)
		}
	}
	// Masking keeps what is not secret readable.
	for _, w := range []string{`"--api-key",`, `"--token=xxxxx"`, `"postgres://app:xxxxx@db:5432/app"`, `"redis://:xxxxx@cache:6379/0"`,
		`sig=xxxxx`, `sv=2024`, `password=xxxxx dbname=gw`, `"X-Api-Key": "[REDACTED]"`, `"clientId": "gw"`} {
		if !strings.Contains(string(out), w) {
			t.Errorf("output lacks %s", w)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// Each structural rule on its own, the text around the secret kept.
func TestMaskText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://user:pw@h/x", "https://user:xxxxx@h/x"},
		{"https://ghp_abcdef@github.com/o/r.git", "https://xxxxx@github.com/o/r.git"},
		{"https://h/x?X-Amz-Signature=abc&X-Amz-Credential=AK%2F1&x=1", "https://h/x?X-Amz-Credential=xxxxx&X-Amz-Signature=xxxxx&x=1"},
		{"https://h/x?page=2", "https://h/x?page=2"},
		{"host=db password='p w' sslmode=require", "host=db password=xxxxx sslmode=require"},
		{"Server=db;Pwd=s3;Database=x", "Server=db;Pwd=xxxxx;Database=x"},
		{"app:s3cret@tcp(db)/x", "app:xxxxx@tcp(db)/x"},
		{"API_TOKEN=abc", "API_TOKEN=xxxxx"},
		{"Authorization: Bearer abcdefghijkl", "Authorization: xxxxx"},
		{"-H=Bearer abcdefghijkl", "-H=Bearer xxxxx"},
		{"connect to https://a:b@h and go", "connect to https://a:xxxxx@h and go"},
		{"/usr/bin/notes", "/usr/bin/notes"},
		{"--db=/tmp/notes.db", "--db=/tmp/notes.db"},
		{"12:30", "12:30"},
	} {
		if got := MaskText(tt.in); got != tt.want {
			t.Errorf("MaskText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	args := []string{"--api-key", "k1", "--token=k2", "-password", "k3", "-p", "8080", "--verbose", "--secret", "-x"}
	want := []string{"--api-key", "xxxxx", "--token=xxxxx", "-password", "xxxxx", "-p", "8080", "--verbose", "--secret", "-x"}
	if got := MaskArgs(args); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("MaskArgs(%q)\n = %q\nwant %q", args, got, want)
	}
}
