package argcheck

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Resolved is a resolved schema and whether it declares defaults.
type Resolved struct {
	RS       *jsonschema.Resolved
	Defaults bool
}

// ResolveSchema checks s (encoded as b) for $ref loops and resolves it;
// jsonschema-go checks defaults only where there are some (its walk is a
// large part of resolving).
func ResolveSchema(s *jsonschema.Schema, b []byte) (Resolved, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return Resolved{}, err
	}
	if err := RefLoop(m); err != nil {
		return Resolved{}, err
	}
	defaults := walkDefaults(m, false)
	rs, err := s.CloneSchemas().Resolve(&jsonschema.ResolveOptions{ValidateDefaults: defaults})
	if err != nil {
		return Resolved{}, err
	}
	return Resolved{RS: rs, Defaults: defaults}, nil
}

// IsObjectSchema reports whether s has type "object".
func IsObjectSchema(s *jsonschema.Schema) bool {
	return s.Type == "object" || (s.Type == "" && len(s.Types) == 1 && s.Types[0] == "object")
}

// SchemaTypeString names the type of s for an error message.
func SchemaTypeString(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		return fmt.Sprintf("%q", s.Type)
	case len(s.Types) > 0:
		return fmt.Sprintf("%q", s.Types)
	}
	return "no type"
}

// walkDefaults looks for a "default" keyword; inNames is true inside maps
// keyed by property names, where "default" is a name, not a keyword.
func walkDefaults(v any, inNames bool) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if k == "default" && !inNames {
				return true
			}
			names := !inNames && (k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" || k == "dependentSchemas")
			if walkDefaults(sub, names) {
				return true
			}
		}
	case []any:
		for _, sub := range v {
			if walkDefaults(sub, false) {
				return true
			}
		}
	}
	return false
}
