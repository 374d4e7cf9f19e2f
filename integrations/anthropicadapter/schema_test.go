package anthropicadapter_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
)

const richSchema = `{
	"type": "object",
	"description": "a search",
	"properties": {
		"q": {"type": "string", "minLength": 1, "description": "the query"},
		"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
		"sort": {"enum": ["asc", "desc"]},
		"filter": {"$ref": "#/$defs/filter"},
		"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
	},
	"required": ["q"],
	"additionalProperties": false,
	"$defs": {"filter": {"type": "object", "properties": {"field": {"type": "string"}}, "patternProperties": {"^x-": {}}}},
	"x-vendor": {"kept": true}
}`

// TestInputSchema: the model is offered the spec's input schema keyword
// for keyword, as the request the SDK sends shows.
func TestInputSchema(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(richSchema), &s); err != nil {
		t.Fatal(err)
	}
	spec := adapter.MustRawTool("search", "searches", &s, func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult("none"), nil
	}, &adapter.ToolOptions{Annotations: closed})
	f := newFixture(t, nil, spec)
	api := newFakeAPI(t, script())
	c := api.client()
	if _, err := f.tools.Run(context.Background(), &c.Beta.Messages, ask("go")); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema any    `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(api.body(0)), &body); err != nil || len(body.Tools) != 1 {
		t.Fatalf("tools %s: %v", api.body(0), err)
	}
	want, err := adapter.SchemaMap(spec.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(want)
	var w any
	_ = json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(body.Tools[0].InputSchema, w) {
		got, _ := json.Marshal(body.Tools[0].InputSchema)
		t.Errorf("the model was offered\n%s\nwant the spec's\n%s", got, wb)
	}
	if _, ok := w.(map[string]any)["x-vendor"]; !ok {
		t.Errorf("the spec's schema lost its unknown keyword, so the test shows nothing: %s", wb)
	}
	if s, err := anthropicadapter.InputSchema(spec); err != nil || s.Required[0] != "q" {
		t.Errorf("InputSchema: %+v, %v", s, err)
	}
}
