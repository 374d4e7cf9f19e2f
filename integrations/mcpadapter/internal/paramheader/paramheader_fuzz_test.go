package paramheader

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParamHeaderValue: whatever argument a caller passes, the header
// value is printable ASCII without surrounding blanks (never a CR, LF or
// NUL that could split or smuggle a header), and a string comes back out
// of its Base64 form unchanged.
func FuzzParamHeaderValue(f *testing.F) {
	for _, s := range []string{`"us-west1"`, `" padded "`, `"line1\r\nline2"`, `"Hello, 世界"`, `"=?base64?eA==?="`, `42`, `3.5`, `1e300`,
		`-9007199254740991`, `9007199254740993`, `true`, `null`, `{"a":1}`, `[1]`, `"\u0000"`, `"\t"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, ok := value(json.RawMessage(raw))
		if !ok {
			return
		}
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				t.Fatalf("header value %q has byte %#x", v, v[i])
			}
		}
		if v != "" && (v[0] == ' ' || v[len(v)-1] == ' ') {
			t.Fatalf("header value %q has surrounding blanks", v)
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return
		}
		got := v
		if enc, ok := strings.CutPrefix(v, "=?base64?"); ok && strings.HasSuffix(enc, "?=") {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
			if err != nil {
				t.Fatalf("bad Base64 in %q: %v", v, err)
			}
			got = string(b)
		}
		if got != s {
			t.Fatalf("string %q went out as %q", s, v)
		}
	})
}
