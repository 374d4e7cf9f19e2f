package adapter

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaMap returns a schema as generic JSON (map[string]any and friends),
// the form most frameworks and model providers take; it keeps every
// keyword, $defs and unknown ones included. Each call returns a fresh map
// the caller may modify. A nil schema gives a nil map.
func SchemaMap(s *jsonschema.Schema) (map[string]any, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
