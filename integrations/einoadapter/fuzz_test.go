package einoadapter_test

import (
	"encoding/json"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/einoadapter"
)

// FuzzSchemaFromJSON: schemas come from remote MCP servers, so conversion
// must never panic, and what it accepts must marshal.
func FuzzSchemaFromJSON(f *testing.F) {
	for _, s := range hardCorpus {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"items":[true,false],"definitions":{"a":{"$ref":"#/definitions/a"}}}`))
	f.Add([]byte(`{"const":null,"maxLength":-1,"exclusiveMinimum":true,"type":7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := einoadapter.SchemaFromJSON(data)
		if err != nil {
			return
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("converted %s but cannot marshal it: %v", data, err)
		}
	})
}
