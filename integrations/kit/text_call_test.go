package kit_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestShapes(t *testing.T) {
	var c kit.Shapes
	a := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}}}
	b := &jsonschema.Schema{Type: "object"}
	sa := c.Of(a)
	if sa.Schema() != a || sa.String() != kit.NewShape(a).String() {
		t.Fatalf("Of(a) = %v, not a's shape", sa)
	}
	if c.Of(a) != sa {
		t.Error("Of(a) recomputed a cached shape")
	}
	if c.Of(b).Schema() != b {
		t.Error("Of(b) returned another schema's shape")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { c.Of(b) })
	}
	wg.Wait()
}

func TestCallText(t *testing.T) {
	type addr struct {
		Street string `json:"street"`
		Zip    string `json:"zip,omitempty"`
	}
	type in struct {
		City string `json:"city"`
		To   addr   `json:"to,omitempty"`
	}
	var got in
	spec := adapter.MustTool("weather", "", func(_ context.Context, a in) (string, error) { got = a; return "sunny in " + a.City, nil }, nil)
	reg := registry.New()
	reg.MustRegister(spec)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ctx := context.Background()
	shape := kit.NewShape(spec.InputSchema)
	req := &adapter.Request{Spec: spec, CallID: "c1", Integration: "myfw"}

	out, err := kit.CallText(ctx, exec, req, "Paris", shape, nil)
	if err != nil || out != "sunny in Paris" {
		t.Errorf("CallText(Paris) = %q, %v; want the rendered result", out, err)
	}
	if req.Args != nil {
		t.Error("CallText modified the request")
	}

	_, err = kit.CallText(ctx, exec, req, "[1,", kit.NewShape(&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "integer"}, "b": {Type: "integer"}}}), nil)
	e, ok := err.(*adapter.Error)
	if !ok || e.Kind != adapter.KindArgsInvalid || e.Tool != "weather" || e.CallID != "c1" {
		t.Errorf("CallText(bad input) = %#v; want args_invalid naming the tool and call", err)
	}

	_, err = kit.CallText(ctx, exec, req, `{"city": 3}`, shape, nil)
	if e, ok := err.(*adapter.Error); !ok || e.Kind != adapter.KindArgsInvalid || !strings.Contains(e.Message, "send a JSON object") {
		t.Errorf("CallText(schema violation) = %v; want args_invalid with the shape to send", err)
	}

	if _, err := kit.CallText(ctx, exec, req, `{"city":"Rome","to":{"street":"Main","zip":null}}`, shape, nil); err == nil {
		t.Error("a nested null for a non-nullable property was accepted without DropOmittedNulls")
	}
	out, err = kit.CallText(ctx, exec, req, `{"city":"Rome","to":{"street":"Main","zip":null}}`, shape, &kit.TextOptions{DropOmittedNulls: true})
	if err != nil || out != "sunny in Rome" || got.To != (addr{Street: "Main"}) {
		t.Errorf("CallText(DropOmittedNulls) = %q, %v (to %+v); want the null read as omitted", out, err, got.To)
	}
}
