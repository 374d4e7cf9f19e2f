package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentadapter/agentadapter/termtext"
)

// jsonSafe leaves JSON that decodes to the same value, with nothing a
// terminal would act on, whatever the strings held.
func FuzzJSONSafe(f *testing.F) {
	for _, s := range []string{"", "plain", hostile, "\u2028\u2029\ufeff\u200b", "a\xffb", `"\u009b"`, "é世界👩‍💻"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, b := range [][]byte{
			must(json.Marshal(map[string]any{"s": s, s: []string{s}})),
			// RawMessage passes bytes encoding/json would have replaced.
			must(json.Marshal(struct{ R json.RawMessage }{json.RawMessage(`"` + s + `"`)})),
		} {
			if b == nil {
				continue
			}
			out := jsonSafe(b)
			if !termtext.Safe(string(out)) {
				t.Fatalf("jsonSafe(%q) = %q carries runes a terminal acts on", b, out)
			}
			var want, got any
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("jsonSafe(%q) = %q is not JSON: %v", b, out, err)
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("jsonSafe(%q) = %q decodes to %#v, want %#v", b, out, got, want)
			}
		}
	})
}

// must returns b, or nil when err is set (a string that is not a valid
// JSON string body makes the RawMessage case invalid: skipped).
func must(b []byte, err error) []byte {
	if err != nil {
		return nil
	}
	return b
}
