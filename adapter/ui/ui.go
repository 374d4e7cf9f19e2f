// Package ui names the vocabulary of the MCP Apps extension
// (io.modelcontextprotocol/ui) that tool specs carry in their Meta:
//
//	spec.Meta = map[string]any{ui.MetaKey: map[string]any{
//		"resourceUri": "ui://weather/panel",
//		"visibility":  []any{ui.VisibilityApp}, // the app may call it; no model is offered it
//	}}
//
// adapter.Spec.ModelVisible reads the visibility. The package imports
// nothing.
package ui

// MetaKey is the Spec.Meta key of the MCP Apps extension
// (io.modelcontextprotocol/ui): its value is an object whose resourceUri
// names the tool's ui:// resource and whose visibility says who may call
// the tool.
const MetaKey = "ui"

// Callers named in an MCP Apps visibility list (Meta["ui"]["visibility"]).
const (
	// VisibilityModel lets the model be offered the tool.
	VisibilityModel = "model"
	// VisibilityApp lets the app (the tool's UI in the host) call it.
	VisibilityApp = "app"
)
