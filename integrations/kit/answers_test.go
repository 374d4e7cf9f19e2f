package kit_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestAnswers(t *testing.T) {
	fault := &adapter.Error{Kind: adapter.KindConnection, Tool: "b", Message: "secret upstream detail"}
	call := func(_ context.Context, c string) (string, error) {
		if c == "b" {
			return "", fault
		}
		return "out " + c, nil
	}
	for _, tt := range []struct {
		name   string
		calls  []string
		want   string
		faults int
	}{
		{"none", nil, "[]", 0},
		{"all answered", []string{"a", "c"}, "[out a out c]", 0},
		{"a fault", []string{"a", "b", "c"}, "[out a " + kit.FaultPayload(fault) + " out c]", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := kit.Answers(context.Background(), 0, tt.calls, call)
			if fmt.Sprint(got) != tt.want {
				t.Errorf("Answers = %v, want %s", got, tt.want)
			}
			if tt.faults == 0 && err != nil || tt.faults > 0 && !errors.Is(err, fault) {
				t.Errorf("Answers error = %v, want %d faults", err, tt.faults)
			}
		})
	}

	for _, tt := range []struct{ limit, want int }{{0, kit.DefaultParallelism}, {1, 1}, {3, 3}} {
		var now, peak atomic.Int32
		calls := make([]int, 12)
		_, err := kit.Answers(context.Background(), tt.limit, calls, func(context.Context, int) (string, error) {
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(5 * time.Millisecond)
			now.Add(-1)
			return "", nil
		})
		if err != nil || int(peak.Load()) > tt.want {
			t.Errorf("limit %d: %d calls at once (err %v), want at most %d", tt.limit, peak.Load(), err, tt.want)
		}
	}
}
