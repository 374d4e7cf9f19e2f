package kit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestLoop(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name      string
		maxTurns  int
		calls     [][]string // the tool calls of each reply; past the end, none
		turnErr   int        // the turn that fails (1-based); 0: none
		answerErr bool
		want      string
		wantErr   error
	}{
		{"no tools", 0, nil, 0, false, "[hi r1]", nil},
		{"two rounds", 0, [][]string{{"a", "b"}, {"c"}}, 0, false, "[hi r1 ans:a ans:b r2 ans:c r3]", nil},
		{"turn fails", 0, [][]string{{"a"}}, 2, false, "[hi r1 ans:a]", boom},
		{"answer fails", 0, [][]string{{"a"}}, 0, true, "[hi r1 ans:a]", boom},
		{"turn limit", 2, [][]string{{"a"}, {"b"}, {"c"}}, 0, false, "[hi r1 ans:a r2 ans:b]", kit.ErrMaxTurns},
	} {
		t.Run(tt.name, func(t *testing.T) {
			turns := 0
			var runs []*adapter.Run
			conv, err := kit.Loop(context.Background(), tt.maxTurns, []string{"hi"}, func(ctx context.Context, conv []string) (string, []string, error) {
				turns++
				runs = append(runs, adapter.RunFromContext(ctx))
				if turns == tt.turnErr {
					return "", nil, boom
				}
				var calls []string
				if turns <= len(tt.calls) {
					calls = tt.calls[turns-1]
				}
				return fmt.Sprintf("r%d", turns), calls, nil
			}, func(ctx context.Context, calls []string) ([]string, error) {
				var out []string
				for _, c := range calls {
					out = append(out, "ans:"+c)
				}
				if tt.answerErr {
					return out, boom
				}
				return out, nil
			})
			if fmt.Sprint(conv) != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Loop = %v, %v; want %s, %v", conv, err, tt.want, tt.wantErr)
			}
			for _, r := range runs {
				if r == nil || r != runs[0] {
					t.Fatal("the turns did not share one run scope")
				}
			}
		})
	}

	turns := 0
	_, err := kit.Loop(context.Background(), 0, nil, func(context.Context, []string) (string, []string, error) {
		turns++
		return "r", []string{"x"}, nil
	}, func(context.Context, []string) ([]string, error) { return nil, nil })
	if !errors.Is(err, kit.ErrMaxTurns) || turns != kit.DefaultMaxTurns {
		t.Errorf("Loop(maxTurns 0) ran %d turns (%v), want DefaultMaxTurns, then ErrMaxTurns", turns, err)
	}

	ctx, own := adapter.WithRun(context.Background(), nil)
	kit.Loop(ctx, 1, []string(nil), func(ctx context.Context, _ []string) (string, []string, error) {
		if adapter.RunFromContext(ctx) != own {
			t.Error("Loop replaced the caller's run scope")
		}
		return "", nil, nil
	}, func(context.Context, []string) ([]string, error) { return nil, nil })
}
