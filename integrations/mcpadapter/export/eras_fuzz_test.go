package export

import (
	"encoding/json"
	"testing"
)

// FuzzCarriesVersionMeta: the classifier of untrusted bodies never panics
// and agrees with a plain decode of every message's params._meta (exact
// keys, a non-empty string version), batch or not; the fast path (no
// "_meta", no escape) never hides one.
func FuzzCarriesVersionMeta(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}]`,
		`{"params":{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"v"}}}`,
		`{"params":{"_META":{"io.modelcontextprotocol/protocolVersion":"v"}}}`,
		`{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":""}}}`,
		`{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}`,
		`{"params":{"_meta":null}}`, `[]`, `[[`, ``, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := carriesVersionMeta(body)
		if want := referenceVersionMeta(body); got != want {
			t.Errorf("carriesVersionMeta(%q) = %v, want %v", body, got, want)
		}
	})
}

func referenceVersionMeta(body []byte) bool {
	var msgs []json.RawMessage
	if json.Unmarshal(body, &msgs) != nil {
		msgs = []json.RawMessage{body}
	}
	for _, m := range msgs {
		var raw, params map[string]json.RawMessage
		if json.Unmarshal(m, &raw) != nil || json.Unmarshal(raw["params"], &params) != nil {
			continue
		}
		var meta map[string]any
		if json.Unmarshal(params["_meta"], &meta) != nil {
			continue
		}
		if v, _ := meta["io.modelcontextprotocol/protocolVersion"].(string); v != "" {
			return true
		}
	}
	return false
}

// BenchmarkCarriesVersionMeta: the classifier on a legacy call (fast path)
// and on a 2026-07-28 one without its header (decoded).
func BenchmarkCarriesVersionMeta(b *testing.B) {
	legacy := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	modern := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	for name, body := range map[string][]byte{"legacy": legacy, "meta": modern} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				carriesVersionMeta(body)
			}
		})
	}
}
