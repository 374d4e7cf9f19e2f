package einoadapter

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
)

// Keys of [schema.ToolInfo.Extra] set by [Info].
const (
	// ExtraTitle holds the spec's title (a string), when it has one.
	ExtraTitle = "title"
	// ExtraAnnotations holds the behaviour hints as in MCP: a
	// map[string]bool with readOnlyHint, idempotentHint, and
	// destructiveHint and openWorldHint when set.
	ExtraAnnotations = "annotations"
	// ExtraSource holds where the tool comes from: "local" or "mcp:<server>".
	ExtraSource = "source"
	// ExtraRemoteName holds an imported tool's name on its MCP server.
	ExtraRemoteName = "remoteName"
	// ExtraOutputSchema holds the output schema (an eino jsonschema.Schema),
	// for tools with structured output.
	ExtraOutputSchema = "outputSchema"
	// ExtraTags holds the spec's tags ([]string).
	ExtraTags = "tags"
	// ExtraMeta holds the spec's Meta (MCP's _meta).
	ExtraMeta = "_meta"
)

// Info describes spec for an eino model: name, description, the input
// schema converted with [Schema] (nothing lost), and in Extra the title,
// annotations, source, tags, meta and output schema.
func Info(spec *adapter.Spec) (*schema.ToolInfo, error) {
	in, err := Schema(spec.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: tool %q: input schema: %w", spec.Name, err)
	}
	ex := map[string]any{ExtraSource: spec.Source.String()}
	if spec.Title != "" {
		ex[ExtraTitle] = spec.Title
	}
	if spec.Source.RemoteName != "" {
		ex[ExtraRemoteName] = spec.Source.RemoteName
	}
	a := spec.Annotations
	ann := map[string]bool{"readOnlyHint": a.ReadOnly, "idempotentHint": a.Idempotent}
	if a.Destructive != nil {
		ann["destructiveHint"] = *a.Destructive
	}
	if a.OpenWorld != nil {
		ann["openWorldHint"] = *a.OpenWorld
	}
	ex[ExtraAnnotations] = ann
	if len(spec.Tags) > 0 {
		ex[ExtraTags] = append([]string(nil), spec.Tags...)
	}
	if len(spec.Meta) > 0 {
		ex[ExtraMeta] = spec.Meta
	}
	if spec.OutputSchema != nil {
		out, err := Schema(spec.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("einoadapter: tool %q: output schema: %w", spec.Name, err)
		}
		ex[ExtraOutputSchema] = out
	}
	info := &schema.ToolInfo{Name: spec.Name, Desc: spec.Description, Extra: ex}
	if in != nil {
		info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(in)
	}
	return info, nil
}
