package adapter

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The executor masks secrets in the arguments it hands its ledger (see
// ExecutorOptions.Redact and SecretKeys); a ledger stores what it is given.

// defaultSecretKeys are the names [DefaultSecretKeys] returns.
var defaultSecretKeys = [...]string{
	"password", "passwd", "pwd", "passphrase", "secret", "token", "bearer",
	"authorization", "apikey", "accesskey", "privatekey", "sessionid",
	"cookie", "credential", "signature",
}

// DefaultSecretKeys returns the names whose values the ledger masks by
// default: a key matches when its normalised form (lower case, without
// '-', '_', '.' and spaces) contains one of them, so "X-Api-Key",
// "private_key", "PrivateKey" and "client.secret" all match. The slice is
// a copy: the defaults cannot be changed from outside.
func DefaultSecretKeys() []string { return append([]string(nil), defaultSecretKeys[:]...) }

// Redacted replaces masked values.
const Redacted = "[REDACTED]"

// RedactKeys returns a redaction function for ExecutorOptions.Redact that
// masks, at any depth of the decoded arguments (escapes resolved):
//   - the value of every object key whose normalised name contains one of
//     keys (normalised the same way, see [DefaultSecretKeys]);
//   - the "value" of a name/value pair whose name is such a key, as in
//     {"name":"Authorization","value":"Bearer …"};
//   - the user information of URLs in strings (https://user:pass@host).
//
// Arguments that do not parse are replaced by their size and SHA-256:
// {"unparsable":{"bytes":N,"sha256":"…"}}, never their text.
func RedactKeys(keys ...string) func(tool string, args json.RawMessage) json.RawMessage {
	r := newRedactor(keys)
	return func(_ string, args json.RawMessage) json.RawMessage {
		out, _ := r.redact(args)
		return out
	}
}

// redactor masks secrets (see RedactKeys).
type redactor struct {
	keys  []string // normalised
	first [256]bool
}

func newRedactor(keys []string) *redactor {
	r := &redactor{}
	for _, k := range keys {
		if n := normKey(k); n != "" {
			r.keys = append(r.keys, n)
			r.first[n[0]] = true
		}
	}
	return r
}

// normKey lower-cases s and drops separators.
func normKey(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c == '-' || c == '_' || c == '.' || c == ' ' {
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (r *redactor) secret(key string) bool {
	n := normKey(key)
	for _, k := range r.keys {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

// redact returns args with secrets masked, and the strings it masked (so
// that a message quoting one can be scrubbed too).
func (r *redactor) redact(args json.RawMessage) (json.RawMessage, []string) {
	if !json.Valid(args) {
		return unparsable(args), nil
	}
	return r.redactValid(args)
}

// redactValid is redact for arguments known to be valid JSON, as the
// executor's records hold (validated arguments, or the unparsable form).
func (r *redactor) redactValid(args json.RawMessage) (json.RawMessage, []string) {
	if !r.mayHaveSecret(args) {
		return args, nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return unparsable(args), nil
	}
	var masked []string
	v = r.walk(v, &masked)
	b, err := json.Marshal(v)
	if err != nil {
		return unparsable(args), masked
	}
	return b, masked
}

// unparsable stands in for arguments that are not JSON: their size and
// hash identify them without repeating a secret they may hold.
func unparsable(args []byte) json.RawMessage {
	sum := sha256.Sum256(args)
	return json.RawMessage(fmt.Sprintf(`{"unparsable":{"bytes":%d,"sha256":"%s"}}`, len(args), hex.EncodeToString(sum[:])))
}

// mayHaveSecret reports, without allocating, whether args might hold
// something to mask: a backslash (an escape may spell a key), an '@' (a
// URL's user information), or a key's letters in order, case folded,
// separators skipped. Most arguments hold none and pass through untouched.
func (r *redactor) mayHaveSecret(args []byte) bool {
	for i := 0; i < len(args); i++ {
		c := args[i]
		if c == '\\' || c == '@' {
			return true
		}
		c = lowerByte(c)
		if !r.first[c] {
			continue
		}
		for _, k := range r.keys {
			if k[0] == c && matchFolded(args[i:], k) {
				return true
			}
		}
	}
	return false
}

// matchFolded reports whether b starts with k (normalised), reading b case
// folded and skipping separators after its first byte.
func matchFolded(b []byte, k string) bool {
	j := 0
	for i := 0; i < len(b) && j < len(k); i++ {
		c := lowerByte(b[i])
		if i > 0 && (c == '-' || c == '_' || c == '.' || c == ' ') {
			continue
		}
		if c != k[j] {
			return false
		}
		j++
	}
	return j == len(k)
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// pairNames are the keys naming the other member of a name/value pair.
var pairNames = [...]string{"name", "key", "header", "field"}

func (r *redactor) walk(v any, masked *[]string) any {
	switch v := v.(type) {
	case map[string]any:
		pair := false
		for _, n := range pairNames {
			if s, ok := v[n].(string); ok && r.secret(s) {
				pair = true
			}
		}
		for k, sub := range v {
			if r.secret(k) || (pair && strings.EqualFold(k, "value")) {
				collect(sub, masked)
				v[k] = Redacted
				continue
			}
			v[k] = r.walk(sub, masked)
		}
		return v
	case []any:
		for i := range v {
			v[i] = r.walk(v[i], masked)
		}
		return v
	case string:
		return maskUserinfo(v, masked)
	}
	return v
}

// collect appends the strings and numbers of a masked value to masked.
func collect(v any, masked *[]string) {
	switch v := v.(type) {
	case string:
		if v != "" {
			*masked = append(*masked, v)
		}
	case json.Number:
		*masked = append(*masked, v.String())
	case map[string]any:
		for _, sub := range v {
			collect(sub, masked)
		}
	case []any:
		for _, sub := range v {
			collect(sub, masked)
		}
	}
}

// maskUserinfo masks the user information of every URL in s:
// "https://u:p@host/x" becomes "https://[REDACTED]@host/x".
func maskUserinfo(s string, masked *[]string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			break
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/?# \t\n\"'<>")
		if end < 0 {
			end = len(s)
		}
		at := strings.LastIndexByte(s[:end], '@')
		if at <= 0 {
			continue
		}
		*masked = append(*masked, s[:at])
		if u, err := url.PathUnescape(s[:at]); err == nil && u != s[:at] {
			*masked = append(*masked, u)
		}
		b.WriteString(Redacted)
		s = s[at:]
	}
	b.WriteString(s)
	return b.String()
}

// scrub masks in msg every occurrence of the masked strings, as written or
// quoted (Go and JSON quoting differ only in escapes).
func scrub(msg string, masked []string) string {
	for _, m := range masked {
		if len(m) < 3 { // too short to mask without masking everything
			continue
		}
		msg = strings.ReplaceAll(msg, m, Redacted)
		if q := strconv.Quote(m); q[1:len(q)-1] != m {
			msg = strings.ReplaceAll(msg, q[1:len(q)-1], Redacted)
		}
		if j, err := json.Marshal(m); err == nil && string(j[1:len(j)-1]) != m {
			msg = strings.ReplaceAll(msg, string(j[1:len(j)-1]), Redacted)
		}
	}
	return msg
}
