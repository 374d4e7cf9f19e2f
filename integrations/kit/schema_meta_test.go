package kit_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestToolMeta(t *testing.T) {
	no := false
	s := adapter.MustTool("add", "adds", func(context.Context, struct{}) (string, error) { return "", nil },
		&adapter.ToolOptions{Title: "Adder", Tags: []string{"math"}, Annotations: adapter.Annotations{Idempotent: true, OpenWorld: &no},
			Source: adapter.Source{Server: "calc", RemoteName: "calc.add"}, Meta: map[string]any{"k": "v"}})
	want := map[string]any{
		"title": "Adder", "source": "mcp:calc", "remoteName": "calc.add", "tags": []string{"math"},
		"annotations": map[string]bool{"readOnlyHint": false, "idempotentHint": true, "openWorldHint": false},
		"_meta":       map[string]any{"k": "v"},
	}
	got := kit.ToolMeta(s)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolMeta (-want +got):\n%s", diff)
	}
	got["tags"].([]string)[0] = "changed"
	if s.Tags[0] != "math" {
		t.Errorf("ToolMeta shares the spec's tags")
	}
	local := adapter.MustTool("l", "", func(context.Context, struct{}) (string, error) { return "", nil }, nil)
	if diff := cmp.Diff(map[string]any{"source": "local", "annotations": map[string]bool{"readOnlyHint": false, "idempotentHint": false}}, kit.ToolMeta(local)); diff != "" {
		t.Errorf("ToolMeta of a bare local spec (-want +got):\n%s", diff)
	}
}
