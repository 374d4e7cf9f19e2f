package schema

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/internal/testpeers"
)

// schemaShape is the depth and the count of schemas of s, as jsonschema-go
// holds it.
func schemaShape(s *jsonschema.Schema) (depth, count int) {
	if s == nil {
		return 0, 0
	}
	count = 1
	eachSubschema(s, func(sub *jsonschema.Schema) bool {
		d, c := schemaShape(sub)
		depth, count = max(depth, d), count+c
		return false
	})
	return depth + 1, count
}

// FuzzSchemaLimit: the import's measure of any schema an upstream may send
// is never below what the import makes of it: as deep and with as many
// schemas (case-folded keywords, items lists, dependencies included), so
// the bounds hold for the schemas an export lists.
func FuzzSchemaLimit(f *testing.F) {
	for _, s := range append(append(wireSeeds, schemaSeeds...),
		`{"PROPERTIES":{"a":{"ITEMS":{"Not":{}}}}}`,
		`{"propertieſ":{"a":{"propertieſ":{"b":true}}}}`,
		`{"items":[{},{"not":{"items":{}}}],"dependencies":{"a":{"not":{}},"b":["x"]}}`,
		`{"x-extra":{"properties":{"a":{}}},"enum":[{"properties":{}}],"$defs":{"d":{"$defs":{"e":false}}}}`,
	) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var v any
		if json.Unmarshal([]byte(src), &v) != nil {
			return
		}
		b, err := measureSchema(v)
		if err != nil {
			if !errors.Is(err, ErrLimit) {
				t.Fatalf("%s: error %v does not wrap ErrLimit", src, err)
			}
			return
		}
		wire, err := CanonicalJSON(v)
		if err != nil || wire == nil {
			return
		}
		s, err := From(v, wire)
		if err != nil {
			return // not a schema: not imported
		}
		if depth, count := schemaShape(s); depth > b.deepest || count > b.count {
			t.Fatalf("%s: measured %d deep, %d schemas; the import makes %d deep, %d schemas", src, b.deepest, b.count, depth, count)
		}
	})
}

// TestSchemaLimitRealSchemas: every tool schema of server-everything (all
// its tools: the client declares sampling, elicitation and roots), of the
// npm MCP Apps servers and of the conformance suite's 2020-12 fixture is
// well inside the import's bounds.
func TestSchemaLimitRealSchemas(t *testing.T) {
	var all []any
	for _, peer := range [][]string{
		{"mcp-server-everything", "stdio"},
		{"mcp-server-basic-vanillajs", "--stdio"},
		{"mcp-system-monitor-server", "--stdio"},
	} {
		cmd := testpeers.Command(t, peer[0], peer[1:]...)
		c := mcp.NewClient(&mcp.Implementation{Name: "schemas", Version: "v1"}, &mcp.ClientOptions{
			CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return nil, errors.New("no")
			},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return nil, errors.New("no")
			},
		})
		c.AddRoots(&mcp.Root{URI: "file:///tmp"})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", peer[0], err)
		}
		n := 0
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatalf("%s: %v", peer[0], err)
			}
			all = append(all, Canonical(tool.InputSchema), Canonical(tool.OutputSchema))
			n++
		}
		cs.Close()
		cancel()
		t.Logf("%s: %d tools", peer[0], n)
		if n == 0 {
			t.Errorf("%s lists no tools", peer[0])
		}
	}
	var fixture any
	if err := json.Unmarshal([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
		"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`), &fixture); err != nil {
		t.Fatal(err)
	}
	var most schemaBound
	for _, v := range append(all, fixture) {
		b, err := measureSchema(v)
		if err != nil {
			t.Errorf("a real schema is refused: %v", err)
		}
		most = schemaBound{max(most.deepest, b.deepest), max(most.count, b.count), max(most.work, b.work)}
	}
	t.Logf("largest of %d real schemas: %d deep (bound %d), %d schemas (bound %d), work %d (bound %d)",
		len(all)+1, most.deepest, maxSchemaDepth, most.count, maxSchemaCount, most.work, maxSchemaWork)
}
