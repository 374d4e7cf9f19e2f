package kit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// Severity grades an [Issue].
type Severity int

const (
	// SeverityWarning: the strict schema loosens or drops a constraint that the
	// provider's strict mode does not support. The executor still validates
	// the arguments against the full schema, so nothing is lost but the
	// model's guidance.
	SeverityWarning Severity = iota + 1
	// SeverityError: the schema cannot be made strict; define the tool
	// without strict mode, with its full schema.
	SeverityError
)

// String returns "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// Issue is a construct of an input schema that strict mode cannot express
// as is.
type Issue struct {
	// Tool is the tool whose schema it is; [Strict], which sees only the
	// schema, leaves it empty for the caller to fill.
	Tool string
	// Severity says whether the schema was loosened (SeverityWarning) or
	// cannot be strict at all (SeverityError).
	Severity Severity
	// Path is a JSON pointer into the input schema, e.g. /properties/tags.
	Path string
	// Keyword is the schema keyword at Path that strict mode cannot carry.
	Keyword string
	// Message says what was done, or why it cannot be, in a sentence.
	Message string
}

// String formats the issue on one line:
//
//	warning: tool search: /properties/limit default: dropped: ...
func (i Issue) String() string {
	path := i.Path
	if path == "" {
		path = "/"
	}
	return fmt.Sprintf("%s: tool %s: %s %s: %s", i.Severity, i.Tool, path, i.Keyword, i.Message)
}

// Parameters returns a fresh generic copy (map[string]any and friends) of
// an input schema, the parameters of a function definition; a nil schema is
// an object with no properties. The caller may modify the map.
func Parameters(s *jsonschema.Schema) (map[string]any, error) {
	if s == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	return adapter.SchemaMap(s)
}

// Keywords strict mode rejects. Dropping them only loosens what the model
// is told; the executor validates the full schema.
var strictDropped = map[string]string{
	"minLength":     "string length bounds",
	"maxLength":     "string length bounds",
	"minProperties": "property count bounds",
	"maxProperties": "property count bounds",
	"uniqueItems":   "unique items",
	"contains":      "contains",
	"minContains":   "contains bounds",
	"maxContains":   "contains bounds",
	"default":       "defaults (the model sends null for an omitted value; the dispatcher drops that null so the default applies)",
	"$schema":       "the dialect",
	"$id":           "the schema id",
	"examples":      "examples",
	"deprecated":    "deprecation",
	"readOnly":      "readOnly",
	"writeOnly":     "writeOnly",
	"$comment":      "comments",
}

// Keywords whose meaning strict mode cannot carry: dropping them would
// tell the model something false about what is accepted.
var strictImpossible = map[string]string{
	"allOf":                 "allOf is not supported in strict mode",
	"not":                   "not is not supported in strict mode",
	"if":                    "conditional schemas are not supported in strict mode",
	"then":                  "conditional schemas are not supported in strict mode",
	"else":                  "conditional schemas are not supported in strict mode",
	"dependentRequired":     "dependentRequired is not supported in strict mode",
	"dependentSchemas":      "dependentSchemas is not supported in strict mode",
	"dependencies":          "dependencies is not supported in strict mode",
	"patternProperties":     "patternProperties (a map with open keys) cannot be closed",
	"propertyNames":         "propertyNames (a map with open keys) cannot be closed",
	"unevaluatedProperties": "unevaluatedProperties is not supported in strict mode",
	"unevaluatedItems":      "unevaluatedItems is not supported in strict mode",
	"prefixItems":           "tuples (prefixItems) are not supported in strict mode",
	"additionalItems":       "additionalItems is not supported in strict mode",
	"$dynamicRef":           "$dynamicRef is not supported in strict mode",
}

// Strict converts an input schema to the strict form of OpenAI's
// structured outputs: every object lists all its properties as required
// and sets additionalProperties false; a property that was optional is made
// nullable (null standing for "omitted"). It returns nil and at least one
// SeverityError issue when the schema cannot be made strict: an open map
// (additionalProperties other than false, patternProperties), a nested
// object with no declared properties, allOf/not/if/then/else, tuples.
// oneOf becomes anyOf, and keywords strict mode rejects (minLength,
// default, ...) are dropped, each reported as a SeverityWarning.
//
// Report the issues: a SeverityError one means the tool is best defined
// without strict mode, with [Parameters]. A model in strict mode sends null
// for an omitted optional argument: pass its arguments through
// [DropOmittedNulls] before the executor sees them.
func Strict(s *jsonschema.Schema) (map[string]any, []Issue) {
	m, err := Parameters(s)
	if err != nil {
		return nil, []Issue{{Severity: SeverityError, Keyword: "schema", Message: "the input schema does not encode as JSON: " + err.Error()}}
	}
	st := &strictor{}
	st.walk(m, "", true)
	if st.failed {
		return nil, st.issues
	}
	return m, st.issues
}

type strictor struct {
	issues []Issue
	failed bool
}

func (st *strictor) add(sev Severity, path, kw, msg string) {
	st.issues = append(st.issues, Issue{Severity: sev, Path: path, Keyword: kw, Message: msg})
	if sev == SeverityError {
		st.failed = true
	}
}

func (st *strictor) walk(m map[string]any, path string, root bool) {
	for _, kw := range sortedKeys(m) {
		if why, ok := strictImpossible[kw]; ok {
			st.add(SeverityError, path, kw, why)
		}
		if what, ok := strictDropped[kw]; ok {
			st.add(SeverityWarning, path, kw, "dropped: strict mode does not support "+what)
			delete(m, kw)
		}
	}
	if alts, ok := m["oneOf"]; ok {
		if _, both := m["anyOf"]; both {
			st.add(SeverityError, path, "oneOf", "oneOf next to anyOf cannot be expressed in strict mode")
		} else {
			st.add(SeverityWarning, path, "oneOf", "became anyOf: strict mode does not support oneOf (the executor still requires exactly one match)")
			m["anyOf"] = alts
			delete(m, "oneOf")
		}
	}
	for _, kw := range []string{"$defs", "definitions"} {
		if defs, ok := m[kw].(map[string]any); ok {
			for _, name := range sortedKeys(defs) {
				if d, ok := defs[name].(map[string]any); ok {
					st.walk(d, path+"/"+kw+"/"+escape(name), false)
				}
			}
		}
	}
	if alts, ok := m["anyOf"].([]any); ok {
		for i, a := range alts {
			if am, ok := a.(map[string]any); ok {
				st.walk(am, fmt.Sprintf("%s/anyOf/%d", path, i), false)
			}
		}
	}
	switch items := m["items"].(type) {
	case map[string]any:
		st.walk(items, path+"/items", false)
	case []any:
		st.add(SeverityError, path, "items", "tuples (an items array) are not supported in strict mode")
	}
	if isObjectMap(m) {
		st.object(m, path, root)
	}
}

func (st *strictor) object(m map[string]any, path string, root bool) {
	props, _ := m["properties"].(map[string]any)
	switch ap := m["additionalProperties"].(type) {
	case nil:
	case bool:
		if ap {
			st.add(SeverityError, path, "additionalProperties", "an object open to any key cannot be closed")
		}
	default:
		st.add(SeverityError, path, "additionalProperties", "a map with open keys cannot be closed")
	}
	if _, set := m["additionalProperties"]; len(props) == 0 && !root && !set {
		st.add(SeverityError, path, "properties", "an object with no declared properties accepts any keys and cannot be closed")
	}
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := sortedKeys(props)
	all := make([]any, 0, len(names))
	for _, name := range names {
		all = append(all, name)
		p, ok := props[name].(map[string]any)
		if !ok {
			if b, isBool := props[name].(bool); isBool && b {
				st.add(SeverityError, path+"/properties/"+escape(name), "true", "a property of any type cannot be strict")
			}
			continue
		}
		st.walk(p, path+"/properties/"+escape(name), false)
		if !required[name] {
			props[name] = nullable(p)
		}
	}
	if props == nil {
		props = map[string]any{}
	}
	m["properties"] = props
	m["required"] = all
	m["additionalProperties"] = false
}

// nullable returns p admitting null as well.
func nullable(p map[string]any) map[string]any {
	if allowsNull(p) {
		return p
	}
	switch t := p["type"].(type) {
	case string:
		p["type"] = []any{t, "null"}
		if enum, ok := p["enum"].([]any); ok {
			p["enum"] = append(enum, nil)
		}
		return p
	case []any:
		p["type"] = append(t, "null")
		if enum, ok := p["enum"].([]any); ok {
			p["enum"] = append(enum, nil)
		}
		return p
	}
	if alts, ok := p["anyOf"].([]any); ok {
		p["anyOf"] = append(alts, map[string]any{"type": "null"})
		return p
	}
	if enum, ok := p["enum"].([]any); ok {
		p["enum"] = append(enum, nil)
		return p
	}
	// $ref, const, or no type: wrap it, keeping the description outside.
	w := map[string]any{"anyOf": []any{p, map[string]any{"type": "null"}}}
	if d, ok := p["description"]; ok {
		w["description"] = d
		delete(p, "description")
	}
	return w
}

func allowsNull(p map[string]any) bool {
	switch t := p["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	if alts, ok := p["anyOf"].([]any); ok {
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && allowsNull(am) {
				return true
			}
		}
	}
	return false
}

func isObjectMap(m map[string]any) bool {
	switch t := m["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	_, hasProps := m["properties"]
	return hasProps
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escape escapes a JSON pointer token.
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// DropOmittedNulls removes, from arguments a strict model sent, each null
// given for a property the original schema makes optional and does not let
// be null: strict mode made the model send null for "omitted", and the
// executor should see the key omitted (so defaults apply). It returns args
// unchanged when there is nothing to remove.
func DropOmittedNulls(args json.RawMessage, schema *jsonschema.Schema) json.RawMessage {
	if schema == nil || !strings.Contains(string(args), "null") {
		return args
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return args
	}
	if !dropNulls(v, schema, schema, 0) {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return b
}

func dropNulls(v any, s, root *jsonschema.Schema, depth int) bool {
	s = resolveRef(root, s)
	if s == nil || depth > 32 {
		return false
	}
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p, ok := s.Properties[k]
			if !ok {
				continue
			}
			if x == nil {
				if !slices.Contains(s.Required, k) && !allowsType(resolveRef(root, p), "null") {
					delete(v, k)
					changed = true
				}
				continue
			}
			changed = dropNulls(x, p, root, depth+1) || changed
		}
	case []any:
		if s.Items != nil {
			for _, x := range v {
				changed = dropNulls(x, s.Items, root, depth+1) || changed
			}
		}
	}
	return changed
}
