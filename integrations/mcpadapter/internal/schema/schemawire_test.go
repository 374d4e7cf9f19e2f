package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

var wireSeeds = []string{
	`{"type":"object","required":[]}`,
	`{"type":"object","properties":{"a":{"required":[]},"b":{"not":{},"required":[]}},"required":["a"]}`,
	`{"items":[{"required":[]},true],"dependencies":{"x":["y"],"z":{"required":[]}},"$defs":{"d":{"required":[]}}}`,
	`{"anyOf":[{"required":[]}],"if":{"required":[]},"then":false,"additionalProperties":{"required":[]}}`,
	`{"type":"object","properties":{"<&>":{"required":[]}},"x-extra":{"required":[]}}`,
}

// FuzzWireSchema: the export's encoding of any schema an upstream may send
// is JSON that decodes to the same schema, with every empty "required" kept.
func FuzzWireSchema(f *testing.F) {
	for _, s := range append(wireSeeds, schemaSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var s jsonschema.Schema
		if err := s.UnmarshalJSON([]byte(src)); err != nil {
			return
		}
		plain, err := json.Marshal(&s)
		if err != nil {
			return // go-sdk refuses it
		}
		wire, err := json.Marshal(Wire(&s))
		if err != nil {
			t.Fatalf("wire encoding of %s: %v", src, err)
		}
		var back jsonschema.Schema
		if err := back.UnmarshalJSON(wire); err != nil {
			t.Fatalf("wire encoding %s of %s does not decode: %v", wire, src, err)
		}
		if again, _ := json.Marshal(&back); !bytes.Equal(again, plain) {
			t.Fatalf("wire encoding changed the schema:\n src  %s\n wire %s\n got  %s\n want %s", src, wire, again, plain)
		}
		if hasEmptyRequired(&back) != hasEmptyRequired(&s) {
			t.Fatalf("empty required lost: src %s wire %s", src, wire)
		}
		if again, _ := json.Marshal(Wire(&back)); !bytes.Equal(again, wire) {
			t.Fatalf("wire encoding is not stable:\n first  %s\n second %s", wire, again)
		}
	})
}

// TestWireSchemaDeep: the rewrite reads a deep schema once (it re-read
// each level's subtree: 15 s at depth 3000).
func TestWireSchemaDeep(t *testing.T) {
	const depth = 3000
	with := strings.Repeat(`{"type":"object","required":[],"properties":{"a":`, depth) + `{"required":[]}` + strings.Repeat(`}}`, depth)
	without := strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `true` + strings.Repeat(`}}`, depth)
	var v any
	if err := json.Unmarshal([]byte(with), &v); err != nil {
		t.Fatal(err)
	}
	s, err := From(v, json.RawMessage(with)) // as an import makes it (UnmarshalJSON takes minutes here)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := withEmptyRequired(s, []byte(without))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second { // 0.2 s here under -race; 5 s before
		t.Errorf("rewriting a schema %d deep took %v", depth, d)
	}
	if n := strings.Count(string(out), `"required":[]`); n != depth+1 {
		t.Errorf("%d empty required lists written back, want %d", n, depth+1)
	}
	if !json.Valid(out) {
		t.Errorf("rewrite is not JSON")
	}
}
