package adapter

// MetaKeyUI is the Spec.Meta key of the MCP Apps extension
// (io.modelcontextprotocol/ui): its value is an object whose resourceUri
// names the tool's ui:// resource and whose visibility says who may call
// the tool.
const MetaKeyUI = "ui"

// Callers named in an MCP Apps visibility list (Meta["ui"]["visibility"]).
const (
	// VisibilityModel lets the model be offered the tool.
	VisibilityModel = "model"
	// VisibilityApp lets the app (the tool's UI in the host) call it.
	VisibilityApp = "app"
)

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
	ui, ok := s.Meta[MetaKeyUI]
	if !ok || ui == nil {
		return true
	}
	m, ok := ui.(map[string]any)
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
			if e == VisibilityModel {
				return true
			}
		}
	case []string:
		for _, e := range l {
			if e == VisibilityModel {
				return true
			}
		}
	}
	return false
}
