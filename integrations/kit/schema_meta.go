package kit

import "github.com/agentadapter/agentadapter/adapter"

// ToolMeta returns what a spec tells a model or a program about its tool
// beyond its name, description and schemas, as a fresh map under the names
// MCP gives them, for a framework whose tool description carries free-form
// metadata: "source" ("local" or "mcp:<server>"); "annotations", a
// map[string]bool with readOnlyHint, idempotentHint, and destructiveHint
// and openWorldHint when the spec sets them; and, when set, "title",
// "remoteName" (an imported tool's name on its server), "tags" (a copy)
// and "_meta".
func ToolMeta(spec *adapter.Spec) map[string]any {
	m := map[string]any{"source": spec.Source.String()}
	if spec.Title != "" {
		m["title"] = spec.Title
	}
	if spec.Source.RemoteName != "" {
		m["remoteName"] = spec.Source.RemoteName
	}
	a := spec.Annotations
	ann := map[string]bool{"readOnlyHint": a.ReadOnly, "idempotentHint": a.Idempotent}
	if a.Destructive != nil {
		ann["destructiveHint"] = *a.Destructive
	}
	if a.OpenWorld != nil {
		ann["openWorldHint"] = *a.OpenWorld
	}
	m["annotations"] = ann
	if len(spec.Tags) > 0 {
		m["tags"] = append([]string(nil), spec.Tags...)
	}
	if len(spec.Meta) > 0 {
		m["_meta"] = spec.Meta
	}
	return m
}
