package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/kit"
	"github.com/agentadapter/agentadapter/registry"
)

func TestJSONTool(t *testing.T) {
	ro := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	type none struct{}
	echo := adapter.MustRawTool("echo", "", &jsonschema.Schema{Type: "object"}, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: "got " + string(args)}, &adapter.ImageContent{MIMEType: "image/png", Data: []byte("png")}}}, nil
	}, ro)
	fail := adapter.MustTool("fail", "", func(context.Context, none) (string, error) { return "", errors.New("the disk is full") }, ro)
	fault := adapter.MustTool("fault", "", func(context.Context, none) (string, error) {
		return "", &adapter.Error{Kind: adapter.KindConnection, Message: "the upstream is gone"}
	}, ro)
	held := adapter.MustTool("held", "", func(context.Context, none) (string, error) { return "ran", nil }, nil)
	story := storySpec()
	reg := registry.New()
	reg.MustRegister(echo, fail, fault, held, story)
	port := &adapter.Deferred{}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	holding := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}})
	defer holding.Close()
	ctx := context.Background()
	var holds []*kit.HeldCall
	errHeld := errors.New("interrupted")
	tool := func(s *adapter.Spec, hold bool) *kit.JSONTool {
		jt := &kit.JSONTool{Spec: s, Exec: exec, Integration: "myfw", Timeout: time.Minute}
		if s == held {
			jt.Exec = holding
		}
		if hold {
			jt.Hold = func(_ context.Context, h *kit.HeldCall) error { holds = append(holds, h); return errHeld }
		}
		return jt
	}
	call := &kit.JSONCall{Args: `{"a":1}`, CallID: "c1"}

	if text, err := tool(echo, true).Text(ctx, call); err != nil || !strings.HasPrefix(text, `got {"a":1}`) {
		t.Errorf("Text(echo) = %q, %v; want the rendered result", text, err)
	}
	if parts, err := tool(echo, true).Parts(ctx, call); err != nil || len(parts) != 2 || parts[1].Media == nil {
		t.Errorf("Parts(echo) = %+v, %v; want its text and image parts", parts, err)
	}
	want, _ := adapter.ModelPayload(&adapter.Error{Kind: adapter.KindToolError, Tool: "fail", CallID: "c1", Message: "the disk is full"})
	if text, err := tool(fail, true).Text(ctx, &kit.JSONCall{Args: `{}`, CallID: "c1"}); err != nil || text != want {
		t.Errorf("Text(fail) = %q, %v; want the payload %s", text, err, want)
	}
	if parts, err := tool(fail, true).Parts(ctx, &kit.JSONCall{Args: `{}`, CallID: "c1"}); err != nil || len(parts) != 1 || parts[0].Text != want {
		t.Errorf("Parts(fail) = %+v, %v; want the payload as one part", parts, err)
	}
	if _, err := tool(fault, true).Text(ctx, &kit.JSONCall{Args: `{}`}); adapter.KindOf(err) != adapter.KindConnection {
		t.Errorf("Text(fault) = %v; want the connection fault", err)
	}

	// Held: Hold gets the call, or, with no Hold, the model reads the payload.
	if _, err := tool(held, true).Text(ctx, &kit.JSONCall{Args: `{}`, CallID: "c2"}); err != errHeld || len(holds) != 1 ||
		holds[0].Ticket == "" || holds[0].Tool != "held" || holds[0].CallID != "c2" || holds[0].Args != `{}` {
		t.Fatalf("Text(held) = %v, holds %+v; want Hold's error and the held call", err, holds)
	}
	if text, err := tool(held, false).Text(ctx, &kit.JSONCall{Args: `{}`, CallID: "c3"}); err != nil || !strings.Contains(text, string(adapter.KindApprovalPending)) {
		t.Errorf("Text(held, no Hold) = %q, %v; want the approval_pending payload", text, err)
	}
	// The resumed call presents the approved ticket and runs.
	ticket := holds[0].Ticket
	if err := port.Approve(ctx, ticket, "test"); err != nil {
		t.Fatal(err)
	}
	if text, err := tool(held, true).Text(ctx, &kit.JSONCall{Args: `{}`, CallID: "c2", Ticket: ticket}); err != nil || text != "ran" {
		t.Errorf("Text(resumed) = %q, %v; want the approved call's result", text, err)
	}

	// Per-call options override the tool's.
	other := adapter.NewExecutor(registry.New(), nil)
	defer other.Close()
	if text, err := tool(held, true).Text(ctx, &kit.JSONCall{Args: `{}`, Options: &kit.CallOptions{Executor: other}}); err != nil || text != "ran" {
		t.Errorf("Text(held, another executor) = %q, %v; want the call run by the executor given", text, err)
	}

	s, payload, err := tool(story, true).Stream(ctx, &kit.JSONCall{Args: `{"words":["a","b"]}`})
	if err != nil || s == nil || payload != "" {
		t.Fatalf("Stream(story) = %v, %q, %v; want a stream", s, payload, err)
	}
	var got []string
	for text, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, text)
	}
	if strings.Join(got, "|") != "a|b" {
		t.Errorf("Stream(story) yields %q, want a, b", got)
	}
	if s, payload, err := tool(story, true).Stream(ctx, &kit.JSONCall{Args: `{"words":1}`}); err != nil || s != nil || !strings.Contains(payload, string(adapter.KindArgsInvalid)) {
		t.Errorf("Stream(bad args) = %v, %q, %v; want no stream and the args_invalid payload", s, payload, err)
	}
}
