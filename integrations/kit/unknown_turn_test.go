package kit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestAnswerUnknown(t *testing.T) {
	// "call:x" calls tool x; anything else is text. An answer is "re:x=payload".
	call := func(p string) *adapter.Request {
		if name, ok := strings.CutPrefix(p, "call:"); ok {
			return &adapter.Request{Tool: name, CallID: "id_" + name, Integration: "myfw"}
		}
		return nil
	}
	answer := func(p, payload string) string { return "re:" + p + "=" + payload }
	known := func(n string) bool { return n == "real" }
	nf, _ := adapter.ModelPayload(adapter.UnknownTool("a"))
	nfB, _ := adapter.ModelPayload(adapter.UnknownTool("b"))
	for _, tt := range []struct {
		parts                []string
		ok                   bool
		asked, answers, rest string
		again                bool
	}{
		{nil, false, "[]", "[]", "[]", false},
		{[]string{"hi", "call:real"}, false, "[]", "[]", "[]", false},
		{[]string{"hi", "call:a", "call:real"}, true, "[call:a]", "[re:call:a=" + nf + "]", "[hi call:real]", false},
		{[]string{"hi", "call:a", "call:b"}, true, "[hi call:a call:b]", "[re:call:a=" + nf + " re:call:b=" + nfB + "]", "[]", true},
	} {
		turn, ok := kit.AnswerUnknown(context.Background(), nil, tt.parts, known, call, answer)
		if ok != tt.ok || fmt.Sprint(turn.Asked) != tt.asked || fmt.Sprint(turn.Answers) != tt.answers || fmt.Sprint(turn.Rest) != tt.rest || turn.Again != tt.again {
			t.Errorf("AnswerUnknown(%q) = %+v, %v;\nwant asked %s, answers %s, rest %s, again %v, %v", tt.parts, turn, ok, tt.asked, tt.answers, tt.rest, tt.again, tt.ok)
		}
	}
}

// TestAnswerUnknownRecords: each unknown call has one ledger record, with
// the request call made.
func TestAnswerUnknownRecords(t *testing.T) {
	led := adapter.NewMemoryLedger(10)
	exec := adapter.NewExecutor(registry.New(), &adapter.ExecutorOptions{Ledger: led})
	defer exec.Close()
	ctx := context.Background()
	call := func(p string) *adapter.Request {
		return &adapter.Request{Tool: p, CallID: "id_" + p, Integration: "myfw"}
	}
	if _, ok := kit.AnswerUnknown(ctx, exec, []string{"made_up", "real"}, func(n string) bool { return n == "real" }, call, func(p, _ string) string { return p }); !ok {
		t.Fatal("AnswerUnknown found no unknown call")
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	recs := led.Records()
	if len(recs) != 1 || recs[0].Tool != "made_up" || recs[0].CallID != "id_made_up" || recs[0].Integration != "myfw" || recs[0].Outcome != string(adapter.KindNotFound) {
		t.Errorf("records %+v; want one not_found record of made_up, call id_made_up, by myfw", recs)
	}
}
