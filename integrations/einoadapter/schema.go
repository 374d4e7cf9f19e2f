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

// Schema converts a JSON schema to eino's schema type keeping every keyword
// ([kit.SchemaStruct]): what eino's fields cannot hold goes to Extras, which
// eino marshals inline. Nil converts to nil.
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

// unmarshalSchema contains the panics of eino's decoder (on a null "type").
func unmarshalSchema(data []byte, s *ejs.Schema) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("eino's schema decoder failed: %v", p)
		}
	}()
	return json.Unmarshal(data, s)
}

// ExtraOutputSchema is the key of [schema.ToolInfo.Extra] holding a
// tool's output schema (an eino-contrib *jsonschema.Schema); [Info] sets
// the other keys to [kit.ToolMeta]'s.
const ExtraOutputSchema = "outputSchema"

// Info describes spec for an eino model: its name, description and input
// schema ([Schema]), and in Extra its [kit.ToolMeta] and output schema.
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
