package einoadapter

import (
	"encoding/json"
	"fmt"

	ejs "github.com/eino-contrib/jsonschema"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Schema converts one of our JSON schemas to eino's schema type without
// losing a keyword: "definitions" become "$defs" with their "$ref"s
// rewritten ([kit.ParseSchema]), property order is kept, and keywords and
// values eino's fields cannot hold (vendor extensions, a draft-07 array
// "items", a null "const"...) go to Extras, which eino marshals inline: a
// model provider receives the JSON we started from. Nil converts to nil.
func Schema(s *jsonschema.Schema) (*ejs.Schema, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: marshaling schema: %w", err)
	}
	return SchemaFromJSON(b)
}

// SchemaFromJSON is like [Schema] for a schema given as JSON text.
func SchemaFromJSON(data []byte) (*ejs.Schema, error) {
	s, err := kit.SchemaStruct(data, unmarshalSchema, func(s *ejs.Schema, x map[string]any) { s.Extras = x })
	if err != nil {
		return nil, fmt.Errorf("einoadapter: converting schema: %w", err)
	}
	return s, nil
}

// unmarshalSchema decodes into eino's schema type, whose decoder panics on
// some inputs (a null "type").
func unmarshalSchema(data []byte, s *ejs.Schema) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("eino's schema decoder failed: %v", p)
		}
	}()
	return json.Unmarshal(data, s)
}
