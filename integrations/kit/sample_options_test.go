package kit_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestModelOptions(t *testing.T) {
	opt := func(name string) func(any) string { return func(v any) string { return fmt.Sprint(name, "=", v) } }
	maxTokens, stop, temp := opt("max"), opt("stop"), opt("temp")
	for _, tt := range []struct {
		name string
		req  kit.SampleRequest
		want []string
	}{
		{"none set", kit.SampleRequest{}, nil},
		{"all set, in order", kit.SampleRequest{MaxTokens: 64, StopSequences: []string{"END"}, Temperature: 0.5},
			[]string{"max=64", "stop=[END]", "temp=0.5"}},
		{"negative max tokens unset", kit.SampleRequest{MaxTokens: -1, Temperature: -0.5}, []string{"temp=-0.5"}},
		{"empty stop list unset", kit.SampleRequest{StopSequences: []string{}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := kit.ModelOptions(&tt.req,
				func(n int) string { return maxTokens(n) },
				func(s []string) string { return stop(s) },
				func(f float64) string { return temp(f) })
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
