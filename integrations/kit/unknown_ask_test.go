package kit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
)

func TestAskKnown(t *testing.T) {
	call := func(p string) *adapter.Request {
		if name, ok := strings.CutPrefix(p, "call:"); ok {
			return &adapter.Request{Tool: name}
		}
		return nil
	}
	answer := func(p, _ string) string { return "re:" + p }
	known := func(n string) bool { return n == "real" }
	boom := errors.New("boom")
	made := make([][]string, kit.UnknownRounds+1)
	for i := range made {
		made[i] = []string{"call:made_up"}
	}
	for _, tt := range []struct {
		name     string
		turns    [][]string // what the model says, turn by turn; past the end it says nothing (not ok)
		err      error      // ask's error on the last turn
		asks     int
		rest     string
		answered bool
		history  string
	}{
		{"a real call", [][]string{{"hi", "call:real"}}, nil, 1, "[]", false, ""},
		{"no message", nil, nil, 1, "[]", false, ""},
		{"an error", [][]string{{"call:made_up"}}, boom, 1, "[]", false, ""},
		{"made up beside a real call", [][]string{{"call:made_up", "call:real"}}, nil, 1, "[call:real]", true, "[call:made_up]>[re:call:made_up] "},
		{"made up, then a real call", [][]string{{"call:made_up"}, {"call:real"}}, nil, 2, "[]", false, "[call:made_up]>[re:call:made_up] "},
		{"made up, then the answer", [][]string{{"call:made_up"}, {"text"}}, nil, 2, "[]", false, "[call:made_up]>[re:call:made_up] "},
		{"made up, then an error", [][]string{{"call:made_up"}, {"call:real"}}, boom, 2, "[]", false, "[call:made_up]>[re:call:made_up] "},
		{"made up for good", made, nil, kit.UnknownRounds + 1, "[]", false, strings.Repeat("[call:made_up]>[re:call:made_up] ", kit.UnknownRounds)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asks int
			var history strings.Builder
			rest, answered, err := kit.AskKnown(context.Background(), nil, known, call, answer, func(context.Context) ([]string, bool, error) {
				asks++
				if asks == len(tt.turns) && tt.err != nil {
					return nil, false, tt.err
				}
				if asks > len(tt.turns) {
					return nil, false, nil
				}
				return tt.turns[asks-1], true, nil
			}, func(asked, answers []string) { fmt.Fprintf(&history, "%v>%v ", asked, answers) })
			if err != tt.err || asks != tt.asks || fmt.Sprint(rest) != tt.rest || answered != tt.answered || history.String() != tt.history {
				t.Errorf("AskKnown = %v, %v, %v after %d asks, history %q;\nwant %s, %v, %v after %d, history %q", rest, answered, err, asks, history.String(), tt.rest, tt.answered, tt.err, tt.asks, tt.history)
			}
		})
	}
}
