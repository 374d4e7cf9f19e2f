package einoadapter

import (
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Keys of [schema.ToolInfo.Extra] set by [Info]; see [kit.ToolMeta] for
// their values.
const (
	ExtraTitle       = "title"       // the spec's title (a string), when it has one
	ExtraAnnotations = "annotations" // MCP's behaviour hints (map[string]bool)
	ExtraSource      = "source"      // "local" or "mcp:<server>"
	ExtraRemoteName  = "remoteName"  // an imported tool's name on its MCP server
	ExtraTags        = "tags"        // the spec's tags ([]string)
	ExtraMeta        = "_meta"       // the spec's Meta (MCP's _meta)
	// ExtraOutputSchema holds the output schema (an eino jsonschema.Schema),
	// for tools with structured output.
	ExtraOutputSchema = "outputSchema"
)

// Info describes spec for an eino model: name, description, the input
// schema converted with [Schema] (nothing lost), and in Extra the title,
// annotations, source, tags, meta and output schema.
func Info(spec *adapter.Spec) (*schema.ToolInfo, error) {
	in, err := Schema(spec.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: tool %q: input schema: %w", spec.Name, err)
	}
	ex := kit.ToolMeta(spec)
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
