package kit

import "github.com/agentadapter/agentadapter/adapter"

// Definition is a function definition as a tool-calling model is offered
// one: a tool's name, description and input schema.
type Definition struct {
	Name, Description string
	// Parameters is the input schema as a generic map ([Parameters]), in
	// strict form when Strict.
	Parameters map[string]any
	// Strict reports that Parameters is in strict form ([Strict]).
	Strict bool
}

// Define returns spec's function definition. With strict, the parameters
// are in strict form ([Strict]) when the schema can be: a schema that
// cannot is defined as is, with a SeverityError issue saying why; what
// strict mode cannot carry is dropped from what the model sees (the
// executor still enforces it), with a SeverityWarning issue. A schema that
// does not encode as JSON is defined as an object with any properties,
// with a SeverityError issue. The issues name spec's tool.
func Define(spec *adapter.Spec, strict bool) (Definition, []Issue) {
	d := Definition{Name: spec.Name, Description: spec.Description}
	params, err := Parameters(spec.InputSchema)
	if err != nil {
		d.Parameters = map[string]any{"type": "object"}
		return d, []Issue{{Tool: spec.Name, Severity: SeverityError, Keyword: "schema",
			Message: "the input schema does not encode as JSON: " + err.Error()}}
	}
	d.Parameters = params
	if !strict {
		return d, nil
	}
	sm, issues := Strict(spec.InputSchema)
	for i := range issues {
		issues[i].Tool = spec.Name
	}
	if sm != nil {
		d.Parameters, d.Strict = sm, true
	}
	return d, issues
}
