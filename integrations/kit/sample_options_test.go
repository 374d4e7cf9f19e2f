package kit_test

import (
	"fmt"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestSampleOptions(t *testing.T) {
	maxTokens := func(n int) string { return fmt.Sprint("max=", n) }
	stop := func(s []string) string { return fmt.Sprint("stop=", s) }
	temp := func(f float64) string { return fmt.Sprint("temp=", f) }
	for _, tt := range []struct {
		req  kit.SampleRequest
		want string
	}{
		{kit.SampleRequest{}, "[]"},
		{kit.SampleRequest{MaxTokens: 64, StopSequences: []string{"END"}, Temperature: 0.5}, "[max=64 stop=[END] temp=0.5]"},
		{kit.SampleRequest{MaxTokens: -1, Temperature: -0.2}, "[temp=-0.2]"},
		{kit.SampleRequest{StopSequences: []string{}}, "[]"},
	} {
		if got := kit.SampleOptions(&tt.req, maxTokens, stop, temp); fmt.Sprint(got) != tt.want {
			t.Errorf("SampleOptions(%+v) = %v, want %s", tt.req, got, tt.want)
		}
	}
}
