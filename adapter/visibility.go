package adapter

import "github.com/agentadapter/agentadapter/adapter/ui"

// ModelVisible reports whether the tool may be offered to a model. It reads
// the MCP Apps visibility (Meta["ui"]["visibility"]): absent means
// ["model", "app"], the extension's default, and so true; a list is true
// when it names "model". Any other value (an empty list, ["app"], a string,
// a number) is false: a server that restricts a tool in a form we cannot
// read is not overruled. The framework integrations (Eino, Genkit,
// langchaingo) offer only the specs for which it is true and answer a
// model's call to any other as to an unknown tool; the MCP export lists
// every spec, since an MCP host's app calls app-only tools through it.
func (s *Spec) ModelVisible() bool {
	val, ok := s.Meta[ui.MetaKey]
	if !ok || val == nil {
		return true
	}
	m, ok := val.(map[string]any)
	if !ok {
		return true // not the extension's object: no visibility stated
	}
	v, ok := m["visibility"]
	if !ok || v == nil {
		return true
	}
	switch l := v.(type) {
	case []any:
		for _, e := range l {
			if e == ui.VisibilityModel {
				return true
			}
		}
	case []string:
		for _, e := range l {
			if e == ui.VisibilityModel {
				return true
			}
		}
	}
	return false
}
