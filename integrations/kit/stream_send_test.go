package kit_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestTextStreamSend(t *testing.T) {
	reg := registry.New()
	spec := storySpec()
	reg.MustRegister(spec)
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	for _, tt := range []struct {
		name  string
		args  string
		after int // the reader goes after this many chunks; 0: never
		want  []string
	}{
		{"to the end", `{"words":["a","b","c"]}`, 0, []string{"a", "b", "c"}},
		{"a failure as its payload", `{"words":["a","FAIL"]}`, 0,
			[]string{"a", `{"error":{"kind":"tool_error","message":"the story broke","tool":"story"}}`}},
		{"the reader goes", `{"words":["a","b","c"]}`, 2, []string{"a", "b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := kit.StreamText(context.Background(), exec, &adapter.Request{Spec: spec, Args: []byte(tt.args), Integration: "myfw"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			ts.Send(func(text string, err error) bool {
				if err != nil {
					t.Errorf("error chunk: %v", err)
				}
				got = append(got, text)
				return len(got) == tt.after
			})
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
