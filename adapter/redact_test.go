package adapter_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// ledgerOf runs args through a raw tool accepting anything and returns the
// ledger record.
func ledgerOf(t testing.TB, opts *adapter.ExecutorOptions, args string) ledger.Record {
	t.Helper()
	f := false
	spec := adapter.MustRawTool("t", "", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"n": {Type: "integer"}}}, echo,
		&adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &f}})
	e, ml := newExec(t, opts, spec)
	e.Call(context.Background(), "t", json.RawMessage(args))
	recs := records(t, e, ml)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	return recs[0]
}

// TestRedactionHoles is issue 12 item 7: each of these leaked a secret
// into the ledger before.
func TestRedactionHoles(t *testing.T) {
	for _, tt := range []struct{ name, args, secret string }{
		{"escaped key", `{"pass\u0077ord":"hunter2-escaped"}`, "hunter2-escaped"},
		{"escaped key, upper", `{"\u0050ASSWORD":"hunter2-upper"}`, "hunter2-upper"},
		{"privateKey", `{"privateKey":"-----BEGIN KEY-----"}`, "BEGIN KEY"},
		{"passphrase", `{"passphrase":"correct horse"}`, "correct horse"},
		{"pwd", `{"db":{"pwd":"pwd-value-1"}}`, "pwd-value-1"},
		{"access_key", `{"aws":{"access_key":"AKIAEXAMPLE"}}`, "AKIAEXAMPLE"},
		{"sessionid", `{"SessionID":"sess-123456"}`, "sess-123456"},
		{"bearer", `{"bearer":"bearer-xyz"}`, "bearer-xyz"},
		{"cookie", `{"Cookie":"sid=abcdef"}`, "sid=abcdef"},
		{"credentials", `{"credentials":{"user":"u","pass":"credpass1"}}`, "credpass1"},
		{"dotted", `{"client.secret":"dotted-secret"}`, "dotted-secret"},
		{"name/value pair", `{"headers":[{"name":"Authorization","value":"Basic dXNlcjpwYXNz"}]}`, "dXNlcjpwYXNz"},
		{"key/value pair", `{"env":[{"key":"API_KEY","value":"sk-live-123"}]}`, "sk-live-123"},
		{"URL userinfo", `{"url":"https://alice:s3cr3t-pw@db.example.com/x"}`, "s3cr3t-pw"},
		{"URL userinfo in text", `{"note":"connect to postgres://bob:pg-pass-9@h:5432/db now"}`, "pg-pass-9"},
		{"unparsable", `{"password":"unparsed-secret"`, "unparsed-secret"},
		{"unparsable, not even JSON", `password=plain-secret-1`, "plain-secret-1"},
		{"invalid for the schema", `{"n":"x","token":"tok-invalid-1"}`, "tok-invalid-1"},
		{"duplicate keys", `{"token":"dup-secret-1","token":"dup-secret-2"}`, "dup-secret-1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ledgerOf(t, nil, tt.args)
			b, _ := json.Marshal(r)
			if strings.Contains(string(b), tt.secret) {
				t.Errorf("the record holds the secret %q: %s", tt.secret, b)
			}
			if !json.Valid(r.Args) {
				t.Errorf("recorded args are not JSON: %s", r.Args)
			}
		})
	}
	// Unparsable arguments are identified by size and hash.
	r := ledgerOf(t, nil, `{"password":"x"`)
	if !strings.HasPrefix(string(r.Args), `{"unparsable":{"bytes":15,"sha256":"`) {
		t.Errorf("unparsable args recorded as %s", r.Args)
	}
	// What is no secret stays.
	r = ledgerOf(t, nil, `{"n":1,"name":"Alice","value":"visible","url":"https://example.com/@user"}`)
	for _, s := range []string{"Alice", "visible", "https://example.com/@user"} {
		if !strings.Contains(string(r.Args), s) {
			t.Errorf("%q was masked: %s", s, r.Args)
		}
	}
}

// TestRedactionScrubsMessage: a schema violation that quotes a secret
// value does not carry it into the record's message.
func TestRedactionScrubsMessage(t *testing.T) {
	f := false
	spec := adapter.MustRawTool("t", "", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"password": {Type: "string", Enum: []any{"a", "b"}},
	}}, echo, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &f}})
	e, ml := newExec(t, nil, spec)
	_, err := e.Call(context.Background(), "t", json.RawMessage(`{"password":"enum-secret-7"}`))
	if !strings.Contains(asAdapterError(t, err).Message, "enum-secret-7") {
		t.Skipf("the validator does not quote the value: %v", err)
	}
	r := records(t, e, ml)[0]
	if strings.Contains(r.Message, "enum-secret-7") || strings.Contains(string(r.Args), "enum-secret-7") {
		t.Errorf("record leaks the secret: %+v", r)
	}
}

func TestDefaultSecretKeysImmutable(t *testing.T) {
	keys := ledger.DefaultSecretKeys()
	keys[0] = "nothing"
	if ledger.DefaultSecretKeys()[0] == "nothing" || !slices.Contains(ledger.DefaultSecretKeys(), "password") {
		t.Error("DefaultSecretKeys hands out its own slice")
	}
	// SecretKeys replaces the list.
	r := ledgerOf(t, &adapter.ExecutorOptions{SecretKeys: []string{"user"}}, `{"user":"u1","password":"p1"}`)
	if strings.Contains(string(r.Args), "u1") || !strings.Contains(string(r.Args), "p1") {
		t.Errorf("SecretKeys not applied: %s", r.Args)
	}
}

// FuzzRedaction places a secret under a secret key in arguments shaped by
// the fuzzer (escaped, nested, in a pair, in a URL, broken JSON) and checks
// that it never reaches a ledger record, neither in its arguments nor its
// message.
func FuzzRedaction(f *testing.F) {
	for _, s := range []struct {
		tmpl   string
		secret string
	}{
		{`{"password":"$"}`, "hunter22"},
		{`{"pass\u0077ord":"$"}`, "hunter22"},
		{`{"a":[{"name":"X-Api-Key","value":"$"}]}`, "k3y-value"},
		{`{"u":"https://me:$@h/"}`, "pw-in-url"},
		{`{"token":"$"`, "broken-json"},
		{`{"n":"x","secret":"$"}`, "schema-bad"},
		{`{"secret":{"deep":["$"]}}`, "deep-value"},
		{`{"Authorization":"Bearer $","Authorization":"x"}`, "dup-bearer"},
		{`{"password":$}`, "123456789"},
	} {
		f.Add(s.tmpl, s.secret)
	}
	f.Fuzz(func(t *testing.T, tmpl, secret string) {
		// A secret worth the name: long enough not to occur by chance,
		// and made of characters that need no escaping in JSON or a URL.
		if len(secret) < 8 || len(secret) > 64 || strings.ContainsFunc(secret, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
		}) || !strings.Contains(tmpl, "$") || strings.Count(tmpl, "$") > 4 || len(tmpl) > 512 {
			t.Skip()
		}
		if strings.Contains(strings.ReplaceAll(tmpl, "$", ""), secret[:4]) {
			t.Skip() // the template spells part of the secret itself
		}
		args := strings.ReplaceAll(tmpl, "$", secret)
		if !placedAsSecret(args, secret) {
			t.Skip()
		}
		r := ledgerOf(t, nil, args)
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), secret) {
			t.Fatalf("args %s: the record holds the secret %q: %s", args, secret, b)
		}
	})
}

// placedAsSecret reports whether every occurrence of secret in args sits
// where the redaction promises to mask it: in a value under a secret key,
// in the value of a secret name/value pair, in a URL's user information, or
// anywhere in arguments that do not parse. It reads args on its own, with
// encoding/json, and reports false when unsure.
func placedAsSecret(args, secret string) bool {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return true // unparsable arguments are recorded by size and hash
	}
	// Decoded, count the occurrences the redaction must mask, and compare
	// with all occurrences.
	all := strings.Count(mustJSON(v), secret)
	return all > 0 && maskable(v, secret, false) == all
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var secretNames = []string{"password", "passwd", "pwd", "passphrase", "secret", "token", "bearer", "authorization", "apikey", "accesskey", "privatekey", "sessionid", "cookie", "credential", "signature"}

func isSecretName(k string) bool {
	n := strings.NewReplacer("-", "", "_", "", ".", "", " ", "").Replace(strings.ToLower(k))
	for _, s := range secretNames {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// maskable counts the occurrences of secret in v that the redaction masks.
func maskable(v any, secret string, under bool) int {
	switch v := v.(type) {
	case map[string]any:
		pair := false
		for _, n := range []string{"name", "key", "header", "field"} {
			if s, ok := v[n].(string); ok && isSecretName(s) {
				pair = true
			}
		}
		n := 0
		for k, sub := range v {
			if strings.Contains(k, secret) {
				return -1 // a key itself: not promised
			}
			n += maskable(sub, secret, under || isSecretName(k) || (pair && strings.EqualFold(k, "value")))
		}
		return n
	case []any:
		n := 0
		for _, sub := range v {
			n += maskable(sub, secret, under)
		}
		return n
	case string:
		c := strings.Count(v, secret)
		if under {
			return c
		}
		// In a URL's user information: scheme://…secret…@
		if i := strings.Index(v, "://"); i >= 0 && c == 1 {
			rest := v[i+3:]
			at := strings.IndexByte(rest, '@')
			end := strings.IndexAny(rest, "/?# \t\n\"'<>")
			if end < 0 {
				end = len(rest)
			}
			if at > 0 && at < end && strings.Count(rest[:at], secret) == 1 && strings.Count(v, "://") == 1 {
				return 1
			}
		}
		return 0
	case float64:
		if under && mustJSON(v) == secret {
			return 1
		}
	}
	return 0
}
