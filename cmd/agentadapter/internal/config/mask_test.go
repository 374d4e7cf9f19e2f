package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// secret returns the i-th planted secret: long enough for a token, and
// unlike anything else in the output.
func secret(i int) string { return fmt.Sprintf("pl%02dq7Vb3Nw9Xc5Lm2Kp8Rt4Hy6Jd1Fg0", i) }

// Every secret a configuration can hold is masked in what config check
// prints, by name or by structure: testdata/planted.json plants 28, the 19
// the name rules caught before and the 9 only structure finds (flag
// values, URL-valued env, DSN passwords, signature query parameters).
func TestMaskedPlanted(t *testing.T) {
	cfg, err := Load(filepath.Join("testdata", "planted.json"), &Options{LookupEnv: func(k string) (string, bool) {
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
	checkPlanted(t, string(out))
}

// checkPlanted fails for each planted secret in out.
func checkPlanted(t *testing.T, out string) {
	t.Helper()
	for i := 1; i <= 28; i++ {
		if strings.Contains(out, secret(i)[:12]) {
			t.Errorf("planted secret %d is printed", i)
		}
	}
	// Masking keeps what is not secret readable.
	for _, w := range []string{`"--api-key",`, `"--token=xxxxx"`, `"postgres://app:xxxxx@db:5432/app"`, `"redis://:xxxxx@cache:6379/0"`,
		`sig=xxxxx`, `sv=2024`, `password=xxxxx dbname=gw`, `"X-Api-Key": "[REDACTED]"`, `"clientId": "gw"`} {
		if !strings.Contains(out, w) {
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
		{"auth: no tokens configured", "auth: no tokens configured"},
		{"API_TOKEN=abc and more", "API_TOKEN=xxxxx and more"},
		{"X-Api-Key: abc", "X-Api-Key: abc"}, // a header-like pair only in values and arguments
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
	args := []string{"--api-key", "k1", "--token=k2", "-password", "k3", "-p", "8080", "--verbose", "-e", "API_TOKEN=k4", "-H", "X-Api-Key: k5", "--secret", "-x"}
	want := []string{"--api-key", "xxxxx", "--token=xxxxx", "-password", "xxxxx", "-p", "8080", "--verbose", "-e", "API_TOKEN=xxxxx", "-H", "X-Api-Key: xxxxx", "--secret", "-x"}
	if got := MaskArgs(args); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("MaskArgs(%q)\n = %q\nwant %q", args, got, want)
	}
}

// FuzzMaskArgs: whatever the arguments, MaskArgs keeps their number, and
// the value after a secret-named flag, of --token=, and in a URL's
// password is masked.
func FuzzMaskArgs(f *testing.F) {
	for _, seed := range [][2]string{{"--token", "abc"}, {"--api-key", "k=v"}, {"-password", "p@ss:word"}, {"--db", "/tmp/x"}, {"--x", "y"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, flag, value string) {
		args := []string{"cmd", flag, value, "--token=" + value, "https://u:" + url.PathEscape(value) + "@h/"}
		out := MaskArgs(args)
		if len(out) != len(args) {
			t.Fatalf("MaskArgs(%q) = %q: %d arguments, want %d", args, out, len(out), len(args))
		}
		if value == "" || strings.HasPrefix(value, "-") {
			return
		}
		if name, ok := flagName(flag); ok && !strings.Contains(flag, "=") && len(name) > 1 && isSecretName(name) && out[2] != mask {
			t.Errorf("MaskArgs(%q)[2] = %q, want %s", args, out[2], mask)
		}
		if out[3] != "--token="+mask {
			t.Errorf("MaskArgs(%q)[3] = %q, want --token=%s", args, out[3], mask)
		}
		if out[4] != "https://u:"+mask+"@h/" && out[4] != "https://"+mask {
			t.Errorf("MaskArgs(%q)[4] = %q, want the password masked", args, out[4])
		}
	})
}
