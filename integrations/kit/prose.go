package kit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// Limits that keep a described shape short: a text agent reads every tool's
// description in every prompt.
const (
	maxDescribeDepth = 3  // nested objects deeper than this are just "object"
	maxEnumValues    = 8  // longer enums end in "|…"
	maxFieldDocLen   = 60 // property descriptions are cut to this many runes
)

// Shape is what [ParseInput] needs to know about a tool's input schema,
// derived once per schema: build it with [NewShape] when the tool is
// built, not per call. A Shape is immutable and safe for concurrent use.
type Shape struct {
	schema *jsonschema.Schema
	// shape is the compact description, e.g. {"a": integer, "b"?: string}.
	shape string
	// positional is the parameter a bare (non-JSON) input fills: the only
	// property, or else the only required one. "" when there is none.
	positional string
	// positionalString reports whether the positional parameter is a string
	// (so any text is a value) rather than a number, bool, etc.
	positionalString bool
	// hasArg1 reports whether the schema itself declares "__arg1", in
	// which case the OpenAIFunctionsAgent wrapper is not unwrapped.
	hasArg1 bool
	// noRequired reports whether the tool can be called with no arguments.
	noRequired bool
}

// NewShape returns the shape of an input schema; nil is the schema of a
// tool with no parameters.
func NewShape(s *jsonschema.Schema) *Shape {
	a := &Shape{schema: s}
	if s == nil {
		a.shape = "{}"
		a.noRequired = true
		return a
	}
	a.shape = describeSchema(s)
	_, a.hasArg1 = s.Properties["__arg1"]
	a.noRequired = len(s.Required) == 0
	switch {
	case len(s.Properties) == 1:
		for name := range s.Properties {
			a.positional = name
		}
	case len(s.Required) == 1:
		if _, ok := s.Properties[s.Required[0]]; ok {
			a.positional = s.Required[0]
		}
	}
	if a.positional != "" {
		a.positionalString = allowsType(resolveRef(s, s.Properties[a.positional]), "string")
	}
	return a
}

// Schema returns the schema the shape was derived from, so that a caller
// can tell whether a replaced spec needs a new shape.
func (a *Shape) Schema() *jsonschema.Schema { return a.schema }

// String returns the compact description of the schema, as [Prose].
func (a *Shape) String() string { return a.shape }

// Prose renders an object schema as a compact, TypeScript-like shape,
// for a model that reads no JSON Schema:
//
//	{"city": string (the city), "days"?: integer = 3}
//
// Keys are quoted so that the model sees what to write; "?" marks an
// optional key; a default follows "=", a property's description (its first
// sentence, cut short) follows in parentheses. Local $refs are expanded
// (a recursive one is named), objects nested deeper than three levels are
// just "object", and long enums are cut. A nil schema is "{}".
func Prose(s *jsonschema.Schema) string {
	if s == nil {
		return "{}"
	}
	return describeSchema(s)
}

// Description returns the description a text agent reads: the spec's
// description followed, on the same line (text agents list tools one per
// line), by the input's shape, and by the plain-text form [ParseInput]
// accepts when the tool has a positional string parameter:
//
//	Adds two numbers. Input: a JSON object {"a": integer (first addend), "b": integer}
//
// A text agent's tools carry no schema, so this is all it knows of the
// arguments; it is a fraction of the size of the schema.
func Description(spec *adapter.Spec) string {
	return describe(spec, NewShape(spec.InputSchema))
}

func describe(spec *adapter.Spec, a *Shape) string {
	line := "Input: a JSON object " + a.shape
	if a.positional != "" && a.positionalString {
		line += fmt.Sprintf(", or just the %s as plain text", a.positional)
	}
	desc := strings.TrimSpace(spec.Description)
	if desc == "" {
		return line
	}
	if !strings.ContainsAny(desc[len(desc)-1:], ".!?:") {
		desc += "."
	}
	return desc + " " + line
}

// describeSchema renders an object schema as a compact, TypeScript-like
// shape: {"city": string (the city), "days"?: integer = 3}. Keys are quoted
// so that the model sees what to write; "?" marks an optional key.
func describeSchema(root *jsonschema.Schema) string {
	var b strings.Builder
	d := describer{root: root, b: &b}
	d.object(root, 0)
	return b.String()
}

type describer struct {
	root *jsonschema.Schema
	b    *strings.Builder
	refs []string // $refs being expanded, to stop recursion
	// skipNull drops "null" from the next value's types (when others remain).
	skipNull bool
}

func (d *describer) object(s *jsonschema.Schema, depth int) {
	if len(s.Properties) == 0 {
		if ap := s.AdditionalProperties; ap != nil && !isFalse(ap) {
			d.b.WriteString("{[key: string]: ")
			d.value(ap, depth+1)
			d.b.WriteString("}")
			return
		}
		d.b.WriteString("{}")
		return
	}
	d.b.WriteString("{")
	for i, name := range propertyNames(s) {
		if i > 0 {
			d.b.WriteString(", ")
		}
		key, _ := json.Marshal(name)
		d.b.Write(key)
		if !slices.Contains(s.Required, name) {
			d.b.WriteString("?")
		}
		d.b.WriteString(": ")
		p := s.Properties[name]
		// "?" already says the key may be left out; "null|" would repeat it.
		d.skipNull = !slices.Contains(s.Required, name)
		d.value(p, depth+1)
		if p != nil && len(p.Default) > 0 {
			d.b.WriteString(" = ")
			d.b.Write(p.Default)
		}
		if doc := fieldDoc(p); doc != "" {
			d.b.WriteString(" (")
			d.b.WriteString(doc)
			d.b.WriteString(")")
		}
	}
	d.b.WriteString("}")
}

func (d *describer) value(s *jsonschema.Schema, depth int) {
	skipNull := d.skipNull
	d.skipNull = false
	switch {
	case s == nil:
		d.b.WriteString("any")
		return
	case isFalse(s):
		d.b.WriteString("never")
		return
	case s.Ref != "":
		if slices.Contains(d.refs, s.Ref) {
			d.b.WriteString(refName(s.Ref))
			return
		}
		t := resolveRef(d.root, s)
		if t == s { // unresolvable: name it
			d.b.WriteString(refName(s.Ref))
			return
		}
		d.refs = append(d.refs, s.Ref)
		d.value(t, depth)
		d.refs = d.refs[:len(d.refs)-1]
		return
	case s.Const != nil:
		writeJSON(d.b, *s.Const)
		return
	case len(s.Enum) > 0:
		for i, v := range s.Enum {
			if i == maxEnumValues {
				d.b.WriteString("|…")
				break
			}
			if i > 0 {
				d.b.WriteString("|")
			}
			writeJSON(d.b, v)
		}
		return
	}
	if alts := append(slices.Clip(s.AnyOf), s.OneOf...); len(alts) > 0 {
		for i, a := range alts {
			if i > 0 {
				d.b.WriteString(" | ")
			}
			d.value(a, depth)
		}
		return
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if skipNull && len(types) > 1 {
		types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	}
	if len(types) == 0 {
		switch {
		case len(s.Properties) > 0:
			types = []string{"object"}
		case s.Items != nil:
			types = []string{"array"}
		default:
			d.b.WriteString("any")
			return
		}
	}
	for i, t := range types {
		if i > 0 {
			d.b.WriteString("|")
		}
		switch t {
		case "object":
			if depth >= maxDescribeDepth || (len(s.Properties) == 0 && s.AdditionalProperties == nil) {
				d.b.WriteString("object")
			} else {
				d.object(s, depth)
			}
		case "array":
			if s.Items == nil {
				d.b.WriteString("array")
			} else {
				d.value(s.Items, depth+1)
				d.b.WriteString("[]")
			}
		default:
			d.b.WriteString(t)
		}
	}
}

// propertyNames lists properties in declaration order when known (typed
// tools), else sorted.
func propertyNames(s *jsonschema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// fieldDoc is the first sentence of a property's description (or its
// title), cut short.
func fieldDoc(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	doc := s.Description
	if doc == "" {
		doc = s.Title
	}
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.TrimSuffix(doc, ".")
	if utf8.RuneCountInString(doc) > maxFieldDocLen {
		r := []rune(doc)
		doc = strings.TrimSpace(string(r[:maxFieldDocLen-1])) + "…"
	}
	return doc
}

func writeJSON(b *strings.Builder, v any) {
	j, err := json.Marshal(v)
	if err != nil {
		b.WriteString("?")
		return
	}
	b.Write(j)
}

// isFalse reports whether s is the schema that matches nothing ("false").
func isFalse(s *jsonschema.Schema) bool {
	if s == nil || s.Not == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// resolveRef follows a local $ref (#/$defs/X or #/definitions/X) from the
// root schema; other schemas, and refs it cannot follow, are returned as is.
func resolveRef(root, s *jsonschema.Schema) *jsonschema.Schema {
	for range 8 { // refs to refs, bounded
		if s == nil || s.Ref == "" {
			return s
		}
		var t *jsonschema.Schema
		switch {
		case strings.HasPrefix(s.Ref, "#/$defs/"):
			t = root.Defs[strings.TrimPrefix(s.Ref, "#/$defs/")]
		case strings.HasPrefix(s.Ref, "#/definitions/"):
			t = root.Definitions[strings.TrimPrefix(s.Ref, "#/definitions/")]
		case s.Ref == "#":
			t = root
		}
		if t == nil {
			return s
		}
		s = t
	}
	return s
}

func refName(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 && i < len(ref)-1 {
		return ref[i+1:]
	}
	return "object"
}

// allowsType reports whether s admits values of JSON type t.
func allowsType(s *jsonschema.Schema, t string) bool {
	if s == nil {
		return false
	}
	if s.Type != "" {
		return s.Type == t
	}
	if len(s.Types) > 0 {
		return slices.Contains(s.Types, t)
	}
	if len(s.Enum) > 0 {
		for _, v := range s.Enum {
			if jsonTypeOf(v) == t {
				return true
			}
		}
		return false
	}
	for _, a := range append(slices.Clip(s.AnyOf), s.OneOf...) {
		if allowsType(a, t) {
			return true
		}
	}
	return false
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, json.Number, int, int64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}
