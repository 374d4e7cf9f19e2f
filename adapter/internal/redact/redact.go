// Package redact masks secrets in tool arguments: the executor applies it
// to what it hands its ledger, and adapter/ledger exports it as
// ledger.RedactKeys, ledger.DefaultSecretKeys and ledger.Redacted.
package redact

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

// defaultSecretKeys are the names [DefaultKeys] returns.
var defaultSecretKeys = [...]string{
	"password", "passwd", "pwd", "passphrase", "secret", "token", "bearer",
	"authorization", "apikey", "accesskey", "privatekey", "sessionid",
	"cookie", "credential", "signature",
}

// DefaultKeys returns a copy of the names whose values are masked by
// default (ledger.DefaultSecretKeys documents the matching).
func DefaultKeys() []string { return append([]string(nil), defaultSecretKeys[:]...) }

// Defaults is the default key list itself, for the executor (read only).
func Defaults() []string { return defaultSecretKeys[:] }

// Redacted replaces masked values.
const Redacted = "[REDACTED]"

// Keys returns the redaction function of ledger.RedactKeys.
func Keys(keys ...string) func(tool string, args json.RawMessage) json.RawMessage {
	r := New(keys)
	return func(_ string, args json.RawMessage) json.RawMessage {
		out, _ := r.Redact(args)
		return out
	}
}

// A Redactor masks secrets (see ledger.RedactKeys).
type Redactor struct {
	keys  []string // normalised
	first [256]bool
}

// New returns a Redactor masking keys (normalised as ledger.DefaultSecretKeys
// describes).
func New(keys []string) *Redactor {
	r := &Redactor{}
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

func (r *Redactor) secret(key string) bool {
	n := normKey(key)
	for _, k := range r.keys {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

// Redact returns args with secrets masked, and the strings it masked (so
// that a message quoting one can be scrubbed too).
func (r *Redactor) Redact(args json.RawMessage) (json.RawMessage, []string) {
	if !json.Valid(args) {
		return Unparsable(args), nil
	}
	return r.RedactValid(args)
}

// RedactValid is Redact for arguments known to be valid JSON, as the
// executor's records hold (validated arguments, or the unparsable form).
func (r *Redactor) RedactValid(args json.RawMessage) (json.RawMessage, []string) {
	if !r.mayHaveSecret(args) {
		return args, nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return Unparsable(args), nil
	}
	var masked []string
	v = r.walk(v, &masked)
	b, err := json.Marshal(v)
	if err != nil {
		return Unparsable(args), masked
	}
	return b, masked
}

// Unparsable stands in for arguments that are not JSON: their size and
// hash identify them without repeating a secret they may hold.
func Unparsable(args []byte) json.RawMessage {
	sum := sha256.Sum256(args)
	return json.RawMessage(fmt.Sprintf(`{"unparsable":{"bytes":%d,"sha256":"%s"}}`, len(args), hex.EncodeToString(sum[:])))
}

// mayHaveSecret reports, without allocating, whether args might hold
// something to mask: a backslash (an escape may spell a key), an '@' (a
// URL's user information), or a key's letters in order, case folded,
// separators skipped. Most arguments hold none and pass through untouched.
func (r *Redactor) mayHaveSecret(args []byte) bool {
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

func (r *Redactor) walk(v any, masked *[]string) any {
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

// Scrub masks in msg every occurrence of the masked strings, as written or
// quoted (Go and JSON quoting differ only in escapes).
func Scrub(msg string, masked []string) string {
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
