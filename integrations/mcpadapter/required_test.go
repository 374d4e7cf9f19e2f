package mcpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
)

// emptyRequiredSchemas are upstream input and output schemas with an empty
// "required" at several depths (and shapes jsonschema-go decodes
// differently: boolean subschemas, string dependencies, tuple items).
var emptyRequiredSchemas = map[string][2]string{
	"top": {`{"type":"object","properties":{"q":{"type":"string"}},"required":[]}`, ``},
	"nested": {`{"type":"object","required":["opts"],"properties":{
		"opts":{"type":"object","properties":{"x":{"type":"string"},"y":true},"required":[]},
		"list":{"type":"array","items":{"type":"object","required":[]}},
		"pair":{"type":"array","prefixItems":[{"type":"object","required":[]},false]},
		"either":{"anyOf":[{"type":"object","required":[]},{"type":"null"}]},
		"dep":{"type":"object","dependencies":{"a":["b"],"c":{"required":[]}}}},
		"$defs":{"d":{"type":"object","required":[]}},
		"additionalProperties":{"type":"object","required":[]}}`,
		`{"type":"object","properties":{"r":{"type":"object","required":[]}},"required":[]}`},
	"none": {`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`, ``},
}

func emptyRequiredServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	for name, s := range emptyRequiredSchemas {
		tool := &mcp.Tool{Name: name, InputSchema: json.RawMessage(s[0])}
		if s[1] != "" {
			tool.OutputSchema = json.RawMessage(s[1])
		}
		srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	return srv
}

func schemaBytes(t *testing.T, v any) []byte {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEmptyRequiredSurvivesExport imports tools whose schemas carry
// "required": [] and lists them through the export with the go-sdk client:
// each schema is byte-identical to the upstream's own listing.
func TestEmptyRequiredSurvivesExport(t *testing.T) {
	srv := emptyRequiredServer()
	direct := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "v1"}, nil)
	dcs, err := direct.Connect(context.Background(), inMemoryTo(t, srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dcs.Close()
	upstream := exListTools(t, dcs)

	e := newImportEnv(t, nil)
	if err := e.m.Connect(context.Background(), mcpadapter.Upstream{Name: "up", Trust: true, Transport: inMemoryTo(t, srv)}); err != nil {
		t.Fatal(err)
	}
	ex := newExporter(t, e.reg, e.exec, nil)
	for _, transport := range []string{"in-memory", "http"} {
		var cs *mcp.ClientSession
		if transport == "http" {
			cs = exConnectHTTP(t, exServeHTTP(t, ex, nil).URL, nil, nil)
		} else {
			cs = exConnect(t, ex, nil, "")
		}
		exported := exListTools(t, cs)
		for name, want := range upstream {
			got, ok := exported[name]
			if !ok {
				t.Fatalf("%s: tool %q not exported (have %v)", transport, name, exKeys(exported))
			}
			for _, which := range []struct {
				what      string
				want, got any
			}{{"input", want.InputSchema, got.InputSchema}, {"output", want.OutputSchema, got.OutputSchema}} {
				w, g := schemaBytes(t, which.want), schemaBytes(t, which.got)
				if !bytes.Equal(w, g) {
					t.Errorf("%s: %s %s schema differs from the upstream's:\n upstream %s\n exported %s", transport, name, which.what, w, g)
				}
			}
		}
	}
}

// TestEmptyRequiredLocalSpec: a local spec that sets Required to an empty
// list is listed with "required": [], one that leaves it nil without, and
// the property order a spec sets is kept.
func TestEmptyRequiredLocalSpec(t *testing.T) {
	e := newImportEnv(t, nil)
	in := &jsonschema.Schema{Type: "object", Required: []string{}, PropertyOrder: []string{"z", "a"},
		Properties: map[string]*jsonschema.Schema{"z": {Type: "string"}, "a": {Type: "object"}}}
	for name, s := range map[string]*jsonschema.Schema{"empty": in, "nil": {Type: "object"}} {
		spec, err := adapter.NewRawTool(name, "", s, func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return &adapter.Result{}, nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.reg.Register(spec); err != nil {
			t.Fatal(err)
		}
	}
	ex := newExporter(t, e.reg, e.exec, nil)
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ex.Serve(ctx, st) }()
	defer func() { cancel(); <-done }()
	var wire lockedBuffer
	client := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "v1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.LoggingTransport{Transport: ct, Writer: &wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools := exListTools(t, cs)
	if got, want := string(schemaBytes(t, tools["empty"].InputSchema)), `{"properties":{"a":{"type":"object"},"z":{"type":"string"}},"required":[],"type":"object"}`; got != want {
		t.Errorf("empty: schema %s, want %s", got, want)
	}
	if got, want := string(schemaBytes(t, tools["nil"].InputSchema)), `{"type":"object"}`; got != want {
		t.Errorf("nil: schema %s, want %s", got, want)
	}
	// The client decodes schemas into maps: the order is on the wire.
	if body := wire.String(); !strings.Contains(body, `"properties":{"z":{"type":"string"},"a":{"type":"object"}},"required":[]`) {
		t.Errorf("the listing on the wire lost the property order or the empty required:\n%s", body)
	}
}

// lockedBuffer is a bytes.Buffer safe for the transport's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
