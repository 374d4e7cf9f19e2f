package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// SchemaNode is a JSON schema split into its keywords, in document order,
// for an integration that converts schemas to its framework's own schema
// type keyword by keyword without losing one. [ParseSchema] makes it.
type SchemaNode struct {
	// Bool is set for the boolean schemas true and false, which have no
	// keywords.
	Bool *bool
	// Keywords are the schema's keywords in the order the JSON gave them.
	Keywords []SchemaKeyword
}

// SchemaKeyword is one keyword of a [SchemaNode]. A keyword of the JSON
// Schema 2020-12 vocabulary whose value is a subschema has it in Sub, a
// list of them in List, a map of them ("properties", "$defs",
// "patternProperties", "dependentSchemas") in Map; any other keyword,
// including ones the parser does not know and a draft-07 tuple "items",
// keeps its JSON text in Value.
type SchemaKeyword struct {
	Name  string
	Value json.RawMessage
	Sub   *SchemaNode
	List  []*SchemaNode
	// Map is non-nil for a map keyword, even an empty one.
	Map []NamedSchema
}

// NamedSchema is one entry of a map keyword such as "properties".
type NamedSchema struct {
	Name   string
	Schema *SchemaNode
}

// Keywords whose values are one subschema, a list of them, or a map of them.
var (
	subKeywords = map[string]bool{"additionalProperties": true, "propertyNames": true, "contains": true,
		"not": true, "if": true, "then": true, "else": true, "contentSchema": true, "items": true}
	listKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	mapKeywords  = map[string]bool{"properties": true, "$defs": true, "patternProperties": true, "dependentSchemas": true}
)

// ParseSchema splits the JSON schema data into a [SchemaNode] tree, making
// it portable on the way: in every subschema, draft-07 "definitions" become
// "$defs" (a name defined differently in both is an error) and every local
// "$ref" through "definitions" is rewritten to go through "$defs", so that
// a target type with no "definitions" keeps no dangling reference. A
// property or definition called "definitions" keeps its name. Errors name
// the path of the subschema at fault, e.g. "properties/a: ...".
func ParseSchema(data []byte) (*SchemaNode, error) {
	data = bytes.TrimSpace(data)
	switch string(data) {
	case "true", "false":
		b := string(data) == "true"
		return &SchemaNode{Bool: &b}, nil
	}
	o, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	if err := renameDefinitions(o); err != nil {
		return nil, err
	}
	n := &SchemaNode{Keywords: make([]SchemaKeyword, 0, len(o.keys))}
	for _, k := range o.keys {
		v := o.vals[k]
		kw := SchemaKeyword{Name: k}
		switch {
		case k == "items" && isArray(v): // draft-07 tuple form
			kw.Value = v
		case subKeywords[k]:
			if kw.Sub, err = ParseSchema(v); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		case listKeywords[k]:
			var raws []json.RawMessage
			if err := json.Unmarshal(v, &raws); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			kw.List = make([]*SchemaNode, len(raws))
			for i, r := range raws {
				if kw.List[i], err = ParseSchema(r); err != nil {
					return nil, fmt.Errorf("%s/%d: %w", k, i, err)
				}
			}
		case mapKeywords[k]:
			m, err := parseObject(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			kw.Map = make([]NamedSchema, len(m.keys))
			for i, name := range m.keys {
				kw.Map[i].Name = name
				if kw.Map[i].Schema, err = ParseSchema(m.vals[name]); err != nil {
					return nil, fmt.Errorf("%s/%s: %w", k, name, err)
				}
			}
		case k == "$ref":
			kw.Value = rewriteRef(v)
		default:
			kw.Value = v
		}
		n.Keywords = append(n.Keywords, kw)
	}
	return n, nil
}

// Vacuous reports whether keyword with the value v says nothing, the same
// as leaving it out (a false "readOnly", an empty "description" or
// "required"): a converter may drop it where its target type cannot tell
// the value from the keyword's absence.
func Vacuous(keyword string, v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "false":
		return keyword == "uniqueItems" || keyword == "deprecated" || keyword == "readOnly" || keyword == "writeOnly"
	case `""`:
		return keyword == "title" || keyword == "description" || keyword == "$comment" || keyword == "format" ||
			keyword == "pattern" || keyword == "contentEncoding" || keyword == "contentMediaType"
	case "[]":
		return keyword == "required" || keyword == "examples"
	case "{}":
		return keyword == "dependentRequired"
	}
	return false
}

// object is a JSON object that remembers its key order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(data []byte) (*object, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object, got %v", tok)
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		k := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func isArray(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '['
}

// renameDefinitions moves draft-07 "definitions" into "$defs". A name defined
// in both with different schemas cannot be merged.
func renameDefinitions(o *object) error {
	defs, ok := o.vals["definitions"]
	if !ok {
		return nil
	}
	i := slices.Index(o.keys, "definitions")
	cur, has := o.vals["$defs"]
	if !has {
		o.keys[i] = "$defs"
		o.vals["$defs"] = defs
		delete(o.vals, "definitions")
		return nil
	}
	a, err := parseObject(cur)
	if err != nil {
		return fmt.Errorf("$defs: %w", err)
	}
	b, err := parseObject(defs)
	if err != nil {
		return fmt.Errorf("definitions: %w", err)
	}
	merged := map[string]json.RawMessage{}
	for k, v := range a.vals {
		merged[k] = v
	}
	for k, v := range b.vals {
		if prev, dup := merged[k]; dup && !bytes.Equal(prev, v) {
			return fmt.Errorf("%q is defined differently in both $defs and definitions", k)
		}
		merged[k] = v
	}
	m, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	o.vals["$defs"] = m
	o.keys = slices.Delete(o.keys, i, i+1)
	delete(o.vals, "definitions")
	return nil
}

// rewriteRef rewrites a local JSON pointer through "definitions" to go
// through "$defs". Segments that are property or definition names are left
// alone, so a property called "definitions" keeps its name.
func rewriteRef(v json.RawMessage) json.RawMessage {
	var ref string
	if json.Unmarshal(v, &ref) != nil || !strings.HasPrefix(ref, "#/") {
		return v
	}
	segs := strings.Split(ref[2:], "/")
	name := false // the segment is a name, not a keyword
	changed := false
	for i, seg := range segs {
		if name {
			name = false
			continue
		}
		switch seg {
		case "definitions":
			segs[i] = "$defs"
			changed = true
			name = true
		case "$defs", "properties", "patternProperties", "dependentSchemas":
			name = true
		}
	}
	if !changed {
		return v
	}
	b, _ := json.Marshal("#/" + strings.Join(segs, "/"))
	return b
}
