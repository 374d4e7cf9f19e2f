package argcheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Violation turns a jsonschema-go error chain ("validating root: validating
// /properties/a: type: ...") into "at $.a: type: ...". The chain names
// schema locations, so a list item reads $.a[*]; the index of the item at
// fault is found again from the instance ($.a[2]), so that a model can fix
// the one item it got wrong.
func Violation(err error, rs *jsonschema.Resolved, inst any) string {
	msg := err.Error()
	path := ""
	for strings.HasPrefix(msg, "validating ") {
		rest := msg[len("validating "):]
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		if p := rest[:i]; p != "root" && !strings.HasPrefix(p, "<") {
			path = p
		}
		msg = rest[i+2:]
	}
	// jsonschema-go prints a JSON null as "<invalid reflect.Value>".
	msg = strings.ReplaceAll(msg, "<invalid reflect.Value>", "null")
	segs := instancePath(path)
	if rs != nil {
		indexItems(segs, rs, inst, err.Error())
	}
	return "at " + pathString(segs) + ": " + msg
}

// A pathSeg is one step of an instance path: a property name, an item
// (index -1 until found), or any property (additionalProperties).
type pathSeg struct {
	prop  string
	item  bool
	index int
	any   bool
}

// instancePath maps a schema path (/properties/a/items/properties/b) to the
// instance path it validates ($.a[*].b).
func instancePath(schemaPath string) []pathSeg {
	var segs []pathSeg
	parts := strings.Split(strings.Trim(schemaPath, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "", "$defs", "definitions":
			if parts[i] != "" {
				i++ // skip the definition's name
			}
		case "properties", "patternProperties":
			if i+1 < len(parts) {
				segs = append(segs, pathSeg{prop: strings.ReplaceAll(strings.ReplaceAll(parts[i+1], "~1", "/"), "~0", "~")})
				i++
			}
		case "items", "additionalItems", "prefixItems":
			segs = append(segs, pathSeg{item: true, index: -1})
		case "additionalProperties":
			segs = append(segs, pathSeg{any: true})
		}
	}
	return segs
}

func pathString(segs []pathSeg) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range segs {
		switch {
		case s.item && s.index >= 0:
			b.WriteString("[")
			b.WriteString(strconv.Itoa(s.index))
			b.WriteString("]")
		case s.item:
			b.WriteString("[*]")
		case s.any:
			b.WriteString(".*")
		default:
			b.WriteString(".")
			b.WriteString(s.prop)
		}
	}
	return b.String()
}

// maxIndexedItems bounds the items searched for the one at fault; past it
// the path keeps [*].
const maxIndexedItems = 256

// indexItems fills in the index of each item step of segs. The validator
// stops at the first failing item, in order, so the item at fault is the
// first i for which the instance cut down to items 0..i fails with the same
// error. Every item step is resolved in turn, outermost first.
func indexItems(segs []pathSeg, rs *jsonschema.Resolved, inst any, want string) {
	for k := range segs {
		if !segs[k].item {
			continue
		}
		list, ok := lookup(inst, segs[:k]).([]any)
		if !ok || len(list) > maxIndexedItems {
			return
		}
		found := false
		for i := range list {
			cut := replaceAt(inst, segs[:k], list[:i+1])
			if err := rs.Validate(cut); err != nil && err.Error() == want {
				segs[k].index = i
				found = true
				break
			}
		}
		if !found {
			return
		}
	}
}

// lookup returns the value at path in v, nil if there is none.
func lookup(v any, path []pathSeg) any {
	for _, s := range path {
		switch {
		case s.item:
			l, ok := v.([]any)
			if !ok || s.index < 0 || s.index >= len(l) {
				return nil
			}
			v = l[s.index]
		case s.any:
			return nil
		default:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[s.prop]
		}
	}
	return v
}

// replaceAt returns a copy of v with the value at path replaced by x,
// copying only the maps and lists along the path.
func replaceAt(v any, path []pathSeg, x any) any {
	if len(path) == 0 {
		return x
	}
	s := path[0]
	switch {
	case s.item:
		l, _ := v.([]any)
		c := slices.Clone(l)
		c[s.index] = replaceAt(l[s.index], path[1:], x)
		return c
	default:
		m, _ := v.(map[string]any)
		c := maps.Clone(m)
		c[s.prop] = replaceAt(m[s.prop], path[1:], x)
		return c
	}
}

// JSONErrorText describes a JSON decoding error without Go type names,
// which mean nothing to a model.
func JSONErrorText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte offset %d)", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := "$"
		if te.Field != "" {
			path += "." + te.Field
		}
		return fmt.Sprintf("at %s: a JSON %s does not fit here", path, te.Value)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of JSON input"
	}
	return "the JSON does not have the expected shape"
}

func JSONTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}
