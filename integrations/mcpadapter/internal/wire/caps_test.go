package wire

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capsRequest is a tools/call request whose _meta carries caps as the
// wire decodes it (a generic map), with no session to fall back to.
func capsRequest(t testing.TB, caps string) *mcp.CallToolRequest {
	var meta map[string]any
	if err := json.Unmarshal([]byte(`{"`+mcp.MetaKeyClientCapabilities+`":`+caps+`}`), &meta); err != nil {
		t.Fatalf("bad test input %s: %v", caps, err)
	}
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "echo", Meta: meta}}
}

// TestClientCapsCases: ClientCaps reads what go-sdk reads, for the shapes
// clients send and for the ones go-sdk's decoder refuses.
func TestClientCapsCases(t *testing.T) {
	for _, c := range []struct {
		name, caps string
		want       *mcp.ClientCapabilities // nil: no capabilities at all
	}{
		{"empty", `{}`, &mcp.ClientCapabilities{}},
		{"all", `{"elicitation":{"form":{},"url":{}},"sampling":{"context":{},"tools":{}},"roots":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}}`, &mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
			Sampling:    &mcp.SamplingCapabilities{Context: &mcp.SamplingContextCapabilities{}, Tools: &mcp.SamplingToolsCapabilities{}},
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Roots: struct {
				ListChanged bool `json:"listChanged,omitempty"`
			}{true},
			Extensions: map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}},
		}},
		{"bare elicitation", `{"elicitation":{}}`, &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}},
		{"null fields", `{"elicitation":null,"sampling":null,"roots":null,"experimental":null}`, &mcp.ClientCapabilities{}},
		{"other case is another key", `{"Elicitation":{}}`, &mcp.ClientCapabilities{}},
		{"unknown keys ignored", `{"future":{"x":1},"elicitation":{"form":{},"more":3}}`, &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}},
		{"elicitation not an object", `{"elicitation":true}`, nil},
		{"form not an object", `{"elicitation":{"form":"yes"}}`, nil},
		{"listChanged not a bool", `{"roots":{"listChanged":1}}`, nil},
		{"extensions not an object", `{"extensions":[]}`, nil},
		{"not an object", `"elicitation"`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := capsRequest(t, c.caps)
			sdk := req.ClientCapabilities()
			if !reflect.DeepEqual(sdk, c.want) {
				t.Fatalf("go-sdk reads %s as %+v, the test expects %+v: go-sdk changed, recheck ClientCaps", c.caps, sdk, c.want)
			}
			if got := ClientCaps(req); !reflect.DeepEqual(got, sdk) {
				t.Errorf("ClientCaps(%s) = %+v, go-sdk reads %+v", c.caps, got, sdk)
			}
		})
	}
}

// TestClientCapsAgrees: on 20,000 random capability values, of every
// shape and type at every key ClientCaps reads, and on a request with
// none, no params or a typed value set in process, ClientCaps answers
// exactly what go-sdk's ClientCapabilities does.
func TestClientCapsAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		caps := randomCaps(r)
		req := capsRequest(t, caps)
		if got, want := ClientCaps(req), req.ClientCapabilities(); !reflect.DeepEqual(got, want) {
			t.Fatalf("ClientCaps(%s) = %+v, go-sdk reads %+v", caps, got, want)
		}
	}
	typed := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}}}}
	for _, req := range []*mcp.CallToolRequest{
		{Params: &mcp.CallToolParamsRaw{Name: "echo"}},
		{},
		typed,
	} {
		if got, want := ClientCaps(req), req.ClientCapabilities(); !reflect.DeepEqual(got, want) {
			t.Errorf("ClientCaps(%+v) = %+v, go-sdk reads %+v", req.Params, got, want)
		}
	}
	if ClientCaps(nil) != nil {
		t.Error("ClientCaps(nil) is not nil")
	}
}

// randomCaps is a JSON object with a random subset of the keys go-sdk
// decodes (and some it does not), each of a random shape.
func randomCaps(r *rand.Rand) string {
	keys := []string{"elicitation", "sampling", "roots", "experimental", "extensions", "Sampling", "other"}
	inner := map[string][]string{
		"elicitation": {"form", "url", "Form"},
		"sampling":    {"context", "tools"},
		"roots":       {"listChanged", "ListChanged"},
	}
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for _, k := range keys {
		if r.IntN(2) == 0 {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(`"` + k + `":`)
		if sub, ok := inner[k]; ok && r.IntN(3) > 0 {
			b.WriteByte('{')
			m := 0
			for _, s := range sub {
				if r.IntN(2) == 0 {
					continue
				}
				if m > 0 {
					b.WriteByte(',')
				}
				m++
				b.WriteString(`"` + s + `":` + randomValue(r))
			}
			b.WriteByte('}')
			continue
		}
		b.WriteString(randomValue(r))
	}
	b.WriteByte('}')
	return b.String()
}

func randomValue(r *rand.Rand) string {
	values := []string{`null`, `{}`, `{"x":1}`, `true`, `false`, `0`, `1.5`, `"s"`, `[]`, `[{}]`}
	return values[r.IntN(len(values))]
}

// TestClientCapsAllocs: reading a caller's capabilities costs the value
// it returns, not go-sdk's encode and decode of the map.
func TestClientCapsAllocs(t *testing.T) {
	req := capsRequest(t, `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{"listChanged":true}}`)
	fast := testing.AllocsPerRun(100, func() { ClientCaps(req) })
	sdk := testing.AllocsPerRun(100, func() { req.ClientCapabilities() })
	if fast > 6 {
		t.Errorf("ClientCaps costs %.0f allocations, want at most 6 (go-sdk's read costs %.0f)", fast, sdk)
	}
}

// BenchmarkClientCaps compares ClientCaps with go-sdk's read of the same
// request (benchstat -col /read).
func BenchmarkClientCaps(b *testing.B) {
	req := capsRequest(b, `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{"listChanged":true}}`)
	b.Run("read=wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ClientCaps(req)
		}
	})
	b.Run("read=sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req.ClientCapabilities()
		}
	})
}
