package anthropicadapter_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
)

// resultIDs are the tool_use ids the results of request n answer, in order.
func resultIDs(api *fakeAPI, n int) []string {
	var ids []string
	for _, r := range results(&api.requests()[n]) {
		ids = append(ids, r.ToolUseID)
	}
	return ids
}

func block(u anthropic.BetaToolUseBlockParam) anthropic.BetaContentBlockParamUnion {
	return anthropic.BetaContentBlockParamUnion{OfToolUse: &u}
}

// seam is the block a fallback middleware puts between a refused attempt and the next.
func seam() anthropic.BetaContentBlockParamUnion {
	return anthropic.BetaContentBlockParamUnion{OfFallback: &anthropic.BetaFallbackBlockParam{
		From: anthropic.BetaFallbackInfoParam{Model: "claude-a"}, To: anthropic.BetaFallbackInfoParam{Model: "claude-b"},
		Trigger: map[string]any{"type": "refusal"},
	}}
}

// TestFallbackSeam: the calls of a refused attempt, before the turn's last
// fallback block, are not run, held or answered, on Run's own path (a
// made-up name after the seam) as on the SDK runner's: the runner answers
// only those after it (betatoolrunner.go unansweredToolCalls).
func TestFallbackSeam(t *testing.T) {
	for _, madeUp := range []bool{true, false} {
		var echoes, deletes atomic.Int32
		f := newFixture(t, nil, echoSpec(&echoes), deleteSpec(&deletes))
		after := []anthropic.BetaContentBlockParamUnion{block(use("toolu_e", "echo", `{"n":2}`))}
		want := []string{"toolu_e"}
		if madeUp {
			after = append([]anthropic.BetaContentBlockParamUnion{block(use("toolu_x", "made_up", `{}`))}, after...)
			want = append([]string{"toolu_x"}, want...)
		}
		blocks := append([]anthropic.BetaContentBlockParamUnion{
			block(use("toolu_pre_d", "delete", `{"path":"/tmp/a"}`)), block(use("toolu_pre_e", "echo", `{"n":1}`)), seam(),
		}, after...)
		api := newFakeAPI(t, func(n int, _ *anthropic.BetaMessageNewParams) turn {
			if n == 0 {
				return turn{blocks: blocks}
			}
			return turn{text: "done"}
		})
		c := api.client()
		msg, err := f.tools.Run(context.Background(), &c.Beta.Messages, ask("go"))
		if err != nil || msg.Content[0].Text != "done" {
			t.Fatalf("made-up %v: the run ended with %v, %v; want the model's done", madeUp, msg, err)
		}
		if got := resultIDs(api, 1); !slices.Equal(got, want) {
			t.Errorf("made-up %v: the results answer %q, want %q", madeUp, got, want)
		}
		if echoes.Load() != 1 || deletes.Load() != 0 {
			t.Errorf("made-up %v: %d echoes, %d deletes; want 1, 0", madeUp, echoes.Load(), deletes.Load())
		}
		for tk, err := range f.port.Pending(context.Background()) {
			t.Errorf("made-up %v: a refused attempt's call awaits approval: %+v, %v", madeUp, tk, err)
		}
	}
}

// TestResumeChecksAll: a Held one of whose calls cannot be resumed (its tool
// gone, or no result for its call id) runs none of them: the approved
// ticket is not spent, and the Held resumes once it is whole.
func TestResumeChecksAll(t *testing.T) {
	var echoes, deletes atomic.Int32
	f := newFixture(t, nil, echoSpec(&echoes), deleteSpec(&deletes))
	api := newFakeAPI(t, script(calls(use("toolu_d", "delete", `{"path":"/tmp/a"}`), use("toolu_d2", "delete", `{"path":"/tmp/b"}`))))
	c := api.client()
	ctx := context.Background()
	_, err := f.tools.Run(ctx, &c.Beta.Messages, ask("go"))
	var held *anthropicadapter.Held
	if !errors.As(err, &held) || len(held.Calls) != 2 {
		t.Fatalf("the run ended with %v, want two held calls", err)
	}
	if err := f.port.Approve(ctx, held.Calls[0].Ticket, "me"); err != nil {
		t.Fatal(err)
	}
	for name, broken := range map[string]func(h *anthropicadapter.Held){
		"no tool":   func(h *anthropicadapter.Held) { h.Calls[1].Tool = "gone" },
		"no result": func(h *anthropicadapter.Held) { h.Calls[1].CallID = "toolu_other" },
	} {
		h := *held
		h.Calls = slices.Clone(held.Calls)
		broken(&h)
		if _, err := f.tools.Resume(ctx, &c.Beta.Messages, ask("go"), &h); err == nil {
			t.Errorf("%s: Resume went on", name)
		}
		if tk, err := f.port.Ticket(ctx, held.Calls[0].Ticket); err != nil || tk.State != approval.TicketApproved {
			t.Errorf("%s: the approved ticket is %v (%v); want it approved, not spent", name, tk.State, err)
		}
	}
	if deletes.Load() != 0 || len(api.requests()) != 1 {
		t.Fatalf("a Resume that failed ran %d calls or asked the model (%d requests)", deletes.Load(), len(api.requests()))
	}
	_, err = f.tools.Resume(ctx, &c.Beta.Messages, ask("go"), held)
	var again *anthropicadapter.Held
	if !errors.As(err, &again) || len(again.Calls) != 1 || again.Calls[0].CallID != "toolu_d2" {
		t.Fatalf("the whole Held resumed with %v, want toolu_d2 held again", err)
	}
	if text, _, _ := read(t, results(&anthropic.BetaMessageNewParams{Messages: again.Messages})[0]); text != "deleted /tmp/a" || deletes.Load() != 1 {
		t.Errorf("the approved call read %q after %d runs, want it run once", text, deletes.Load())
	}
}

// TestFaultKeepsConversation: a fault stops the run with a *Fault that
// keeps the conversation and the call held in the same turn; it is no
// *Held, and Resume goes on from its Held once the call is approved.
func TestFaultKeepsConversation(t *testing.T) {
	var echoes, deletes atomic.Int32
	fault := adapter.MustTool("upstream", "breaks", func(context.Context, num) (string, error) {
		return "", &adapter.Error{Kind: adapter.KindConnection, Message: "the upstream is gone"}
	}, &adapter.ToolOptions{Annotations: closed})
	f := newFixture(t, nil, echoSpec(&echoes), deleteSpec(&deletes), fault)
	api := newFakeAPI(t, script(calls(use("toolu_e", "echo", `{"n":1}`), use("toolu_f", "upstream", `{"n":1}`), use("toolu_d", "delete", `{"path":"/tmp/a"}`))))
	c := api.client()
	ctx := context.Background()
	_, err := f.tools.Run(ctx, &c.Beta.Messages, ask("go"))
	var fe *anthropicadapter.Fault
	if !errors.As(err, &fe) || adapter.KindOf(err) != adapter.KindConnection || fe.Held == nil {
		t.Fatalf("the run ended with %v, want a *Fault of the connection fault", err)
	}
	var held *anthropicadapter.Held
	if errors.As(err, &held) {
		t.Error("a fault reads as calls held for approval")
	}
	if len(fe.Held.Calls) != 1 || fe.Held.Calls[0].CallID != "toolu_d" {
		t.Fatalf("the fault kept the held calls %+v, want toolu_d's", fe.Held.Calls)
	}
	got := results(&anthropic.BetaMessageNewParams{Messages: fe.Held.Messages})
	if len(got) != 3 || got[0].ToolUseID != "toolu_e" || !got[1].IsError.Value {
		t.Fatalf("the fault kept the results %+v, want the turn's three, the fault's an error", got)
	}
	if err := f.port.Approve(ctx, fe.Held.Calls[0].Ticket, "me"); err != nil {
		t.Fatal(err)
	}
	if msg, err := f.tools.Resume(ctx, &c.Beta.Messages, ask("go"), fe.Held); err != nil || msg.Content[0].Text != "done" {
		t.Fatalf("Resume ended with %v, %v", msg, err)
	}
	if text, isErr := resultOf(t, api, 1, "toolu_d"); isErr || text != "deleted /tmp/a" {
		t.Errorf("the approved call read %q (is_error %v)", text, isErr)
	}
	if text, _ := resultOf(t, api, 1, "toolu_e"); text != "n=1" || deletes.Load() != 1 || echoes.Load() != 1 {
		t.Errorf("echo read %q; %d deletes, %d echoes; want n=1, 1, 1", text, deletes.Load(), echoes.Load())
	}
}

// TestLedgerCallIDs: the ledger records a call under the model's tool_use
// id, on the SDK runner's path (calls alike included) and on Run's own.
func TestLedgerCallIDs(t *testing.T) {
	var echoes atomic.Int32
	f := newFixture(t, nil, echoSpec(&echoes))
	api := newFakeAPI(t, script(
		calls(use("toolu_a", "echo", `{"n":1}`), use("toolu_b", "echo", `{ "n" : 2 }`), use("toolu_c", "echo", `{"n":1}`)),
		calls(use("toolu_x", "made_up", `{}`), use("toolu_d", "echo", `{"n":3}`)),
	))
	c := api.client()
	if _, err := f.tools.Run(context.Background(), &c.Beta.Messages, ask("go")); err != nil {
		t.Fatal(err)
	}
	if err := f.exec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.led.Records() {
		got = append(got, r.Tool+" "+r.CallID)
		if r.CallID == "toolu_b" && !strings.Contains(string(r.Args), "2") {
			t.Errorf("toolu_b recorded with the arguments %s", r.Args)
		}
	}
	slices.Sort(got)
	if want := []string{"echo toolu_a", "echo toolu_b", "echo toolu_c", "echo toolu_d", "made_up toolu_x"}; !slices.Equal(got, want) {
		t.Errorf("the ledger recorded %q, want %q", got, want)
	}
}

// TestNestedRunner: a tool whose handler runs an SDK runner of its own on
// the toolset, with the context it got, is not part of the outer
// conversation: the inner held call reads as its payload there, and the
// outer run goes on.
func TestNestedRunner(t *testing.T) {
	var echoes, deletes atomic.Int32
	var f *fixture
	var c anthropic.Client
	research := adapter.MustTool("research", "asks a model", func(ctx context.Context, _ num) (string, error) {
		p := ask("inner")
		msg, err := c.Beta.Messages.NewToolRunner(f.tools.BetaTools(), p).RunToCompletion(ctx)
		if err != nil {
			return "", err
		}
		return msg.Content[0].Text, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText, Annotations: closed})
	f = newFixture(t, nil, echoSpec(&echoes), deleteSpec(&deletes), research)
	api := newFakeAPI(t, func(n int, req *anthropic.BetaMessageNewParams) turn {
		switch q := req.Messages[0].OfUser.Content[0].OfText.Text; {
		case len(req.Messages) > 1:
			return turn{text: q + " done"}
		case q == "inner":
			return turn{calls: calls(use("toolu_in_d", "delete", `{"path":"/tmp/a"}`), use("toolu_in_e", "echo", `{"n":5}`))}
		}
		return turn{calls: calls(use("toolu_r", "research", `{"n":1}`))}
	})
	c = api.client()
	msg, err := f.tools.Run(context.Background(), &c.Beta.Messages, ask("outer"))
	if err != nil || msg.Content[0].Text != "outer done" {
		t.Fatalf("the outer run ended with %v, %v; want outer done", msg, err)
	}
	var inner, outer *anthropic.BetaToolResultBlockParam
	for _, req := range api.requests() {
		for _, r := range results(&req) {
			switch r.ToolUseID {
			case "toolu_in_d":
				inner = r
			case "toolu_r":
				outer = r
			}
		}
	}
	if inner == nil || outer == nil {
		t.Fatal("the model never read the inner delete's result or the outer research's")
	}
	if text, isErr, _ := read(t, inner); !isErr || !strings.Contains(text, `"kind":"approval_pending"`) {
		t.Errorf("the inner held call read %q (is_error %v), want its approval_pending payload", text, isErr)
	}
	if text, _, _ := read(t, outer); text != "inner done" || deletes.Load() != 0 || echoes.Load() != 1 {
		t.Errorf("research read %q; %d deletes, %d echoes; want inner done, 0, 1", text, deletes.Load(), echoes.Load())
	}
}

// TestHeldThreadRetries: on a message thread with the SDK's default retries,
// a held call stops the run before the next request, once, and resumes.
func TestHeldThreadRetries(t *testing.T) {
	var echoes, deletes atomic.Int32
	f := newFixture(t, nil, echoSpec(&echoes), deleteSpec(&deletes))
	api := newFakeAPI(t, script(calls(use("toolu_e", "echo", `{"n":1}`), use("toolu_d", "delete", `{"path":"/tmp/a"}`))))
	c := anthropic.NewClient(option.WithBaseURL(api.srv.URL), option.WithHTTPClient(api.srv.Client()), option.WithAPIKey("test"))
	p := ask("go")
	p.DisableThread = false
	_, err := f.tools.Run(context.Background(), &c.Beta.Messages, p)
	var held *anthropicadapter.Held
	if !errors.As(err, &held) || len(held.Calls) != 1 || len(api.requests()) != 1 {
		t.Fatalf("the run ended with %v after %d requests, want one held call after one", err, len(api.requests()))
	}
	if err := f.port.Approve(context.Background(), held.Calls[0].Ticket, "me"); err != nil {
		t.Fatal(err)
	}
	msg, err := f.tools.Resume(context.Background(), &c.Beta.Messages, p, held)
	if err != nil || msg.Content[0].Text != "done" || deletes.Load() != 1 || len(api.requests()) != 2 {
		t.Errorf("Resume ended with %v, %v after %d requests and %d deletes; want done after 2 and 1", msg, err, len(api.requests()), deletes.Load())
	}
}
