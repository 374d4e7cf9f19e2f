package einoadapter

import (
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/schema"
	ejs "github.com/eino-contrib/jsonschema"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

// Schema converts one of our JSON schemas to eino's schema type without
// losing a keyword: "definitions" become "$defs" with their "$ref"s
// rewritten ([kit.ParseSchema]), property order is kept, and keywords and
// values eino's fields cannot hold (vendor extensions, a draft-07 array
// "items", a null "const"...) go to Extras, which eino marshals inline: a
// model provider receives the JSON we started from. Nil converts to nil.
func Schema(s *jsonschema.Schema) (*ejs.Schema, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("einoadapter: marshaling schema: %w", err)
	}
	return SchemaFromJSON(b)
}

// SchemaFromJSON is like [Schema] for a schema given as JSON text.
func SchemaFromJSON(data []byte) (*ejs.Schema, error) {
	s, err := kit.SchemaStruct(data, unmarshalSchema, func(s *ejs.Schema, x map[string]any) { s.Extras = x })
	if err != nil {
		return nil, fmt.Errorf("einoadapter: converting schema: %w", err)
	}
	return s, nil
}

// unmarshalSchema decodes into eino's schema type, whose decoder panics on
// some inputs (a null "type").
func unmarshalSchema(data []byte, s *ejs.Schema) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("eino's schema decoder failed: %v", p)
		}
	}()
	return json.Unmarshal(data, s)
}

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
