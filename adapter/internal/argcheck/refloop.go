package argcheck

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// RefLoop reports a schema that reaches itself through $ref and in-place
// applicators (allOf, anyOf, oneOf, not, if/then/else, dependentSchemas)
// without descending into the instance. jsonschema-go resolves such a
// schema, but validating against it recurses until the stack overflows,
// which kills the process; a server could send one on purpose.
func RefLoop(root any) error {
	const (
		active = 1
		done   = 2
	)
	state := map[uintptr]int{}
	var visit func(v any, path string, depth int) string
	visit = func(v any, path string, depth int) string {
		m, ok := v.(map[string]any)
		if !ok || depth > 1000 {
			return ""
		}
		k := reflect.ValueOf(m).Pointer()
		switch state[k] {
		case active:
			return path
		case done:
			return ""
		}
		state[k] = active
		type edge struct {
			v    any
			path string
		}
		var next []edge
		if ref, ok := m["$ref"].(string); ok {
			if target := pointer(root, ref); target != nil {
				next = append(next, edge{target, ref})
			}
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if list, ok := m[kw].([]any); ok {
				for i, sub := range list {
					next = append(next, edge{sub, fmt.Sprintf("%s/%s/%d", path, kw, i)})
				}
			}
		}
		for _, kw := range []string{"not", "if", "then", "else"} {
			if sub, ok := m[kw]; ok {
				next = append(next, edge{sub, path + "/" + kw})
			}
		}
		if deps, ok := m["dependentSchemas"].(map[string]any); ok {
			for name, sub := range deps {
				next = append(next, edge{sub, path + "/dependentSchemas/" + name})
			}
		}
		for _, n := range next {
			if p := visit(n.v, n.path, depth+1); p != "" {
				return p
			}
		}
		state[k] = done
		return ""
	}
	var walk func(v any, path string) string
	walk = func(v any, path string) string {
		switch v := v.(type) {
		case map[string]any:
			if p := visit(v, path, 0); p != "" {
				return p
			}
			for key, sub := range v {
				if p := walk(sub, path+"/"+key); p != "" {
					return p
				}
			}
		case []any:
			for i, sub := range v {
				if p := walk(sub, path+"/"+strconv.Itoa(i)); p != "" {
					return p
				}
			}
		}
		return ""
	}
	if p := walk(root, "#"); p != "" {
		return fmt.Errorf("schema refers to itself at %s without consuming any input (a $ref loop)", p)
	}
	return nil
}

// pointer resolves a local reference ("#", "#/$defs/a") in root; it returns
// nil for anything else.
func pointer(root any, ref string) any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil
	}
	v := root
	if frag == "" {
		return v
	}
	if !strings.HasPrefix(frag, "/") {
		return nil // an anchor: not followed
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}
