package canonical_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/agentadapter/agentadapter/adapter/canonical"
)

func TestJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, `{}`},
		{"  \n", `{}`},
		{`{"b":2,"a":1}`, `{"a":1,"b":2}`},
		{`{ "a" : { "d":[1, 2.50, -0], "c":null } }`, `{"a":{"c":null,"d":[1,2.50,-0]}}`},
		{`{"a!":1,"a":2}`, `{"a":2,"a!":1}`},
		{`{"s":"<&>"}`, `{"s":"\u003c\u0026\u003e"}`},
		{`{"s":"\u0077"}`, `{"s":"w"}`},
		{`10.0`, `10.0`},
		{`"x"`, `"x"`},
	} {
		got, err := canonical.JSON([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("JSON(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`{`, `{"a":1}x`, `01`, `1.`, `-`, `nul`} {
		if got, err := canonical.JSON([]byte(bad)); err == nil {
			t.Errorf("JSON(%q) = %q, want an error", bad, got)
		}
	}
}

func TestHash(t *testing.T) {
	h0, err := canonical.Hash([]byte(`{"a":1,"b":[true,"x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(h0) != 64 {
		t.Fatalf("Hash length %d, want 64 hex digits", len(h0))
	}
	if h, _ := canonical.Hash([]byte(` { "b" : [ true , "x" ] , "a" : 1 } `)); h != h0 {
		t.Errorf("white space and key order changed the hash")
	}
	for _, other := range []string{`{"a":1.0,"b":[true,"x"]}`, `{"a":1,"b":["x",true]}`, `{"a":1}`} {
		if h, _ := canonical.Hash([]byte(other)); h == h0 {
			t.Errorf("Hash(%s) equals the hash of a different value", other)
		}
	}
}

// FuzzJSON checks JSON (whose fast path returns input
// that is already canonical) against a plain decode and re-encode.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":2}`, `{"b":2,"a":1}`, `{"a":1,"a!":2}`, `{"a!":1,"a":2}`, `{"a":{"c":[1,2.5e-3,-0,"x"],"b":null}}`,
		`{"a":"<>&"}`, `{"a":"\u00e9"}`, `{"é":1}`, `[1,2]`, `"s"`, `1.0`, `1E5`, `{"a":1,"a":2}`, `{"a":{"b":1,"\u0062":2}}`, `[{"x":1},{"x":1,"x":1}]`, `{ "a" : 1 }`, ``, `  `,
		`{"a":true,"b":false,"c":null}`, `{"":1,"a":2}`, `01`, `1.`, `-`, `{"a":1}x`, "{\"a\":\"\x7f\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := canonical.JSON(in)
		var want []byte
		var werr error
		if len(bytes.TrimSpace(in)) == 0 {
			want = []byte("{}")
		} else {
			d := json.NewDecoder(bytes.NewReader(in))
			d.UseNumber()
			var v any
			if werr = d.Decode(&v); werr == nil {
				// d.More is false before a stray '}' or ']': look at the
				// rest of the input instead.
				if len(bytes.Trim(in[d.InputOffset():], " \t\r\n")) > 0 { // JSON white space only
					werr = errors.New("trailing data")
				} else {
					want, werr = json.Marshal(v)
				}
			}
		}
		var dup *canonical.DuplicateKeyError
		if errors.As(err, &dup) {
			// The reference keeps the last value; a repeated key must be
			// refused, and must really be there.
			quoted, _ := json.Marshal(dup.Key)
			// Malformed input may be refused for a repeated key before the
			// decoder reaches its syntax error: both refuse it.
			// Invalid UTF-8 decodes to U+FFFD, so two different byte
			// strings may be one key: count only in valid UTF-8.
			if werr == nil && utf8.Valid(in) && !bytes.Contains(in, []byte(`\`)) && bytes.Count(in, quoted) < 2 {
				t.Fatalf("JSON(%q): %v, but the reference error is %v", in, err, werr)
			}
			return
		}
		if (err != nil) != (werr != nil) {
			t.Fatalf("JSON(%q) error %v, reference error %v", in, err, werr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("JSON(%q) = %q, want %q", in, got, want)
		}
		if err == nil {
			again, err := canonical.JSON(got)
			if err != nil || !bytes.Equal(again, got) {
				t.Fatalf("not idempotent: %q → %q (%v)", got, again, err)
			}
		}
	})
}

func TestDuplicateKeys(t *testing.T) {
	for _, tt := range []struct{ in, key, path string }{
		{`{"path":"/etc/passwd","path":"/tmp/a"}`, "path", "$"},
		{`{"a":{"b":1,"\u0062":2}}`, "b", "$.a"},
		{`{"a":[{"x":1},{"x":1, "x":1}]}`, "x", "$.a[1]"},
		{`{"we ird":{"k":1,"k":2}}`, "k", `$["we ird"]`},
	} {
		_, err := canonical.JSON([]byte(tt.in))
		var dup *canonical.DuplicateKeyError
		if !errors.As(err, &dup) || dup.Key != tt.key || dup.Path != tt.path {
			t.Errorf("JSON(%s) error %v, want duplicate %q at %s", tt.in, err, tt.key, tt.path)
		}
		if _, err := canonical.Hash([]byte(tt.in)); !errors.As(err, &dup) {
			t.Errorf("Hash(%s) error %v, want a duplicate key error", tt.in, err)
		}
	}
}
