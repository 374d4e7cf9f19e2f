package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
)

// A meta-tool's call (Spec.Forward) runs as the call it names: validated
// against the named tool's schema, one record under its name; a forward to
// no spec, or to another meta-tool, is an unknown tool of that name; an
// error of Forward fails the call under the meta-tool's name; arguments
// over the limit never reach Forward.
func TestForward(t *testing.T) {
	ctx := context.Background()
	obj := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"n": {Type: "integer"}}}
	target := adapter.MustRawTool("target", "the named tool", obj, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		return adapter.TextResult("target " + string(args)), nil
	}, nil)
	var meta, loop *adapter.Spec
	meta = &adapter.Spec{Name: "meta", InputSchema: &jsonschema.Schema{Type: "object"},
		Handler: func(context.Context, json.RawMessage) (*adapter.Result, error) {
			t.Error("a forwarding spec's Handler ran")
			return nil, nil
		},
		Forward: func(_ context.Context, args json.RawMessage) (*adapter.Request, error) {
			var in struct {
				Name string
				Args json.RawMessage
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, adapter.NewError(adapter.KindArgsInvalid, "bad forward")
			}
			switch in.Name {
			case "target":
				return &adapter.Request{Tool: "target", Spec: target, Args: in.Args}, nil
			case "loop":
				return &adapter.Request{Tool: "loop", Spec: loop, Args: in.Args}, nil
			}
			return &adapter.Request{Tool: in.Name}, nil
		}}
	loop = meta
	led := ledger.NewMemory(0)
	exec := adapter.NewExecutor(nil, &adapter.ExecutorOptions{Ledger: led, MaxArgBytes: 64})
	defer exec.Close()
	run := func(args string) (*adapter.Result, error) {
		return exec.Do(ctx, &adapter.Request{Spec: meta, Args: json.RawMessage(args)})
	}
	if res, err := run(`{"Name":"target","Args":{"n":1}}`); err != nil || res.Text() != `target {"n":1}` {
		t.Errorf("forwarded call: %v, %v", res, err)
	}
	for args, kind := range map[string]adapter.Kind{
		`{"Name":"target","Args":{"n":"x"}}`: adapter.KindArgsInvalid,
		`{"Name":"nope"}`:                    adapter.KindNotFound,
		`{"Name":"loop"}`:                    adapter.KindNotFound,
		`[]`:                                 adapter.KindArgsInvalid,
		`{"Name":"` + strings.Repeat("x", 64) + `"}`: adapter.KindArgsInvalid,
	} {
		var ae *adapter.Error
		if _, err := run(args); !errors.As(err, &ae) || ae.Kind != kind {
			t.Errorf("%s: %v, want %s", args, err, kind)
		}
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range led.Records() {
		got = append(got, r.Tool+":"+r.Outcome)
	}
	slices.Sort(got)
	want := []string{"loop:not_found", "meta:args_invalid", "meta:args_invalid", "nope:not_found", "target:args_invalid", "target:ok"}
	if !slices.Equal(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
}
