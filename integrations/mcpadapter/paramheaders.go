package mcpadapter

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/paramheader"
)

// SEP-2243 (2026-07-28): a tool's input properties annotated with
// x-mcp-header are mirrored into Mcp-Param-<name> request headers
// (internal/paramheader). go-sdk sets them from its cache of the session's
// last tools/list, which a refresh empties before it lists again (and
// which is gone after a failed refresh or on a new session); the conn's
// paramheader.Transport sets them from the imported, pinned, definition
// instead, on every call.

// paramBindings returns the bindings of the tool in force imported under
// a remote name.
func (c *conn) paramBindings(name string) []paramheader.Binding {
	imp := c.importedByRemote(name)
	if imp == nil {
		return nil
	}
	return c.bindingsOf(imp)
}

// bindingsOf returns the bindings of an imported tool, computed once.
func (c *conn) bindingsOf(imp *imported) []paramheader.Binding {
	if v, ok := c.paramHeaders.Load(imp); ok {
		return v.([]paramheader.Binding)
	}
	var bs []paramheader.Binding
	if s, ok := imp.tool.InputSchema.(*jsonschema.Schema); ok {
		bs = paramheader.Bindings(s)
	}
	v, _ := c.paramHeaders.LoadOrStore(imp, bs)
	return v.([]paramheader.Binding)
}

// importedByRemote returns the tool in force imported under a remote name.
func (c *conn) importedByRemote(name string) *imported {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools[name]
}
