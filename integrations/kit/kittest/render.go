package kittest

// The render cases are the results every integration must show a model
// alike: tools whose results cover each rendering rule, and the golden text
// a model reads of each (testdata/model_text.json). This package's test
// writes the golden from adapter.Render (go test ./integrations/kit/kittest
// -update); [Run] runs the same tools through an integration and compares
// what its model reads with the same file.

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// GoldenFile is the golden's path relative to this package's directory.
const GoldenFile = "testdata/model_text.json"

//go:embed testdata/model_text.json
var golden []byte

// Golden returns the golden text of each case, by case name.
func Golden() (map[string]string, error) {
	var m map[string]string
	if err := json.Unmarshal(golden, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Case is one result to render.
type Case struct {
	// Name names the case; the tool is named "rc_" + Name.
	Name string
	// Spec is a tool that returns the case's result (or fails, for the
	// error payload), ignoring its arguments.
	Spec *adapter.Spec
}

// Weather is the object of the structured cases.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

var png = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13}

// Blob300K is the size of the binary resource case.
const Blob300K = 300 << 10

func raw(name string, res *adapter.Result, out *jsonschema.Schema) *adapter.Spec {
	return adapter.MustRawTool("rc_"+name, "returns the "+name+" case", &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return res, nil },
		&adapter.ToolOptions{OutputSchema: out, Annotations: readOnly})
}

type none struct{}

func typed[Out any](name string, v Out) *adapter.Spec {
	return adapter.MustTool("rc_"+name, "returns the "+name+" case",
		func(context.Context, none) (Out, error) { return v, nil }, &adapter.ToolOptions{Annotations: readOnly})
}

var readOnly = adapter.Annotations{ReadOnly: true}

// Cases returns the render cases, in a fixed order.
func Cases() []Case {
	size := int64(2048)
	blob := bytes.Repeat([]byte{0, 0xff, 'A', '\n'}, Blob300K/4)
	specs := []*adapter.Spec{
		raw("text", adapter.TextResult("It is 21.5°C in Paris."), nil),
		raw("empty", &adapter.Result{}, nil), // no content, no structured content (an MCP tool's content: [])
		raw("structured_only", &adapter.Result{Structured: map[string]any{"city": "Paris", "temp_c": 21.5, "note": "<sunny> & warm"}},
			&jsonschema.Schema{Type: "object"}),
		typed("string_markup", "a <b> & \"c\"\nline 2"),
		typed("string_list", []string{"alpha", "<beta>", "gamma & delta"}),
		typed("empty_list", []string{}),
		typed("nil_optional", (*Weather)(nil)),
		typed("object", Weather{City: "<Saint-Malo>", TempC: 12}),
		raw("image", &adapter.Result{Content: []adapter.Content{
			&adapter.TextContent{Text: "a red dot:"},
			&adapter.ImageContent{Data: png, MIMEType: "image/png"},
		}}, nil),
		raw("audio", &adapter.Result{Content: []adapter.Content{&adapter.AudioContent{Data: []byte("RIFF0000WAVE"), MIMEType: "audio/wav"}}}, nil),
		raw("embedded_text", &adapter.Result{Content: []adapter.Content{&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{
			URI: "file:///notes.md", MIMEType: "text/markdown", Text: "# Notes\n<b>bold</b> & more",
		}}}}, nil),
		raw("binary_300k", &adapter.Result{Content: []adapter.Content{&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{
			URI: "file:///data.bin", MIMEType: "application/octet-stream", Blob: blob,
		}}}}, nil),
		raw("resource_link", &adapter.Result{Content: []adapter.Content{&adapter.ResourceLink{
			URI: "https://example.com/report.pdf", Name: "report.pdf", Title: "Q3 report", MIMEType: "application/pdf", Size: &size,
			Description: "the quarterly report",
		}}}, nil),
		adapter.MustTool("rc_error", "fails", func(context.Context, none) (string, error) {
			return "", errors.New("disk <full> & \"gone\"\nsecond line")
		}, &adapter.ToolOptions{Annotations: readOnly}),
	}
	out := make([]Case, len(specs))
	for i, s := range specs {
		out[i] = Case{Name: s.Name[len("rc_"):], Spec: s}
	}
	return out
}

// Expected returns what a model must read when the case's tool is called
// through exec: the result rendered by adapter.Render, or the model
// payload of its error. It is what the golden file records.
func Expected(ctx context.Context, exec *adapter.Executor, c Case) (string, error) {
	res, err := exec.Do(ctx, &adapter.Request{Spec: c.Spec})
	if err != nil {
		p, ok := adapter.ModelPayload(err)
		if !ok {
			return "", err
		}
		return p, nil
	}
	return adapter.Render(res, nil), nil
}
