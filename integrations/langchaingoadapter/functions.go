package langchaingoadapter

import (
	"github.com/tmc/langchaingo/llms"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

// DefinitionOptions configure [Definitions]. The zero value is valid.
type DefinitionOptions struct {
	// Filter selects the registry's tools; its Target is always langchaingo.
	Filter registry.Filter
	// Strict asks for strict schemas (OpenAI structured outputs): every
	// object closed with additionalProperties false and every property
	// required, optional ones made nullable. A tool whose schema cannot be
	// made strict is defined without Strict and reported with a
	// kit.SeverityError issue; constraints strict mode cannot carry are
	// dropped from what the model sees (the executor still enforces them)
	// and reported as warnings (see [kit.Strict]).
	Strict bool
}

// Definitions returns function definitions, with full input schemas, for
// the tools in reg that target langchaingo, ordered by name: pass them to
// a model with llms.WithTools, and answer its tool calls with a
// [Dispatcher]. Parameters are map[string]any, the type every langchaingo
// provider accepts. issues lists what strict mode could not express (none
// without Strict).
func Definitions(reg *registry.Registry, opts *DefinitionOptions) (defs []llms.Tool, issues []kit.Issue) {
	if opts == nil {
		opts = &DefinitionOptions{}
	}
	for s := range reg.List(kit.Filter(opts.Filter, adapter.TargetLangchaingo)) { // no app-only tools
		def, is := Definition(s, opts.Strict)
		defs = append(defs, def)
		issues = append(issues, is...)
	}
	return defs, issues
}

// Definition returns the function definition of one spec; see
// [Definitions].
func Definition(spec *adapter.Spec, strict bool) (llms.Tool, []kit.Issue) {
	params, err := kit.Parameters(spec.InputSchema)
	if err != nil {
		return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
				Name: spec.Name, Description: spec.Description, Parameters: map[string]any{"type": "object"},
			}}, []kit.Issue{{Tool: spec.Name, Severity: kit.SeverityError, Keyword: "schema",
				Message: "the input schema does not encode as JSON: " + err.Error()}}
	}
	fn := &llms.FunctionDefinition{Name: spec.Name, Description: spec.Description, Parameters: params}
	if !strict {
		return llms.Tool{Type: "function", Function: fn}, nil
	}
	sm, issues := kit.Strict(spec.InputSchema)
	for i := range issues {
		issues[i].Tool = spec.Name
	}
	if sm != nil {
		fn.Parameters = sm
		fn.Strict = true
	}
	return llms.Tool{Type: "function", Function: fn}, issues
}
